// Helpers shared by the wgmma benchmarks of one warpgroup: fences, groups, a 128B-swizzled
// descriptor and the operand tiles in shared memory.
#pragma once
#include "common.h"
#include "wgmma_ss.cuh"

// Fence, commit and descriptor are wgmma_ss.cuh's, under the names these benchmarks use.
__device__ __forceinline__ void wg_fence() { wss_fence(); }
__device__ __forceinline__ void wg_commit() { wss_commit(); }
template <int K>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(K) : "memory");
}
__device__ __forceinline__ uint64_t desc_sw128(uint32_t saddr) { return wss_desc(saddr); }
// 40 KB of operand tiles at a 1024-byte-aligned base (wgmma_ss.cuh's `wss_fill_tiles`).
__device__ __forceinline__ uint32_t fill_tiles(uint8_t* raw) { return wss_fill_tiles(raw); }
