// Device code of bench_frag_store.cu (item 17): a GEMM epilogue that stores its f32 accumulator
// fragments straight to global memory, as `cx.store_global` renders (`wsg::store_frag`): each
// thread writes its pairs of adjacent columns with one 8-byte store, so one warp instruction
// covers 8 rows of the tile, 32 bytes in each of 8 cache lines. A CTA of `warps` warps (4 per
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

// `stamps[((cta * tiles + t) * warps + warp) * 2 + {0, 1}]`: the clock64 of the warp's first
// store and of the issue of its last, per tile. `clock[cta * 2 + {0, 1}]`: the CTA's cycles
// and globaltimer nanoseconds over the launch.
__global__ void __launch_bounds__(256, 1)
    k_frag_store(float* out, int ld, int tiles, int tiles_n, int wrap, long long gap, float seed,
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
    float* base = out + row * ld + (long long)tn * 256 + 2 * (lane % 4);
    const long long first = fs_clk();
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      *reinterpret_cast<float2*>(base + 8 * j) = make_float2(v[2 * j], v[2 * j + 1]);
      *reinterpret_cast<float2*>(base + 8 * (long long)ld + 8 * j) = make_float2(v[2 * j] + 1.f, v[2 * j + 1] + 1.f);
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
