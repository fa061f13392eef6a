// Device code of bench_tensor_stream.cu (item 19): the tensor cores of one SM beside bulk
// copies that write or read the same SM's shared memory, as a GEMM's TMA loads fill its
// operand ring and its TMA-store epilogue reads the output tile while the next tile's MMAs run.
// One CTA of 384 threads: warpgroups 0 and 1 run `iters` k-steps {fence; G wgmma m64nNk16 SS;
// commit; wait_group 0} each (item 18's loop: they alternate on the tensor cores at full rate
// when alone); lane 0 of warp 8 streams, until both are done, 1D bulk copies of `chunk` bytes
// with `depth` in flight:
//   mode 1: global -> shared (`cp.async.bulk.shared::cluster.global`, completing on an mbarrier),
//   mode 2: shared -> global (`cp.async.bulk.global.shared::cta.bulk_group`),
//   mode 3: both, one load and one store per step; mode 0: no copies;
//   mode 4 added: the warpgroups spin as long as their k-steps take instead (the copies alone).
// The source and destination are `span` bytes of global memory walked in order (L2-resident
// for a span of a few MB). Compiles with NVRTC with bench_wgmma_pair_kernels.cuh before it.

__device__ __forceinline__ void ts_mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void ts_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void ts_wait(u32 bar, u32 parity) {
  u32 ok = 0;
  while (!ok)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(bar), "r"(parity)
        : "memory");
}
__device__ __forceinline__ void ts_load(u32 dst, const void* src, u32 bytes, u32 bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void ts_store(void* dst, u32 src, u32 bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void ts_store_wait_read_3() {
  asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory");
}
__device__ __forceinline__ void ts_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Shared memory: the A and B tiles (40 KB at a 1024-aligned base), then 4 load buffers and 4
// store buffers of `chunk` bytes, then 4 mbarriers. `out[blockIdx.x * 4 + {0..3}]`: cycles of
// warpgroup 0's loop, bytes loaded, bytes stored, and the streamer's cycles.
template <int N, int G>
__global__ void __launch_bounds__(384, 1)
    k_tensor_stream(int iters, int mode, u32 chunk, const unsigned char* src, unsigned char* dst, unsigned long long span,
                    long long* out, float* sink) {
  extern __shared__ unsigned char raw[];
  const u32 base = wp_fill(raw);
  const u32 loads = base + 40960, stores = loads + 4 * chunk, bars = stores + 4 * chunk;
  __shared__ volatile int done;
  const int warp = threadIdx.x / 32, wg = warp / 4;
  if (threadIdx.x == 0) {
    done = 0;
    for (int i = 0; i < 4; ++i) ts_mbar_init(bars + 8 * i, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg < 2) {
    const u64 da = wss_desc(base), db = wss_desc(base + 8192);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    asm volatile("bar.sync 1, 256;" ::: "memory");
    const long long t0 = wp_clk();
    if (mode & 4) {
      // The copies alone: the warpgroups wait as long as their k-steps would take.
      while (wp_clk() - t0 < (long long)iters * G * N) {
      }
      iters = 0;
    }
    for (int i = 0; i < iters; ++i) {
      wss_kstep<G>(d, da, db);
    }
    asm volatile("bar.sync 1, 256;" ::: "memory");
    const long long t1 = wp_clk();
    if (threadIdx.x == 0) {
      out[blockIdx.x * 4 + 0] = t1 - t0;
      done = 1;
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) s += d[i];
    if (s == 1234.5f) sink[threadIdx.x] = s;
  } else if (threadIdx.x == 256) {
    const long long t0 = wp_clk();
    unsigned long long off = (unsigned long long)blockIdx.x * 4 * chunk % span, loaded = 0, stored = 0;
    u32 phases = 0;  // bit b: the parity the next wait on load buffer b waits for
    bool first = true;
    while (mode & 3) {
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        if (mode & 1) {
          if (!first) {
            ts_wait(bars + 8 * b, (phases >> b) & 1);
            phases ^= 1u << b;
            loaded += chunk;
          }
          ts_expect_tx(bars + 8 * b, chunk);
          ts_load(loads + b * chunk, src + off, chunk, bars + 8 * b);
        }
        if (mode & 2) {
          ts_store_wait_read_3();
          ts_store(dst + off, stores + b * chunk, chunk);
          stored += chunk;
        }
        off = (off + chunk) % span;
      }
      first = false;
      if (done) break;
    }
    if ((mode & 1) && !first)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        ts_wait(bars + 8 * b, (phases >> b) & 1);
        loaded += chunk;
      }
    ts_store_wait_all();
    out[blockIdx.x * 4 + 1] = (long long)loaded;
    out[blockIdx.x * 4 + 2] = (long long)stored;
    out[blockIdx.x * 4 + 3] = wp_clk() - t0;
  }
}
