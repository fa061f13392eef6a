// Item 11: interference between the tensor cores and the other pipes of one SM, the rates of the
// softmax instructions (MUFU.EX2, FFMA, F2FP bf16x2 pack, FMNMX, SHFL.BFLY), and the cost of the
// wgmma fence/commit/wait and named-barrier structure of an FA3 consumer step.
//
// (A) interference: 1 CTA per SM (all SMs).  Warpgroup 0 issues back-to-back wgmma m64n128k16
//     (SS, or RS with A from registers) in groups of 4 {4 wgmma; commit; wait_group 1}; warpgroups
//     1..NALU run an unrolled stream of one instruction kind, 8 independent chains per thread.
//     Every warp runs until clock64 passes t0 + T (t0 shared by the CTA), counting its work,
//     so the rates are those of the overlapped interval.  Each alone and together.
// (B) FA3-consumer synthetic (no global memory): 2 consumer warpgroups, each per step:
//     [bar.sync turn] fence; 8 wgmma SS (S = Q K^T, 64x128, K=128); commit; 8 wgmma RS (O += P V);
//     commit; [bar.arrive other's turn]; wait_group 1; softmax on S (row max FMNMX + 2 SHFL.BFLY,
//     FFMA scale, MUFU.EX2, FADD row sum); wait_group 0; O *= correction (FMUL); pack P (F2FP).
//     Reports tensor-pipe utilisation = 1024 cycles x steps x WGs / cycles.
#include <cstring>

#include "common.h"
#include "wgmma_ops.h"
#include "wgmma_tiles.h"
#include "wgmma_rs_ops.h"

enum { MMA_NONE = 0, MMA_SS = 1, MMA_RS = 2 };
enum {
  ALU_NONE = 0, ALU_EX2 = 1, ALU_FFMA = 2, ALU_F2FP = 3, ALU_FMNMX = 4, ALU_SHFL = 5, ALU_MIX = 6, ALU_FADD = 7,
  // item 24: two kinds on independent chains, 8 of each per step
  ALU_EX2_FMNMX = 8, ALU_EX2_FFMA = 9, ALU_FMNMX_FFMA = 10,
  // item 31: one kind on 1, 2 or 4 dependent chains per thread (latency-bound at 1 and 2)
  ALU_FMNMX_C1 = 11, ALU_FMNMX_C2 = 12, ALU_FMNMX_C4 = 13, ALU_EX2_C1 = 14, ALU_EX2_C2 = 15, ALU_F2FP_C1 = 16,
  ALU_F2FP_C2 = 17,
  // item 35: one dependent chain a thread of integer bookkeeping (IADD3, LOP3 in turn)
  ALU_INT_C1 = 18,
  // item 35: one dependent FADD / FFMA chain a thread
  ALU_FADD_C1 = 19, ALU_FFMA_C1 = 20
};
static const char* kAluName[] = {"none",     "ex2",      "ffma",     "f2fp",     "fmnmx",    "shfl",
                                 "mix",      "fadd",     "ex2+fmnmx", "ex2+ffma", "fmnmx+ffma", "fmnmx_c1",
                                 "fmnmx_c2", "fmnmx_c4", "ex2_c1",   "ex2_c2",   "f2fp_c1",  "f2fp_c2",  "int_c1",   "fadd_c1",  "ffma_c1"};
// dependent chains per thread of each kind
static const int kChains[] = {0, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 1, 2, 4, 1, 2, 1, 2, 1, 1, 1};
static const char* kMmaName[] = {"none", "ss", "rs"};
// instructions (warp-level) per thread per chunk for each ALU kind: 16 steps x 8 chains;
// MIX: 16 steps x (8 FFMA + 8 EX2 + 4 F2FP + 8 FMNMX + 8 FADD) = 16 x 36
static const int kAluOps[] = {0, 128, 128, 128, 128, 128, 576, 128, 256, 256, 256, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128};

// One kind on C dependent chains per thread, 128 instructions a chunk.
template <int KIND, int C>
__device__ __forceinline__ void chain_chunk(float (&x)[8], const float (&m)[8]) {
#pragma unroll
  for (int s = 0; s < 128 / C; ++s) {
#pragma unroll
    for (int j = 0; j < C; ++j) {
      if (KIND == ALU_INT_C1) {
        if (s % 2 == 0)  // two steps per asm block pair: an add, then a xor on its result
          asm volatile("{ .reg .b32 t; mov.b32 t, %0; add.u32 t, t, 7; mov.b32 %0, t; }" : "+f"(x[j]));
        else
          asm volatile("{ .reg .b32 t; mov.b32 t, %0; xor.b32 t, t, 85; mov.b32 %0, t; }" : "+f"(x[j]));
      } else if (KIND == ALU_FADD_C1)
        asm volatile("add.f32 %0, %0, %1;" : "+f"(x[j]) : "f"(m[j]));
      else if (KIND == ALU_FFMA_C1)
        asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[j]) : "f"(m[j]));
      else if (KIND == ALU_FMNMX)
        asm volatile("max.f32 %0, %0, %1;" : "+f"(x[j]) : "f"(m[j]));
      else if (KIND == ALU_EX2)
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
      else
        asm volatile("{ .reg .b32 t; cvt.rn.bf16x2.f32 t, %0, %1; mov.b32 %0, t; }" : "+f"(x[j]) : "f"(m[j]));
    }
  }
}

template <int KIND>
__device__ __forceinline__ void alu_chunk(float (&x)[8], float (&m)[8], float (&l)[8], float a, float b) {
  if (KIND == ALU_FMNMX_C1) return chain_chunk<ALU_FMNMX, 1>(x, m);
  if (KIND == ALU_FMNMX_C2) return chain_chunk<ALU_FMNMX, 2>(x, m);
  if (KIND == ALU_FMNMX_C4) return chain_chunk<ALU_FMNMX, 4>(x, m);
  if (KIND == ALU_EX2_C1) return chain_chunk<ALU_EX2, 1>(x, m);
  if (KIND == ALU_EX2_C2) return chain_chunk<ALU_EX2, 2>(x, m);
  if (KIND == ALU_F2FP_C1) return chain_chunk<ALU_F2FP, 1>(x, m);
  if (KIND == ALU_F2FP_C2) return chain_chunk<ALU_F2FP, 2>(x, m);
  if (KIND == ALU_INT_C1) return chain_chunk<ALU_INT_C1, 1>(x, m);
  if (KIND == ALU_FADD_C1) return chain_chunk<ALU_FADD_C1, 1>(x, m);
  if (KIND == ALU_FFMA_C1) return chain_chunk<ALU_FFMA_C1, 1>(x, m);
#pragma unroll
  for (int s = 0; s < 16; ++s) {
    if (KIND == ALU_EX2) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
    } else if (KIND == ALU_FFMA) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[j]) : "f"(a), "f"(b));
    } else if (KIND == ALU_F2FP) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        asm volatile("{ .reg .b32 t; cvt.rn.bf16x2.f32 t, %0, %1; mov.b32 %0, t; }" : "+f"(x[j]) : "f"(m[j]));
    } else if (KIND == ALU_FMNMX) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("max.f32 %0, %0, %1;" : "+f"(x[j]) : "f"(x[(j + 1) & 7]));
    } else if (KIND == ALU_SHFL) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+f"(x[j]) : "r"(1 << (j & 3)));
    } else if (KIND == ALU_FADD) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("add.f32 %0, %0, %1;" : "+f"(x[j]) : "f"(a));
    } else if (KIND == ALU_EX2_FMNMX || KIND == ALU_EX2_FFMA || KIND == ALU_FMNMX_FFMA) {
      // x[] and l[] are separate chains, so the two kinds can issue side by side.
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (KIND == ALU_FMNMX_FFMA)
          asm volatile("max.f32 %0, %0, %1;" : "+f"(x[j]) : "f"(m[j]));
        else
          asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
        if (KIND == ALU_EX2_FMNMX)
          asm volatile("max.f32 %0, %0, %1;" : "+f"(l[j]) : "f"(m[j]));
        else
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(l[j]) : "f"(a), "f"(b));
      }
    } else if (KIND == ALU_MIX) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[j]) : "f"(a), "f"(b));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("max.f32 %0, %0, %1;" : "+f"(m[j]) : "f"(x[j]));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("add.f32 %0, %0, %1;" : "+f"(l[j]) : "f"(x[j]));
#pragma unroll
      for (int j = 0; j < 4; ++j)
        asm volatile("{ .reg .b32 t; cvt.rn.bf16x2.f32 t, %0, %1; mov.b32 %0, t; }" : "+f"(x[2 * j]) : "f"(x[2 * j + 1]));
    }
  }
}

// out per warp: [count, elapsed cycles]; per CTA: globaltimer ns.
template <int MMA, int ALU, int NALU>
__global__ void __launch_bounds__(128 * (1 + NALU), 1)
    interfere(long long* out, unsigned long long* ns, float* sink, long long T, float a, float b) {
  extern __shared__ uint8_t raw[];
  __shared__ long long t0s;
  __shared__ volatile int mma_done;
  uint32_t base = fill_tiles(raw);
  if (threadIdx.x == 0) mma_done = 0;
  int wg = threadIdx.x / 128, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) t0s = clk() + 2000;
  __syncthreads();
  const long long t0 = t0s;
  uint64_t g0 = gtimer();
  while (clk() < t0) {
  }
  long long count = 0;
  float s = 0;
  if (wg == 0) {
    if (MMA != MMA_NONE) {
      uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
      uint32_t r0 = 0x3F803F80u ^ threadIdx.x, r1 = 0x3F813F82u, r2 = 0xBF803F84u, r3 = 0x3F86BF80u;
      float d[64];
#pragma unroll
      for (int i = 0; i < 64; ++i) d[i] = 0.f;
      wg_fence();
      // wgmma is .sync.aligned over the warpgroup: all 4 warps must run the same count, so the
      // tensor warpgroup runs a fixed count (T / 256 groups = T cycles at the full rate) and the
      // other warpgroups run until it is done.
      const long long n = T / 256;
      for (long long it = 0; it < n; ++it) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (MMA == MMA_SS)
            wgmma_m64n128k16_ss(d, da + 2 * k, db + 2 * k, 1);
          else
            wgmma_m64n128k16_rs(d, r0, r1, r2, r3, db + 2 * k, 1);
        }
        wg_commit();
        wg_wait<1>();
        ++count;
      }
      wg_wait<0>();
      fence_acc(d);
      if (threadIdx.x == 0) mma_done = 1;
#pragma unroll
      for (int i = 0; i < 64; ++i) s += d[i];
    }
  } else {
    if (ALU != ALU_NONE) {
      float x[8], m[8], l[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        x[j] = 0.5f + 1e-3f * (threadIdx.x + j);
        m[j] = -1.f + 1e-3f * j;
        l[j] = 0.f;
      }
      while (MMA != MMA_NONE ? mma_done == 0 : clk() - t0 < T) {
        alu_chunk<ALU>(x, m, l, a, b);
        ++count;
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) s += x[j] + m[j] + l[j];
    }
  }
  long long t1 = clk();
  if ((threadIdx.x & 31) == 0) {
    out[(blockIdx.x * 16 + warp) * 2] = count;
    out[(blockIdx.x * 16 + warp) * 2 + 1] = t1 - t0;
  }
  __syncthreads();
  if (threadIdx.x == 0) ns[blockIdx.x] = gtimer() - g0;
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

static long long* d_out;
static unsigned long long* d_ns;
static float* d_sink;
static const int kSmem = 48 * 1024 + 1024 + kOneCtaPerSmSmem - 48 * 1024;  // forces 1 CTA/SM

template <int MMA, int ALU, int NALU>
static void run_interfere() {
  auto k = interfere<MMA, ALU, NALU>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const long long T = 400000;  // cycles of overlap, about 0.2 ms
  std::vector<double> mma_rate, alu_rate, clkghz;
  for (int rep = 0; rep < 3; ++rep) {
    k<<<sms, 128 * (1 + NALU), kSmem>>>(d_out, d_ns, d_sink, T, 1.0001f, 1e-7f);
    CKLAUNCH();
    std::vector<long long> o(sms * 32);
    std::vector<unsigned long long> ns(sms);
    CK(cudaMemcpy(o.data(), d_out, sms * 32 * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ns.data(), d_ns, sms * 8, cudaMemcpyDeviceToHost));
    for (int c = 0; c < sms; ++c) {
      const long long* w = &o[c * 32];
      // warpgroup 0: wgmma FMA per clock per SM (4 wgmma x 64x128x16 FMA per count)
      if (MMA != MMA_NONE) mma_rate.push_back((double)w[0] * 4 * 64 * 128 * 16 / (double)w[1]);
      if (ALU != ALU_NONE) {
        double r = 0;
        for (int wp = 4; wp < 4 * (1 + NALU); ++wp) r += (double)w[2 * wp] * kAluOps[ALU] * 32 / (double)w[2 * wp + 1];
        alu_rate.push_back(r);
      }
      clkghz.push_back((double)w[1] / (double)ns[c]);
    }
  }
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA/SM on %d SMs x 3 launches; WG0: %s wgmma m64n128k16 {4; commit; wait_group 1}; %d WG(s) of %s streams, "
           "%d chains/thread, unrolled; tensor WG runs T/256 groups (T = %lld), ALU warps run until it is done (or T cycles alone), shared clock64 start",
           sms, kMmaName[MMA], NALU, kAluName[ALU], kChains[ALU], T);
  if (MMA != MMA_NONE) {
    snprintf(name, sizeof name, "intf_%s_with_%s%d_mma_fma_per_clk", kMmaName[MMA], kAluName[ALU], NALU);
    emit(name, stats_of(mma_rate), "FMA/clk/SM", method);
  }
  if (ALU != ALU_NONE) {
    snprintf(name, sizeof name, "intf_%s_with_%s%d_alu_lanes_per_clk", kMmaName[MMA], kAluName[ALU], NALU);
    emit(name, stats_of(alu_rate), ALU == ALU_MIX ? "thread-instr/clk/SM (36 per 8 elements)" : "lanes/clk/SM", method);
  }
}

// ------------------------------------------------------------------ (B) FA3 consumer synthetic
template <bool PINGPONG, bool SOFTMAX, bool PV_SS = false>
__global__ void __launch_bounds__(256, 1) fa3_synth(long long* cyc, unsigned long long* ns, float* sink, int steps, float scale) {
  extern __shared__ uint8_t raw[];
  uint32_t base = fill_tiles(raw);
  const int wg = threadIdx.x / 128;
  uint64_t dq = desc_sw128(base), dk = desc_sw128(base + 8192), dv = desc_sw128(base + 24576);
  float sacc[64], o[64];
  uint32_t p[32];
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.f;
#pragma unroll
  for (int i = 0; i < 32; ++i) p[i] = 0x3F803F80u ^ (i + threadIdx.x);
  float mrow[2] = {-1e30f, -1e30f}, lrow[2] = {0.f, 0.f};
  __syncthreads();
  long long t0 = clk();
  uint64_t g0 = gtimer();
  if (PINGPONG && wg == 1) asm volatile("bar.arrive 1, 256;" ::: "memory");
  for (int it = 0; it < steps; ++it) {
    if (PINGPONG) {
      if (wg == 0) asm volatile("bar.sync 1, 256;" ::: "memory");
      else asm volatile("bar.sync 2, 256;" ::: "memory");
    }
    wg_fence();
#pragma unroll
    for (int k = 0; k < 8; ++k) wgmma_m64n128k16_ss(sacc, dq + 2 * (k & 3), dk + 2 * (k & 3), k > 0);
    wg_commit();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (PV_SS)
        wgmma_m64n128k16_ss(o, dq + 2 * (k & 3), dv + 2 * (k & 3), 1);
      else
        wgmma_m64n128k16_rs(o, p[4 * k], p[4 * k + 1], p[4 * k + 2], p[4 * k + 3], dv + 2 * (k & 3), 1);
    }
    wg_commit();
    if (PINGPONG) {
      bool last = it == steps - 1;
      if (wg == 0) asm volatile("bar.arrive 2, 256;" ::: "memory");
      else if (!last) asm volatile("bar.arrive 1, 256;" ::: "memory");
    }
    wg_wait<1>();
    fence_acc(sacc);
    if (SOFTMAX) {
      // row max over this thread's 32 values of each of its 2 rows, then over the 4-thread quad
      float mx[2] = {mrow[0], mrow[1]};
#pragma unroll
      for (int i = 0; i < 64; ++i) mx[(i >> 1) & 1] = fmaxf(mx[(i >> 1) & 1], sacc[i]);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
      }
      float corr[2], ms[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        ms[r] = mx[r] * scale;
        corr[r] = exp2f((mrow[r] - mx[r]) * scale);
        mrow[r] = mx[r];
        lrow[r] *= corr[r];
      }
#pragma unroll
      for (int i = 0; i < 64; ++i) {
        float e;
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(fmaf(sacc[i], scale, -ms[(i >> 1) & 1])));
        sacc[i] = e;
        lrow[(i >> 1) & 1] += e;
      }
      wg_wait<0>();
      fence_acc(o);
#pragma unroll
      for (int i = 0; i < 64; ++i) o[i] *= corr[(i >> 1) & 1];
#pragma unroll
      for (int i = 0; i < 32; ++i)
        asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(p[i]) : "f"(sacc[2 * i + 1]), "f"(sacc[2 * i]));
    } else {
      wg_wait<0>();
      fence_acc(o);
#pragma unroll
      for (int i = 0; i < 32; ++i) p[i] ^= __float_as_uint(sacc[2 * i]) & 1u;
    }
  }
  __syncthreads();
  long long t1 = clk();
  uint64_t g1 = gtimer();
  if (threadIdx.x == 0) {
    cyc[blockIdx.x] = t1 - t0;
    ns[blockIdx.x] = g1 - g0;
  }
  float s = lrow[0] + lrow[1];
#pragma unroll
  for (int i = 0; i < 64; ++i) s += o[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) s += __uint_as_float(p[i]);
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <bool PP, bool SM, bool PV_SS = false>
static void run_synth(const char* tag) {
  auto k = fa3_synth<PP, SM, PV_SS>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const int steps = 400;
  std::vector<double> util, clkg, tflops;
  for (int rep = 0; rep < 5; ++rep) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    k<<<sms, 256, kSmem>>>(d_out, d_ns, d_sink, steps, 0.1275f);
    CK(cudaEventRecord(e1));
    CKLAUNCH();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::vector<long long> c(sms);
    std::vector<unsigned long long> ns(sms);
    CK(cudaMemcpy(c.data(), d_out, sms * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ns.data(), d_ns, sms * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < sms; ++i) {
      util.push_back(2.0 * 1024.0 * steps / (double)c[i]);
      clkg.push_back((double)c[i] / (double)ns[i]);
    }
    tflops.push_back(2.0 * 2.0 * 64 * 128 * 128 * 2.0 * steps * sms / (ms * 1e-3) / 1e12);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
  }
  char name[96], method[400];
  snprintf(method, sizeof method,
           "FA3 consumer synthetic, 1 CTA/SM x %d SMs, 2 consumer WGs, %d steps of {8 wgmma SS m64n128k16 + 8 wgmma RS; "
           "commit x2; wait 1; softmax(%s); wait 0; rescale O; pack P}, pingpong=%d; tensor util = 2048*steps/cycles",
           sms, steps, SM ? "FMNMX,SHFL,FFMA,MUFU.EX2,FADD,F2FP" : "off", (int)PP);
  snprintf(name, sizeof name, "fa3synth_%s_tensor_util", tag);
  emit(name, stats_of(util), "fraction of 2048 FMA/clk/SM", method);
  snprintf(name, sizeof name, "fa3synth_%s_clock", tag);
  emit(name, stats_of(clkg), "GHz (clock64/globaltimer)", method);
  snprintf(name, sizeof name, "fa3synth_%s_tflops", tag);
  emit(name, stats_of(tflops), "TFLOP/s (whole GPU, cudaEvent)", method);
}

// ------------------------------------------------------------------ (C) per-step overheads
// 1 WG (or 2 WGs) per SM, wgmma m64n128k16 SS:
//   G1W1: {fence; 1 wgmma; commit; wait_group 1}  G4W0: {fence; 4 wgmma; commit; wait_group 0}
//   G8W0BAR: 2 WGs, {fence; 8 wgmma; commit; wait 0; bar.sync 1,256}
template <int VAR>
__global__ void __launch_bounds__(256, 1) step_cost(long long* cyc, float* sink, int iters) {
  extern __shared__ uint8_t raw[];
  uint32_t base = fill_tiles(raw);
  uint64_t da = desc_sw128(base), db = desc_sw128(base + 8192);
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  const int wg = threadIdx.x / 128;
  __syncthreads();
  long long t0 = clk();
  if (VAR < 2 && wg == 1) {
  } else {
    for (int i = 0; i < iters; ++i) {
      if (VAR == 0) {
        wg_fence();
        wgmma_m64n128k16_ss(d, da + 2 * (i & 3), db + 2 * (i & 3), 1);
        wg_commit();
        wg_wait<1>();
      } else if (VAR == 1) {
        wg_fence();
#pragma unroll
        for (int k = 0; k < 4; ++k) wgmma_m64n128k16_ss(d, da + 2 * k, db + 2 * k, 1);
        wg_commit();
        wg_wait<0>();
        fence_acc(d);
      } else {
        wg_fence();
#pragma unroll
        for (int k = 0; k < 8; ++k) wgmma_m64n128k16_ss(d, da + 2 * (k & 3), db + 2 * (k & 3), 1);
        wg_commit();
        wg_wait<0>();
        fence_acc(d);
        asm volatile("bar.sync 1, 256;" ::: "memory");
      }
    }
    wg_wait<0>();
    fence_acc(d);
  }
  __syncthreads();
  long long t1 = clk();
  if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int VAR>
static void run_step(const char* name, const char* method, int wgmma_per_iter, int wgs) {
  auto k = step_cost<VAR>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int sms = num_sms();
  const int iters = 2000;
  std::vector<double> v;
  for (int rep = 0; rep < 3; ++rep) {
    k<<<sms, 256, kSmem>>>(d_out, d_sink, iters);
    CKLAUNCH();
    std::vector<long long> c(sms);
    CK(cudaMemcpy(c.data(), d_out, sms * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < sms; ++i) v.push_back((double)c[i] / iters);
  }
  Stats s = stats_of(v);
  emit(name, s, "cycles per iteration", method);
  char n2[96];
  snprintf(n2, sizeof n2, "%s_util", name);
  std::vector<double> u;
  for (double x : v) u.push_back(64.0 * wgmma_per_iter * wgs / x);
  emit(n2, stats_of(u), "fraction of 2048 FMA/clk/SM", method);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&d_out, 132 * 64 * 8 * 4));
  CK(cudaMalloc(&d_ns, 1024 * 8));
  CK(cudaMalloc(&d_sink, 4096 * 4));
  warm_gpu();
  if (argc > 1 && strcmp(argv[1], "pairs") == 0) {
    // item 24: do two pipes still overlap while the tensor cores run? Each single kind and
    // each pair of kinds on one warpgroup, alone and beside SS wgmma.
#define PAIRKIND(K)                 \
  run_interfere<MMA_NONE, K, 1>();  \
  run_interfere<MMA_SS, K, 1>();
    PAIRKIND(ALU_EX2)
    PAIRKIND(ALU_FFMA)
    PAIRKIND(ALU_FMNMX)
    PAIRKIND(ALU_EX2_FMNMX)
    PAIRKIND(ALU_EX2_FFMA)
    PAIRKIND(ALU_FMNMX_FFMA)
    PAIRKIND(ALU_MIX)
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "int_chains") == 0) {
    // item 35: integer bookkeeping chains, one a thread, on one or two warps per
    // sub-partition, alone and beside SS wgmma.
    run_interfere<MMA_NONE, ALU_INT_C1, 1>();
    run_interfere<MMA_SS, ALU_INT_C1, 1>();
    run_interfere<MMA_NONE, ALU_INT_C1, 2>();
    run_interfere<MMA_SS, ALU_INT_C1, 2>();
    run_interfere<MMA_NONE, ALU_FMNMX_C1, 2>();
    run_interfere<MMA_SS, ALU_FMNMX_C1, 2>();
    // the FP32 pipe's chains, one a thread on one warp a sub-partition
    run_interfere<MMA_NONE, ALU_FADD_C1, 1>();
    run_interfere<MMA_SS, ALU_FADD_C1, 1>();
    run_interfere<MMA_NONE, ALU_FFMA_C1, 1>();
    run_interfere<MMA_SS, ALU_FFMA_C1, 1>();
    run_interfere<MMA_NONE, ALU_FMNMX_C1, 1>();
    run_interfere<MMA_SS, ALU_FMNMX_C1, 1>();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "chains") == 0) {
    // item 31: does a busy tensor pipe slow latency-bound chains as it slows saturating
    // streams? One warpgroup of 1, 2 or 4 chains per thread, alone and beside SS wgmma.
    PAIRKIND(ALU_FMNMX_C1)
    PAIRKIND(ALU_FMNMX_C2)
    PAIRKIND(ALU_FMNMX_C4)
    PAIRKIND(ALU_FMNMX)
    PAIRKIND(ALU_F2FP_C1)
    PAIRKIND(ALU_F2FP_C2)
    PAIRKIND(ALU_EX2_C1)
    PAIRKIND(ALU_EX2_C2)
    PAIRKIND(ALU_EX2)
    return 0;
  }
  // (A) each alone, then together
  run_interfere<MMA_SS, ALU_NONE, 1>();
  run_interfere<MMA_RS, ALU_NONE, 1>();
#define ALUKIND(K)                   \
  run_interfere<MMA_NONE, K, 1>();   \
  run_interfere<MMA_NONE, K, 2>();   \
  run_interfere<MMA_SS, K, 1>();     \
  run_interfere<MMA_RS, K, 1>();     \
  run_interfere<MMA_SS, K, 2>();     \
  run_interfere<MMA_RS, K, 2>();
  ALUKIND(ALU_EX2)
  ALUKIND(ALU_FFMA)
  ALUKIND(ALU_F2FP)
  ALUKIND(ALU_FMNMX)
  ALUKIND(ALU_SHFL)
  ALUKIND(ALU_MIX)
  ALUKIND(ALU_FADD)
  // (C) step overheads
  run_step<0>("step_g1w1", "1 WG/SM: {wgmma.fence; 1 wgmma m64n128k16 SS; commit; wait_group 1}", 1, 1);
  run_step<1>("step_g4w0", "1 WG/SM: {wgmma.fence; 4 wgmma m64n128k16 SS; commit; wait_group 0}", 4, 1);
  run_step<2>("step_2wg_g8w0_barsync256", "2 WG/SM: {fence; 8 wgmma m64n128k16 SS; commit; wait_group 0; bar.sync 1,256}", 8, 2);
  // (B) FA3 consumer synthetic
  run_synth<false, false>("nopp_gemmonly");
  run_synth<true, false>("pp_gemmonly");
  run_synth<false, true>("nopp_softmax");
  run_synth<true, true>("pp_softmax");
  // run 4: the P V GEMM with A from shared memory instead of registers (isolates the RS cost)
  run_synth<false, true, true>("nopp_softmax_pvss");
  run_synth<true, true, true>("pp_softmax_pvss");
  return 0;
}
