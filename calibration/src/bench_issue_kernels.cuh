// Calibration items 45-47 (`issue_pieces`, `fence_pad`, `queued_issue`, each described
// above its kernel). Item 45: how fast one warp issues a group of `wgmma` m64n128k16 SS when each
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

// Commits the group and reads t1, waits until at most W groups are in flight and reads t2;
// past the two warm-up passes, adds t1 - t0 (the issue) and t2 - t0 (the group) to the
// warp's sums.
template <int W = 0>
__device__ __forceinline__ void close_group(long long t0, int it, long long& issue, long long& group) {
  wss_commit();
  long long t1 = clock64();
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(W) : "memory");
  long long t2 = clock64();
  if (it >= 2) {
    issue += t1 - t0;
    group += t2 - t0;
  }
}

// Lane 0 of each warp of warpgroup 0 writes the warp's two sums.
__device__ __forceinline__ void write_sums(long long* out, long long issue, long long group) {
  if ((threadIdx.x & 31) == 0) {
    out[(blockIdx.x * 4 + threadIdx.x / 32) * 2] = issue;
    out[(blockIdx.x * 4 + threadIdx.x / 32) * 2 + 1] = group;
  }
}

// Keeps the accumulator live (the MMAs are not dead code).
__device__ __forceinline__ void keep_live(float (&d)[64], float* sink) {
  wss_keep(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

// Warpgroup 1's work beside warpgroup 0: groups of 4 `wgmma` m64n128k16 SS back to back
// until warpgroup 0 sets `done` (read by one thread, shared through `stop`).
__device__ __forceinline__ void other_ss_groups(float (&d)[64], u64 da, u64 db, volatile int& done, int& stop) {
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
      other_ss_groups(d, da, db, done, stop);
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
      close_group(t0, it, issue, group);
    }
    if (threadIdx.x == 0) done = 1;
    write_sums(out, issue, group);
  }
  keep_live(d, sink);
}

// Item 46: where a group's start runs from. A chain of K dependent `mad.lo.u32` (about
// 4 cycles each) seeded by a clock read, 0 at run time (`zero` comes from shared memory) but
// neither foldable nor movable above its clock read by ptxas, sits after the group's fence
// (PAD_AFTER) or before it, held there by a `bar.warp.sync` whose mask it feeds
// (PAD_BEFORE); PAD_NONE has no chain. Its result offsets the first `wgmma`'s descriptors
// (by 0) in both placements, so that MMA issues a few instructions after the chain either
// way; the other descriptors are built once, before the loop. (A `bar.warp.sync` after the
// fence makes ptxas inject a second `WARPGROUP.ARRIVE` before the first `HGMMA`, so
// PAD_AFTER does without it.) If the start runs from the first `wgmma`, PAD_AFTER and
// PAD_BEFORE take the same time from the chain's end to the group's end; if it runs from
// the fence, PAD_AFTER hides the start under the chain.
enum { PAD_NONE = 0, PAD_BEFORE = 1, PAD_AFTER = 2 };

template <int K>
__device__ __forceinline__ u32 pad_chain(u32 zero) {
  u32 c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c));
  u32 x = min(c, zero);
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(x) : "r"(zero));
  return x;
}

template <int WHERE, int K, int G>
__global__ void __launch_bounds__(256, 1) fence_pad(long long* out, float* sink, int passes) {
  extern __shared__ unsigned char raw[];
  __shared__ u32 word[32];
  const u32 base = wss_fill_tiles(raw);
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  __syncthreads();
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  if (threadIdx.x < 128) {
    const u32 zero = word[threadIdx.x & 31];
    u64 da[G], db[G];
#pragma unroll
    for (int k = 0; k < G; ++k) {
      da[k] = desc_of(base + 32 * (k & 3));
      db[k] = desc_of(base + 8192 + 32 * (k & 3));
    }
    long long issue = 0, group = 0;
    for (int it = 0; it < passes + 2; ++it) {
      long long t0 = clock64();
      u32 x = 0;
      if (WHERE == PAD_BEFORE) {
        x = pad_chain<K>(zero);
        __syncwarp(0xffffffffu ^ x);
      }
      wss_fence();
      if (WHERE == PAD_AFTER) x = pad_chain<K>(zero);
#pragma unroll
      for (int k = 0; k < G; ++k) wss_mma(d, da[k] + (k == 0 ? x : 0), db[k] + (k == 0 ? x : 0));
      close_group(t0, it, issue, group);
    }
    write_sums(out, issue, group);
  }
  keep_live(d, sink);
}

// Item 47: a group's issue with groups already queued on the tensor cores. Warpgroup 0
// issues {t0; fence; 4 wgmma m64n128k16 SS; commit; t1; wait_group W; t2}: W = 1 leaves its
// previous group in flight at each issue (two accumulators, alternating, so that the groups
// do not depend on each other), W = 0 none; the other warpgroup idle or running SS groups
// of 4 back to back. If a `wgmma` waits for room on the tensor cores before it issues,
// W = 1 (and the other warpgroup's groups) lengthen the issue, t1 - t0.
template <int W, int OTHER>
__global__ void __launch_bounds__(256, 1) queued_issue(long long* out, float* sink, int passes) {
  extern __shared__ unsigned char raw[];
  __shared__ volatile int done;
  __shared__ int stop;
  const u32 base = wss_fill_tiles(raw);
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  float a[64], b[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = b[i] = 0.f;
  const u64 da = wss_desc(base), db = wss_desc(base + 8192);
  if (threadIdx.x >= 128) {
    if (OTHER == OTHER_SS) {
      other_ss_groups(a, da, db, done, stop);
    }
  } else {
    long long issue = 0, group = 0;
    if (OTHER == OTHER_SS) {
      long long until = clock64() + 4000;  // the other warpgroup's MMAs are running by now
      while (clock64() < until) {
      }
    }
    for (int it = 0; it < passes + 2; it += 2) {
      long long t0 = clock64();
      wss_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) wss_mma(a, da + 2 * k, db + 2 * k);
      close_group<W>(t0, it, issue, group);
      t0 = clock64();
      wss_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) wss_mma(b, da + 2 * k, db + 2 * k);
      close_group<W>(t0, it + 1, issue, group);
    }
    wss_wait0();
    if (threadIdx.x == 0) done = 1;
    write_sums(out, issue, group);
  }
  keep_live(a, sink);
  keep_live(b, sink);
}

}  // namespace issue
