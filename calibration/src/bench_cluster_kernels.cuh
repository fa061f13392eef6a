// Device half of bench_cluster.cu (kept apart so that NVRTC can compile it without a GPU).
// Thread-block clusters on Hopper: remote mbarrier arrivals, the cluster barrier, and TMA
// bulk copies from L2 at one CTA per SM, plain and multicast to a 2-CTA cluster.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u32 cl_smem(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ long long cl_clk() {
  long long r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}
__device__ __forceinline__ u32 cl_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ u32 cl_mapa(u32 addr, u32 rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void cl_sync() {
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void cl_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// An arrival on the barrier at cluster address `remote`; REL selects release at cluster scope.
template <bool REL>
__device__ __forceinline__ void cl_arrive_remote(u32 remote) {
  if (REL)
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  else
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
__device__ __forceinline__ void cl_arrive_local(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
template <bool ACQ_CLUSTER>
__device__ __forceinline__ void cl_wait(u32 bar, u32 parity) {
  u32 ok = 0;
  while (!ok) {
    if (ACQ_CLUSTER)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
    else
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  }
}

// B. Ping-pong between the two CTAs of a cluster: rank 0 arrives on rank 1's barrier and
// waits on its own; rank 1 waits, then arrives on rank 0's. `out[block]` gets rank 0's cycles
// for `rounds` round trips. REL: release/acquire at cluster scope.
template <bool REL>
__global__ void __cluster_dims__(2, 1, 1) k_remote_pingpong(long long* out, int rounds) {
  __shared__ alignas(8) u64 bar;
  if (threadIdx.x == 0) cl_init(cl_smem(&bar), 1);
  cl_sync();
  if (threadIdx.x == 0) {
    const u32 me = cl_rank(), peer = me ^ 1u;
    const u32 local = cl_smem(&bar), remote = cl_mapa(local, peer);
    long long t0 = cl_clk();
    for (int i = 0; i < rounds; ++i) {
      if (me == 0) {
        cl_arrive_remote<REL>(remote);
        cl_wait<REL>(local, (u32)i & 1u);
      } else {
        cl_wait<REL>(local, (u32)i & 1u);
        cl_arrive_remote<REL>(remote);
      }
    }
    long long t1 = cl_clk();
    if (me == 0) out[blockIdx.x / 2] = t1 - t0;
  }
  cl_sync();
}

// B'. The same ping-pong between two warps of one CTA, on local barriers.
__global__ void k_local_pingpong(long long* out, int rounds) {
  __shared__ alignas(8) u64 bars[2];
  if (threadIdx.x == 0) {
    cl_init(cl_smem(&bars[0]), 1);
    cl_init(cl_smem(&bars[1]), 1);
  }
  __syncthreads();
  const u32 w = threadIdx.x / 32u;
  if (threadIdx.x % 32u == 0 && w < 2) {
    const u32 mine = cl_smem(&bars[w]), other = cl_smem(&bars[w ^ 1u]);
    long long t0 = cl_clk();
    for (int i = 0; i < rounds; ++i) {
      if (w == 0) {
        cl_arrive_local(other);
        cl_wait<false>(mine, (u32)i & 1u);
      } else {
        cl_wait<false>(mine, (u32)i & 1u);
        cl_arrive_local(other);
      }
    }
    long long t1 = cl_clk();
    if (w == 0) out[blockIdx.x] = t1 - t0;
  }
}

// C. Issue cost: one thread of rank 0 arrives `n` times on rank 1's barrier (count n),
// back to back; cycles for the n arrivals.
template <bool REL>
__global__ void __cluster_dims__(2, 1, 1) k_remote_issue(long long* out, int n) {
  __shared__ alignas(8) u64 bar;
  if (threadIdx.x == 0) cl_init(cl_smem(&bar), (u32)n);
  cl_sync();
  if (threadIdx.x == 0 && cl_rank() == 0) {
    const u32 remote = cl_mapa(cl_smem(&bar), 1u);
    long long t0 = cl_clk();
#pragma unroll 16
    for (int i = 0; i < n; ++i) cl_arrive_remote<REL>(remote);
    long long t1 = cl_clk();
    out[blockIdx.x / 2] = t1 - t0;
  }
  if (threadIdx.x == 0 && cl_rank() == 1) cl_wait<REL>(cl_smem(&bar), 0u);
  cl_sync();
}

// D. The cluster barrier (arrive + wait, all threads), `rounds` times; clusters of 2 or 4.
template <int N>
__global__ void __cluster_dims__(N, 1, 1) k_cluster_barrier(long long* out, int rounds) {
  cl_sync();
  long long t0 = cl_clk();
  for (int i = 0; i < rounds; ++i) cl_sync();
  long long t1 = cl_clk();
  if (threadIdx.x == 0 && cl_rank() == 0) out[blockIdx.x / N] = t1 - t0;
}

// E. TMA bulk copies global -> shared at one CTA per SM: one thread keeps `stages` copies of
// `chunk` bytes in flight through a ring of mbarriers, reading chunks of `src` (`chunks` of
// them, an L2-resident buffer) from a per-CTA offset; `iters` chunks per CTA. MC: clusters of
// 2, each CTA loading every other chunk multicast to both (so each CTA still receives every
// chunk, and L2 serves half as many reads). out[block] = cycles.
template <bool MC>
__device__ __forceinline__ void cl_bulk(u32 dst, const void* src, u32 bytes, u32 bar) {
  if (MC)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
        ::"r"(dst), "l"(src), "r"(bytes), "r"(bar), "h"((unsigned short)3) : "memory");
  else
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

template <bool MC>
__global__ void k_tma_stream(const char* src, long long chunks, u32 chunk, int stages, int iters, long long* out) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ alignas(8) u64 full[16], empty[16];
  const u32 ctas = MC ? 2u : 1u;
  const u32 rank = MC ? cl_rank() : 0u;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      cl_init(cl_smem(&full[s]), 1);
      cl_init(cl_smem(&empty[s]), ctas);  // both CTAs' consumers free a multicast stage
    }
  }
  if (MC) cl_sync(); else __syncthreads();
  const long long base = (long long)(blockIdx.x / ctas) * 97;
  long long t0 = cl_clk();
  if (threadIdx.x == 0) {  // producer
    for (int i = 0; i < iters; ++i) {
      const int s = i % stages;
      const u32 ph = (u32)(i / stages) & 1u;
      cl_wait<MC>(cl_smem(&empty[s]), ph ^ 1u);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cl_smem(&full[s])), "r"(chunk) : "memory");
      if (!MC || (u32)(i & 1) == rank) {
        const char* p = src + ((base + i) % chunks) * (long long)chunk;
        cl_bulk<MC>(cl_smem(buf + (size_t)s * chunk), p, chunk, cl_smem(&full[s]));
      }
    }
  } else if (threadIdx.x == 32) {  // consumer
    for (int i = 0; i < iters; ++i) {
      const int s = i % stages;
      cl_wait<MC>(cl_smem(&full[s]), (u32)(i / stages) & 1u);
      if (MC) {
        cl_arrive_remote<false>(cl_mapa(cl_smem(&empty[s]), 0u));
        cl_arrive_remote<false>(cl_mapa(cl_smem(&empty[s]), 1u));
      } else {
        cl_arrive_local(cl_smem(&empty[s]));
      }
    }
  }
  if (MC) cl_sync(); else __syncthreads();
  long long t1 = cl_clk();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
}

template __global__ void k_remote_pingpong<false>(long long*, int);
template __global__ void k_remote_pingpong<true>(long long*, int);
template __global__ void k_remote_issue<false>(long long*, int);
template __global__ void k_remote_issue<true>(long long*, int);
template __global__ void k_cluster_barrier<2>(long long*, int);
template __global__ void k_cluster_barrier<4>(long long*, int);
template __global__ void k_tma_stream<false>(const char*, long long, u32, int, int, long long*);
template __global__ void k_tma_stream<true>(const char*, long long, u32, int, int, long long*);
