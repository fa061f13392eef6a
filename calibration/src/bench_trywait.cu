// Item 20: what a wait costs when the phase it waits for has already completed.
//
// A warp (all 32 lanes, as the generated kernels wait) runs `mbarrier.try_wait.parity` (or
// `test_wait`) on a barrier whose phase 0 completed before the loop, in the shape the
// generated code has (`SYNCS.PHASECHK.TRANS64.TRYWAIT P, [addr], parity; @!P BRA retry`):
//   - "loop": `while (!try_wait(bar, 0)) {}` back to back, ITERS times: cycles per wait;
//   - "chain": each wait's barrier address depends on the previous wait's result
//     (`bar + (ok & mask) * 8`, mask = 0 at run time): the result latency plus two ALU ops.
// W warps of one CTA do the same at once (each on its own barrier, or all on one), to see
// whether passing waits contend. Clock: clock64 around the loop, per warp; median of warps x
// repetitions.
#include "common.h"

constexpr int ITERS = 512;
constexpr int REPS = 16;

template <bool TEST, bool CHAIN, bool SHARED_BAR>
__global__ void wait_done(long long* out, uint32_t mask) {
  __shared__ uint64_t bars[32];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int nwarps = blockDim.x >> 5;
  uint32_t base = smem_u32(&bars[0]);
  if (threadIdx.x < 32) {
    mbar_init(base + 8 * threadIdx.x, 1);
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    mbar_fence_init();
    mbar_arrive_nostate(base + 8 * threadIdx.x);  // completes phase 0 of every barrier
  }
  __syncthreads();
  uint32_t bar = SHARED_BAR ? base : base + 8 * warp;
  for (int r = 0; r < REPS + 2; ++r) {
    uint32_t ok = 1;
    long long t0 = clk();
    for (int i = 0; i < ITERS; ++i) {
      uint32_t a = CHAIN ? bar + (ok & mask) * 8 : bar;
      if (TEST) {
        do { ok = mbar_test_wait(a, 0); } while (!ok);
      } else {
        do { ok = mbar_try_wait(a, 0); } while (!ok);
      }
    }
    long long t1 = clk();
    if (lane == 0 && r >= 2) out[(r - 2) * nwarps + warp] = t1 - t0 + (ok == 7);
  }
}

template <bool TEST, bool CHAIN, bool SHARED_BAR>
static void run(const char* name, int warps, const char* method) {
  long long* d;
  int n = REPS * warps;
  CK(cudaMalloc(&d, n * sizeof(long long)));
  wait_done<TEST, CHAIN, SHARED_BAR><<<1, 32 * warps>>>(d, 0u);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  std::vector<double> v;
  for (long long x : h) v.push_back((double)x / ITERS);
  char full[160];
  snprintf(full, sizeof full, "%s_%dwarps", name, warps);
  emit(full, stats_of(v), "cycles", method);
}

int main() {
  warm_gpu();
  for (int w : {1, 4, 8, 12}) {
    run<false, false, false>("trywait_done_loop", w,
                             "per wait: while(!try_wait.parity) on a completed phase, back to back, each warp its own barrier");
    run<false, true, false>("trywait_done_chain", w,
                            "per wait: try_wait.parity on a completed phase, the next address depending on its result (+2 ALU ops)");
    run<true, false, false>("testwait_done_loop", w,
                            "per wait: while(!test_wait.parity) on a completed phase, back to back, each warp its own barrier");
    run<false, false, true>("trywait_done_loop_shared_bar", w,
                            "per wait: as trywait_done_loop, every warp on the same barrier");
  }
  return 0;
}
