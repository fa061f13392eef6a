// Item 45 (prepared): how fast one warp issues a group of `wgmma` m64n128k16 SS when each
// MMA's descriptors are built in the loop from a per-thread address the way the generated
// kernels build them (add the k-step, `LOP3` mask, `SHF` shift, `LOP3` flag, `R2UR` into the
// uniform registers the `HGMMA` reads; calibration items 41, 44), against descriptors built
// once before the loop; with the other warpgroup idle or running SS groups back to back.
// ptxas front-loads the built descriptors here (23 and 17 instructions before the first two
// `HGMMA`s, then 4 `R2UR` each), as in `ws_gemm`, not spread evenly as in the FA3 consumer. Per pass, warpgroup 0 reads the clock before its fence (t0), after
// its commit (t1: the group's issue) and after `wait_group 0` (t2: the group).
// Device code only: NVRTC compiles it without a GPU to read its SASS; bench_issue.cu is the
// host side.
#pragma once
#include "wgmma_ss.cuh"

namespace issue {

enum { BUILD_ONCE = 0, BUILD_EACH = 1 };
enum { OTHER_IDLE = 0, OTHER_SS = 1 };

// The flags of a descriptor: the leading-byte-offset field, 1024-byte stride, 128-byte swizzle.
static const u64 kFlags = (1ull << 16) | ((u64)(1024 >> 4) << 32) | (1ull << 62);

// A descriptor from a 64-bit address as the generated code forms it: the address's low 18
// bits in 16-byte units, then the flags.
__device__ __forceinline__ u64 desc_of(u64 address) { return ((address & 0x3FFF0) >> 4) | kFlags; }

// The same chain in volatile PTX (a 64-bit add of the k-step's offset, `and`, `shr`, `or`),
// so that it is built every pass, right before the `wgmma` that reads it in the PTX (ptxas
// still schedules the SASS as it likes: see above).
__device__ __forceinline__ u64 desc_here(u64 address, u64 offset) {
  u64 d;
  asm volatile(
      "{\n.reg .u64 t;\nadd.u64 t, %1, %2;\nand.b64 t, t, 0x3FFF0;\nshr.u64 t, t, 4;\nor.b64 %0, t, %3;\n}\n"
      : "=l"(d)
      : "l"(address), "l"(offset), "l"(kFlags));
  return d;
}

template <int BUILD, int OTHER, int G>
__global__ void __launch_bounds__(256, 1) issue_pieces(long long* out, float* sink, int passes) {
  extern __shared__ unsigned char raw[];
  __shared__ volatile int done;
  __shared__ int stop;
  __shared__ u32 word[32];
  const u32 base = wss_fill_tiles(raw);  // A at base, B (128 x 64) at base + 8 KB
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  const int wg = threadIdx.x / 128;
  if (wg == 1) {
    if (OTHER == OTHER_SS) {
      const u64 da = wss_desc(base), db = wss_desc(base + 8192);
      for (;;) {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        if (threadIdx.x == 128) stop = done;
        asm volatile("bar.sync 1, 128;" ::: "memory");
        if (stop) break;
        wss_fence();
#pragma unroll
        for (int k = 0; k < 4; ++k) wss_mma(d, da + 2 * k, db + 2 * k);
        wss_commit();
        wss_wait0();
      }
    }
  } else {
    // A per-thread zero ptxas cannot fold, read from shared memory: the addresses below live
    // in per-thread registers, as the generated kernels' stage addresses do.
    const u64 zero = word[threadIdx.x & 31];
    const u64 a_addr = (u64)base + zero, b_addr = (u64)(base + 8192) + zero;
    u64 da_once[G], db_once[G];
#pragma unroll
    for (int k = 0; k < G; ++k) {
      da_once[k] = desc_of(a_addr + 32 * (k & 3));
      db_once[k] = desc_of(b_addr + 32 * (k & 3));
    }
    long long issue = 0, group = 0;
    if (OTHER == OTHER_SS) {
      long long until = clock64() + 4000;  // the other warpgroup's MMAs are running by now
      while (clock64() < until) {
      }
    }
    for (int it = 0; it < passes + 2; ++it) {
      long long t0 = clock64();
      wss_fence();
#pragma unroll
      for (int k = 0; k < G; ++k) {
        if (BUILD == BUILD_EACH) {
          const u64 off = 32 * (k & 3);
          wss_mma(d, desc_here(a_addr, off), desc_here(b_addr, off));
        } else {
          wss_mma(d, da_once[k], db_once[k]);
        }
      }
      wss_commit();
      long long t1 = clock64();
      wss_wait0();
      long long t2 = clock64();
      if (it >= 2) {
        issue += t1 - t0;
        group += t2 - t0;
      }
    }
    if (threadIdx.x == 0) done = 1;
    if ((threadIdx.x & 31) == 0) {
      out[(blockIdx.x * 4 + threadIdx.x / 32) * 2] = issue;
      out[(blockIdx.x * 4 + threadIdx.x / 32) * 2 + 1] = group;
    }
  }
  wss_keep(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

}  // namespace issue
