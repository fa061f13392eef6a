// warpspec device library: inline-PTX wrappers for Hopper (sm_90a) and Blackwell (sm_100a).
//
// Self-contained (no system or CUDA headers), so NVRTC compiles it without include paths.
// Every wrapper is one PTX instruction or a short fixed sequence; names follow the PTX ISA.
// Generated code includes this header once, then the wgmma variants that
// `warpspec::gpu::device_lib` appends (see docs/cuda.md).
#pragma once

namespace ws {

typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;

// ---------------------------------------------------------------- addresses and indices

/// 32-bit shared-window address of a generic pointer into shared memory.
__device__ __forceinline__ u32 smem_addr(const void* p) {
    u64 a;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
    return (u32)a;
}

/// Lane within the warp (0..31).
__device__ __forceinline__ u32 lane_idx() { return threadIdx.x & 31u; }

/// Warp within the CTA, made warp-uniform so the compiler can branch on it without divergence.
__device__ __forceinline__ u32 warp_idx() {
    return __shfl_sync(0xffffffffu, threadIdx.x >> 5, 0);
}

/// Warpgroup (4 consecutive warps, 128 threads) within the CTA.
__device__ __forceinline__ u32 warpgroup_idx() { return warp_idx() >> 2; }

/// Warp within its warpgroup (0..3).
__device__ __forceinline__ u32 warp_in_warpgroup() { return warp_idx() & 3u; }

/// Thread within its warpgroup (0..127).
__device__ __forceinline__ u32 thread_in_warpgroup() { return threadIdx.x & 127u; }

/// `elect.sync`: true in exactly one active lane of the warp.
__device__ __forceinline__ bool elect_one() {
    u32 pred;
    asm volatile(
        "{\n\t.reg .b32 lane;\n\t.reg .pred p;\n\t"
        "elect.sync lane|p, 0xffffffff;\n\t"
        "selp.b32 %0, 1, 0, p;\n\t}\n"
        : "=r"(pred));
    return pred != 0;
}

// ---------------------------------------------------------------- mbarrier

/// `mbarrier.init`: expect `count` arrivals per phase.
__device__ __forceinline__ void mbar_init(u64* bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

/// Makes `mbarrier.init` visible to the async proxy and the cluster before first use.
__device__ __forceinline__ void fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// `mbarrier.arrive` (release, CTA scope): one arrival on the current phase.
__device__ __forceinline__ void mbar_arrive(u64* bar) {
    asm volatile(
        "{\n\t.reg .b64 state;\n\t"
        "mbarrier.arrive.shared::cta.b64 state, [%0];\n\t}\n" ::"r"(smem_addr(bar))
        : "memory");
}

/// `mbarrier.arrive.expect_tx`: one arrival, and `bytes` more transaction bytes expected.
__device__ __forceinline__ void mbar_arrive_expect_tx(u64* bar, u32 bytes) {
#ifdef WS_COPIES_FREE
    // Diagnostic build (`Cuda::without_copies`): no copy completes bytes, so none are expected.
    (void)bytes;
    mbar_arrive(bar);
#else
    asm volatile(
        "{\n\t.reg .b64 state;\n\t"
        "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}\n" ::"r"(smem_addr(bar)),
        "r"(bytes)
        : "memory");
#endif
}

/// `mbarrier.expect_tx` without an arrival.
__device__ __forceinline__ void mbar_expect_tx(u64* bar, u32 bytes) {
#ifdef WS_COPIES_FREE
    (void)bar;
    (void)bytes;
#else
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
#endif
}

/// `mbarrier.try_wait.parity`: true once the phase with parity `parity` has completed.
__device__ __forceinline__ bool mbar_try_wait(u64* bar, u32 parity) {
    u32 done;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.b32 %0, 1, 0, p;\n\t}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
    return done != 0;
}

/// Waits until the phase with parity `parity` has completed (try_wait loop).
__device__ __forceinline__ void mbar_wait(u64* bar, u32 parity) {
    while (!mbar_try_wait(bar, parity)) {
    }
}

// ---------------------------------------------------------------- proxy fences

/// Orders this thread's generic-proxy shared-memory accesses before later async-proxy ones
/// (TMA stores, wgmma operand reads) and vice versa.
__device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---------------------------------------------------------------- TMA (cp.async.bulk.tensor)

// A TMA load: the PTX statement `ptx` with its input operands. A build with `WS_COPIES_FREE`
// defined (the diagnostic `Cuda::without_copies`) copies nothing: the operands are still
// computed (an empty statement reads them) and `mbar_arrive_expect_tx` expects no bytes, so a
// stage is full at its producer's arrival. Timing only: shared memory keeps what it held.
#ifdef WS_COPIES_FREE
#define WS_TMA_LOAD(ptx, ...) asm volatile("" ::__VA_ARGS__ : "memory")
#else
#define WS_TMA_LOAD(ptx, ...) asm volatile(ptx ::__VA_ARGS__ : "memory")
#endif

/// A `CUtensorMap`, passed to kernels as `const __grid_constant__ ws::TensorMap`.
struct __align__(64) TensorMap {
    u64 opaque[16];
};

/// Brings a tensor map's descriptor into the cache ahead of the first copy.
__device__ __forceinline__ void tma_prefetch_map(const TensorMap* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"((u64)map) : "memory");
}

/// 2D tile load global -> shared; completes `bytes` transactions on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap* map, u64* bar, i32 c0, i32 c1) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];", "r"(smem_addr(dst)),
        "l"((u64)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1));
}

/// 3D tile load global -> shared with mbarrier completion.
__device__ __forceinline__ void tma_load_3d(void* dst, const TensorMap* map, u64* bar, i32 c0, i32 c1, i32 c2) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5}], [%2];", "r"(smem_addr(dst)),
        "l"((u64)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2));
}

/// 4D tile load global -> shared with mbarrier completion.
__device__ __forceinline__ void tma_load_4d(void* dst, const TensorMap* map, u64* bar, i32 c0, i32 c1, i32 c2,
                                            i32 c3) {
    WS_TMA_LOAD(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5, %6}], [%2];", "r"(smem_addr(dst)),
        "l"((u64)map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}

/// 2D tile store shared -> global, tracked by the bulk async-group of this thread.
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, const void* src, i32 c0, i32 c1) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"((u64)map),
                 "r"(smem_addr(src)), "r"(c0), "r"(c1)
                 : "memory");
}

/// 3D tile store shared -> global.
__device__ __forceinline__ void tma_store_3d(const TensorMap* map, const void* src, i32 c0, i32 c1, i32 c2) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"((u64)map),
                 "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/// 4D tile store shared -> global.
__device__ __forceinline__ void tma_store_4d(const TensorMap* map, const void* src, i32 c0, i32 c1, i32 c2,
                                             i32 c3) {
    asm volatile(
        "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"((u64)map),
        "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
        : "memory");
}

/// Closes this thread's open bulk stores into one group.
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

/// Waits until at most `N` of this thread's bulk store groups still read shared memory.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// Waits until at most `N` of this thread's bulk store groups are incomplete (writes visible).
template <int N>
__device__ __forceinline__ void tma_store_wait() {
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// ---------------------------------------------------------------- shared-memory layouts

/// Byte offset of (row, byte-in-row) inside a tile of 128-byte rows stored with the 128-byte
/// swizzle that TMA writes and wgmma reads: the 16-byte chunk index is XORed with row % 8.
__device__ __forceinline__ u32 sw128_offset(u32 row, u32 byte_in_row) {
    return row * 128u + ((((byte_in_row >> 4) ^ (row & 7u)) << 4) | (byte_in_row & 15u));
}

/// wgmma shared-memory matrix descriptor for a K-major operand tile in 128-byte swizzle:
/// rows of 128 bytes, 8-row core groups 1024 bytes apart (stride byte offset), tile base
/// 1024-byte aligned. Step K by 16 elements of 2 bytes with `desc + 2` (32 bytes >> 4).
__device__ __forceinline__ u64 smem_desc_sw128(const void* tile) {
    u64 addr = smem_addr(tile);
    u64 desc = (addr & 0x3FFFFull) >> 4;  // start address, bits 0-13
    desc |= 1ull << 16;                   // leading byte offset (unused by swizzled K-major)
    desc |= (1024ull >> 4) << 32;         // stride byte offset, bits 32-45
    desc |= 1ull << 62;                   // layout type: 128-byte swizzle
    return desc;
}

// ---------------------------------------------------------------- wgmma control (sm_90a only)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

/// Orders register and shared-memory accesses before the following wgmma.mma_async.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/// Closes the issued wgmma.mma_async operations into one group.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

/// Waits until at most `N` wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving accesses to `r` across a wgmma fence or wait.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(u32& r) { asm volatile("" : "+r"(r)::"memory"); }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

/// Row (0..63) of the accumulator element `i` held by this thread (m64nNk16, f32 accumulators).
__device__ __forceinline__ u32 acc_row(u32 i) {
    return warp_in_warpgroup() * 16u + (lane_idx() >> 2) + ((i >> 1) & 1u) * 8u;
}

/// Column (0..N-1) of the accumulator element `i` held by this thread.
__device__ __forceinline__ u32 acc_col(u32 i) { return (i >> 2) * 8u + (lane_idx() & 3u) * 2u + (i & 1u); }

/// Packs two f32 into a bf16x2 register (round to nearest even); `lo` in the low half.
__device__ __forceinline__ u32 pack_bf16x2(float lo, float hi) {
    u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/// Packs two f32 into an f16x2 register; `lo` in the low half.
__device__ __forceinline__ u32 pack_f16x2(float lo, float hi) {
    u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

// ---------------------------------------------------------------- named barriers

/// `bar.sync id, threads`: wait until `threads` threads (a multiple of 32) reached barrier `id`.
__device__ __forceinline__ void named_sync(u32 id, u32 threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// `bar.arrive id, threads`: count this warp towards barrier `id` without waiting.
__device__ __forceinline__ void named_arrive(u32 id, u32 threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---------------------------------------------------------------- register reallocation

/// `setmaxnreg.inc`: raise this warpgroup's per-thread register limit to `N` (24..256, step 8).
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

/// `setmaxnreg.dec`: lower this warpgroup's per-thread register limit to `N`.
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

}  // namespace ws
