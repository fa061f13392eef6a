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
// 40 KB of operand tiles at a 1024-byte-aligned base: A, 64 x 64 bf16 (8 KB), then B at
// base + 8 KB, up to 256 x 64 bf16 (32 KB; bench_interfere puts a 128 x 64 B there and a
// V-like B2 at base + 24 KB). Random-ish values in +-[1,2) (never time on zeros).
__device__ __forceinline__ uint32_t fill_tiles(uint8_t* raw) {
  uint32_t base = (smem_u32(raw) + 1023) & ~1023u;
  uint8_t* p = raw + (base - smem_u32(raw));
  uint16_t* h = reinterpret_cast<uint16_t*>(p);
  for (int i = threadIdx.x; i < 40960 / 2; i += blockDim.x) {
    uint32_t x = (i + 1) * 2654435761u;
    x ^= x >> 13;
    h[i] = (uint16_t)(0x3F80 | (x & 0x7F) | ((x >> 8) & 0x8000));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  return base;
}
