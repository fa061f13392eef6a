// Device code of bench_tma_store.cu (item 14): TMA bulk stores shared -> global at one CTA per
// SM, the way an epilogue writes its output tile. Compiles with NVRTC (no host code, no
// includes) for a check without a GPU.
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u32 st_smem(const void* p) {
  return (u32)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ long long st_clk() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

// One bulk store of `bytes` from shared `src` to global `dst`, committed as its own group.
__device__ __forceinline__ void st_bulk(void* dst, u32 src, u32 bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most N bulk groups of this thread still read shared memory (READ) or are
// still incomplete (writes visible).
template <int N, bool READ>
__device__ __forceinline__ void st_wait() {
  if (READ)
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
  else
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// An epilogue's store: each of `issuers` threads (one per warpgroup, 128 threads apart)
// stores its `bytes / issuers` share of a `bytes` tile, waits until the copy has read shared
// memory (READ) or has completed, then the CTA synchronises; `iters` times, each to the next
// tile of `dst` (a buffer of `tiles` tiles, L2-resident or not by its size). The shared tile
// is written once, before the clock starts. out[block] = cycles for all iterations.
template <bool READ>
__global__ void k_store_epilogue(char* dst, long long tiles, u32 bytes, int issuers, int iters, long long* out) {
  extern __shared__ __align__(128) unsigned char tile[];
  for (u32 i = threadIdx.x; i < bytes / 4; i += blockDim.x) reinterpret_cast<u32*>(tile)[i] = i * 2654435761u;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const u32 share = bytes / (u32)issuers;
  const bool issuer = threadIdx.x % 128 == 0 && (int)(threadIdx.x / 128) < issuers;
  const u32 part = threadIdx.x / 128;
  long long t0 = st_clk();
  for (int i = 0; i < iters; ++i) {
    if (issuer) {
      const long long t = ((long long)blockIdx.x * 131 + i) % tiles;
      st_bulk(dst + t * bytes + part * share, st_smem(tile + part * share), share);
      st_wait<0, READ>();
    }
    __syncthreads();
  }
  long long t1 = st_clk();
  if (issuer) st_wait<0, false>();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
}

// Streaming: one thread keeps `inflight` stores of `bytes` each in flight (waiting until at
// most inflight - 1 still read shared memory before the next), `iters` stores per CTA, to
// consecutive tiles of `dst`. out[block] = cycles.
__global__ void k_store_stream(char* dst, long long tiles, u32 bytes, int iters, long long* out) {
  extern __shared__ __align__(128) unsigned char tile[];
  for (u32 i = threadIdx.x; i < bytes / 4; i += blockDim.x) reinterpret_cast<u32*>(tile)[i] = i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  long long t0 = st_clk();
  if (threadIdx.x == 0) {
    for (int i = 0; i < iters; ++i) {
      const long long t = ((long long)blockIdx.x * 131 + i) % tiles;
      st_bulk(dst + t * bytes, st_smem(tile), bytes);
      st_wait<3, true>();
    }
    st_wait<0, true>();
  }
  __syncthreads();
  long long t1 = st_clk();
  if (threadIdx.x == 0) {
    st_wait<0, false>();
    out[blockIdx.x] = t1 - t0;
  }
}

template __global__ void k_store_epilogue<true>(char*, long long, u32, int, int, long long*);
template __global__ void k_store_epilogue<false>(char*, long long, u32, int, int, long long*);
