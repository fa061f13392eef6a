// 18: two warpgroups' wgmma groups on one SM's tensor cores (bench_wgmma_pair_kernels.cuh).
// One CTA, two warpgroups, one SM. Two CSV tables on stdout:
//   "pair": both warpgroups leave a barrier, warpgroup 1 `delta` cycles later, each issues a
//     group of g wgmma m64nNk16 and waits for it; medians over reps (the first 10 dropped) of,
//     per warpgroup, cycles from the barrier to its first wgmma (iss), its commit (com) and its
//     wait's return (done), the first and second completion, and how often warpgroup 0 is done
//     first. `active` 1: warpgroup 0 alone (the baseline).
//   "loop": one (active 1) or both (active 3) run `iters` k-steps {fence; g wgmma; commit;
//     wait_group 0} with no barrier between them (warpgroup 1 `delta` cycles late),
//     spinning `work` cycles after every `period`-th; total cycles, tensor utilisation
//     (g N/2 per wgmma and warpgroup) and the offset between the two warpgroups' k-step ends
//     (end of warpgroup 1 minus end of warpgroup 0, same k-step): p10, median, p90.
//   "sms": the loop without stamps on 1 SM and on every SM at once (one CTA each): cycles per
//     k-step of one CTA, and its cycles over the launch's event time (an estimate of the clock).
#include <cstdio>
#include <vector>

#include "common.h"
#include "bench_wgmma_pair_kernels.cuh"

static const int SMEM = 160 * 1024;  // one CTA per SM
static const int REPS = 210, DROP = 10, ITERS = 2000;

template <int N, int G>
static void pair_rows(long long* d_st, float* d_sink) {
  CK(cudaFuncSetAttribute(k_pair<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  std::vector<long long> st((size_t)REPS * 8 * 4);
  for (int active : {1, 3})
    for (int delta : {0, 32, 64, 128, 256, 512, 1024}) {
      if (active == 1 && delta > 0) continue;
      k_pair<N, G><<<1, 256, SMEM>>>(REPS, delta, active, d_st, d_sink);
      CKLAUNCH();
      CK(cudaMemcpy(st.data(), d_st, st.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      std::vector<double> iss[2], com[2], done[2], first, second;
      int first0 = 0;
      for (int r = DROP; r < REPS; ++r) {
        const long long* s = &st[(size_t)r * 32];
        long long t = s[0];
        for (int w = 1; w < 8; ++w) t = std::min(t, s[w * 4]);
        long long fin[2] = {0, 0};
        for (int wg = 0; wg < (active == 3 ? 2 : 1); ++wg) {
          long long i = -1, c = 0, dn = 0;
          for (int w = wg * 4; w < wg * 4 + 4; ++w) {
            const long long* x = s + w * 4;
            i = i < 0 ? x[1] : std::min(i, x[1]);
            c = std::max(c, x[2]);
            dn = std::max(dn, x[3]);
          }
          iss[wg].push_back((double)(i - t));
          com[wg].push_back((double)(c - t));
          done[wg].push_back((double)(dn - t));
          fin[wg] = dn - t;
        }
        if (active == 3) {
          first.push_back((double)std::min(fin[0], fin[1]));
          second.push_back((double)std::max(fin[0], fin[1]));
          first0 += fin[0] <= fin[1];
        }
      }
      auto med = [](const std::vector<double>& v) { return v.empty() ? -1.0 : stats_of(v).median; };
      printf("pair,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f\n", N, G, delta, active, med(iss[0]),
             med(com[0]), med(done[0]), med(iss[1]), med(com[1]), med(done[1]), med(first), med(second),
             active == 3 ? (double)first0 / (REPS - DROP) : 1.0);
      fflush(stdout);
    }
}

// The loop without stamps on every SM at once (one CTA each, the clock under tensor load):
// cycles per k-step of one CTA (the last to write) and its cycles over the launch's event time.
template <int N, int G>
static void loop_all_sms(long long* d_ends, long long* d_total, float* d_sink) {
  CK(cudaFuncSetAttribute(k_pair_loop<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  for (int active : {1, 3})
    for (int ctas : {1, num_sms()}) {
      std::vector<double> tot;
      float ms = 0;
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      for (int rep = 0; rep < 3; ++rep) {
        long long total = 0;
        CK(cudaEventRecord(e0));
        k_pair_loop<N, G><<<ctas, 256, SMEM>>>(ITERS, 0, active, 0, 0, 0, d_ends, d_total, d_sink);
        CK(cudaEventRecord(e1));
        CKLAUNCH();
        CK(cudaEventElapsedTime(&ms, e0, e1));
        CK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
        tot.push_back((double)total);
      }
      const double cyc = stats_of(tot).median;
      printf("sms,%d,%d,%d,%d,%.1f,%.3f\n", N, G, active, ctas, cyc / ITERS, cyc / (ms * 1e6));
      fflush(stdout);
    }
}

template <int N, int G>
static void loop_rows(long long* d_ends, long long* d_total, float* d_sink) {
  CK(cudaFuncSetAttribute(k_pair_loop<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  const int iters = ITERS;
  std::vector<long long> ends((size_t)2 * iters);
  struct Case {
    int active, delta, period, work, stamp;
  };
  for (Case c : {Case{1, 0, 0, 0, 0}, Case{3, 0, 0, 0, 0}, Case{3, 300, 0, 0, 0}, Case{1, 0, 0, 0, 1},
                 Case{3, 0, 0, 0, 1}, Case{3, 300, 0, 0, 1}, Case{3, 300, 1, 200, 1}, Case{3, 300, 1, 500, 1},
                 Case{3, 0, 16, 1000, 1}, Case{3, 300, 16, 1000, 1}, Case{3, 300, 16, 2000, 1}}) {
    long long total = 0;
    std::vector<double> tot;
    for (int rep = 0; rep < 3; ++rep) {
      k_pair_loop<N, G><<<1, 256, SMEM>>>(iters, c.delta, c.active, c.period, c.work, c.stamp, d_ends, d_total,
                                          d_sink);
      CKLAUNCH();
      CK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
      tot.push_back((double)total);
    }
    CK(cudaMemcpy(ends.data(), d_ends, ends.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> off;
    if (c.active == 3 && c.stamp)
      for (int i = iters / 10; i < iters; ++i) off.push_back((double)(ends[iters + i] - ends[i]));
    const Stats o = stats_of(off);
    const double cyc = stats_of(tot).median;
    const double mma = (c.active == 3 ? 2.0 : 1.0) * iters * G * (N / 2);
    printf("loop,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.4f,%.0f,%.0f,%.0f\n", N, G, c.active, c.delta, c.period, c.work,
           c.stamp, iters, cyc, mma / cyc, o.p10, o.median, o.p90);
    fflush(stdout);
  }
}

int main() {
  long long *d_st, *d_ends, *d_total;
  float* d_sink;
  CK(cudaMalloc(&d_st, (size_t)REPS * 8 * 4 * sizeof(long long)));
  CK(cudaMalloc(&d_ends, (size_t)2 * ITERS * sizeof(long long)));
  CK(cudaMalloc(&d_total, sizeof(long long)));
  CK(cudaMalloc(&d_sink, 256 * sizeof(float)));
  warm_gpu();
  printf("table,n,g,delta,active,iss0,com0,done0,iss1,com1,done1,first_done,second_done,wg0_first\n");
  pair_rows<64, 1>(d_st, d_sink);
  pair_rows<64, 2>(d_st, d_sink);
  pair_rows<64, 4>(d_st, d_sink);
  pair_rows<128, 1>(d_st, d_sink);
  pair_rows<128, 2>(d_st, d_sink);
  pair_rows<128, 4>(d_st, d_sink);
  pair_rows<256, 1>(d_st, d_sink);
  pair_rows<256, 2>(d_st, d_sink);
  pair_rows<256, 4>(d_st, d_sink);
  printf(
      "table,n,g,active,delta,period,work,stamp,iters,cycles,tensor_util,offset_p10,offset_med,offset_p90\n");
  loop_rows<64, 2>(d_ends, d_total, d_sink);
  loop_rows<64, 4>(d_ends, d_total, d_sink);
  loop_rows<64, 8>(d_ends, d_total, d_sink);
  loop_rows<128, 2>(d_ends, d_total, d_sink);
  loop_rows<128, 4>(d_ends, d_total, d_sink);
  loop_rows<256, 2>(d_ends, d_total, d_sink);
  loop_rows<256, 4>(d_ends, d_total, d_sink);
  printf("table,n,g,active,ctas,cycles_per_kstep,ghz_by_events\n");
  loop_all_sms<64, 4>(d_ends, d_total, d_sink);
  loop_all_sms<128, 4>(d_ends, d_total, d_sink);
  loop_all_sms<256, 4>(d_ends, d_total, d_sink);
  loop_all_sms<256, 2>(d_ends, d_total, d_sink);
  return 0;
}
