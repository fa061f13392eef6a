// 16: a GEMM's operand ring under load (bench_tma_load_kernels.cuh). Sweeps the CTAs loading at
// once (one per SM), the ring's stages, the bytes of a stage (128 x 64 of A plus 64 x BN of B),
// what the consumer does with a stage (spin `hold` cycles, or the k-step's wgmmas of a 128 x 256
// tile) and where the tiles come from (an 8192^3 GEMM's tiles in launch order; one tile for
// every CTA, so L2 hits; a tile of its own for every CTA, so L2 misses). Per configuration one
// CSV row: the latency of a stage from its issue to the consumer seeing it full, the parts of
// the ring's round (producer wake after a release, issue, hold), the period of a k-step, bytes
// per cycle per SM, TB/s over all SMs (cudaEvent) and the SM clock (clock64 over globaltimer).
// With --raw DIR, the stamps of every load of three configurations go to DIR as CSV.
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <string>
#include <vector>

#include "common.h"
#include "tensor_map.h"
#include "bench_tma_load_kernels.cuh"

static const int K = 8192, KSTEPS = K / 64, TILES = 5;
static const int MAX_CTAS = 132;
static const long long A_ROWS = (long long)MAX_CTAS * TILES * 128, B_COLS = (long long)MAX_CTAS * TILES * 256;

__global__ void fill_bf16(uint16_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[i] = (uint16_t)(0x3F80 | (x & 0x7F) | ((x >> 8) & 0x8000));  // +-[1, 2)
  }
}

static TlMap encode_map(PFN_encodeTiled encode, void* base, long long rows, long long cols, int box_rows) {
  const CUtensorMap map = bf16_2d_map(encode, base, rows, cols, box_rows);
  TlMap m;
  static_assert(sizeof(TlMap) == sizeof(CUtensorMap), "tensor map size");
  memcpy(&m, &map, sizeof m);
  return m;
}

struct Config {
  bool mma;
  int pattern, ctas, stages, bn;
  long long hold;
  const char* raw;  // file name of the raw stamps, or nullptr
};

static const char* kPattern[3] = {"gemm", "hit", "unique"};

static double median_of(std::vector<double> v) { return stats_of(std::move(v)).median; }

int main(int argc, char** argv) {
  const char* raw_dir = nullptr;
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--raw")) raw_dir = argv[i + 1];
  const int sms = num_sms();
  if (sms < MAX_CTAS) {
    fprintf(stderr, "this sweep wants %d SMs, the device has %d\n", MAX_CTAS, sms);
    return 1;
  }
  const PFN_encodeTiled encode = tensor_map_encoder();
  uint16_t *a, *b;
  const size_t a_elems = (size_t)A_ROWS * K, b_elems = (size_t)K * B_COLS;
  CK(cudaMalloc(&a, a_elems * 2));
  CK(cudaMalloc(&b, b_elems * 2));
  fill_bf16<<<sms * 8, 512>>>(a, a_elems, 1u);
  fill_bf16<<<sms * 8, 512>>>(b, b_elems, 2u);
  CKLAUNCH();
  // A: A_ROWS x K, boxes of 128 rows x 64 columns; B: K x B_COLS, boxes of 64 x 64.
  const TlMap a_map = encode_map(encode, a, A_ROWS, K, 128), b_map = encode_map(encode, b, K, B_COLS, 64);
  const int loads = KSTEPS * TILES;
  TlStamp* d_stamps;
  long long* d_clock;
  u32* d_sm;
  float* d_sink;
  CK(cudaMalloc(&d_stamps, (size_t)MAX_CTAS * loads * sizeof(TlStamp)));
  CK(cudaMalloc(&d_clock, MAX_CTAS * 2 * sizeof(long long)));
  CK(cudaMalloc(&d_sm, MAX_CTAS * sizeof(u32)));
  CK(cudaMalloc(&d_sink, 1024 * sizeof(float)));
  // 200 KB of dynamic shared memory: one CTA per SM whatever the ring's size.
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(k_tma_ring<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(k_tma_ring<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  warm_gpu();

  std::vector<Config> configs;
  for (int pattern = 0; pattern < 3; ++pattern)
    for (int ctas : {1, MAX_CTAS})
      for (int stages = 1; stages <= 4; ++stages) {
        const char* raw = nullptr;
        if (pattern == 0 && ctas == MAX_CTAS && stages == 2) raw = "raw_mma_gemm_132cta_2stage.csv";
        if (pattern == 0 && ctas == MAX_CTAS && stages == 4) raw = "raw_mma_gemm_132cta_4stage.csv";
        if (pattern == 0 && ctas == 1 && stages == 2) raw = "raw_mma_gemm_1cta_2stage.csv";
        configs.push_back({true, pattern, ctas, stages, 256, 0, raw});
      }
  for (int bn : {256, 128})
    for (int pattern = 0; pattern < 3; ++pattern)
      for (int ctas : {1, MAX_CTAS})
        for (int stages = 1; stages <= 4; ++stages)
          for (long long hold : {0ll, 512ll, 1024ll, 2048ll}) configs.push_back({false, pattern, ctas, stages, bn, hold, nullptr});
  for (int pattern = 0; pattern < 3; ++pattern)
    for (int ctas : {8, 16, 33, 66, 99}) configs.push_back({false, pattern, ctas, 4, 256, 0, nullptr});

  printf("consumer,pattern,ctas,stages,stage_bytes,hold,lat_issue_full_p10,lat_issue_full_med,lat_issue_full_p90,"
         "lat_issue_full_mean,wake_after_release_med,issue_med,hold_med,period_med,bytes_per_clk_per_sm,tb_s,"
         "sm_ghz,event_ms\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<TlStamp> h((size_t)MAX_CTAS * loads);
  std::vector<long long> hc(MAX_CTAS * 2);
  std::vector<u32> hs(MAX_CTAS);
  for (const Config& c : configs) {
    const int tiles_n = K / c.bn;
    const u32 stage_bytes = 128 * 64 * 2 + 64 * c.bn * 2;
    float ms = 0;
    for (int rep = 0; rep < 3; ++rep) {
      CK(cudaEventRecord(e0));
      if (c.mma)
        k_tma_ring<true><<<c.ctas, 384, smem>>>(a_map, b_map, c.pattern, c.stages, c.bn, KSTEPS, TILES, tiles_n, c.hold,
                                                d_stamps, d_clock, d_sm, d_sink);
      else
        k_tma_ring<false><<<c.ctas, 64, smem>>>(a_map, b_map, c.pattern, c.stages, c.bn, KSTEPS, TILES, tiles_n, c.hold,
                                                d_stamps, d_clock, d_sm, d_sink);
      CK(cudaEventRecord(e1));
      // A ring that cannot finish names its configuration instead of running into the timeout.
      for (int polls = 0; cudaEventQuery(e1) == cudaErrorNotReady; ++polls) {
        if (polls > 50000) {
          fprintf(stderr, "hang: %s %s, %d CTAs, %d stages, bn %d, hold %lld did not finish in 5 s\n",
                  c.mma ? "wgmma" : "spin", kPattern[c.pattern], c.ctas, c.stages, c.bn, c.hold);
          return 2;
        }
        usleep(100);
      }
      CKLAUNCH();
      CK(cudaEventElapsedTime(&ms, e0, e1));
    }
    CK(cudaMemcpy(h.data(), d_stamps, (size_t)c.ctas * loads * sizeof(TlStamp), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), d_clock, c.ctas * 2 * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hs.data(), d_sm, c.ctas * sizeof(u32), cudaMemcpyDeviceToHost));
    // The first tile of every CTA is its warm-up: statistics over the later tiles.
    std::vector<double> lat, wake, issue, hold, period, ghz;
    for (int cta = 0; cta < c.ctas; ++cta) {
      const TlStamp* s = &h[(size_t)cta * loads];
      for (int i = KSTEPS; i < loads; ++i) {
        lat.push_back((double)(s[i].full - s[i].issued));
        issue.push_back((double)(s[i].issued - s[i].acquired));
        hold.push_back((double)(s[i].released - s[i].full));
        wake.push_back((double)(s[i].acquired - s[i - c.stages].released));
      }
      period.push_back((double)(s[loads - 1].full - s[KSTEPS].full) / (loads - 1 - KSTEPS));
      ghz.push_back((double)hc[2 * cta] / (double)hc[2 * cta + 1]);
    }
    Stats l = stats_of(lat);
    double mean = 0;
    for (double x : lat) mean += x;
    mean /= lat.size();
    const double p = median_of(period);
    const double tbs = (double)c.ctas * loads * stage_bytes / (ms * 1e-3) / 1e12;
    printf("%s,%s,%d,%d,%u,%lld,%.0f,%.0f,%.0f,%.1f,%.0f,%.0f,%.0f,%.1f,%.2f,%.3f,%.3f,%.4f\n", c.mma ? "wgmma" : "spin",
           kPattern[c.pattern], c.ctas, c.stages, stage_bytes, c.hold, l.p10, l.median, l.p90, mean, median_of(wake),
           median_of(issue), median_of(hold), p, stage_bytes / p, tbs, median_of(ghz), ms);
    fflush(stdout);
    if (c.raw && raw_dir) {
      std::string path = std::string(raw_dir) + "/" + c.raw;
      FILE* f = fopen(path.c_str(), "w");
      if (!f) {
        fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
      }
      fprintf(f, "cta,sm,load,acquired,issued,full,released\n");
      for (int cta = 0; cta < c.ctas; ++cta) {
        const TlStamp* s = &h[(size_t)cta * loads];
        for (int i = 0; i < loads; ++i)
          fprintf(f, "%d,%u,%d,%lld,%lld,%lld,%lld\n", cta, hs[cta], i, s[i].acquired - s[0].acquired,
                  s[i].issued - s[0].acquired, s[i].full - s[0].acquired, s[i].released - s[0].acquired);
      }
      fclose(f);
    }
  }
  return 0;
}
