// Item 29: what the last warp to reach a `bar.sync` pays for it.
//
// One CTA of 8 warps loops ITERS times: the `late` warps (warp 0, or warps 0-3: a
// non-specialized GEMM's loading warp, or its whole warpgroup) run a chain of W dependent
// `mad.lo.u32` (about 4 cycles each) while the others go straight on; then, with SYNC, all
// eight meet at `bar.sync 1, 256` (the late warps arrive last, W x 4 cycles after the
// others); then every warp runs one probe, the first instruction after the barrier that
// may have to wait for it (on sm_90 `bar.sync` is `BAR.SYNC.DEFER_BLOCKING`: the warp goes
// on issuing until an instruction that must wait):
//   alu     one dependent mad on the chain's value (nothing to wait for);
//   branch  `if (x & mask)` with mask 0 at run time around a side effect: a convergence
//           barrier (`BSSY`) and a branch, the shape after the trade-off GEMM's `bar.sync`;
//   lds     a shared-memory load whose value joins the chain;
//   trywait `mbarrier.try_wait.parity` on a phase completed before the loop, until it
//           succeeds (the GEMM's acquire after its `bar.sync`).
// Warp 0 reads clock64 before and after the loop: cycles per iteration, median of REPS
// launches. The last arriver's cost of the barrier in a probe's shape is the SYNC row less
// the row without it. A row with every warp late (late 8) has nobody waiting early: the
// barrier's cost when all arrive together.
#include "common.h"

constexpr int ITERS = 4096;
constexpr int REPS = 7;

enum Probe { ALU = 0, BRANCH = 1, LDS = 2, TRYWAIT = 3 };
static const char* kProbe[] = {"alu", "branch", "lds", "trywait"};

__device__ __forceinline__ void chain(uint32_t& x, uint32_t a, uint32_t b, int w) {
#pragma unroll 1
  for (int j = 0; j < w; j += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
  }
}

template <int PROBE, bool SYNC>
__global__ void k_last(int late, int w, uint32_t a, uint32_t b, uint32_t mask, long long* out, uint32_t* sink) {
  __shared__ uint64_t bar;
  __shared__ uint32_t words[8];
  const int warp = threadIdx.x >> 5;
  const uint32_t mb = smem_u32(&bar);
  if (threadIdx.x == 0) mbar_init(mb, 1);
  if (threadIdx.x < 8) words[threadIdx.x] = threadIdx.x * mask;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_fence_init();
    mbar_arrive_nostate(mb);  // phase 0 completes before the loop
  }
  __syncthreads();
  uint32_t x = threadIdx.x;
  const int my_w = warp < late ? w : 0;
  long long t0 = clk();
  for (int i = 0; i < ITERS; ++i) {
    chain(x, a, b, my_w);
    if (SYNC) asm volatile("bar.sync 1, 256;" ::: "memory");
    if (PROBE == ALU) {
      asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    } else if (PROBE == BRANCH) {
      if (x & mask) {
        sink[threadIdx.x] = x;
        x = x * a + b;
      }
    } else if (PROBE == LDS) {
      uint32_t v;
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(smem_u32(&words[i & 7])) : "memory");
      x += v;
    } else {
      uint32_t ok;
      do {
        ok = mbar_try_wait(mb, 0);
      } while (!ok);
      x += ok;
    }
  }
  long long t1 = clk();
  if (threadIdx.x == 0) out[0] = t1 - t0;
  if (x == 0xdeadbeef) sink[0] = x;
}

template <int PROBE, bool SYNC>
static void row(int late, int w, long long* d_out, uint32_t* d_sink) {
  std::vector<double> v;
  for (int r = 0; r < REPS; ++r) {
    k_last<PROBE, SYNC><<<1, 256>>>(late, w, 3u, 1u, 0u, d_out, d_sink);
    CKLAUNCH();
    long long t = 0;
    CK(cudaMemcpy(&t, d_out, sizeof t, cudaMemcpyDeviceToHost));
    v.push_back((double)t / ITERS);
  }
  Stats s = stats_of(v);
  printf("%s,%d,%d,%d,%.1f,%.1f,%.1f\n", kProbe[PROBE], SYNC ? 1 : 0, late, w, s.median, s.min, s.max);
  fflush(stdout);
}

template <int PROBE>
static void probe_rows(long long* d_out, uint32_t* d_sink) {
  for (int late : {1, 4, 8})
    for (int w : {32, 64, 128}) {
      row<PROBE, false>(late, w, d_out, d_sink);
      row<PROBE, true>(late, w, d_out, d_sink);
    }
}

int main() {
  long long* d_out;
  uint32_t* d_sink;
  CK(cudaMalloc(&d_out, sizeof(long long)));
  CK(cudaMalloc(&d_sink, 256 * sizeof(uint32_t)));
  warm_gpu();
  printf("probe,sync,late,w,cycles_per_iter,min,max\n");
  probe_rows<ALU>(d_out, d_sink);
  probe_rows<BRANCH>(d_out, d_sink);
  probe_rows<LDS>(d_out, d_sink);
  probe_rows<TRYWAIT>(d_out, d_sink);
  return 0;
}
