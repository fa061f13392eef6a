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

/// Stores a fragment at (r0, c0) of a row-major `rows x cols` f32 tensor, clipped to it.
template <int MB, int NH>
__device__ __forceinline__ void store_acc(const float (&d)[MB][NH], float* out, int rows, int cols, int r0, int c0) {
    const bool pairs = ((cols | c0) & 1) == 0;
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int i = 0; i < NH; i += 2) {
            const int r = r0 + mb * 64 + int(ws::acc_row(i));
            const int c = c0 + int(ws::acc_col(i));
            if (r >= rows) continue;
            float* p = out + ws::u64(r) * ws::u64(cols) + c;
            if (pairs && c + 1 < cols) {
                *reinterpret_cast<float2*>(p) = make_float2(d[mb][i], d[mb][i + 1]);
            } else {
                if (c < cols) p[0] = d[mb][i];
                if (c + 1 < cols) p[1] = d[mb][i + 1];
            }
        }
}

}  // namespace wsg
