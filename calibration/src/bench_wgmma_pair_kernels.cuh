// Device code of bench_wgmma_pair.cu (item 18): how the tensor cores of one SM serve the
// `wgmma` groups of two warpgroups issued at about the same time. One CTA of two warpgroups
// (256 threads), both operands in shared memory (SS), bf16 -> f32, 128-byte swizzle.
//   k_pair: both warpgroups leave a CTA barrier, warpgroup 1 waits `delta` cycles, then each
//     issues a group of `g` wgmma m64nNk16 on its own accumulators, commits and waits for it.
//     Each warp stamps clock64 at the barrier, before its first wgmma, after its commit and
//     after its wait: in which order the two groups complete, whether the second warpgroup's
//     issue is held back while the first group runs.
//   k_pair_loop: both warpgroups run `iters` k-steps {fence; g wgmma; commit; wait_group 0}
//     with no barrier between them, and every `period` k-steps spin `work` cycles (an
//     epilogue, or a softmax); warp 0 of each warpgroup stamps the end of every k-step. Do the
//     two settle into alternation (one's work under the other's MMAs) or move together?
// Compiles with NVRTC (no host code, no includes).
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ long long wp_clk() {
  long long r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}

__device__ __forceinline__ u32 wp_smem(const void* p) {
  u32 r;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
  return r;
}

// Shared-memory matrix descriptor, K-major, 128-byte swizzle (PTX ISA "Matrix Descriptor
// Format"): 128-byte rows, 8-row groups 1024 B apart.
__device__ __forceinline__ u64 wp_desc(u32 saddr) {
  u64 d = 0;
  d |= (u64)((saddr & 0x3FFFF) >> 4);
  d |= (u64)1 << 16;
  d |= (u64)(1024 >> 4) << 32;
  d |= (u64)1 << 62;
  return d;
}

__device__ __forceinline__ void wp_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wp_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wp_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// One wgmma m64n64k16 bf16 -> f32, both operands from shared memory.
__device__ __forceinline__ void wp_mma(float (&d)[32], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
      "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db));
}

// One wgmma m64n128k16 bf16 -> f32, both operands from shared memory.
__device__ __forceinline__ void wp_mma(float (&d)[64], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "
      "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "
      "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, "
      "%63"
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db));
}

// One wgmma m64n256k16 bf16 -> f32, both operands from shared memory.
__device__ __forceinline__ void wp_mma(float (&d)[128], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
      "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, "
      "%43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, "
      "%85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, "
      "%105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "
      "%122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),
        "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]),
        "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]),
        "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db));
}

template <int R>
__device__ __forceinline__ void wp_keep(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// A (64 x 64 bf16, 8 KB) at the 1024-aligned base, B (256 x 64 bf16, 32 KB) after it: values
// in +-[1, 2), never zeros. Returns the base's shared address.
__device__ __forceinline__ u32 wp_fill(unsigned char* raw) {
  const u32 s = wp_smem(raw);
  const u32 base = (s + 1023) & ~1023u;
  unsigned short* h = reinterpret_cast<unsigned short*>(raw + (base - s));
  for (int i = threadIdx.x; i < (8192 + 32768) / 2; i += blockDim.x) {
    u32 x = (u32)(i + 1) * 2654435761u;
    x ^= x >> 13;
    h[i] = (unsigned short)(0x3F80 | (x & 0x7F) | ((x >> 8) & 0x8000));
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  return base;
}

// `stamps[(rep * 8 + warp) * 4 + {0..3}]`: barrier left, first wgmma, commit issued, wait
// returned. `active`: 3 both warpgroups issue, 1 warpgroup 0 alone. G wgmma per group, unrolled
// (a group of a run-time length makes ptxas close it with an extra empty HGMMA).
template <int N, int G>
__global__ void __launch_bounds__(256, 1)
    k_pair(int reps, int delta, int active, long long* stamps, float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u64 da = wp_desc(base), db = wp_desc(base + 8192);
  const int warp = threadIdx.x / 32, wg = warp / 4;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  const bool on = (active >> wg) & 1;
  for (int r = 0; r < reps; ++r) {
    __syncthreads();
    const long long t0 = wp_clk();
    if (wg == 1)
      while (wp_clk() - t0 < delta) {
      }
    long long ti = 0, tc = 0, td = 0;
    if (on) {
      wp_fence();
      ti = wp_clk();
#pragma unroll
      for (int k = 0; k < G; ++k) wp_mma(d, da + 2 * (k & 3), db + 2 * (k & 3));
      wp_commit();
      tc = wp_clk();
      wp_wait0();
      wp_keep(d);
      td = wp_clk();
    }
    if (threadIdx.x % 32 == 0) {
      long long* s = stamps + ((long long)r * 8 + warp) * 4;
      s[0] = t0;
      s[1] = ti;
      s[2] = tc;
      s[3] = td;
    }
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

// `ends[wg * iters + i]`: clock64 after warpgroup `wg`'s wait of k-step `i` (warp 0 of it).
// `total[0]`: cycles from the CTA barrier before the loops to the one after them. Warpgroup 1
// starts `delta` cycles late; `active` as for k_pair (1: warpgroup 0 alone). With `stamp` 0 no
// k-step is stamped (no clock read, no global store in the loop).
template <int N, int G>
__global__ void __launch_bounds__(256, 1)
    k_pair_loop(int iters, int delta, int active, int period, int work, int stamp, long long* ends,
                long long* total, float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u64 da = wp_desc(base), db = wp_desc(base + 8192);
  const int warp = threadIdx.x / 32, wg = warp / 4;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  __syncthreads();
  const long long t0 = wp_clk();
  if ((active >> wg) & 1) {
    if (wg == 1)
      while (wp_clk() - t0 < delta) {
      }
    for (int i = 0; i < iters; ++i) {
      wp_fence();
#pragma unroll
      for (int k = 0; k < G; ++k) wp_mma(d, da + 2 * (k & 3), db + 2 * (k & 3));
      wp_commit();
      wp_wait0();
      wp_keep(d);
      if (stamp == 0 && period == 0) continue;
      const long long t = wp_clk();
      if (stamp && threadIdx.x % 128 == 0) ends[wg * iters + i] = t;
      if (period > 0 && (i + 1) % period == 0)
        while (wp_clk() - t < work) {
        }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) total[0] = wp_clk() - t0;
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}
