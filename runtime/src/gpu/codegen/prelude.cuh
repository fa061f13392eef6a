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


// ---------------------------------------------------------------- thread-block clusters

/// The CTA's rank in its cluster (`%cluster_ctarank`).
__device__ __forceinline__ int cluster_rank() {
    ws::u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return int(r);
}

/// CTAs per cluster (`%cluster_nctarank`).
__device__ __forceinline__ int cluster_size() {
    ws::u32 r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return int(r);
}

/// The cluster's index in the grid per axis (`%clusterid`) and the grid's clusters per axis
/// (`%nclusterid`).
__device__ __forceinline__ uint3 cluster_id() {
    uint3 c;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(c.x));
    asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(c.y));
    asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(c.z));
    return c;
}
__device__ __forceinline__ uint3 cluster_count() {
    uint3 c;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(c.x));
    asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(c.y));
    asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(c.z));
    return c;
}

/// The cluster's linear index in the grid (x fastest) and the grid's clusters: the start
/// and stride of a static round-robin persistent schedule.
__device__ __forceinline__ int cluster_linear() {
    const uint3 c = cluster_id(), n = cluster_count();
    return int(c.x + n.x * (c.y + n.y * c.z));
}
__device__ __forceinline__ int clusters_total() {
    const uint3 n = cluster_count();
    return int(n.x * n.y * n.z);
}

/// The cluster barrier over every non-exited thread of every CTA of the cluster: arrive
/// with release semantics (this thread's writes, and the mbarrier inits a
/// `fence.mbarrier_init` ordered, become visible to the cluster), then wait with acquire.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

/// Arrives once on the mbarrier at `bar`'s offset in the shared memory of cluster CTA
/// `rank` (`mapa` into the cluster window, then an arrive with the default semantics,
/// release at CTA scope). A consumer releasing a stage has finished reading it (its
/// `wgmma` wait retired the reads) and publishes no writes to the peer, so nothing needs
/// a release at cluster scope, which costs a cluster-wide fence on every k-step.
__device__ __forceinline__ void mbar_arrive_remote(ws::u64* bar, ws::u32 rank) {
    asm volatile(
        "{\n\t.reg .b32 remote;\n\t"
        "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(ws::smem_addr(bar)),
        "r"(rank)
        : "memory");
}

/// Arrives on `bar` in every cluster CTA whose bit is set in `mask`.
__device__ __forceinline__ void mbar_arrive_cluster(ws::u64* bar, ws::u32 mask) {
    for (ws::u32 rank = 0; mask != 0u; ++rank, mask >>= 1)
        if (mask & 1u) mbar_arrive_remote(bar, rank);
}

/// 2D to 4D tile loads global -> shared delivered to the same shared offset of every
/// cluster CTA in `mask`, each completing the box's bytes on the mbarrier at `bar`'s offset
/// in that CTA.
__device__ __forceinline__ void tma_load_multicast_2d(void* dst, const ws::TensorMap* map, ws::u64* bar,
                                                      ws::u16 mask, ws::i32 c0, ws::i32 c1) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%4, %5}], [%2], %3;", "r"(ws::smem_addr(dst)),
        "l"((ws::u64)map), "r"(ws::smem_addr(bar)), "h"(mask), "r"(c0), "r"(c1));
}
__device__ __forceinline__ void tma_load_multicast_3d(void* dst, const ws::TensorMap* map, ws::u64* bar,
                                                      ws::u16 mask, ws::i32 c0, ws::i32 c1, ws::i32 c2) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%4, %5, %6}], [%2], %3;", "r"(ws::smem_addr(dst)),
        "l"((ws::u64)map), "r"(ws::smem_addr(bar)), "h"(mask), "r"(c0), "r"(c1), "r"(c2));
}
__device__ __forceinline__ void tma_load_multicast_4d(void* dst, const ws::TensorMap* map, ws::u64* bar,
                                                      ws::u16 mask, ws::i32 c0, ws::i32 c1, ws::i32 c2,
                                                      ws::i32 c3) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%4, %5, %6, %7}], [%2], %3;", "r"(ws::smem_addr(dst)),
        "l"((ws::u64)map), "r"(ws::smem_addr(bar)), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}

// ---------------------------------------------------------------- epilogue through shared memory

/// Byte offset of (row, byte) in a tile of `ROW_BYTES`-byte rows (64 or 128) laid out with
/// TMA's matching swizzle: the 16-byte chunk index XORed with address bits 7-9 (128-byte
/// rows: row % 8) or 7-8 (64-byte rows: (row / 2) % 4). The tile starts 1024-byte aligned.
template <int ROW_BYTES>
__device__ __forceinline__ ws::u32 swizzled(ws::u32 row, ws::u32 byte) {
    const ws::u32 xr = ROW_BYTES == 128 ? (row & 7u) : ((row >> 1) & 3u);
    return row * ROW_BYTES + ((((byte >> 4) ^ xr) << 4) | (byte & 15u));
}

/// Stores a fragment into rows `row0..` of a shared tile of `ROWS` rows, in the layout a TMA
/// store of the tile reads: column panels of `PANEL_COLS` columns (`ROW_BYTES` bytes per
/// row, swizzled), `ROWS * ROW_BYTES` bytes apart. `Out` is `float`, `Bf16` or `F16`.
template <typename Out, int ROWS, int PANEL_COLS, int ROW_BYTES, int MB, int NH>
__device__ __forceinline__ void store_frag_smem(const float (&d)[MB][NH], unsigned char* tile, int row0) {
    const ws::u32 r0 = ws::u32(row0) + ws::acc_row(0), c0 = ws::acc_col(0);
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
        for (int i = 0; i < NH; i += 2) {
            const ws::u32 r = r0 + ws::u32(mb * 64 + 8 * ((i >> 1) & 1));
            const ws::u32 c = c0 + ws::u32(8 * (i >> 2));
            const ws::u32 panel = c / PANEL_COLS, col = c % PANEL_COLS;
            unsigned char* p = tile + panel * (ROWS * ROW_BYTES) + swizzled<ROW_BYTES>(r, col * sizeof(Out));
            if constexpr (sizeof(Out) == 4) {
                *reinterpret_cast<float2*>(p) = make_float2(d[mb][i], d[mb][i + 1]);
            } else {
                *reinterpret_cast<ws::u32*>(p) = Out::f16 ? ws::pack_f16x2(d[mb][i], d[mb][i + 1])
                                                         : ws::pack_bf16x2(d[mb][i], d[mb][i + 1]);
            }
        }
}

}  // namespace wsg
