// 21: one late warp of a warpgroup, and a pair of warpgroups with and without a `bar.sync`
// (bench_wgmma_skew_kernels.cuh). One CTA, one SM. Two CSV tables on stdout:
//   "total": cycles per k-step of the loop without stamps (median of 3 launches) for each case.
//   "warp": the loop with stamps: per warp, medians over the k-steps after the first tenth of
//     the k-step's period (fence to fence), its issue (fence to after the commit) and its wait
//     (after the commit to after the wait).
// Cases: one warpgroup (active 1) or two (3); `slow` the warps that spin `work` cycles every
// k-step after the wait (warp 0 alone, as the non-specialized GEMM's loader warp, or all four
// warps of warpgroup 0); `sync` a bar.sync of both warpgroups before the spin.
#include <cstdio>
#include <vector>

#include "common.h"
#include "bench_wgmma_skew_kernels.cuh"

static const int SMEM = 160 * 1024;  // one CTA per SM
static const int ITERS = 2000;

struct Case {
  int active, slow, work, sync;
};

template <int N, int G>
static void rows(long long* d_st, long long* d_total, float* d_sink) {
  CK(cudaFuncSetAttribute(k_skew<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  std::vector<long long> st((size_t)ITERS * 8 * 3);
  std::vector<Case> cases;
  for (int work : {0, 100, 200, 300, 400, 600, 800}) {
    for (int active : {1, 3})
      for (int slow : {0x01, 0x0F}) {
        if (work == 0 && slow != 0x01) continue;
        for (int sync : {0, 1}) {
          if (active == 1 && sync) continue;
          cases.push_back(Case{active, work == 0 ? 0 : slow, work, sync});
        }
      }
  }
  for (const Case& c : cases) {
    std::vector<double> tot;
    for (int rep = 0; rep < 3; ++rep) {
      long long total = 0;
      k_skew<N, G><<<1, 256, SMEM>>>(ITERS, c.active, c.slow, c.work, c.sync, 0, d_st, d_total, d_sink);
      CKLAUNCH();
      CK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
      tot.push_back((double)total);
    }
    printf("total,%d,%d,%d,0x%02x,%d,%d,%.1f\n", N, G, c.active, c.slow, c.work, c.sync,
           stats_of(tot).median / ITERS);
    k_skew<N, G><<<1, 256, SMEM>>>(ITERS, c.active, c.slow, c.work, c.sync, 1, d_st, d_total, d_sink);
    CKLAUNCH();
    CK(cudaMemcpy(st.data(), d_st, st.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int w = 0; w < 8; ++w) {
      if (!((c.active >> (w / 4)) & 1)) continue;
      std::vector<double> period, issue, wait;
      for (int i = ITERS / 10; i + 1 < ITERS; ++i) {
        const long long* s = &st[((size_t)i * 8 + w) * 3];
        const long long* n = &st[((size_t)(i + 1) * 8 + w) * 3];
        period.push_back((double)(n[0] - s[0]));
        issue.push_back((double)(s[1] - s[0]));
        wait.push_back((double)(s[2] - s[1]));
      }
      printf("warp,%d,%d,%d,0x%02x,%d,%d,%d,%.0f,%.0f,%.0f\n", N, G, c.active, c.slow, c.work, c.sync, w,
             stats_of(period).median, stats_of(issue).median, stats_of(wait).median);
    }
    fflush(stdout);
  }
}

int main() {
  long long *d_st, *d_total;
  float* d_sink;
  CK(cudaMalloc(&d_st, (size_t)ITERS * 8 * 3 * sizeof(long long)));
  CK(cudaMalloc(&d_total, sizeof(long long)));
  CK(cudaMalloc(&d_sink, 256 * sizeof(float)));
  warm_gpu();
  printf("table,n,g,active,slow,work,sync,cycles_per_kstep\n");
  printf("table,n,g,active,slow,work,sync,warp,period,issue,wait\n");
  rows<256, 2>(d_st, d_total, d_sink);
  rows<128, 4>(d_st, d_total, d_sink);
  rows<64, 4>(d_st, d_total, d_sink);
  return 0;
}
