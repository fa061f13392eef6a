// Item 38: a warp's bookkeeping while its own warpgroup's wgmma group is in flight.
//   in_flight  one dependent integer chain a thread (add, xor in turn: VIADD/IADD3, LOP3, as
//              item 35), or the generated kernels' stage release (a per-thread stage index, the
//              barrier's shared-memory address from it, one lane's mbarrier.arrive), timed
//              {fence; G wgmma m64n256k16 SS; commit; t0 = clock64; work; t1 = clock64;
//              wait_group 0} with the group issued by the timed warp's own warpgroup, by the
//              other warpgroup of the CTA (running groups back to back meanwhile), by both, or
//              by neither.
// The non-specialized GEMM's v2 runs its release, acquire and copies' issue with its own group
// in flight, v1 after wait_group 0; at one SM the H200's stall sampling has v2's release take
// 153 cycles against v1's 93 in the same code (calibration/results/one_sm/stalls_dense/).
#include <cstring>

#include "common.h"
#include "wgmma_ops.h"
#include "wgmma_tiles.h"

static long long* d_out;
static float* d_sink;
static const int kSmem = 1024 + kOneCtaPerSmSmem;  // forces 1 CTA/SM

enum { WHERE_NONE = 0, WHERE_OWN = 1, WHERE_OTHER = 2, WHERE_BOTH = 3 };
static const char* kWhere[] = {"none", "own", "other", "both"};
enum { WORK_INT = 0, WORK_RELEASE = 1 };
static const int kIntOps = 64;    // dependent integer instructions a pass
static const int kReleases = 4;   // releases a pass
static const int kGroup = 8;      // wgmma m64n256k16 a group: 8 x 128 + 54 cycles

template <int WHERE, int WORK>
__global__ void __launch_bounds__(256, 1) in_flight(long long* out, float* sink, int passes) {
  extern __shared__ uint8_t raw[];
  __shared__ uint64_t bars[4];
  __shared__ volatile int done;
  __shared__ int stop;
  __shared__ uint32_t word[32];
  uint32_t base = fill_tiles(raw);
  if (threadIdx.x < 4) mbar_init(smem_u32(&bars[threadIdx.x]), (1u << 20) - 1);  // phases never complete
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  if (threadIdx.x == 0) mbar_fence_init();
  __syncthreads();
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  const int wg = threadIdx.x / 128;
  if (wg == 1) {
    // The other warpgroup: groups back to back while warpgroup 0 runs, or nothing.
    // Its warps decide together whether to go on (wgmma is warpgroup-collective).
    if (WHERE & WHERE_OTHER) {
      for (;;) {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        if (threadIdx.x == 128) stop = done;
        asm volatile("bar.sync 1, 128;" ::: "memory");
        if (stop) break;
        wg_fence();
#pragma unroll
        for (int k = 0; k < 4; ++k) wgmma_m64n256k16_ss(d, da + 2 * (k & 3), db + 2 * (k & 3), 1);
        wg_commit();
        wg_wait<0>();
      }
    }
  } else {
    // A per-thread value ptxas cannot fold: 0 in every thread, read from shared memory.
    uint32_t zero = word[threadIdx.x & 31];
    uint32_t x = threadIdx.x + zero, stage = ((threadIdx.x >> 7) + zero) & 3;
    const bool leader = (threadIdx.x & 127) == 0;
    long long total = 0;
    if (WHERE & WHERE_OTHER) spin_cycles(4000);  // the other warpgroup's MMAs are running by now
    for (int it = 0; it < passes + 2; ++it) {
      // Without a group of its own the warp issues no fence or commit either (an empty
      // group is a dummy HGMMA in the SASS).
      if (WHERE & WHERE_OWN) {
        wg_fence();
#pragma unroll
        for (int k = 0; k < kGroup; ++k) wgmma_m64n256k16_ss(d, da + 2 * (k & 3), db + 2 * (k & 3), 1);
        wg_commit();
      }
      long long t0 = clk();
      if (WORK == WORK_INT) {
#pragma unroll
        for (int s = 0; s < kIntOps; s += 2) {
          asm volatile("add.u32 %0, %0, 7;" : "+r"(x));
          asm volatile("xor.b32 %0, %0, 85;" : "+r"(x));
        }
      } else {
#pragma unroll
        for (int r = 0; r < kReleases; ++r) {
          if (leader) mbar_arrive_nostate(smem_u32(&bars[stage]));
          stage = (stage + 1 + zero) & 3;
        }
      }
      long long t1 = clk() + ((x ^ stage) == 12345u);
      if (WHERE & WHERE_OWN) wg_wait<0>();
      if (it >= 2) total += t1 - t0;
    }
    if (threadIdx.x == 0) done = 1;
    if ((threadIdx.x & 31) == 0) out[blockIdx.x * 4 + threadIdx.x / 32] = total;
  }
  fence_acc(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s + (float)(threadIdx.x);
}

template <int WHERE, int WORK>
static void run_in_flight() {
  auto k = in_flight<WHERE, WORK>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const int passes = 256;
  const int per = WORK == WORK_INT ? kIntOps : kReleases;
  std::vector<double> v;
  for (auto& o : three_launches([&] { k<<<sms, 256, kSmem>>>(d_out, d_sink, passes); }, d_out, sms * 4)) {
    for (int c = 0; c < sms; ++c) {
      if (WORK == WORK_INT)
        for (int w = 0; w < 4; ++w) v.push_back((double)o[c * 4 + w] / passes / per);
      else
        v.push_back((double)o[c * 4] / passes / per);  // the warp whose lane 0 arrives
    }
  }
  char name[96], method[400];
  snprintf(name, sizeof name, "in_flight_%s_%s", WORK == WORK_INT ? "int" : "release", kWhere[WHERE]);
  snprintf(method, sizeof method,
           "1 CTA/SM of 2 warpgroups on %d SMs x 3 launches; warpgroup 0: {fence; %d wgmma m64n256k16 SS if own; commit; "
           "t0; %s; t1; wait_group 0} x %d passes; warpgroup 1: groups of 4 back to back if other; (t1 - t0) / %d per %s",
           sms, kGroup,
           WORK == WORK_INT ? "64 dependent add.u32/xor.b32 a thread" : "4 releases (per-thread stage, lane 0 arrives)",
           passes, per, WORK == WORK_INT ? "instruction, every warp" : "release, the arriving warp");
  emit(name, stats_of(v), WORK == WORK_INT ? "cycles an instruction" : "cycles a release", method);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&d_out, 132 * 8 * 8));
  CK(cudaMalloc(&d_sink, 4096 * 4));
  warm_gpu();
  if (argc > 1 && strcmp(argv[1], "in_flight") == 0) {
    run_in_flight<WHERE_NONE, WORK_INT>();
    run_in_flight<WHERE_OWN, WORK_INT>();
    run_in_flight<WHERE_OTHER, WORK_INT>();
    run_in_flight<WHERE_BOTH, WORK_INT>();
    run_in_flight<WHERE_NONE, WORK_RELEASE>();
    run_in_flight<WHERE_OWN, WORK_RELEASE>();
    run_in_flight<WHERE_OTHER, WORK_RELEASE>();
    run_in_flight<WHERE_BOTH, WORK_RELEASE>();
    return 0;
  }
  fprintf(stderr, "usage: bench_in_flight in_flight\n");
  return 2;
}
