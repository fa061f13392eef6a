// Device code of bench_wgmma_pair.cu (item 18): how the tensor cores of one SM serve the
// `wgmma` groups of two warpgroups issued at about the same time. One CTA of two warpgroups
// (256 threads), both operands in shared memory (SS), bf16 -> f32, 128-byte swizzle.
//   k_pair: both warpgroups leave a CTA barrier, warpgroup 1 waits `delta` cycles, then each
//     issues a group of `g` wgmma m64nNk16 on its own accumulators, commits and waits for it.
//     Each warp stamps clock64 at the barrier, before its first wgmma, after its commit and
//     after its wait: in which order the two groups complete, whether the second warpgroup's
//     issue is held back while the first group runs.
//   k_pair_loop: both warpgroups run `iters` k-steps {fence; g wgmma; commit; wait_group 0}
//     with no barrier between them, and every `period` k-steps spin `work` cycles (an
//     epilogue, or a softmax); warp 0 of each warpgroup stamps the end of every k-step. Do the
//     two settle into alternation (one's work under the other's MMAs) or move together?
// Compiles with NVRTC (no host code; it includes wgmma_ss.cuh only).
#include "wgmma_ss.cuh"

__device__ __forceinline__ long long wp_clk() {
  long long r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}

__device__ __forceinline__ u32 wp_smem(const void* p) {
  u32 r;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
  return r;
}

// A (64 x 64 bf16, 8 KB) at the 1024-aligned base, B (256 x 64 bf16, 32 KB) after it: values
// in +-[1, 2), never zeros. Returns the base's shared address.
__device__ __forceinline__ u32 wp_fill(unsigned char* raw) {
  const u32 s = wp_smem(raw);
  const u32 base = (s + 1023) & ~1023u;
  unsigned short* h = reinterpret_cast<unsigned short*>(raw + (base - s));
  for (int i = threadIdx.x; i < (8192 + 32768) / 2; i += blockDim.x) {
    u32 x = (u32)(i + 1) * 2654435761u;
    x ^= x >> 13;
    h[i] = (unsigned short)(0x3F80 | (x & 0x7F) | ((x >> 8) & 0x8000));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  return base;
}

// `stamps[(rep * 8 + warp) * 4 + {0..3}]`: barrier left, first wgmma, commit issued, wait
// returned. `active`: 3 both warpgroups issue, 1 warpgroup 0 alone. G wgmma per group, unrolled
// (a group of a run-time length makes ptxas close it with an extra empty HGMMA).
template <int N, int G>
__global__ void __launch_bounds__(256, 1)
    k_pair(int reps, int delta, int active, long long* stamps, float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u64 da = wss_desc(base), db = wss_desc(base + 8192);
  const int warp = threadIdx.x / 32, wg = warp / 4;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  const bool on = (active >> wg) & 1;
  for (int r = 0; r < reps; ++r) {
    __syncthreads();
    const long long t0 = wp_clk();
    if (wg == 1)
      while (wp_clk() - t0 < delta) {
      }
    long long ti = 0, tc = 0, td = 0;
    if (on) {
      wss_fence();
      ti = wp_clk();
#pragma unroll
      for (int k = 0; k < G; ++k) wss_mma(d, da + 2 * (k & 3), db + 2 * (k & 3));
      wss_commit();
      tc = wp_clk();
      wss_wait0();
      wss_keep(d);
      td = wp_clk();
    }
    if (threadIdx.x % 32 == 0) {
      long long* s = stamps + ((long long)r * 8 + warp) * 4;
      s[0] = t0;
      s[1] = ti;
      s[2] = tc;
      s[3] = td;
    }
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

// `ends[wg * iters + i]`: clock64 after warpgroup `wg`'s wait of k-step `i` (warp 0 of it).
// `total[0]`: cycles from the CTA barrier before the loops to the one after them. Warpgroup 1
// starts `delta` cycles late; `active` as for k_pair (1: warpgroup 0 alone). With `stamp` 0 no
// k-step is stamped (no clock read, no global store in the loop).
template <int N, int G>
__global__ void __launch_bounds__(256, 1)
    k_pair_loop(int iters, int delta, int active, int period, int work, int stamp, long long* ends,
                long long* total, float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u64 da = wss_desc(base), db = wss_desc(base + 8192);
  const int warp = threadIdx.x / 32, wg = warp / 4;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  __syncthreads();
  const long long t0 = wp_clk();
  if ((active >> wg) & 1) {
    if (wg == 1)
      while (wp_clk() - t0 < delta) {
      }
    for (int i = 0; i < iters; ++i) {
      wss_kstep<G>(d, da, db);
      if (stamp == 0 && period == 0) continue;
      const long long t = wp_clk();
      if (stamp && threadIdx.x % 128 == 0) ends[wg * iters + i] = t;
      if (period > 0 && (i + 1) % period == 0)
        while (wp_clk() - t < work) {
        }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) total[0] = wp_clk() - t0;
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}
