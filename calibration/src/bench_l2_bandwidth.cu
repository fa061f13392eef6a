// L2 read bandwidth on the whole GPU and per SM (for warpspec's L2 bandwidth parameter).
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o bench_l2_bandwidth bench_l2_bandwidth.cu
// A buffer smaller than L2 is read repeatedly with ld.global.cg.v4 (L2, not L1), 4 independent
// 16-byte loads in flight per thread; time = cudaEvent, cycles = clock64 of each CTA.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

__device__ __forceinline__ int4 ldcg(const int4* p) {
  int4 v;
  asm volatile("ld.global.cg.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

__global__ void read_l2(const int4* __restrict__ buf, size_t n, int reps, int4* sink, long long* cycles) {
  long long t0 = clock64();
  int4 acc = {0, 0, 0, 0};
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (int r = 0; r < reps; ++r) {
    for (size_t i = tid; i + 3 * stride < n; i += 4 * stride) {
      int4 a = ldcg(buf + i), b = ldcg(buf + i + stride), c = ldcg(buf + i + 2 * stride), d = ldcg(buf + i + 3 * stride);
      acc.x ^= a.x ^ b.x ^ c.x ^ d.x; acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
      acc.z ^= a.z ^ b.z ^ c.z ^ d.z; acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
    }
  }
  if (acc.x == 0x12345 && acc.y == 7) sink[tid] = acc;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t max_bytes = 64ull << 20;
  int4 *buf, *sink; long long* cycles;
  CHECK(cudaMalloc(&buf, max_bytes));
  CHECK(cudaMemset(buf, 1, max_bytes));
  CHECK(cudaMalloc(&sink, 1 << 26));
  CHECK(cudaMalloc(&cycles, 65536 * sizeof(long long)));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  struct Cfg { size_t mb; int ctas; int threads; };
  std::vector<Cfg> cfgs = {{8, 4 * sms, 512}, {24, 4 * sms, 512}, {40, 4 * sms, 512}, {24, 2 * sms, 1024},
                           {24, 1, 1024}, {24, 8, 1024}, {24, 32, 1024}, {24, sms, 1024}};
  for (auto c : cfgs) {
    size_t n = (c.mb << 20) / 16;
    int reps = std::max(1, (int)((4ull << 30) / (c.mb << 20)) / (c.ctas < sms ? 16 : 1));
    size_t stride = (size_t)c.ctas * c.threads;
    size_t per_rep = (n / (4 * stride)) * 4 * stride * 16;  // bytes actually read per rep
    read_l2<<<c.ctas, c.threads>>>(buf, n, 1, sink, cycles);  // warm
    CHECK(cudaDeviceSynchronize());
    std::vector<double> gbs, bpc;
    for (int it = 0; it < 7; ++it) {
      cudaEventRecord(e0);
      read_l2<<<c.ctas, c.threads>>>(buf, n, reps, sink, cycles);
      cudaEventRecord(e1);
      CHECK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      std::vector<long long> cyc(c.ctas);
      CHECK(cudaMemcpy(cyc.data(), cycles, c.ctas * sizeof(long long), cudaMemcpyDeviceToHost));
      long long maxc = *std::max_element(cyc.begin(), cyc.end());
      double bytes = (double)per_rep * reps;
      gbs.push_back(bytes / (ms * 1e-3) / 1e9);
      bpc.push_back(bytes / (double)maxc);
    }
    std::sort(gbs.begin(), gbs.end()); std::sort(bpc.begin(), bpc.end());
    int active_sms = std::min(c.ctas, sms);
    printf("RESULT buffer %zu MB, %d CTAs x %d threads: %.1f GB/s (median of 7, min %.1f max %.1f); %.1f B/clk total, %.1f B/clk per active SM (%d SMs)\n",
           c.mb, c.ctas, c.threads, gbs[3], gbs[0], gbs[6], bpc[3], bpc[3] / active_sms, active_sms);
  }
  return 0;
}
