// Item 7: wgmma m64nNk16 bf16 -> f32, both operands from shared memory (SS), 128B-swizzle K-major
// descriptors.  Latency (clock64 around issue + commit + wait_group 0) and throughput (chains of
// wgmma on the same accumulators from 1..4 warpgroups per SM).
#include "common.h"
#include "wgmma_ops.h"
#include "wgmma_tiles.h"

template <int N> struct W;
template <> struct W<64> {
  static __device__ __forceinline__ void mma(float (&d)[32], uint64_t a, uint64_t b) { wgmma_m64n64k16_ss(d, a, b, 1); }
};
template <> struct W<128> {
  static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b) { wgmma_m64n128k16_ss(d, a, b, 1); }
};
template <> struct W<256> {
  static __device__ __forceinline__ void mma(float (&d)[128], uint64_t a, uint64_t b) { wgmma_m64n256k16_ss(d, a, b, 1); }
};

static const int kTileSmem = 8192 + 32768 + 1024;

template <int N, int CHAIN>
__global__ void __launch_bounds__(128, 1) wgmma_lat(long long* out, float* sink, int reps) {
  extern __shared__ uint8_t raw[];
  uint32_t base = fill_tiles(raw);
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  for (int r = 0; r < reps; ++r) {
    wg_fence();
    long long t0 = clk();
#pragma unroll
    for (int c = 0; c < CHAIN; ++c) W<N>::mma(d, da + 2 * (c & 3), db + 2 * (c & 3));
    wg_commit();
    wg_wait<0>();
    fence_acc(d);
    long long t1 = clk();
    if (threadIdx.x == 0) out[r] = t1 - t0;
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  sink[threadIdx.x] = s;
}

// NWG warpgroups, each with its own accumulators, all reading the same A/B tiles.  Each loop
// iteration: 4 wgmmas (k = 0..63 of the tile), commit, wait_group WAITN.
template <int N, int NWG, int WAITN>
__global__ void __launch_bounds__(128 * NWG, 1)
    wgmma_tput(long long* cyc, unsigned long long* ns, float* sink, int iters) {
  extern __shared__ uint8_t raw[];
  uint32_t base = fill_tiles(raw);
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  __syncthreads();
  long long t0 = clk();
  uint64_t g0 = gtimer();
  wg_fence();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) W<N>::mma(d, da + 2 * k, db + 2 * k);
    wg_commit();
    wg_wait<WAITN>();
  }
  wg_wait<0>();
  fence_acc(d);
  __syncthreads();
  long long t1 = clk();
  uint64_t g1 = gtimer();
  if (threadIdx.x == 0) {
    cyc[blockIdx.x] = t1 - t0;
    ns[blockIdx.x] = g1 - g0;
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

static long long* d_cyc;
static unsigned long long* d_ns;
static float* d_sink;

template <int N, int CHAIN>
static double lat_run(const char* tag) {
  auto k = wgmma_lat<N, CHAIN>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kTileSmem));
  const int reps = 200;
  k<<<1, 128, kTileSmem>>>(d_cyc, d_sink, reps);
  CKLAUNCH();
  std::vector<long long> c(reps);
  CK(cudaMemcpy(c.data(), d_cyc, reps * 8, cudaMemcpyDeviceToHost));
  std::vector<double> v(c.begin() + 10, c.end());
  Stats s = stats_of(v);
  char nm[96], me[300];
  snprintf(nm, sizeof nm, "wgmma_m64n%dk16_ss_%s", N, tag);
  if (CHAIN == 1)
    snprintf(me, sizeof me,
             "1 warpgroup, 1 CTA: clock64; wgmma.fence; 1 wgmma (bf16,f32 acc, SS, 128B swizzle); commit_group; wait_group 0; clock64 (%d reps)",
             reps);
  else
    snprintf(me, sizeof me,
             "1 warpgroup: %d wgmmas on the same accumulators in one commit group, then wait_group 0; total cycles", CHAIN);
  emit(nm, s, "cycles", me);
  return s.median;
}

template <int N, int NWG, int WAITN>
static void tput_run(int iters, const char* suffix = "", int reps = 5) {
  int nsm = num_sms();
  auto k = wgmma_tput<N, NWG, WAITN>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaPerSmSmem));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  k<<<nsm, 128 * NWG, kOneCtaPerSmSmem>>>(d_cyc, d_ns, d_sink, iters);
  CKLAUNCH();
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> per_sm, tflops, ghz;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    k<<<nsm, 128 * NWG, kOneCtaPerSmSmem>>>(d_cyc, d_ns, d_sink, iters);
    CK(cudaEventRecord(e1));
    CKLAUNCH();
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::vector<long long> c(nsm);
    std::vector<unsigned long long> ns(nsm);
    CK(cudaMemcpy(c.data(), d_cyc, nsm * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ns.data(), d_ns, nsm * 8, cudaMemcpyDeviceToHost));
    double fma = (double)NWG * iters * 4 * 64.0 * N * 16;
    for (int b = 0; b < nsm; ++b) {
      per_sm.push_back(fma / c[b]);
      ghz.push_back((double)c[b] / ns[b]);
    }
    tflops.push_back(2.0 * fma * nsm / (ms * 1e-3) / 1e12);
  }
  char nm[96], me[400];
  snprintf(nm, sizeof nm, "wgmma_m64n%dk16_ss_tput_%dwg%s%s", N, NWG, WAITN == 0 ? "_wait0" : "", suffix);
  snprintf(me, sizeof me,
           "1 CTA/SM on all SMs, %d warpgroup(s) x own accumulators (%d regs/thread), loop {4 wgmma k-steps; commit; wait_group %d}; FMA / CTA clock64 cycles",
           NWG, fa.numRegs, WAITN);
  emit(nm, stats_of(per_sm), "FMA/clk/SM", me);
  std::string n2 = std::string(nm) + "_tflops";
  emit(n2.c_str(), stats_of(tflops), "TFLOP/s", "same kernel, whole GPU: 2*FMA / cudaEvent time");
  std::string n3 = std::string(nm) + "_sm_clock";
  emit(n3.c_str(), stats_of(ghz), "GHz", "same kernel: clock64 delta / %globaltimer delta per CTA");
}

int main() {
  CK(cudaMalloc(&d_cyc, 1 << 20));
  CK(cudaMalloc(&d_ns, 1 << 20));
  CK(cudaMalloc(&d_sink, 1 << 20));
  warm_gpu();
  // latency: single wgmma and dependent chains (slope = issue interval on one accumulator)
  double l1, l16;
  l1 = lat_run<64, 1>("latency");
  lat_run<64, 4>("chain4");
  l16 = lat_run<64, 16>("chain16");
  emit1("wgmma_m64n64k16_ss_chain_slope", (l16 - l1) / 15.0, "cycles/wgmma",
        "(t(chain16) - t(chain1)) / 15: per-wgmma interval on one accumulator, 1 warpgroup");
  l1 = lat_run<128, 1>("latency");
  lat_run<128, 4>("chain4");
  l16 = lat_run<128, 16>("chain16");
  emit1("wgmma_m64n128k16_ss_chain_slope", (l16 - l1) / 15.0, "cycles/wgmma",
        "(t(chain16) - t(chain1)) / 15: per-wgmma interval on one accumulator, 1 warpgroup");
  l1 = lat_run<256, 1>("latency");
  lat_run<256, 4>("chain4");
  l16 = lat_run<256, 16>("chain16");
  emit1("wgmma_m64n256k16_ss_chain_slope", (l16 - l1) / 15.0, "cycles/wgmma",
        "(t(chain16) - t(chain1)) / 15: per-wgmma interval on one accumulator, 1 warpgroup");

  // throughput
  tput_run<256, 1, 0>(8000);
  tput_run<256, 1, 1>(8000);
  tput_run<256, 2, 1>(4000);
  tput_run<256, 3, 1>(3000);
  tput_run<128, 1, 1>(16000);
  tput_run<128, 2, 1>(8000);
  tput_run<128, 3, 1>(6000);
  tput_run<128, 4, 1>(4000);
  tput_run<64, 1, 1>(32000);
  tput_run<64, 2, 1>(16000);
  tput_run<64, 4, 1>(8000);
  // sustained: ~1 s per launch, so power management settles (SM clock under full tensor load)
  tput_run<256, 2, 1>(1600000, "_sustained", 3);
  return 0;
}
