// Items 1-3: SM clock, FFMA latency/throughput, MUFU ex2 latency/throughput.
#include "common.h"

// ---------------------------------------------------------------- clock
// One CTA per SM spins on FFMAs for ~100+ ms; thread 0 reads clock64 and %globaltimer
// at both ends.  freq = dclock64 / dglobaltimer, and dclock64 / cudaEvent time.
__global__ void clock_kernel(long long* cyc, unsigned long long* ns, int iters) {
  extern __shared__ float pad[];
  float x = threadIdx.x, y = 0.999f;
  __syncthreads();
  long long c0 = clk();
  uint64_t g0 = gtimer();
  for (int i = 0; i < iters; ++i) x = fmaf(x, y, 0.5f);
  __syncthreads();
  long long c1 = clk();
  uint64_t g1 = gtimer();
  if (threadIdx.x == 0) {
    cyc[blockIdx.x] = c1 - c0;
    ns[blockIdx.x] = g1 - g0;
  }
  if (x == -1.f) pad[0] = x;
}

// ---------------------------------------------------------------- latency chains
#define FFMA1(x) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b))
#define EX2F1(x) asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.ftz.f32 %0, t; }" : "+f"(x))
#define EX2N1(x) asm volatile("{ .reg .f32 t; neg.f32 t, %0; ex2.approx.f32 %0, t; }" : "+f"(x))

template <int OP>
__device__ __forceinline__ void op1(float& x, float a, float b) {
  if (OP == 0) FFMA1(x);
  if (OP == 1) EX2F1(x);
  if (OP == 2) EX2N1(x);
}

template <int OP, int UNROLL>
__global__ void lat_kernel(float* out, long long* cyc, int iters, float a, float b) {
  float x = a + threadIdx.x;
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) op1<OP>(x, a, b);
  }
  long long t1 = clk();
  out[0] = x;
  cyc[0] = t1 - t0;
}

// ---------------------------------------------------------------- throughput
// ILP independent chains per thread, one CTA per SM; in-kernel clock64 per CTA.
template <int OP, int ILP, int UNROLL>
__global__ void tput_kernel(float* out, long long* cyc, unsigned* sm, int iters, float a, float b) {
  extern __shared__ float pad[];
  float x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = a * (threadIdx.x + k);
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) op1<OP>(x[k], a, b);
    }
  }
  __syncthreads();
  long long t1 = clk();
  float s = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) s += x[k];
  if (s == 1234.5f) out[threadIdx.x] = s;
  if (threadIdx.x == 0) {
    cyc[blockIdx.x] = t1 - t0;
    sm[blockIdx.x] = smid();
  }
}

static float *d_out;
static long long* d_cyc;
static unsigned* d_sm;

template <int OP, int UNROLL>
static double lat_once(int iters) {
  lat_kernel<OP, UNROLL><<<1, 1>>>(d_out, d_cyc, iters, 0.5f, 0.25f);
  CKLAUNCH();
  long long c;
  CK(cudaMemcpy(&c, d_cyc, sizeof(c), cudaMemcpyDeviceToHost));
  return (double)c;
}

template <int OP>
static void latency(const char* name, const char* method) {
  const int U = 256, K = 16;
  lat_once<OP, U>(K);  // warm
  std::vector<double> v;
  for (int r = 0; r < 15; ++r) {
    double t1 = lat_once<OP, U>(K), t2 = lat_once<OP, U>(2 * K);
    v.push_back((t2 - t1) / (K * U));
  }
  emit(name, stats_of(v), "cycles", method);
}

template <int OP, int ILP>
static void tput(const char* name, int threads, int iters, const char* method) {
  const int U = 16;
  int nsm = num_sms();
  auto k = tput_kernel<OP, ILP, U>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaPerSmSmem));
  k<<<nsm, threads, kOneCtaPerSmSmem>>>(d_out, d_cyc, d_sm, iters, 0.999f, 0.001f);
  CKLAUNCH();
  std::vector<double> v;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> wall;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(e0));
    k<<<nsm, threads, kOneCtaPerSmSmem>>>(d_out, d_cyc, d_sm, iters, 0.999f, 0.001f);
    CK(cudaEventRecord(e1));
    CKLAUNCH();
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::vector<long long> c(nsm);
    std::vector<unsigned> s(nsm);
    CK(cudaMemcpy(c.data(), d_cyc, nsm * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(s.data(), d_sm, nsm * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned> ss = s;
    std::sort(ss.begin(), ss.end());
    if (std::unique(ss.begin(), ss.end()) != ss.end()) fprintf(stderr, "warning: two CTAs on one SM in %s\n", name);
    double ops = (double)threads * ILP * U * iters;
    for (int b = 0; b < nsm; ++b) v.push_back(ops / c[b]);
    wall.push_back(ops * nsm / (ms * 1e-3) / 1e9);  // G lane-ops/s, whole GPU
  }
  emit(name, stats_of(v), "lanes/clk/SM", method);
  std::string n2 = std::string(name) + "_wall_gops";
  emit(n2.c_str(), stats_of(wall), "Glane-ops/s (whole GPU)", "same kernel, ops / cudaEvent time over all SMs");
}

int main() {
  int nsm = num_sms();
  CK(cudaMalloc(&d_out, 4096 * sizeof(float)));
  CK(cudaMalloc(&d_cyc, 4096 * sizeof(long long)));
  CK(cudaMalloc(&d_sm, 4096 * sizeof(unsigned)));
  warm_gpu();

  // ---- 1. clock
  {
    unsigned long long* d_ns;
    CK(cudaMalloc(&d_ns, nsm * sizeof(unsigned long long)));
    CK(cudaFuncSetAttribute(clock_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaPerSmSmem));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> f_gt, f_ev;
    int iters = 20 * 1000 * 1000;  // ~4 cycles each -> ~40 ms at 2 GHz
    for (int r = 0; r < 9; ++r) {
      CK(cudaEventRecord(e0));
      clock_kernel<<<nsm, 128, kOneCtaPerSmSmem>>>(d_cyc, d_ns, iters);
      CK(cudaEventRecord(e1));
      CKLAUNCH();
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      std::vector<long long> c(nsm);
      std::vector<unsigned long long> ns(nsm);
      CK(cudaMemcpy(c.data(), d_cyc, nsm * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ns.data(), d_ns, nsm * 8, cudaMemcpyDeviceToHost));
      std::vector<double> cd(c.begin(), c.end());
      Stats sc = stats_of(cd);
      for (int b = 0; b < nsm; ++b) f_gt.push_back((double)c[b] / (double)ns[b]);
      f_ev.push_back(sc.median / (ms * 1e6));
    }
    emit("sm_clock_clock64_vs_globaltimer", stats_of(f_gt), "GHz",
         "one CTA/SM busy ~40 ms; clock64 delta / %globaltimer delta per CTA");
    emit("sm_clock_clock64_vs_event", stats_of(f_ev), "GHz",
         "median per-CTA clock64 delta / cudaEvent elapsed of the launch (launch overhead included, so a lower bound)");
  }

  // ---- 2. FFMA
  latency<0>("ffma_dep_latency", "1 thread, chain of dependent fma.rn.f32 (x=x*a+b), (t(2K)-t(K))/K instrs, clock64");
  tput<0, 8>("ffma_tput_32warps", 1024, 4096, "1 CTA/SM x 1024 thr, 8 indep. FFMA chains/thread; lanes*instrs / CTA clock64 cycles");
  tput<0, 8>("ffma_tput_4warps", 128, 4096, "1 CTA/SM x 128 thr (1 warp/SMSP), 8 indep. chains/thread");
  tput<0, 4>("ffma_tput_4warps_ilp4", 128, 8192, "1 CTA/SM x 128 thr (1 warp/SMSP), 4 indep. chains/thread");

  // ---- 3. MUFU ex2
  latency<1>("mufu_ex2_ftz_dep_latency", "1 thread, dependent chain x=ex2.approx.ftz.f32(-x) (one MUFU.EX2 with negated operand per step in SASS), clock64");
  latency<2>("mufu_ex2_dep_latency", "1 thread, dependent chain x=ex2.approx.f32(-x) (non-ftz: FSETP + predicated FMUL + MUFU.EX2 + predicated FMUL per step in SASS), clock64");
  tput<1, 8>("mufu_ex2_ftz_tput_32warps", 1024, 512, "1 CTA/SM x 1024 thr, 8 indep. ex2.approx.ftz chains/thread");
  tput<1, 8>("mufu_ex2_ftz_tput_8warps", 256, 2048, "1 CTA/SM x 256 thr, 8 indep. ex2.approx.ftz chains/thread");
  tput<2, 8>("mufu_ex2_tput_32warps", 1024, 512, "1 CTA/SM x 1024 thr, 8 indep. ex2.approx.f32 (non-ftz) chains/thread; counts ex2 ops, not SASS instrs");
  return 0;
}
