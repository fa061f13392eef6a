// Device code of bench_wgmma_skew.cu (item 21): what one late warp does to its warpgroup's
// `wgmma` groups, and to a pair of warpgroups with and without a `bar.sync` between k-steps.
// One CTA of two warpgroups (256 threads), both operands in shared memory (SS), bf16 -> f32,
// 128-byte swizzle, the helpers of item 18.
//   k_skew: `iters` k-steps {fence; g wgmma m64nNk16; commit; wait_group 0; [bar.sync 1, 256];
//     the warps in `slow` spin `work` cycles}. The spin stands for a loader's refill (its
//     acquire and TMA issue), which the non-specialized GEMM runs on one warp of warpgroup 0
//     after the release (and after the `bar.sync` where it has one). Lane 0 of every warp
//     stamps clock64 before its fence, after its commit and after its wait, every k-step, when
//     `stamp` is 1 (with `stamp` 0 no clock is read but the spin's). `total[0]`: cycles from
//     the CTA barrier before the loop to the one after.
// Compiles with NVRTC (no host code; it includes item 18's kernels, for their clock and fill
// helpers, and wgmma_ss.cuh through them).
#include "bench_wgmma_pair_kernels.cuh"

// `stamps[((i * 8) + warp) * 3 + {0, 1, 2}]`: before the fence, after the commit, after the
// wait of k-step `i`. `active`: bit w set when warpgroup w runs the loop. `slow`: bit w set when
// warp w spins `work` cycles every k-step. `sync`: a `bar.sync 1, 256` of both warpgroups after
// the wait (only with `active` 3).
template <int N, int G>
__global__ void __launch_bounds__(256, 1)
    k_skew(int iters, int active, int slow, int work, int sync, int stamp, long long* stamps, long long* total,
           float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u64 da = wss_desc(base), db = wss_desc(base + 8192);
  const int warp = threadIdx.x / 32, wg = warp / 4;
  const bool spins = (slow >> warp) & 1;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  __syncthreads();
  const long long t0 = wp_clk();
  if ((active >> wg) & 1) {
    for (int i = 0; i < iters; ++i) {
      long long ta = 0, tc = 0, tw = 0;
      if (stamp) ta = wp_clk();
      wss_fence();
#pragma unroll
      for (int k = 0; k < G; ++k) wss_mma(d, da + 2 * (k & 3), db + 2 * (k & 3));
      wss_commit();
      if (stamp) tc = wp_clk();
      wss_wait0();
      wss_keep(d);
      if (stamp) tw = wp_clk();
      if (sync) asm volatile("bar.sync 1, 256;" ::: "memory");
      if (spins) {
        const long long t = wp_clk();
        while (wp_clk() - t < work) {
        }
      }
      if (stamp && threadIdx.x % 32 == 0) {
        long long* s = stamps + ((long long)i * 8 + warp) * 3;
        s[0] = ta;
        s[1] = tc;
        s[2] = tw;
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
