// Items 4-6: shared-memory load latency/throughput, mbarrier, named barriers.
#include "common.h"

static long long* d_cyc;
static uint32_t* d_out;

// ---------------------------------------------------------------- 4. shared memory
// Pointer chase: s[i] holds the shared-space byte address of the next element, so each step is a
// single `ld.shared.u32 p, [p]`.
template <int UNROLL>
__global__ void lds_chase(uint32_t* out, long long* cyc, int iters, int stride, int n) {
  extern __shared__ uint32_t s[];
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) s[i] = smem_u32(&s[(i + stride) % n]);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  uint32_t p = smem_u32(&s[0]);
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
  }
  long long t1 = clk();
  out[0] = p;
  cyc[0] = t1 - t0;
}

// Throughput: every thread loads (VEC*4) bytes, warp-contiguous (bank-conflict free), ILP loads per
// iteration into independent registers, XOR-folded so nothing is dead.
template <int VEC, int ILP>
__global__ void lds_tput(uint32_t* out, long long* cyc, int iters) {
  extern __shared__ __align__(16) uint32_t s[];
  for (int i = threadIdx.x; i < 32768; i += blockDim.x) s[i] = i * 2654435761u;
  __syncthreads();
  uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // each ILP slot reads a different 512 B (v4) / 128 B (u32) row
  // ILP slots of one iteration are 32*VEC*4 B apart; iteration i uses block (i & 7) so ptxas cannot
  // reuse loaded values across iterations (it CSEs loads from unchanged addresses otherwise).
  uint32_t base = smem_u32(s) + lane * VEC * 4 + (warp % 8) * (32 * VEC * 4 * ILP);
  uint32_t acc = 0;
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      uint32_t a = base + ((i & 7) * 8 + k) * 32 * VEC * 4;
      if (VEC == 4) {
        uint32_t x, y, z, w;
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "r"(a)
                     : "memory");
        acc ^= x ^ y ^ z ^ w;
      } else {
        uint32_t x;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
        acc ^= x;
      }
    }
  }
  __syncthreads();
  long long t1 = clk();
  if (acc == 0x12345678) out[threadIdx.x] = acc;
  if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
}

// ---------------------------------------------------------------- 5. mbarrier
// Ping-pong between warp 0 and warp 1 over two count-1 mbarriers.  MODE 0: whole warps wait with
// try_wait, lane 0 arrives.  MODE 1: only lane 0 of each warp takes part.  MODE 2: as 0 but
// test_wait spin instead of try_wait.
template <int MODE>
__global__ void mbar_pingpong(long long* cyc, int iters) {
  __shared__ uint64_t bars[2];
  uint32_t A = smem_u32(&bars[0]), B = smem_u32(&bars[1]);
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x == 0) {
    mbar_init(A, 1);
    mbar_init(B, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (MODE == 1 && lane != 0) return;
  long long t0 = 0;
  for (int i = 0; i < 2 * iters; ++i) {
    if (i == iters) t0 = clk();  // first half is warm-up
    if (warp == 0) {
      if (lane == 0) mbar_arrive(A);
      if (MODE == 2) mbar_wait_spin(B, i & 1); else mbar_wait(B, i & 1);
    } else {
      if (MODE == 2) mbar_wait_spin(A, i & 1); else mbar_wait(A, i & 1);
      if (lane == 0) mbar_arrive(B);
    }
  }
  long long t1 = clk();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// One-way: warp 1 is parked in try_wait (or test_wait spin); warp 0 waits ~3000 cycles, stamps
// clock64, arrives; warp 1 stamps clock64 when it sees the flip.  Same SM, same clock.
template <bool SPIN>
__global__ void mbar_oneway(long long* out, int reps) {
  __shared__ uint64_t bars[2];
  __shared__ long long t0s[512], t1s[512];
  uint32_t A = smem_u32(&bars[0]), B = smem_u32(&bars[1]);
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x == 0) {
    mbar_init(A, 1);
    mbar_init(B, 1);
    mbar_fence_init();
  }
  __syncthreads();
  for (int r = 0; r < reps; ++r) {
    if (warp == 0) {
      spin_cycles(3000);
      long long t0 = clk();
      if (lane == 0) mbar_arrive(A);
      if (lane == 0) t0s[r] = t0;
      mbar_wait(B, r & 1);
    } else {
      if (SPIN) mbar_wait_spin(A, r & 1); else mbar_wait(A, r & 1);
      long long t1 = clk();
      if (lane == 0) {
        t1s[r] = t1;
        mbar_arrive(B);
      }
    }
  }
  __syncthreads();
  for (int r = threadIdx.x; r < reps; r += blockDim.x) out[r] = t1s[r] - t0s[r];
}

// Cost of arrive: (a) back-to-back arrives from one thread on a barrier whose count is never
// reached (issue cost); (b) chain where each arrive's address depends on the previous arrive's
// returned state (state & mask, mask = 0 at run time): arrive round-trip + 2 ALU ops.
template <int UNROLL>
__global__ void mbar_arrive_cost(long long* cyc, int iters, uint64_t mask) {
  __shared__ uint64_t bar[2];
  uint32_t A = smem_u32(&bar[0]);
  if (threadIdx.x == 0) {
    mbar_init(A, (1u << 20) - 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  uint64_t acc = 0;
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) mbar_arrive_nostate(A);
  }
  long long t1 = clk();
  mbar_init(A, (1u << 20) - 1);
  long long t4 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) acc += mbar_arrive(A);
  }
  long long t5 = clk();
  // re-init so the count never completes in the dependent chain
  mbar_init(A, (1u << 20) - 1);
  uint64_t st = 0;
  long long t2 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < UNROLL; ++j) st = mbar_arrive(A + (uint32_t)(st & mask));
  }
  long long t3 = clk();
  cyc[0] = t1 - t0;
  cyc[1] = t3 - t2;
  cyc[2] = t5 - t4;
  cyc[3] = (long long)(acc + st);
}

// ---------------------------------------------------------------- 6. named barriers
__device__ __forceinline__ void bar_sync(int id, int n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int n) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}

// All blockDim threads do bar.sync 1, blockDim in a loop: cost per barrier when everyone is there.
__global__ void bar_loop(long long* cyc, int iters) {
  int n = blockDim.x;
  for (int i = 0; i < 64; ++i) bar_sync(1, n);
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) bar_sync(1, n);
  long long t1 = clk();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// Producer/consumer ping-pong between warp 0 and warp 1 with bar.arrive / bar.sync on ids 1, 2.
__global__ void bar_pingpong(long long* cyc, int iters) {
  int warp = threadIdx.x >> 5;
  long long t0 = 0;
  for (int i = 0; i < 2 * iters; ++i) {
    if (i == iters) t0 = clk();
    if (warp == 0) {
      bar_arrive(1, 64);
      bar_sync(2, 64);
    } else {
      bar_sync(1, 64);
      bar_arrive(2, 64);
    }
  }
  long long t1 = clk();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// One-way: warp 1 parked in bar.sync 1,64; warp 0 waits ~3000 cycles, writes flag = r+1, stamps
// clock64 and does bar.arrive 1,64 (V=0) or bar.sync 1,64 (V=1, it is the last to arrive).  Warp 1,
// after its bar.sync, reads the flag, stores it (so the stamp waits for the load) and stamps.  On
// sm_90 BAR.SYNC is "DEFER_BLOCKING": a clock read right after it is NOT held back (a first version
// read t1 ~3000 cycles too early); the flag load is, and the flag value proves the ordering.
template <int V>
__global__ void bar_oneway(long long* out, int reps) {
  __shared__ long long t0s[512], t1s[512];
  __shared__ int flag, seen[512];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  for (int r = 0; r < reps; ++r) {
    if (warp == 0) {
      spin_cycles(3000);
      if (lane == 0) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(smem_u32(&flag)), "r"(r + 1) : "memory");
      long long t0 = clk();
      if (V == 0) bar_arrive(1, 64); else bar_sync(1, 64);
      if (lane == 0) t0s[r] = t0;
    } else {
      bar_sync(1, 64);
      int f;
      asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(f) : "r"(smem_u32(&flag)) : "memory");
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(smem_u32(&seen[r])), "r"(f) : "memory");
      long long t1 = clk();
      if (lane == 0) t1s[r] = t1;
    }
    bar_sync(2, 64);
  }
  __syncthreads();
  for (int r = threadIdx.x; r < reps; r += blockDim.x) {
    out[r] = t1s[r] - t0s[r];
    out[512 + r] = (seen[r] == r + 1);
  }
}

__global__ void clk_overhead(long long* out, int reps) {
  for (int r = 0; r < reps; ++r) {
    long long a = clk();
    long long b = clk();
    out[r] = b - a;
  }
}

static long long get1(int i = 0) {
  long long c;
  CK(cudaMemcpy(&c, d_cyc + i, sizeof(c), cudaMemcpyDeviceToHost));
  return c;
}
static std::vector<double> getv(int n) {
  std::vector<long long> c(n);
  CK(cudaMemcpy(c.data(), d_cyc, n * sizeof(long long), cudaMemcpyDeviceToHost));
  return std::vector<double>(c.begin(), c.end());
}

int main() {
  int nsm = num_sms();
  CK(cudaMalloc(&d_cyc, 1 << 20));
  CK(cudaMalloc(&d_out, 1 << 20));
  warm_gpu();

  // clock64 read-to-read overhead (for the one-way stamps)
  clk_overhead<<<1, 1>>>(d_cyc, 256);
  CKLAUNCH();
  {
    auto v = getv(256);
    v.erase(v.begin(), v.begin() + 16);
    emit("clock64_read_overhead", stats_of(v), "cycles", "two back-to-back clock64 reads, 1 thread");
  }

  // ---- 4. shared memory latency
  {
    const int U = 256, K = 8;
    const int n = 8192;  // 32 KB of indices
    std::vector<double> v;
    for (int r = 0; r < 15; ++r) {
      lds_chase<U><<<1, 32, n * 4>>>(d_out, d_cyc, K, 33, n);
      CKLAUNCH();
      double a = get1();
      lds_chase<U><<<1, 32, n * 4>>>(d_out, d_cyc, 2 * K, 33, n);
      CKLAUNCH();
      double b = get1();
      v.push_back((b - a) / (K * U));
    }
    emit("smem_load_latency", stats_of(v), "cycles",
         "1 thread pointer chase ld.shared.u32 p,[p] over 32 KB (stride 33 words), (t(2K)-t(K))/K hops");
  }
  // ---- 4. shared memory throughput
  {
    auto k4 = lds_tput<4, 4>;
    auto k1 = lds_tput<1, 8>;
    CK(cudaFuncSetAttribute(k4, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaPerSmSmem));
    CK(cudaFuncSetAttribute(k1, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneCtaPerSmSmem));
    for (int which = 0; which < 2; ++which) {
      std::vector<double> v;
      int iters = 4096, threads = 1024;
      for (int r = 0; r < 6; ++r) {
        if (which == 0) k4<<<nsm, threads, kOneCtaPerSmSmem>>>(d_out, d_cyc, iters);
        else k1<<<nsm, threads, kOneCtaPerSmSmem>>>(d_out, d_cyc, iters);
        CKLAUNCH();
        if (r == 0) continue;
        auto c = getv(nsm);
        double bytes = (double)threads * iters * (which == 0 ? 4 * 16 : 8 * 4);
        for (double x : c) v.push_back(bytes / x);
      }
      if (which == 0)
        emit("smem_lds128_bandwidth", stats_of(v), "B/clk/SM",
             "1 CTA/SM x 1024 thr, ld.shared.v4.u32 warp-contiguous (conflict-free), 4 indep. loads/iter; bytes / CTA clock64 cycles");
      else
        emit("smem_lds32_bandwidth", stats_of(v), "B/clk/SM",
             "1 CTA/SM x 1024 thr, ld.shared.u32 warp-contiguous (conflict-free), 8 indep. loads/iter; bytes / CTA clock64 cycles");
    }
  }

  // ---- 5. mbarrier ping-pong
  {
    const int it = 2000;
    const char* names[3] = {"mbarrier_pingpong_oneway_warp", "mbarrier_pingpong_oneway_lane0",
                            "mbarrier_pingpong_oneway_testwait_spin"};
    const char* meth[3] = {
        "2 warps, 2 count-1 mbarriers; lane0 arrives, whole warp try_wait.parity loop; round trip/2",
        "as above but only lane 0 of each warp participates; round trip/2",
        "as warp variant but test_wait.parity spin (no suspend hint); round trip/2"};
    for (int m = 0; m < 3; ++m) {
      std::vector<double> v;
      for (int r = 0; r < 9; ++r) {
        if (m == 0) mbar_pingpong<0><<<1, 64>>>(d_cyc, it);
        if (m == 1) mbar_pingpong<1><<<1, 64>>>(d_cyc, it);
        if (m == 2) mbar_pingpong<2><<<1, 64>>>(d_cyc, it);
        CKLAUNCH();
        v.push_back(get1() / (2.0 * it));
      }
      emit(names[m], stats_of(v), "cycles", meth[m]);
    }
    for (int spin = 0; spin < 2; ++spin) {
      const int reps = 400;
      std::vector<double> all;
      for (int r = 0; r < 3; ++r) {
        if (spin) mbar_oneway<true><<<1, 64>>>(d_cyc, reps);
        else mbar_oneway<false><<<1, 64>>>(d_cyc, reps);
        CKLAUNCH();
        auto v = getv(reps);
        all.insert(all.end(), v.begin() + 8, v.end());
      }
      emit(spin ? "mbarrier_arrive_to_wake_testwait_spin" : "mbarrier_arrive_to_wake_trywait",
           stats_of(all), "cycles",
           spin ? "waiter warp spinning on test_wait.parity; clock64 before arrive (warp 0) to clock64 after flip seen (warp 1), same SM"
                : "waiter warp parked in try_wait.parity loop; clock64 before arrive (warp 0) to clock64 after flip seen (warp 1), same SM");
    }
    {
      const int U = 64, K = 32;
      std::vector<double> issue, chain, withstate;
      for (int r = 0; r < 9; ++r) {
        mbar_arrive_cost<U><<<1, 32>>>(d_cyc, K, 0ull);
        CKLAUNCH();
        auto c = getv(3);
        withstate.push_back(c[2] / (double)(K * U));
        issue.push_back(c[0] / (double)(K * U));
        chain.push_back(c[1] / (double)(K * U));
      }
      emit("mbarrier_arrive_issue_cost", stats_of(issue), "cycles/arrive",
           "1 thread, back-to-back mbarrier.arrive.shared::cta.b64 _,[bar] (state discarded) on one barrier (count never reached)");
      emit("mbarrier_arrive_issue_cost_with_state", stats_of(withstate), "cycles/arrive",
           "1 thread, back-to-back independent arrives whose returned state is summed (state written to registers)");
      emit("mbarrier_arrive_dependent_latency", stats_of(chain), "cycles/arrive",
           "1 thread, each arrive's address depends on the previous arrive's returned state (+LOP+IADD, ~2 ALU ops)");
    }
  }

  // ---- 6. named barriers
  {
    int sizes[5] = {32, 64, 128, 256, 1024};
    for (int s : sizes) {
      std::vector<double> v;
      const int it = 4096;
      for (int r = 0; r < 9; ++r) {
        bar_loop<<<1, s>>>(d_cyc, it);
        CKLAUNCH();
        v.push_back(get1() / (double)it);
      }
      char nm[64], me[200];
      snprintf(nm, sizeof nm, "bar_sync_loop_%dwarps", s / 32);
      snprintf(me, sizeof me, "%d threads back-to-back bar.sync 1,%d; cycles per barrier", s, s);
      emit(nm, stats_of(v), "cycles", me);
    }
    std::vector<double> v;
    const int it = 2000;
    for (int r = 0; r < 9; ++r) {
      bar_pingpong<<<1, 64>>>(d_cyc, it);
      CKLAUNCH();
      v.push_back(get1() / (2.0 * it));
    }
    emit("bar_pingpong_oneway", stats_of(v), "cycles",
         "warp0: bar.arrive 1,64; bar.sync 2,64 / warp1: bar.sync 1,64; bar.arrive 2,64; round trip/2");
    const int reps = 400;
    for (int V = 0; V < 2; ++V) {
      std::vector<double> all;
      long long ok = 0, tot = 0;
      for (int r = 0; r < 3; ++r) {
        if (V == 0) bar_oneway<0><<<1, 64>>>(d_cyc, reps);
        else bar_oneway<1><<<1, 64>>>(d_cyc, reps);
        CKLAUNCH();
        std::vector<long long> c(1024);
        CK(cudaMemcpy(c.data(), d_cyc, 1024 * 8, cudaMemcpyDeviceToHost));
        for (int i = 8; i < reps; ++i) {
          all.push_back((double)c[i]);
          ok += c[512 + i];
          ++tot;
        }
      }
      char note[96];
      snprintf(note, sizeof note, "flag written before the arrive was seen after the wait in %lld of %lld reps", ok, tot);
      if (V == 0)
        emit("bar_arrive_to_wake", stats_of(all), "cycles",
             "warp1 parked in bar.sync 1,64; clock64 before warp0's bar.arrive 1,64 to clock64 after warp1's bar.sync + a dependent ld.shared of a flag (~+25 cycles of LDS latency included)",
             note);
      else
        emit("bar_sync_last_arriver_to_wake", stats_of(all), "cycles",
             "as bar_arrive_to_wake, but warp0 (the last to arrive) uses bar.sync 1,64 instead of bar.arrive (~+25 cycles of LDS latency included)",
             note);
    }
  }
  return 0;
}
