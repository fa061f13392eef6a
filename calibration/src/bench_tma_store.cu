// 14: TMA bulk stores shared -> global at one CTA per SM. An epilogue's pattern (a 64 KB
// output tile stored by one or two issuing threads, each waiting until its copy has read
// shared memory, then a CTA barrier) and a stream of stores with four in flight, on every SM
// at once and on one SM alone, to an L2-resident and to an HBM-sized destination.
#include <cstdio>
#include <vector>

#include "common.h"
#include "bench_tma_store_kernels.cuh"

static std::vector<double> per_block(long long* d, int n) {
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<double> v;
  for (long long x : h) v.push_back((double)x);
  return v;
}

// Launches `k` `reps` times on `blocks` CTAs of 256 threads with `bytes` of shared memory;
// emits bytes per clock per SM (clock64 per CTA) and TB/s (cudaEvent) over all CTAs.
template <typename K, typename... A>
static void measure(const char* name, const char* note, K k, int blocks, unsigned bytes, int iters, A... args) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  long long* out;
  CK(cudaMalloc(&out, blocks * sizeof(long long)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> bpc, cpi, tbs;
  for (int rep = 0; rep < 6; ++rep) {
    CK(cudaEventRecord(a));
    k<<<blocks, 256, bytes>>>(args..., out);
    CK(cudaEventRecord(b));
    CKLAUNCH();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep == 0) continue;
    tbs.push_back((double)blocks * iters * bytes / (ms * 1e-3) / 1e12);
    for (double c : per_block(out, blocks)) {
      bpc.push_back((double)iters * bytes / c);
      cpi.push_back(c / iters);
    }
  }
  char n1[200];
  snprintf(n1, sizeof n1, "%s_B_per_clk_per_sm", name);
  emit(n1, stats_of(bpc), "B/clk/SM", "clock64 per CTA", note);
  snprintf(n1, sizeof n1, "%s_cycles_per_store", name);
  emit(n1, stats_of(cpi), "cycles", "clock64 per CTA over iterations", note);
  snprintf(n1, sizeof n1, "%s_TBps", name);
  emit(n1, stats_of(tbs), "TB/s", "cudaEvent, bytes stored / time, all CTAs", note);
  CK(cudaFree(out));
}

int main() {
  const int sms = num_sms();
  warm_gpu();
  const unsigned tile = 64 << 10;
  const long long l2_bytes = 24ll << 20, hbm_bytes = 2048ll << 20;
  char* dst;
  CK(cudaMalloc(&dst, hbm_bytes));
  CK(cudaMemset(dst, 0, hbm_bytes));
  const int iters = 256;
  for (int where = 0; where < 2; ++where) {
    const long long bytes = where == 0 ? l2_bytes : hbm_bytes;
    const char* w = where == 0 ? "l2" : "hbm";
    for (int blocks : {sms, 1}) {
      char name[160], note[240];
      for (int issuers : {2, 1}) {
        snprintf(name, sizeof name, "store_epilogue_64KB_%dissuer_read_%s_%dcta", issuers, w, blocks);
        snprintf(note, sizeof note,
                 "%d CTAs (one per SM), a 64 KB tile stored by %d thread(s) as %d bulk copies, wait_group.read 0, "
                 "__syncthreads, %d times; destination %lld MB",
                 blocks, issuers, issuers, iters, bytes >> 20);
        measure(name, note, k_store_epilogue<true>, blocks, tile, iters, dst, bytes / tile, tile, issuers, iters);
      }
      snprintf(name, sizeof name, "store_epilogue_64KB_2issuer_complete_%s_%dcta", w, blocks);
      snprintf(note, sizeof note,
               "as the read variant, waiting for completion (wait_group 0) instead of the shared-memory read");
      measure(name, note, k_store_epilogue<false>, blocks, tile, iters, dst, bytes / tile, tile, 2, iters);
      const unsigned chunk = 16 << 10;
      snprintf(name, sizeof name, "store_stream_16KB_4inflight_%s_%dcta", w, blocks);
      snprintf(note, sizeof note, "%d CTAs, one thread, 16 KB bulk stores with up to 4 reading shared memory, %d each",
               blocks, 4 * iters);
      measure(name, note, k_store_stream, blocks, chunk, 4 * iters, dst, bytes / chunk, chunk, 4 * iters);
    }
  }
  CK(cudaFree(dst));
  return 0;
}
