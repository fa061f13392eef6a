// Items 32 and 33: what an mbarrier wait costs where the generated kernels wait.
//   wait_after  item 32: a try_wait on a completed phase, or a dependent ld.shared, right after
//               a group of 1-8 wgmma SS or RS, timed from after the group's issue
//   wait_shape  item 33: the same wait timed from before the group, in the generated kernels'
//               address shapes and on a ring of phases completed by bulk copies; and a
//               blocked wait's wake-up after another warp's arrival, in both address shapes
//   blocked     item 34: warps blocked in a try_wait beside another warp's mbarrier round trips
#include <cstring>

#include "common.h"
#include "wgmma_ops.h"
#include "wgmma_rs_ops.h"
#include "wgmma_tiles.h"

enum { MMA_NONE = 0, MMA_SS = 1, MMA_RS = 2 };
static const char* kMmaName[] = {"none", "ss", "rs"};
static long long* d_out;
static float* d_sink;
static const int kSmem = 1024 + kOneCtaPerSmSmem;  // forces 1 CTA/SM

// ------------------------------------------------------------------ (D) a wait right after an MMA group's issue
// Item 32: what an `mbarrier.try_wait` on a completed phase (or a dependent `ld.shared`) costs
// when issued right after a group of G wgmma m64n128k16 (SS: both operands from shared memory;
// RS: A from registers), before the group completes: {fence; G wgmma; commit; t0 = clock;
// wait or load; t1 = clock; wait_group 0}. NWG warpgroups of one CTA run it at once; MMA none
// gives the wait alone. Cycles t1 - t0 per pass, median over warps and passes.
enum { AFTER_TRYWAIT = 0, AFTER_LDS = 1 };
template <int MMA, int G, int WHAT>
__global__ void wait_after_mma(long long* out, float* sink, int passes) {
  extern __shared__ uint8_t raw[];
  __shared__ uint64_t bar;
  __shared__ uint32_t word[32];
  uint32_t base = fill_tiles(raw);
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) mbar_init(b, 1);
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_fence_init();
    mbar_arrive_nostate(b);  // completes phase 0
  }
  __syncthreads();
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  uint32_t r0 = 0x3F803F80u ^ threadIdx.x, r1 = 0x3F813F82u, r2 = 0xBF803F84u, r3 = 0x3F86BF80u;
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  uint32_t w = smem_u32(&word[threadIdx.x & 31]), acc = 0;
  long long total = 0;
  for (int it = 0; it < passes + 2; ++it) {
    wg_fence();
    if (MMA != MMA_NONE) {
#pragma unroll
      for (int k = 0; k < G; ++k) {
        if (MMA == MMA_SS)
          wgmma_m64n128k16_ss(d, da + 2 * (k & 3), db + 2 * (k & 3), 1);
        else
          wgmma_m64n128k16_rs(d, r0, r1, r2, r3, db + 2 * (k & 3), 1);
      }
    }
    wg_commit();
    long long t0 = clk();
    if (WHAT == AFTER_TRYWAIT) {
      uint32_t ok;
      do { ok = mbar_try_wait(b, 0); } while (!ok);
      acc += ok;
    } else {
      uint32_t v;
      do {  // a branch on the loaded value, so the clock is read after it returns
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(w + 4 * (acc & 1)) : "memory");
      } while (v == 0xFFFFFFFFu);
      acc += v + 1;
    }
    long long t1 = clk() + (acc == 12345u);
    wg_wait<0>();
    if (it >= 2) total += t1 - t0;
  }
  fence_acc(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * 8 + threadIdx.x / 32] = total;
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int MMA, int G, int WHAT>
static void run_wait_after(int nwg) {
  auto k = wait_after_mma<MMA, G, WHAT>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const int passes = 256;
  std::vector<double> v;
  for (auto& o : three_launches([&] { k<<<sms, 128 * nwg, kSmem>>>(d_out, d_sink, passes); }, d_out, sms * 8))
    for (int c = 0; c < sms; ++c)
      for (int wp = 0; wp < 4 * nwg; ++wp) v.push_back((double)o[c * 8 + wp] / passes);
  char name[96], method[400];
  snprintf(name, sizeof name, "after_%s_g%d_%s_%dwg", kMmaName[MMA], G, WHAT == AFTER_TRYWAIT ? "trywait" : "lds", nwg);
  snprintf(method, sizeof method,
           "1 CTA/SM on %d SMs x 3 launches, %d warpgroup(s) each: {fence; %d wgmma m64n128k16 %s; commit; t0 = clock64; %s; "
           "t1 = clock64; wait_group 0} x %d passes; t1 - t0 per pass and warp",
           sms, nwg, G, kMmaName[MMA],
           WHAT == AFTER_TRYWAIT ? "try_wait.parity on a completed phase (retry loop)" : "dependent ld.shared.u32",
           passes);
  emit(name, stats_of(v), "cycles", method);
}

// ------------------------------------------------------------------ (E) a wait's shape after a group
// Item 33: the FA3 consumer waits for its V stage right after the S group's last HGMMA, on a
// per-thread barrier address, for a phase a TMA copy completed long before. Each pass:
// {t0 = clock; fence; G wgmma m64n128k16 SS; commit; WAIT; t1 = clock; wait_group 0;
// t2 = clock}, so t1 - t0 holds the group's issue and the wait, t2 - t0 the whole pass.
//   none       no wait: the group's issue alone (t1 - t0) and its run (t2 - t0)
//   uniform    try_wait.parity on a completed phase, one barrier for the CTA, its address in
//              uniform registers (item 32's wait)
//   perthread  each warpgroup's barrier through a per-thread address (a shared word of 0
//              added), as the generated kernels address theirs (TRYWAIT [R+URZ])
//   ring       a ring of 8 barriers per warpgroup, per-thread address, each phase completed
//              by a 1 KB cp.async.bulk (complete_tx) that one thread of the warpgroup issued
//              8 passes before, re-armed after its wait: the FA3 consumer's K/V stages
enum { SHAPE_NONE = 0, SHAPE_UNIFORM = 1, SHAPE_PERTHREAD = 2, SHAPE_RING = 3 };
static const char* kShapeName[] = {"none", "uniform", "perthread", "ring"};
static const int kRing = 8;
template <int G, int SHAPE>
__global__ void wait_shape(long long* out, float* sink, const uint8_t* src, int passes) {
  extern __shared__ uint8_t raw[];
  __shared__ uint64_t bars[2][kRing];
  __shared__ uint32_t word[32];
  uint32_t base = fill_tiles(raw);
  uint32_t wg = threadIdx.x / 128;
  bool issuer = (threadIdx.x & 127) == 0;
  uint32_t dst = base + 48 * 1024 + wg * kRing * 1024;
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  if (issuer)
    for (int j = 0; j < kRing; ++j) mbar_init(smem_u32(&bars[wg][j]), 1);
  __syncthreads();
  if (issuer) {
    mbar_fence_init();
    for (int j = 0; j < kRing; ++j) {
      uint32_t b = smem_u32(&bars[wg][j]);
      if (SHAPE == SHAPE_RING) {
        mbar_arrive_expect_tx(b, 1024);
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(dst + j * 1024),
            "l"(src + j * 1024), "r"(b)
            : "memory");
      } else {
        mbar_arrive_nostate(b);  // completes phase 0
      }
    }
  }
  __syncthreads();
  // `word` holds 0: the per-thread shapes' address is a vector register ptxas cannot hoist.
  uint32_t zero = SHAPE >= SHAPE_PERTHREAD ? word[threadIdx.x & 31] : 0;
  uint32_t ring = smem_u32(&bars[wg][0]) + zero;
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  long long issue_wait = 0, whole = 0;
  uint32_t acc = 0;
  for (int it = 0; it < passes + 2; ++it) {
    uint32_t stage = SHAPE == SHAPE_RING ? it % kRing : 0;
    uint32_t parity = SHAPE == SHAPE_RING ? (it / kRing) & 1 : 0;
    uint32_t b = (SHAPE == SHAPE_UNIFORM ? smem_u32(&bars[0][0]) : ring) + 8 * stage;
    long long t0 = clk();
    wg_fence();
#pragma unroll
    for (int k = 0; k < G; ++k) wgmma_m64n128k16_ss(d, da + 2 * (k & 3), db + 2 * (k & 3), 1);
    wg_commit();
    if (SHAPE != SHAPE_NONE) {
      uint32_t ok;
      do { ok = mbar_try_wait(b, parity); } while (!ok);
      acc += ok;
    }
    long long t1 = clk() + (acc == 12345u);
    wg_wait<0>();
    long long t2 = clk();
    if (SHAPE == SHAPE_RING && issuer && it + kRing < passes + 2) {
      mbar_arrive_expect_tx(b, 1024);
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(dst + stage * 1024),
          "l"(src + stage * 1024), "r"(b)
          : "memory");
    }
    if (it >= 2) {
      issue_wait += t1 - t0;
      whole += t2 - t0;
    }
  }
  fence_acc(d);
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if ((threadIdx.x & 31) == 0) {
    out[(blockIdx.x * 8 + threadIdx.x / 32) * 2] = issue_wait;
    out[(blockIdx.x * 8 + threadIdx.x / 32) * 2 + 1] = whole;
  }
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int G, int SHAPE>
static void run_wait_shape(int nwg, const uint8_t* src) {
  auto k = wait_shape<G, SHAPE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const int passes = 256;
  std::vector<double> first, all;
  for (auto& o : three_launches([&] { k<<<sms, 128 * nwg, kSmem>>>(d_out, d_sink, src, passes); }, d_out, sms * 16))
    for (int c = 0; c < sms; ++c)
      for (int wp = 0; wp < 4 * nwg; ++wp) {
        first.push_back((double)o[(c * 8 + wp) * 2] / passes);
        all.push_back((double)o[(c * 8 + wp) * 2 + 1] / passes);
      }
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA/SM on %d SMs x 3 launches, %d warpgroup(s) each: {t0 = clock64; fence; %d wgmma m64n128k16 SS; commit; "
           "wait shape %s; t1 = clock64; wait_group 0; t2 = clock64} x %d passes; per pass and warp",
           sms, nwg, G, kShapeName[SHAPE], passes);
  snprintf(name, sizeof name, "shape_%s_g%d_%dwg_issue_and_wait", kShapeName[SHAPE], G, nwg);
  emit(name, stats_of(first), "cycles t1 - t0", method);
  snprintf(name, sizeof name, "shape_%s_g%d_%dwg_pass", kShapeName[SHAPE], G, nwg);
  emit(name, stats_of(all), "cycles t2 - t0", method);
}

// Item 33, second part: a blocked wait's wake-up in both address shapes. Warp 1 spins D
// cycles, reads the clock and arrives on a fresh phase; warp 0 is already blocked in its
// try_wait loop on that phase and reads the clock once its branch resolves (one SM's
// clock64 for both). D varies from pass to pass (1,000-3,000 cycles) so the arrival falls
// anywhere in the waiter's retry loop. Cycles from the arrival's clock to the waiter's.
template <bool PERTHREAD>
__global__ void wake_shape(long long* out, int passes) {
  __shared__ uint64_t bar;
  __shared__ uint32_t word[32];
  __shared__ long long arrived;
  uint32_t warp = threadIdx.x / 32;
  if (threadIdx.x == 0) mbar_init(smem_u32(&bar), 1);
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) mbar_fence_init();
  __syncthreads();
  uint32_t zero = PERTHREAD ? word[threadIdx.x & 31] : 0;
  uint32_t b = smem_u32(&bar) + zero;
  long long total = 0;
  for (int it = 0; it < passes + 2; ++it) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    long long t = 0;
    if (warp == 1) {
      spin_cycles(1000 + (it * 7919) % 2000);
      if (threadIdx.x == 32) {
        arrived = clk();
        mbar_arrive_nostate(b);
      }
    } else {
      uint32_t ok;
      do { ok = mbar_try_wait(b, it & 1); } while (!ok);
      t = clk();
    }
    asm volatile("bar.sync 1, 64;" ::: "memory");
    if (warp == 0 && it >= 2) total += t - arrived;
  }
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

template <bool PERTHREAD>
static void run_wake_shape() {
  auto k = wake_shape<PERTHREAD>;
  int sms = num_sms();
  const int passes = 256;
  std::vector<double> v;
  for (auto& o : three_launches([&] { k<<<sms, 64>>>(d_out, passes); }, d_out, sms))
    for (int c = 0; c < sms; ++c) v.push_back((double)o[c] / passes);
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA of 2 warps on each of %d SMs x 3 launches: warp 1 spins 1000-3000 cycles, t_a = clock64, arrives; warp 0, "
           "blocked in a try_wait.parity loop (%s address), t_w = clock64 after it; t_w - t_a averaged over %d passes",
           sms, PERTHREAD ? "per-thread" : "uniform", passes);
  snprintf(name, sizeof name, "wake_%s", PERTHREAD ? "perthread" : "uniform");
  emit(name, stats_of(v), "cycles arrive to resume", method);
}

// Item 33, third part: a passing wait right after the same warp's arrive on another barrier,
// as the generated kernels release a stage (or commit a load) and then wait for the next one.
// One warpgroup a CTA, per-thread addresses as generated; per pass {t0 = clock; WHAT; a
// try_wait loop on a completed phase of barrier Y; t1 = clock}:
//   alone       nothing before the wait
//   arrive      lane 0 arrives on barrier X (whose phase never completes)
//   expect_tx   lane 0 arrive.expect_tx(0 bytes) on X
//   arrive_alu  the arrive, then 24 adds of constants (ptxas folds them into one IADD3) and the
//               wait: the build whose retry loop ptxas puts out of line, as in the generated
//               kernels (the arrive and expect_tx builds get an inline YIELD loop)
//   arrive_only the arrive alone, no wait: t1 - t0 of an arrive's issue
enum { AW_ALONE = 0, AW_ARRIVE = 1, AW_EXPECT = 2, AW_ARRIVE_ALU = 3, AW_ARRIVE_ONLY = 4 };
static const char* kAwName[] = {"alone", "arrive", "expect_tx", "arrive_alu", "arrive_only"};
template <int WHAT>
__global__ void arrive_wait(long long* out, int passes) {
  __shared__ uint64_t x, y;
  __shared__ uint32_t word[32];
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&x), (1u << 20) - 1);
    mbar_init(smem_u32(&y), 1);
  }
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_fence_init();
    mbar_arrive_nostate(smem_u32(&y));  // completes Y's phase 0
  }
  __syncthreads();
  uint32_t zero = word[threadIdx.x & 31];
  uint32_t bx = smem_u32(&x) + zero, by = smem_u32(&y) + zero;
  bool lane0 = (threadIdx.x & 31) == 0;
  long long total = 0;
  uint32_t acc = zero;
  for (int it = 0; it < passes + 2; ++it) {
    long long t0 = clk();
    if (WHAT != AW_ALONE && lane0) {
      if (WHAT == AW_EXPECT)
        mbar_arrive_expect_tx(bx, 0);
      else
        mbar_arrive_nostate(bx);
    }
    if (WHAT == AW_ARRIVE_ALU) {
#pragma unroll
      for (int i = 0; i < 24; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(i + 1));
    }
    if (WHAT != AW_ARRIVE_ONLY) {
      uint32_t ok;
      do { ok = mbar_try_wait(by, 0); } while (!ok);
      acc += ok;
    }
    long long t1 = clk() + (acc == 12345u);
    if (it >= 2) total += t1 - t0;
    spin_cycles(300);  // the previous pass's arrive has long completed
  }
  if (lane0) out[blockIdx.x * 4 + threadIdx.x / 32] = total;
}

template <int WHAT>
static void run_arrive_wait() {
  auto k = arrive_wait<WHAT>;
  int sms = num_sms();
  const int passes = 256;
  std::vector<double> v;
  for (auto& o : three_launches([&] { k<<<sms, 128>>>(d_out, passes); }, d_out, sms * 4))
    for (int c = 0; c < sms * 4; ++c) v.push_back((double)o[c] / passes);
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA of 1 warpgroup on each of %d SMs x 3 launches: {t0 = clock64; %s; try_wait.parity loop on a completed "
           "phase (per-thread address); t1 = clock64; spin 300 cycles} x %d passes; t1 - t0 per pass and warp",
           sms, kAwName[WHAT], passes);
  snprintf(name, sizeof name, "arrive_wait_%s", kAwName[WHAT]);
  emit(name, stats_of(v), "cycles t1 - t0", method);
}

// Item 34: do warps blocked in a try_wait slow another warp's mbarrier traffic? A CTA of 16
// warps (warp w on sub-partition w % 4); the warps of MASK wait on barrier Y (per-thread
// address, as generated) until warp 0 is done; the others exit. Warp 0 runs 512 round trips
// {lane 0 arrives on X (one arrival a phase); try_wait X's phase} (WHAT 0) or 512 x 8
// dependent integer adds (WHAT 1, a control for issue slots), then completes Y.
template <int WHAT>
__global__ void blocked(long long* out, uint32_t mask, int passes) {
  __shared__ uint64_t x, y;
  __shared__ uint32_t word[32];
  uint32_t warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&x), 1);
    mbar_init(smem_u32(&y), 1);
  }
  if (threadIdx.x < 32) word[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) mbar_fence_init();
  __syncthreads();
  uint32_t zero = word[threadIdx.x & 31];
  uint32_t bx = smem_u32(&x) + zero, by = smem_u32(&y) + zero;
  if (warp != 0) {
    if (mask >> warp & 1) {
      uint32_t ok;
      do { ok = mbar_try_wait(by, 0); } while (!ok);
    }
    return;
  }
  spin_cycles(2000);  // the waiters are blocked by now
  uint32_t acc = zero;
  long long t0 = clk();
  for (int it = 0; it < passes; ++it) {
    if (WHAT == 0) {
      if ((threadIdx.x & 31) == 0) mbar_arrive_nostate(bx);
      uint32_t ok;
      do { ok = mbar_try_wait(bx, it & 1); } while (!ok);
      acc += ok;
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(acc));
    }
  }
  long long t1 = clk();
  if (threadIdx.x == 0) {
    mbar_arrive_nostate(smem_u32(&y));
    out[blockIdx.x] = (t1 - t0) + (acc == 12345u);
  }
}

template <int WHAT>
static void run_blocked(uint32_t mask, const char* where) {
  auto k = blocked<WHAT>;
  int sms = num_sms();
  const int passes = 512;
  std::vector<double> v;
  for (auto& o : three_launches([&] { k<<<sms, 512>>>(d_out, mask, passes); }, d_out, sms))
    for (int c = 0; c < sms; ++c) v.push_back((double)o[c] / passes);
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA of 16 warps on each of %d SMs x 3 launches; warps %s (mask 0x%x) blocked in a try_wait loop (per-thread "
           "address) meanwhile; warp 0: %d x %s; cycles a pass",
           sms, where, mask, passes,
           WHAT == 0 ? "{lane 0 arrives on X; try_wait loop on X's phase}" : "8 dependent add.u32");
  snprintf(name, sizeof name, "blocked_%s_%s", WHAT == 0 ? "roundtrip" : "alu", where);
  emit(name, stats_of(v), "cycles a pass of warp 0", method);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&d_out, 132 * 64 * 8 * 4));
  CK(cudaMalloc(&d_sink, 4096 * 4));
  warm_gpu();
  if (argc > 1 && strcmp(argv[1], "wait_after") == 0) {
    // item 32: a wait or a shared-memory load right after an MMA group's issue.
    for (int nwg : {1, 2}) {
      run_wait_after<MMA_NONE, 4, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_SS, 1, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_SS, 4, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_SS, 8, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_RS, 4, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_RS, 8, AFTER_TRYWAIT>(nwg);
      run_wait_after<MMA_NONE, 4, AFTER_LDS>(nwg);
      run_wait_after<MMA_SS, 4, AFTER_LDS>(nwg);
      run_wait_after<MMA_RS, 4, AFTER_LDS>(nwg);
    }
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "wait_shape") == 0) {
    // item 33: the FA3 consumer's V wait, shape by shape, against the group it follows.
    uint8_t* src;
    CK(cudaMalloc(&src, kRing * 1024));
    CK(cudaMemset(src, 0x3c, kRing * 1024));
    for (int nwg : {1, 2}) {
#define SHAPES(G)                                \
  run_wait_shape<G, SHAPE_NONE>(nwg, src);      \
  run_wait_shape<G, SHAPE_UNIFORM>(nwg, src);   \
  run_wait_shape<G, SHAPE_PERTHREAD>(nwg, src); \
  run_wait_shape<G, SHAPE_RING>(nwg, src);
      SHAPES(1)
      SHAPES(4)
      SHAPES(8)
    }
    run_wake_shape<false>();
    run_wake_shape<true>();
    run_arrive_wait<AW_ALONE>();
    run_arrive_wait<AW_ARRIVE>();
    run_arrive_wait<AW_EXPECT>();
    run_arrive_wait<AW_ARRIVE_ALU>();
    run_arrive_wait<AW_ARRIVE_ONLY>();
    return 0;
  }  if (argc > 1 && strcmp(argv[1], "blocked") == 0) {
    // item 34: blocked waiters beside a warp's mbarrier round trips
    struct { uint32_t mask; const char* where; } sets[] = {
        {0x0, "none"}, {0x10, "4"}, {0x2, "1"}, {0x1110, "4,8,12"}, {0xe, "1,2,3"}, {0xfffe, "1-15"}};
    for (auto& st : sets) run_blocked<0>(st.mask, st.where);
    for (auto& st : sets) run_blocked<1>(st.mask, st.where);
    return 0;
  }
  fprintf(stderr, "usage: bench_waits wait_after|wait_shape|blocked\n");
  return 2;
}
