// Device code of bench_tma_load.cu (item 16): a GEMM's operand ring under load. One CTA per SM
// runs the ring of a warp-specialized GEMM k-loop: a producer thread acquires a stage, arms its
// `full` barrier with the stage's bytes and issues the stage's TMA boxes (one 128 x 64 A box and
// 64 x 64 B boxes, 128-byte swizzle, as warpspec lays out a 128 x BN tile); the consumers wait on
// `full`, hold the stage (a spin of `hold` cycles, or the k-step's wgmmas), and release it on
// `empty`. Every load is stamped with clock64 on the SM that runs it: when the producer's
// acquire returns, when its boxes are issued, when the consumer sees the stage full and when it
// releases it. Compiles with NVRTC (no host code; it includes wgmma_ss.cuh only) for a check
// without a GPU.
#include "wgmma_ss.cuh"

// A tensor map, opaque here: the host encodes a CUtensorMap (128 bytes, 64-byte aligned) and
// passes it by value.
struct __align__(64) TlMap {
  u64 opaque[16];
};

__device__ __forceinline__ u32 tl_smem(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ long long tl_clk() {
  long long r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}
__device__ __forceinline__ u64 tl_gtimer() {
  u64 r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}
__device__ __forceinline__ u32 tl_smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void tl_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void tl_expect(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tl_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void tl_wait(u32 bar, u32 parity) {
  u32 ok = 0;
  while (!ok) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(bar), "r"(parity)
        : "memory");
  }
}
__device__ __forceinline__ void tl_box(const void* map, u32 dst, int c0, int c1, u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

// Where the stage of CTA `cta`'s `tile`-th tile reads: `(m, n)` tile coordinates.
//   PATTERN 0 (gemm): the tiles of an 8192^3 GEMM in its launch order (blockIdx.x over N
//     fastest), the CTAs of one step taking consecutive tiles, as the waves of a grid do;
//   PATTERN 1 (hit): every CTA reads tile (0, 0): after the first pass everything hits in L2;
//   PATTERN 2 (unique): every CTA its own tiles, never shared (misses in L2).
struct TlTile {
  int m, n;
};
__device__ __forceinline__ TlTile tl_tile(int pattern, int cta, int ctas, int tile, int tiles_n) {
  const int linear = cta + tile * ctas;
  if (pattern == 0) return {linear / tiles_n, linear % tiles_n};
  if (pattern == 1) return {0, 0};
  return {linear, linear};
}

// Stamps of one load: acquire returned, boxes issued, consumer saw it full, consumer released.
struct TlStamp {
  long long acquired, issued, full, released;
};

// The ring. HOLD_MMA = false: warp 0 lane 0 produces, warp 1 consumes and spins `hold` cycles per
// stage (blockDim 64). HOLD_MMA = true: warp 0 lane 0 produces, warpgroups 1 and 2 each run the
// k-step's four wgmma m64n256k16 on their 64 rows of A and B (blockDim 384, warps 1-3 idle), as a 128 x 256
// GEMM tile's consumers do; `bn` must be 256 then. `bn` (128 or 256) sets the B boxes per stage (bn /
// 64); a stage is 128 x 64 of A plus 64 x bn of B. `out` gets `tiles * ksteps` stamps per CTA;
// `clock[cta]` the CTA's cycles and globaltimer nanoseconds from its first acquire to its end.
template <bool HOLD_MMA>
__global__ void __launch_bounds__(HOLD_MMA ? 384 : 64, 1)
    k_tma_ring(const __grid_constant__ TlMap a_map, const __grid_constant__ TlMap b_map, int pattern,
               int stages, int bn, int ksteps, int tiles, int tiles_n, long long hold, TlStamp* out,
               long long* clock, u32* sm, float* sink) {
  extern __shared__ __align__(1024) unsigned char raw[];
  __shared__ __align__(8) u64 bars[16];
  const u32 base = (tl_smem(raw) + 1023) & ~1023u;
  const u32 stage_bytes = 128 * 64 * 2 + 64 * (u32)bn * 2;
  const u32 full0 = tl_smem(&bars[0]), empty0 = tl_smem(&bars[8]);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      tl_init(full0 + 8 * s, 1);
      tl_init(empty0 + 8 * s, HOLD_MMA ? 2 : 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&a_map) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&b_map) : "memory");
  }
  __syncthreads();
  const int loads = ksteps * tiles;
  TlStamp* my = out + (size_t)blockIdx.x * loads;
  const long long t0 = tl_clk();
  const u64 g0 = tl_gtimer();
  if (warp == 0) {
    if (lane == 0) {
      for (int i = 0; i < loads; ++i) {
        const int s = i % stages, round = i / stages, k = i % ksteps;
        const TlTile t = tl_tile(pattern, blockIdx.x, gridDim.x, i / ksteps, tiles_n);
        if (round > 0) tl_wait(empty0 + 8 * s, (u32)(round - 1) & 1u);
        const long long acquired = tl_clk();
        const u32 dst = base + (u32)s * stage_bytes;
        tl_expect(full0 + 8 * s, stage_bytes);
        tl_box(&a_map, dst, k * 64, t.m * 128, full0 + 8 * s);
        for (int p = 0; p < bn / 64; ++p)
          tl_box(&b_map, dst + 16384 + (u32)p * 8192, t.n * bn + p * 64, k * 64, full0 + 8 * s);
        const long long issued = tl_clk();
        my[i].acquired = acquired;
        my[i].issued = issued;
      }
    }
    __syncwarp();
  } else if (HOLD_MMA && warp < 4) {
    // Warps 1-3 complete the producer's warpgroup and stay idle: a wgmma is issued by a whole
    // warpgroup, so they must not fall through to the consumers' loop.
  } else if (!HOLD_MMA) {
    for (int i = 0; i < loads; ++i) {
      const int s = i % stages;
      tl_wait(full0 + 8 * s, (u32)(i / stages) & 1u);
      const long long full = tl_clk();
      if (hold > 0) {
        while (tl_clk() - full < hold) {
        }
      }
      __syncwarp();
      const long long released = tl_clk();
      if (lane == 0) {
        tl_arrive(empty0 + 8 * s);
        my[i].full = full;
        my[i].released = released;
      }
    }
  } else {
    const int wg = warp / 4 - 1;
    float d[128];
#pragma unroll
    for (int j = 0; j < 128; ++j) d[j] = 0.f;
    for (int i = 0; i < loads; ++i) {
      const int s = i % stages;
      tl_wait(full0 + 8 * s, (u32)(i / stages) & 1u);
      const long long full = tl_clk();
      const u32 a = base + (u32)s * stage_bytes + (u32)wg * 8192, b = base + (u32)s * stage_bytes + 16384;
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) wss_mma(d, wss_desc(a) + 2 * kk, wss_desc(b) + 2 * kk);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      const long long released = tl_clk();
      if (threadIdx.x % 128 == 0) {
        tl_arrive(empty0 + 8 * s);
        if (wg == 0) {
          my[i].full = full;
          my[i].released = released;
        }
      }
    }
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < 128; ++j) acc += d[j];
    if (acc == 1234.5f) sink[threadIdx.x] = acc;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    clock[2 * blockIdx.x] = tl_clk() - t0;
    clock[2 * blockIdx.x + 1] = (long long)(tl_gtimer() - g0);
    sm[blockIdx.x] = tl_smid();
  }
}
