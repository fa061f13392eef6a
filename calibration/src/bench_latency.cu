// Item 26: the dependent-issue latency of the instructions the generated kernels' loops are
// made of, one warp, one chain: each instruction takes the previous one's result, so the
// cycles per instruction are its latency (FFMA, measured in item 2 at 4.03, and MUFU.EX2 at
// 17, are the checks). Each step is one inline-PTX instruction that ptxas maps to one SASS
// instruction (`latency.sass` shows which); the loop's own counter, compare and branch issue
// in the chain's gaps. Clock: clock64 around CHAIN steps, one warp alone on the GPU; median
// of REPS repetitions after 2 warm-up ones.
#include "common.h"

constexpr int UNROLL = 32;
constexpr int CHAIN = 32 * 1024;
constexpr int REPS = 16;

// One chained step: `ptx` reads and writes x (%0) and reads y (%1); F32_STEP wraps an f32
// instruction `a = op(a, b)` on the bits of x and y.
#define STEP(Name, ptx) \
  struct Name { __device__ static void step(uint32_t& x, uint32_t y) { asm volatile(ptx : "+r"(x) : "r"(y)); } };
#define F32_STEP(Name, op) STEP(Name, "{.reg .f32 a, b; mov.b32 a, %0; mov.b32 b, %1; " op " mov.b32 %0, a;}")

F32_STEP(Ffma, "fma.rn.f32 a, a, b, b;")
F32_STEP(Fadd, "add.f32 a, a, b;")
F32_STEP(Fmul, "mul.f32 a, a, b;")
F32_STEP(Fmnmx, "max.f32 a, a, b;")
STEP(Fsel, "{.reg .pred p; .reg .f32 a, b; mov.b32 a, %0; mov.b32 b, %1; setp.ne.u32 p, %1, 0; selp.f32 a, a, b, p; mov.b32 %0, a;}")
// An add alone is reassociated by ptxas (a chain of `x + y` becomes LEA/IMAD of 4y); with an
// xor after each add it stays a chain of VIADD, LOP3 pairs (per step: both latencies).
STEP(AddXor, "{.reg .u32 t; add.u32 t, %0, %1; xor.b32 %0, t, %1;}")
STEP(Lop3, "lop3.b32 %0, %0, %1, 0x3fff0, 0x6a;")
STEP(Shf, "shf.r.wrap.b32 %0, %0, %1, 4;")
STEP(Imad, "mad.lo.u32 %0, %0, %1, %1;")
STEP(F2fp, "{.reg .f32 a, b; mov.b32 a, %0; mov.b32 b, %1; cvt.rn.bf16x2.f32 %0, b, a;}")
struct Ex2 { __device__ static void step(uint32_t& x, uint32_t) {
  asm volatile("{.reg .f32 a; mov.b32 a, %0; ex2.approx.ftz.f32 a, a; mov.b32 %0, a;}" : "+r"(x)); } };

template <class Op>
__global__ void chain(long long* out, uint32_t seed, uint32_t y, uint32_t* sink) {
  uint32_t x = seed + threadIdx.x;
  for (int r = 0; r < REPS + 2; ++r) {
    long long t0 = clk();
    for (int i = 0; i < CHAIN / UNROLL; ++i) {
#pragma unroll
      for (int j = 0; j < UNROLL; ++j) Op::step(x, y);
    }
    long long t1 = clk();
    if (threadIdx.x == 0 && r >= 2) out[r - 2] = t1 - t0;
  }
  if (x == 0x12345678u) sink[0] = x;
}

// Two chains interleaved, as `wsg::row_reduce` reduces the two rows a thread holds: cycles
// per instruction are max(latency / 2, the pipe's issue interval) if ptxas keeps them
// alternating.
template <class Op>
__global__ void chain2(long long* out, uint32_t seed, uint32_t y, uint32_t* sink) {
  uint32_t x0 = seed + threadIdx.x, x1 = seed ^ threadIdx.x;
  for (int r = 0; r < REPS + 2; ++r) {
    long long t0 = clk();
    for (int i = 0; i < CHAIN / UNROLL; ++i) {
#pragma unroll
      for (int j = 0; j < UNROLL / 2; ++j) {
        Op::step(x0, y);
        Op::step(x1, y);
      }
    }
    long long t1 = clk();
    if (threadIdx.x == 0 && r >= 2) out[r - 2] = t1 - t0;
  }
  if ((x0 ^ x1) == 0x12345678u) sink[0] = x0;
}

template <class Op>
static void run(const char* name, const char* sass, uint32_t seed, uint32_t y, bool two = false) {
  long long* d;
  uint32_t* sink;
  CK(cudaMalloc(&d, REPS * sizeof(long long)));
  CK(cudaMalloc(&sink, sizeof(uint32_t)));
  if (two) {
    chain2<Op><<<1, 32>>>(d, seed, y, sink);
  } else {
    chain<Op><<<1, 32>>>(d, seed, y, sink);
  }
  CKLAUNCH();
  std::vector<long long> h(REPS);
  CK(cudaMemcpy(h.data(), d, REPS * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  CK(cudaFree(sink));
  std::vector<double> v;
  for (long long t : h) v.push_back((double)t / CHAIN);
  char full[96], method[240];
  snprintf(full, sizeof full, "latency_%s", name);
  snprintf(method, sizeof method, "one warp, %s of %d dependent %s (each takes the previous result of its chain): cycles per instruction",
           two ? "two interleaved chains" : "a chain", CHAIN, sass);
  emit(full, stats_of(v), "cycles", method);
}

int main() {
  warm_gpu();
  const uint32_t one = 0x3f800000u;  // 1.0f
  run<Ffma>("ffma", "FFMA", one, 0x3f7fff00u);
  run<Fadd>("fadd", "FADD", one, 0x33800000u);
  run<Fmul>("fmul", "FMUL", one, 0x3f800001u);
  run<Fmnmx>("fmnmx", "FMNMX", one, 0x3f000000u);
  run<Fsel>("fsel", "FSEL", one, 1u);
  run<AddXor>("viadd_lop3_pair", "VIADD, LOP3.LUT pairs (per pair)", 1u, 3u);
  run<Lop3>("lop3", "LOP3.LUT", 1u, 0x55u);
  run<Shf>("shf", "SHF", 1u, 7u);
  run<Imad>("imad", "IMAD", 1u, 3u);
  run<F2fp>("f2fp", "F2FP.BF16.F32.PACK_AB", one, one);
  run<Ex2>("ex2", "MUFU.EX2", 0x3e800000u, 0u);
  run<Fmnmx>("fmnmx_two_chains", "FMNMX", one, 0x3f000000u, true);
  run<Fadd>("fadd_two_chains", "FADD", one, 0x33800000u, true);
  run<Lop3>("lop3_two_chains", "LOP3.LUT", 1u, 0x55u, true);
  return 0;
}
