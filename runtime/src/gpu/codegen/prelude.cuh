// warpspec generated-code helpers (namespace wsg), after the device library.
namespace wsg {

/// Ceiling division of non-negative integers.
__device__ __forceinline__ int div_ceil(int a, int b) { return (a + b - 1) / b; }

/// A pipeline endpoint's position: the stage it uses next and the phase parity of that use.
struct PipeState {
    ws::u32 index;
    ws::u32 phase;
    __device__ __forceinline__ void advance(ws::u32 stages) {
        if (++index == stages) {
            index = 0;
            phase ^= 1u;
        }
    }
};

/// wgmma shared-memory matrix descriptor: start address, leading and stride byte offsets,
/// layout (1: 128-byte swizzle, 2: 64-byte swizzle).
__device__ __forceinline__ ws::u64 desc(const void* p, ws::u32 lbo, ws::u32 sbo, ws::u32 layout) {
    ws::u64 d = (ws::u64(ws::smem_addr(p)) & 0x3FFFFull) >> 4;
    d |= ws::u64((lbo >> 4) & 0x3FFFu) << 16;
    d |= ws::u64((sbo >> 4) & 0x3FFFu) << 32;
    d |= ws::u64(layout) << 62;
    return d;
}

/// Fills a fragment (64-row blocks of wgmma accumulators).
template <int MB, int NH>
__device__ __forceinline__ void fill(float (&d)[MB][NH], float v) {
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
        for (int j = 0; j < NH; ++j) d[i][j] = v;
}

/// Pins a fragment's registers around wgmma fences and waits.
template <int MB, int NH>
__device__ __forceinline__ void fence(float (&d)[MB][NH]) {
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
        for (int j = 0; j < NH; ++j) ws::fence_operand(d[i][j]);
}

/// Pins a `wgmma` register operand (packed A fragments) until the wait that retires it.
template <int KS, int Q>
__device__ __forceinline__ void fence(ws::u32 (&a)[KS][Q]) {
#pragma unroll
    for (int i = 0; i < KS; ++i)
#pragma unroll
        for (int j = 0; j < Q; ++j) asm volatile("" : "+r"(a[i][j])::"memory");
}

/// Copies a fragment or a row vector (`dst = src`).
template <int A, int B>
__device__ __forceinline__ void copy(float (&dst)[A][B], const float (&src)[A][B]) {
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
        for (int j = 0; j < B; ++j) dst[i][j] = src[i][j];
}

/// `-inf` and `+inf` as f32.
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float pos_inf() { return __int_as_float(0x7f800000); }

/// `exp2(x)` on the MUFU pipe (`ex2.approx.ftz.f32`: relative error about 2^-22, `exp2(-inf)
/// = +0`), as attention kernels compute it.
__device__ __forceinline__ float exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/// `x` rounded to the nearest bf16 / f16 (ties to even), kept as f32.
__device__ __forceinline__ float round_bf16(float x) { return __uint_as_float(ws::pack_bf16x2(x, 0.0f) << 16); }
__device__ __forceinline__ float round_f16(float x) {
    unsigned short h;
    float y;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(h));
    return y;
}

/// The two rows of 64-row block `mb` this thread holds: element `i` of the accumulator is
/// in row half `(i / 2) % 2`.
__device__ __forceinline__ int row_half(int i) { return (i >> 1) & 1; }

/// Reduces a fragment's rows into a row vector with `f` (from `init`): over the thread's
/// elements of each row, then across the four lanes of the quad that holds the row.
template <int MB, int NH, typename F>
__device__ __forceinline__ void row_reduce(const float (&d)[MB][NH], float (&out)[MB][2], float init, F f) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb) {
        float h[2] = {init, init};
#pragma unroll
        for (int i = 0; i < NH; ++i) h[row_half(i)] = f(h[row_half(i)], d[mb][i]);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            h[r] = f(h[r], __shfl_xor_sync(0xffffffffu, h[r], 1));
            out[mb][r] = f(h[r], __shfl_xor_sync(0xffffffffu, h[r], 2));
        }
    }
}

/// Row maxima / sums of a fragment.
template <int MB, int NH>
__device__ __forceinline__ void row_max(const float (&d)[MB][NH], float (&out)[MB][2]) {
    row_reduce(d, out, neg_inf(), [](float a, float b) { return fmaxf(a, b); });
}
template <int MB, int NH>
__device__ __forceinline__ void row_sum(const float (&d)[MB][NH], float (&out)[MB][2]) {
    row_reduce(d, out, 0.0f, [](float a, float b) { return a + b; });
}

/// `x = f(x, rows[row of x])` over a fragment.
template <int MB, int NH, typename F>
__device__ __forceinline__ void zip_rows(float (&d)[MB][NH], const float (&rows)[MB][2], F f) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int i = 0; i < NH; ++i) d[mb][i] = f(d[mb][i], rows[mb][row_half(i)]);
}

/// `x = f(x)` over a fragment or row vector.
template <int A, int B, typename F>
__device__ __forceinline__ void map(float (&d)[A][B], F f) {
#pragma unroll
    for (int i = 0; i < A; ++i)
#pragma unroll
        for (int j = 0; j < B; ++j) d[i][j] = f(d[i][j]);
}

/// `out = f(a, b)` element-wise over row vectors.
template <int MB, typename F>
__device__ __forceinline__ void rows_zip(const float (&a)[MB][2], const float (&b)[MB][2], float (&out)[MB][2], F f) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int h = 0; h < 2; ++h) out[mb][h] = f(a[mb][h], b[mb][h]);
}

/// `out = a * b + c` element-wise over row vectors.
template <int MB>
__device__ __forceinline__ void rows_fma(const float (&a)[MB][2], const float (&b)[MB][2], const float (&c)[MB][2],
                                         float (&out)[MB][2]) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int h = 0; h < 2; ++h) out[mb][h] = a[mb][h] * b[mb][h] + c[mb][h];
}

/// A 16-bit element in global memory: its bits, and whether it is f16 (else bf16).
template <bool F16>
struct Half {
    static constexpr bool f16 = F16;
    unsigned short bits;
};
using Bf16 = Half<false>;
using F16 = Half<true>;

/// Stores a fragment at (r0, c0) of the row-major `rows x cols` matrix at `out`, clipped to
/// it, as `Out` (f32, or bf16 / f16 given as `unsigned short`, rounded to nearest even).
template <typename Out, int MB, int NH>
__device__ __forceinline__ void store_frag(const float (&d)[MB][NH], Out* out, int rows, int cols, int r0, int c0) {
    const bool pairs = ((cols | c0) & 1) == 0;
    // Element 0's place, once (the warp index behind it is a shuffle).
    const int row0 = r0 + int(ws::acc_row(0)), col0 = c0 + int(ws::acc_col(0));
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int i = 0; i < NH; i += 2) {
            const int r = row0 + mb * 64 + 8 * ((i >> 1) & 1);
            const int c = col0 + 8 * (i >> 2);
            if (r >= rows) continue;
            Out* p = out + ws::u64(r) * ws::u64(cols) + c;
            if constexpr (sizeof(Out) == 4) {
                if (pairs && c + 1 < cols) {
                    *reinterpret_cast<float2*>(p) = make_float2(d[mb][i], d[mb][i + 1]);
                } else {
                    if (c < cols) p[0] = d[mb][i];
                    if (c + 1 < cols) p[1] = d[mb][i + 1];
                }
            } else {
                const ws::u32 two = Out::f16 ? ws::pack_f16x2(d[mb][i], d[mb][i + 1])
                                             : ws::pack_bf16x2(d[mb][i], d[mb][i + 1]);
                if (pairs && c + 1 < cols) {
                    *reinterpret_cast<ws::u32*>(p) = two;
                } else {
                    if (c < cols) p[0].bits = (unsigned short)(two & 0xffffu);
                    if (c + 1 < cols) p[1].bits = (unsigned short)(two >> 16);
                }
            }
        }
}

}  // namespace wsg
