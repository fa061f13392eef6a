// 12: thread-block clusters on the H200. Resident clusters per cluster size (the driver's
// placement over the GPCs), a remote mbarrier arrival's latency and issue cost (default and
// release at cluster scope), the cluster barrier, and TMA bulk-copy bandwidth from L2 at one
// CTA per SM, plain and multicast to both CTAs of a 2-CTA cluster.
#include <cstdio>
#include <vector>

#include "common.h"
#include "bench_cluster_kernels.cuh"

static std::vector<double> per_block(long long* d, int n, double div) {
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<double> v;
  for (long long x : h) v.push_back((double)x / div);
  return v;
}

// A. How many clusters of `size` CTAs (each with `smem` bytes of dynamic shared memory and
// `threads` threads) the device holds at once.
static int max_clusters(int size, int smem, int threads) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(size * 64, 1, 1);
  cfg.blockDim = dim3(threads, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = size;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int n = -1;
  cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void*)k_tma_stream<false>, &cfg);
  if (e != cudaSuccess) {
    printf("cudaOccupancyMaxActiveClusters(size %d, smem %d): %s\n", size, smem, cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
  }
  return n;
}

template <bool MC>
static void tma_stream(const char* src, long long chunks, unsigned chunk, int stages, int iters, int sms, int per_sm) {
  auto k = k_tma_stream<MC>;
  int smem = stages * (int)chunk;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  if (MC) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
  // `per_sm` CTAs on every SM, all resident at once (checked against the driver's count).
  int blocks = sms / 2 * 2 * per_sm;
  int resident = max_clusters(MC ? 2 : 1, smem, 64) * (MC ? 2 : 1);
  if (resident < blocks) {
    printf("tma_stream: %d CTAs of %d bytes do not fit at once (%d do); skipped\n", blocks, smem, resident);
    return;
  }
  long long* out;
  CK(cudaMalloc(&out, blocks * sizeof(long long)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks, 1, 1);
  cfg.blockDim = dim3(64, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = MC ? 2 : 1;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> gbs, bpc;
  for (int rep = 0; rep < 8; ++rep) {
    CK(cudaEventRecord(a));
    CK(cudaLaunchKernelEx(&cfg, k, src, chunks, chunk, stages, iters, out));
    CK(cudaEventRecord(b));
    CKLAUNCH();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep == 0) continue;  // warm-up: brings the buffer into L2
    double delivered = (double)blocks * iters * chunk;
    gbs.push_back(delivered / (ms * 1e-3) / 1e9);
    auto cyc = per_block(out, blocks, 1.0);
    for (double c : cyc) bpc.push_back((double)iters * chunk * per_sm / c);
  }
  char name[160], note[200];
  snprintf(name, sizeof name, "tma_bulk_%s_%uB_x%d_stages_%dcta_per_sm", MC ? "multicast2" : "plain", chunk, stages,
           per_sm);
  snprintf(note, sizeof note,
           "%d CTAs (%d per SM%s), %d chunks each from a %lld MB buffer; bytes delivered to shared memory (L2 reads: %s)",
           blocks, per_sm, MC ? ", clusters of 2" : "", iters, chunks * chunk >> 20, MC ? "half of them" : "all of them");
  emit((std::string(name) + "_GBps").c_str(), stats_of(gbs), "GB/s", "cudaEvent, delivered bytes / time", note);
  emit((std::string(name) + "_B_per_clk_per_sm").c_str(), stats_of(bpc), "B/clk/SM",
       "clock64 per CTA, times the CTAs per SM", note);
  CK(cudaFree(out));
}

int main() {
  const int sms = num_sms();
  warm_gpu();
  long long* out;
  CK(cudaMalloc(&out, 1024 * sizeof(long long)));

  // A. Resident clusters.
  for (int size : {1, 2, 4, 8, 16}) {
    if (size == 16) CK(cudaFuncSetAttribute(k_tma_stream<false>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int smem : {200 * 1024, 100 * 1024}) {
      CK(cudaFuncSetAttribute(k_tma_stream<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      int n = max_clusters(size, smem, 384);
      char name[96], note[160];
      snprintf(name, sizeof name, "max_active_clusters_size%d_smem%dk", size, smem / 1024);
      snprintf(note, sizeof note, "%d CTAs of %d threads and %d KB of dynamic shared memory per cluster; %d SMs",
               size, 384, smem / 1024, sms);
      emit1(name, n, "clusters", "cudaOccupancyMaxActiveClusters", note);
    }
  }

  // B. Remote and local ping-pong.
  const int rounds = 4096;
  const int pairs = sms / 2;
  for (int rel = 0; rel < 2; ++rel) {
    std::vector<double> all;
    for (int rep = 0; rep < 5; ++rep) {
      if (rel) k_remote_pingpong<true><<<2 * pairs, 32>>>(out, rounds);
      else k_remote_pingpong<false><<<2 * pairs, 32>>>(out, rounds);
      CKLAUNCH();
      auto v = per_block(out, pairs, 2.0 * rounds);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit(rel ? "remote_arrive_oneway_release_cluster" : "remote_arrive_oneway", stats_of(all), "cycles",
         "2-CTA ping-pong (arrive on the peer's mbarrier, wait on one's own), round trip / 2",
         rel ? "mbarrier.arrive.release.cluster + try_wait.acquire.cluster" : "mbarrier.arrive.shared::cluster (release.cta) + try_wait");
  }
  {
    std::vector<double> all;
    for (int rep = 0; rep < 5; ++rep) {
      k_local_pingpong<<<sms, 64>>>(out, rounds);
      CKLAUNCH();
      auto v = per_block(out, sms, 2.0 * rounds);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit("local_arrive_oneway", stats_of(all), "cycles", "two warps of one CTA ping-pong, round trip / 2", "");
  }

  // C. Issue cost of back-to-back remote arrivals.
  for (int rel = 0; rel < 2; ++rel) {
    std::vector<double> all;
    const int n = 1024;
    for (int rep = 0; rep < 5; ++rep) {
      if (rel) k_remote_issue<true><<<2 * pairs, 32>>>(out, n);
      else k_remote_issue<false><<<2 * pairs, 32>>>(out, n);
      CKLAUNCH();
      auto v = per_block(out, pairs, (double)n);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit(rel ? "remote_arrive_issue_release_cluster" : "remote_arrive_issue", stats_of(all), "cycles/arrive",
         "one thread, 1024 back-to-back arrivals on the peer's mbarrier", "");
  }

  // D. Cluster barrier.
  for (int n : {2, 4}) {
    std::vector<double> all;
    const int r = 2048;
    for (int rep = 0; rep < 5; ++rep) {
      int clusters = sms / n;
      if (n == 2) k_cluster_barrier<2><<<clusters * 2, 128>>>(out, r);
      else k_cluster_barrier<4><<<clusters * 4, 128>>>(out, r);
      CKLAUNCH();
      auto v = per_block(out, clusters, (double)r);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit(n == 2 ? "cluster_barrier_2cta" : "cluster_barrier_4cta", stats_of(all), "cycles",
         "barrier.cluster.arrive + wait (aligned), 128 threads per CTA, per round", "");
  }

  // E. TMA bulk bandwidth from L2 at one CTA per SM.
  const unsigned chunk = 16384;
  const long long chunks = (24ll << 20) / chunk;  // 24 MB: L2-resident (50 MB L2)
  char* src;
  CK(cudaMalloc(&src, chunks * chunk));
  CK(cudaMemset(src, 1, chunks * chunk));
  for (int per_sm : {1, 2}) {
    for (int stages : {4, 6}) {
      tma_stream<false>(src, chunks, chunk, stages, 4096, sms, per_sm);
      tma_stream<true>(src, chunks, chunk, stages, 4096, sms, per_sm);
    }
  }
  CK(cudaFree(src));
  CK(cudaFree(out));
  return 0;
}
