// Item 23: how one sub-partition's scheduler shares its issue slot between warps that are
// ready at the same time.
//
// One CTA on one SM, W warps (4, 8 or 16: one, two or four per sub-partition; warp w runs on
// sub-partition w % 4). Every warp runs the same unrolled stream of one instruction kind,
// CHUNKS chunks of 16 steps, and lane 0 reads clock64 before the first chunk and after each
// one. With one warp per sub-partition the stream's time alone is T1. With two, a scheduler
// that keeps issuing from the warp that issued last while it stays ready (greedy) lets one
// warp finish near T1 and the other near 2 T1; one that alternates finishes both near 2 T1.
// The stamps after each chunk show how far the other warp of the sub-partition had come when
// the first finished.
//
// Kinds: ffma (8 independent FFMA chains: FP32 pipe throughput), ex2 (8 MUFU.EX2 chains: MUFU
// throughput), mix (a softmax step: FFMA, EX2, FMNMX, FADD on 8 chains), chain (one dependent
// FFMA chain: latency-bound, the control where both warps can issue at their own pace).
//
// Output: stdout, one row per warp and repetition:
//   kind,warps,rep,warp,smsp,start,c1,...,cN   (cycles after the CTA's earliest start)
#include "common.h"

static const int CHUNKS = 32;
enum { K_FFMA = 0, K_EX2 = 1, K_MIX = 2, K_CHAIN = 3 };
static const char* kName[] = {"ffma", "ex2", "mix", "chain"};

template <int KIND>
__device__ __forceinline__ void chunk(float (&x)[8], float (&m)[8], float (&l)[8], float a, float b) {
#pragma unroll
  for (int s = 0; s < 16; ++s) {
    if (KIND == K_FFMA) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[j]) : "f"(a), "f"(b));
    } else if (KIND == K_EX2) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
    } else if (KIND == K_MIX) {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("max.f32 %0, %0, %1;" : "+f"(m[j]) : "f"(x[j]));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[j]) : "f"(a), "f"(m[j]));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("add.f32 %0, %0, %1;" : "+f"(l[j]) : "f"(x[j]));
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[0]) : "f"(a), "f"(b));
    }
  }
}

// stamps: per warp, 1 + CHUNKS clock64 values.
template <int KIND>
__global__ void k_share(long long* stamps, float* sink, float a, float b) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float x[8], m[8], l[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    x[j] = 0.001f * (threadIdx.x + j);
    m[j] = -1.f;
    l[j] = 0.f;
  }
  long long t[CHUNKS + 1];
  __syncthreads();
  t[0] = clk();
#pragma unroll 1
  for (int c = 0; c < CHUNKS; ++c) {
    chunk<KIND>(x, m, l, a, b);
    t[c + 1] = clk();
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j] + m[j] + l[j];
  if (s == 12345.f) sink[threadIdx.x] = s;
  if (lane == 0)
#pragma unroll
    for (int c = 0; c <= CHUNKS; ++c) stamps[warp * (CHUNKS + 1) + c] = t[c];
}

template <int KIND>
static void run_kind(int warps, int reps, long long* d_stamps, float* d_sink) {
  std::vector<long long> h(warps * (CHUNKS + 1));
  for (int r = -2; r < reps; ++r) {  // two warm-up launches
    k_share<KIND><<<1, 32 * warps>>>(d_stamps, d_sink, 0.999f, 0.0001f);
    CKLAUNCH();
    if (r < 0) continue;
    CK(cudaMemcpy(h.data(), d_stamps, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    long long t0 = h[0];
    for (int w = 0; w < warps; ++w) t0 = std::min(t0, h[w * (CHUNKS + 1)]);
    for (int w = 0; w < warps; ++w) {
      printf("%s,%d,%d,%d,%d", kName[KIND], warps, r, w, w % 4);
      for (int c = 0; c <= CHUNKS; ++c) printf(",%lld", h[w * (CHUNKS + 1) + c] - t0);
      printf("\n");
    }
  }
}

int main() {
  long long* d_stamps;
  float* d_sink;
  CK(cudaMalloc(&d_stamps, 16 * (CHUNKS + 1) * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 16 * 32 * sizeof(float)));
  printf("kind,warps,rep,warp,smsp,start");
  for (int c = 1; c <= CHUNKS; ++c) printf(",c%d", c);
  printf("\n");
  const int reps = 10;
  for (int warps : {4, 8, 16}) {
    run_kind<K_FFMA>(warps, reps, d_stamps, d_sink);
    run_kind<K_EX2>(warps, reps, d_stamps, d_sink);
    run_kind<K_MIX>(warps, reps, d_stamps, d_sink);
    run_kind<K_CHAIN>(warps, reps, d_stamps, d_sink);
  }
  return 0;
}
