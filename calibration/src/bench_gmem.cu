// Item 9: global memory latency (pointer chase, one thread, clock64) at L1, L2 and HBM, and HBM
// streaming bandwidth (cudaEvent over multi-GB kernels).
#include <random>
#include "common.h"

// CG: ld.global.cg (L2 only); else plain ld.global (L1 allowed).  Each hop is timed on its own: the
// loaded pointer is stored to shared memory before the second clock64, so the stamp waits for it.
template <bool CG>
__global__ void chase_perhop(const uint64_t* start, long long* out, int hops) {
  __shared__ uint32_t sink[4096];
  __shared__ uint32_t lat[4096];
  const uint64_t* p = start;
  for (int i = 0; i < hops; ++i) {
    long long a = clk();
    uint64_t nx;
    if (CG) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(nx) : "l"(p) : "memory");
    else asm volatile("ld.global.u64 %0, [%1];" : "=l"(nx) : "l"(p) : "memory");
    sink[i & 4095] = (uint32_t)nx;
    long long b = clk();
    lat[i & 4095] = (uint32_t)(b - a);
    p = (const uint64_t*)nx;
  }
  for (int i = 0; i < hops && i < 4096; ++i) out[i] = lat[i];
  out[4096] = sink[0];
}

// Plain dependent chase, total time / hops (no per-hop stamps).
template <bool CG>
__global__ void chase_total(const uint64_t* start, long long* out, int hops) {
  const uint64_t* p = start;
  long long t0 = clk();
  for (int i = 0; i < hops; ++i) {
    uint64_t nx;
    if (CG) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(nx) : "l"(p) : "memory");
    else asm volatile("ld.global.u64 %0, [%1];" : "=l"(nx) : "l"(p) : "memory");
    p = (const uint64_t*)nx;
  }
  long long t1 = clk();
  out[0] = t1 - t0;
  out[1] = (long long)p;
}

__global__ void build_chain(uint64_t* buf, const uint64_t* offs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[offs[i] / 8] = (uint64_t)(buf + offs[(i + 1) % n] / 8);
}

__global__ void read_bw(const int4* __restrict__ p, size_t n, int* out) {
  int acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride), d = __ldcs(p + i + 3 * stride);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n; i += stride) {
    int4 a = p[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x7fffffff) out[0] = acc;
}
__global__ void copy_bw(const int4* __restrict__ s, int4* __restrict__ d, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) __stcs(d + i, __ldcs(s + i));
}
__global__ void fill_kernel(uint32_t* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (uint32_t)(i * 2654435761u);
}

int main() {
  int nsm = num_sms();
  long long* d_out;
  CK(cudaMalloc(&d_out, 8 * 8192));
  const size_t kBuf = (size_t)2304 << 20;  // 2.25 GB chase buffer
  uint64_t* buf;
  CK(cudaMalloc(&buf, kBuf));
  const size_t kFlush = (size_t)512 << 20;
  uint32_t* flush;
  CK(cudaMalloc(&flush, kFlush));
  uint64_t* d_offs;
  CK(cudaMalloc(&d_offs, 8 * 65536));
  auto flush_l2 = [&]() {
    fill_kernel<<<nsm * 8, 512>>>(flush, kFlush / 4);
    CKLAUNCH();
  };
  warm_gpu();
  std::mt19937_64 rng(12345);
  // n distinct random 128 B lines inside [base, base + span)
  auto make_chain = [&](size_t base, size_t span, int n) {
    size_t lines = span / 128;
    std::vector<uint64_t> offs;
    std::vector<size_t> pick;
    if ((size_t)n * 4 >= lines) {
      std::vector<size_t> all(lines);
      for (size_t i = 0; i < lines; ++i) all[i] = i;
      std::shuffle(all.begin(), all.end(), rng);
      pick.assign(all.begin(), all.begin() + std::min<size_t>(n, lines));
    } else {
      std::vector<size_t> s;
      while ((int)s.size() < n) {
        size_t x = rng() % lines;
        if (std::find(s.begin(), s.end(), x) == s.end()) s.push_back(x);
      }
      pick = s;
    }
    for (size_t x : pick) offs.push_back(base + x * 128);
    CK(cudaMemcpy(d_offs, offs.data(), offs.size() * 8, cudaMemcpyHostToDevice));
    build_chain<<<(offs.size() + 255) / 256, 256>>>(buf, d_offs, (int)offs.size());
    CKLAUNCH();
    return buf + offs[0] / 8;
  };
  const int H = 4096;
  std::vector<long long> h(H);
  auto perhop = [&](bool cg, const uint64_t* start) {
    if (cg) chase_perhop<true><<<1, 1>>>(start, d_out, H);
    else chase_perhop<false><<<1, 1>>>(start, d_out, H);
    CKLAUNCH();
    CK(cudaMemcpy(h.data(), d_out, H * 8, cudaMemcpyDeviceToHost));
    return std::vector<double>(h.begin() + 16, h.end());
  };
  auto total = [&](bool cg, const uint64_t* start, int hops) {
    if (cg) chase_total<true><<<1, 1>>>(start, d_out, hops);
    else chase_total<false><<<1, 1>>>(start, d_out, hops);
    CKLAUNCH();
    long long c;
    CK(cudaMemcpy(&c, d_out, 8, cudaMemcpyDeviceToHost));
    return (double)c / hops;
  };

  // L1: 128 lines (16 KB), chain cycles
  {
    const uint64_t* s = make_chain(0, 16384, 128);
    perhop(false, s);
    auto v = perhop(false, s);
    emit("l1_hit_latency", stats_of(v), "cycles",
         "1 thread, ld.global.u64 (default caching, L1 allowed) pointer chase over 128 random lines (16 KB), per-hop clock64 (includes ~STS+clock read)");
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) t.push_back(total(false, s, 8192));
    emit("l1_hit_latency_avg", stats_of(t), "cycles", "same chain, total clock64 / 8192 hops, no per-hop stamps");
  }
  // L2: 4096 random lines in 8 MB
  {
    const uint64_t* s = make_chain((size_t)64 << 20, (size_t)8 << 20, H);
    perhop(true, s);
    std::vector<double> all;
    for (int r = 0; r < 3; ++r) {
      auto v = perhop(true, s);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit("l2_hit_latency", stats_of(all), "cycles",
         "1 thread, ld.global.cg.u64 chase over 4096 random lines in 8 MB (warm pass first), per-hop clock64; p10/p90 show near/far L2 partition");
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) t.push_back(total(true, s, H));
    emit("l2_hit_latency_avg", stats_of(t), "cycles", "same chain, total clock64 / 4096 hops");
  }
  // HBM, 32 MB window (few TLB misses), cold after flush
  {
    const uint64_t* s = make_chain((size_t)128 << 20, (size_t)32 << 20, H);
    std::vector<double> all, t;
    for (int r = 0; r < 3; ++r) {
      flush_l2();
      auto v = perhop(true, s);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit("hbm_latency", stats_of(all), "cycles",
         "1 thread, ld.global.cg.u64 chase over 4096 random lines in a 32 MB window, L2 flushed (512 MB write) before each run, per-hop clock64");
    for (int r = 0; r < 3; ++r) {
      flush_l2();
      t.push_back(total(true, s, H));
    }
    emit("hbm_latency_avg", stats_of(t), "cycles", "same chain after flush, total clock64 / 4096 hops");
  }
  // HBM, 2 GB span (TLB misses likely)
  {
    const uint64_t* s = make_chain((size_t)256 << 20, (size_t)2048 << 20, H);
    std::vector<double> all;
    for (int r = 0; r < 3; ++r) {
      flush_l2();
      auto v = perhop(true, s);
      all.insert(all.end(), v.begin(), v.end());
    }
    emit("hbm_latency_2GB_random", stats_of(all), "cycles",
         "as hbm_latency but 4096 random lines over 2 GB (most hops also miss the TLBs)");
  }

  // bandwidth
  {
    const size_t bytes = (size_t)4 << 30;
    int4* big;
    CK(cudaMalloc(&big, bytes));
    fill_kernel<<<nsm * 8, 512>>>((uint32_t*)big, bytes / 4);
    CKLAUNCH();
    int* d_i;
    CK(cudaMalloc(&d_i, 64));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto time_it = [&](auto&& f, int reps) {
      f();
      CKLAUNCH();
      std::vector<double> ms;
      for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CKLAUNCH();
        float m;
        CK(cudaEventElapsedTime(&m, e0, e1));
        ms.push_back(m);
      }
      return ms;
    };
    size_t n = bytes / 16;
    for (int bpsm : {4, 8}) {
      auto ms = time_it([&]() { read_bw<<<nsm * bpsm, 512>>>(big, n, d_i); }, 20);
      std::vector<double> gbs;
      for (double m : ms) gbs.push_back(bytes / (m * 1e-3) / 1e9);
      char nm[64], me[200];
      snprintf(nm, sizeof nm, "hbm_read_bandwidth_%dctas_per_sm", bpsm);
      snprintf(me, sizeof me, "read 4 GiB once (int4 __ldcs, 4 loads in flight/thread), %d x 512-thread CTAs per SM, cudaEvent, 20 reps", bpsm);
      emit(nm, stats_of(gbs), "GB/s", me);
    }
    {
      size_t half = n / 2;
      auto ms = time_it([&]() { copy_bw<<<nsm * 8, 512>>>(big, big + half, half); }, 20);
      std::vector<double> gbs;
      for (double m : ms) gbs.push_back(2.0 * (bytes / 2) / (m * 1e-3) / 1e9);
      emit("hbm_copy_bandwidth", stats_of(gbs), "GB/s", "copy kernel 2 GiB -> 2 GiB, (read+write bytes) / cudaEvent time, 20 reps");
      ms = time_it([&]() { CK(cudaMemcpyAsync(big + half, big, bytes / 2, cudaMemcpyDeviceToDevice)); }, 20);
      gbs.clear();
      for (double m : ms) gbs.push_back(2.0 * (bytes / 2) / (m * 1e-3) / 1e9);
      emit("hbm_memcpy_d2d_bandwidth", stats_of(gbs), "GB/s", "cudaMemcpyAsync D2D 2 GiB, (read+write bytes) / cudaEvent time, 20 reps");
    }
  }
  return 0;
}
