// 17 and 22: a GEMM epilogue storing f32 accumulator fragments to global memory
// (bench_frag_store_kernels.cuh), one CTA per SM, as f32 (8-byte stores) and, with the argument
// `bf16`, also rounded to bf16 (4-byte stores, half the bytes in as many instructions). Sweeps the CTAs storing at once (1, 33, 66, 132), the warps storing (4 or
// 8: one or two consumer warpgroups), the gap between tiles (0: stores back to back; 16000
// cycles: about the main loop of a 128 x 256 tile at K = 1024) and the destination (the
// tiles of an 8192 x 8192 f32 output in launch order, 256 MB; or 64 tiles, 8 MB, in L2).
// Per configuration one CSV row: a warp's epilogue (first store to the issue of its 64th),
// p10 / median / p90 over warps and tiles after the first; the CTA's epilogue (first warp's
// first store to the last warp's last issue); bytes per cycle per SM over it; TB/s over the
// launch (cudaEvent; meaningful with gap 0); the SM clock (clock64 over globaltimer).
#include <cstdio>
#include <string>
#include <vector>

#include "common.h"
#include "bench_frag_store_kernels.cuh"

static const int LD = 8192, TILES_N = LD / 256, M_ROWS = 8192, TILES = 15;

int main(int argc, char** argv) {
  const bool with_bf16 = argc > 1 && std::string(argv[1]) == "bf16";
  const int sms = num_sms();
  float* out;
  CK(cudaMalloc(&out, (size_t)M_ROWS * LD * sizeof(float)));
  CK(cudaMemset(out, 0, (size_t)M_ROWS * LD * sizeof(float)));
  const int max_ctas = sms;
  long long *d_stamps, *d_clock;
  CK(cudaMalloc(&d_stamps, (size_t)max_ctas * TILES * 8 * 2 * sizeof(long long)));
  CK(cudaMalloc(&d_clock, (size_t)max_ctas * 2 * sizeof(long long)));
  // 120 KB of dynamic shared memory: one CTA per SM.
  const int smem = 120 * 1024;
  CK(cudaFuncSetAttribute(k_frag_store, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(k_frag_store_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  warm_gpu();
  if (with_bf16) fputs("dtype,", stdout);
  printf("ctas,warps,gap,dest,warp_epi_p10,warp_epi_med,warp_epi_p90,cta_epi_med,bytes_per_clk_per_sm,tb_s,sm_ghz,event_ms\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int bf16 = 0; bf16 <= (with_bf16 ? 1 : 0); ++bf16)
  for (int wrap : {0, 64})
    for (long long gap : {0ll, 16000ll})
      for (int warps : {8, 4})
        for (int ctas : {1, 33, 66, max_ctas}) {
          float ms = 0;
          for (int rep = 0; rep < 3; ++rep) {
            CK(cudaEventRecord(e0));
            // `ld` in column pairs.
            if (bf16)
              k_frag_store_bf16<<<ctas, warps * 32, smem>>>(reinterpret_cast<unsigned*>(out), LD / 2, TILES, TILES_N, wrap,
                                                            gap, (float)rep, d_stamps, d_clock);
            else
              k_frag_store<<<ctas, warps * 32, smem>>>(reinterpret_cast<float2*>(out), LD / 2, TILES, TILES_N, wrap, gap,
                                                       (float)rep, d_stamps, d_clock);
            CK(cudaEventRecord(e1));
            CKLAUNCH();
            CK(cudaEventElapsedTime(&ms, e0, e1));
          }
          std::vector<long long> st((size_t)ctas * TILES * warps * 2), cl((size_t)ctas * 2);
          CK(cudaMemcpy(st.data(), d_stamps, st.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(cl.data(), d_clock, cl.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          std::vector<double> warp_epi, cta_epi, ghz;
          for (int c = 0; c < ctas; ++c) {
            for (int t = 1; t < TILES; ++t) {
              long long lo = 0, hi = 0;
              for (int w = 0; w < warps; ++w) {
                const long long* s = &st[(((size_t)c * TILES + t) * warps + w) * 2];
                warp_epi.push_back((double)(s[1] - s[0]));
                lo = w == 0 ? s[0] : std::min(lo, s[0]);
                hi = w == 0 ? s[1] : std::max(hi, s[1]);
              }
              cta_epi.push_back((double)(hi - lo));
            }
            ghz.push_back((double)cl[2 * c] / (double)cl[2 * c + 1]);
          }
          const Stats w = stats_of(warp_epi);
          const double cta = stats_of(cta_epi).median;
          const double bytes_per_cta_tile = (double)warps / 8 * 128 * 256 * (bf16 ? 2 : 4);
          const double tbs = (double)ctas * TILES * bytes_per_cta_tile / (ms * 1e-3) / 1e12;
          if (with_bf16) fputs(bf16 ? "bf16," : "f32,", stdout);
          printf("%d,%d,%lld,%s,%.0f,%.0f,%.0f,%.0f,%.2f,%.3f,%.3f,%.4f\n", ctas, warps, gap, wrap ? "l2" : "gemm", w.p10,
                 w.median, w.p90, cta, bytes_per_cta_tile / cta, tbs, stats_of(ghz).median, ms);
          fflush(stdout);
        }
  return 0;
}
