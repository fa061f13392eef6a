// Device code of bench_frag_store.cu (items 17 and 22): a GEMM epilogue that stores its f32
// accumulator fragments straight to global memory, as `cx.store_global` renders
// (`wsg::store_frag`): each thread writes its pairs of adjacent columns with one store, so one
// warp instruction covers 8 rows of the tile. As f32 (`Pair` = float2) a pair is 8 bytes and
// an instruction writes 32 bytes in each of 8 cache lines; rounded to bf16 (`Pair` = u32, one
// `F2FP` per pair) it is 4 bytes, 16 bytes in each of 8 lines, the other half of each 32-byte
// sector written by the instruction for the next 8 columns. A CTA of `warps` warps (4 per
// warpgroup, one warpgroup per 64 rows) stores `tiles` tiles of 128 x 256 (64 x 256 per
// warpgroup, the wgmma m64n256 accumulator layout), spinning `gap` cycles before each (the
// main loop of the next tile). Compiles with NVRTC (no host code, no includes).
typedef unsigned int u32;

__device__ __forceinline__ long long fs_clk() {
  long long r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}
__device__ __forceinline__ unsigned long long fs_gtimer() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

// Tile `t` of CTA `cta`: the tiles of an 8192-wide GEMM output in launch order (N fastest),
// the CTAs of one step taking consecutive tiles; with `wrap` > 0 the tile index is taken
// modulo `wrap` (a destination small enough to stay in L2).
__device__ __forceinline__ void fs_tile(int cta, int ctas, int t, int tiles_n, int wrap, int* m, int* n) {
  int linear = cta + t * ctas;
  if (wrap > 0) linear %= wrap;
  *m = linear / tiles_n;
  *n = linear % tiles_n;
}

// One column pair as stored: f32 as is, or rounded to bf16 and packed (round to nearest even).
__device__ __forceinline__ float2 fs_pair(float a, float b, float2*) { return make_float2(a, b); }
__device__ __forceinline__ u32 fs_pair(float a, float b, u32*) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(b), "f"(a));
  return r;
}

// `stamps[((cta * tiles + t) * warps + warp) * 2 + {0, 1}]`: the clock64 of the warp's first
// store and of the issue of its last, per tile. `clock[cta * 2 + {0, 1}]`: the CTA's cycles
// and globaltimer nanoseconds over the launch.
template <typename Pair>
__device__ __forceinline__ void fs_body(Pair* out, int ld, int tiles, int tiles_n, int wrap, long long gap, float seed,
                                        long long* stamps, long long* clock) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int wg = warp / 4, wl = warp % 4;
  float v[64];
#pragma unroll
  for (int j = 0; j < 64; ++j) v[j] = seed + (float)(threadIdx.x * 64 + j);
  __syncthreads();
  const long long t0 = fs_clk();
  const unsigned long long g0 = fs_gtimer();
  for (int t = 0; t < tiles; ++t) {
    const long long spin0 = fs_clk();
    while (fs_clk() - spin0 < gap) {
    }
    int tm, tn;
    fs_tile(blockIdx.x, gridDim.x, t, tiles_n, wrap, &tm, &tn);
    const long long row = (long long)tm * 128 + wg * 64 + wl * 16 + lane / 4;
    // `ld` and the column offsets count pairs.
    Pair* base = out + row * ld + (long long)tn * 128 + (lane % 4);
    const long long first = fs_clk();
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      base[4 * j] = fs_pair(v[2 * j], v[2 * j + 1], base);
      base[8 * (long long)ld + 4 * j] = fs_pair(v[2 * j] + 1.f, v[2 * j + 1] + 1.f, base);
    }
    const long long last = fs_clk();
    if (lane == 0) {
      long long* s = stamps + (((long long)blockIdx.x * tiles + t) * warps + warp) * 2;
      s[0] = first;
      s[1] = last;
    }
#pragma unroll
    for (int j = 0; j < 64; ++j) v[j] += 1.f;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    clock[2 * blockIdx.x] = fs_clk() - t0;
    clock[2 * blockIdx.x + 1] = (long long)(fs_gtimer() - g0);
  }
}

// The f32 epilogue (`out` of 8192 x 8192 floats, `ld` = 4096 pairs) and the bf16 one (8192 x
// 8192 bf16, `ld` = 4096 pairs of two).
__global__ void __launch_bounds__(256, 1)
    k_frag_store(float2* out, int ld, int tiles, int tiles_n, int wrap, long long gap, float seed, long long* stamps,
                 long long* clock) {
  fs_body(out, ld, tiles, tiles_n, wrap, gap, seed, stamps, clock);
}
__global__ void __launch_bounds__(256, 1)
    k_frag_store_bf16(u32* out, int ld, int tiles, int tiles_n, int wrap, long long gap, float seed, long long* stamps,
                      long long* clock) {
  fs_body(out, ld, tiles, tiles_n, wrap, gap, seed, stamps, clock);
}
