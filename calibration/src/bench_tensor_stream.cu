// 19: the tensor cores of one SM beside bulk copies in the same SM's shared memory
// (bench_tensor_stream_kernels.cuh). Two warpgroups run item 18's k-step loop (wgmma m64nNk16
// SS, G per group, wait_group 0) while one thread streams 16 KB bulk copies, four in flight:
// none, global -> shared, shared -> global, or both; and each kind of copy alone (mode + 4:
// the warpgroups spin as long instead of issuing wgmma). One CSV row per configuration, medians
// over the CTAs: cycles per k-step of the two warpgroups (one group each), the tensor
// utilisation (2 G N/2 cycles per k-step), and the bytes per cycle per SM the copies moved.
// With 1 CTA the copies run at one SM's own rate; with 132 at the SM's share of the L2.
#include <cstdio>
#include <vector>

#include "common.h"
#include "bench_wgmma_pair_kernels.cuh"
#include "bench_tensor_stream_kernels.cuh"

static const u32 CHUNK = 16384;
static const int SMEM = 40960 + 1024 + 8 * CHUNK + 64;
static const unsigned long long SPAN = 4ull << 20;

template <int N, int G>
static void rows(const unsigned char* src, unsigned char* dst, long long* d_out, float* d_sink) {
  CK(cudaFuncSetAttribute(k_tensor_stream<N, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  const int iters = 4096 / G * 256 / N;  // about 2 M tensor cycles
  for (int ctas : {1, num_sms()})
    for (int mode : {0, 1, 2, 3, 5, 6, 7}) {
      std::vector<double> step, ld, stb;
      for (int rep = 0; rep < 3; ++rep) {
        k_tensor_stream<N, G><<<ctas, 384, SMEM>>>(iters, mode, CHUNK, src, dst, SPAN, d_out, d_sink);
        CKLAUNCH();
        std::vector<long long> o((size_t)ctas * 4);
        CK(cudaMemcpy(o.data(), d_out, o.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int c = 0; c < ctas; ++c) {
          step.push_back((double)o[c * 4] / iters);
          const double cyc = (double)std::max(o[c * 4 + 3], 1ll);
          ld.push_back((double)o[c * 4 + 1] / cyc);
          stb.push_back((double)o[c * 4 + 2] / cyc);
        }
      }
      const double s = stats_of(step).median;
      printf("%d,%d,%d,%d,%d,%.1f,%.4f,%.1f,%.1f\n", N, G, ctas, mode, iters, s, mode & 4 ? 0.0 : 2.0 * G * (N / 2) / s,
             stats_of(ld).median, stats_of(stb).median);
      fflush(stdout);
    }
}

int main() {
  unsigned char *src, *dst;
  long long* d_out;
  float* d_sink;
  CK(cudaMalloc(&src, SPAN + CHUNK));
  CK(cudaMalloc(&dst, SPAN + CHUNK));
  CK(cudaMemset(src, 0x3c, SPAN + CHUNK));
  CK(cudaMalloc(&d_out, 1024 * 4 * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 384 * sizeof(float)));
  warm_gpu();
  printf("n,g,ctas,mode,iters,cycles_per_kstep,tensor_util,load_bytes_per_clk,store_bytes_per_clk\n");
  rows<256, 4>(src, dst, d_out, d_sink);
  rows<256, 2>(src, dst, d_out, d_sink);
  rows<128, 4>(src, dst, d_out, d_sink);
  rows<64, 8>(src, dst, d_out, d_sink);
  return 0;
}
