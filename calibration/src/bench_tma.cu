// Item 8: TMA latency.  2D cp.async.bulk.tensor (tensor map from cuTensorMapEncodeTiled, fetched
// through cudaGetDriverEntryPointByVersion so no -lcuda is needed) and 1D cp.async.bulk, each
// completing on an mbarrier via complete_tx; one thread issues (arrive.expect_tx + copy) and
// spins on try_wait.parity; clock64 from before the expect_tx to after the phase flip is seen.
#include "common.h"
#include "tensor_map.h"

// Tensor: ROWS x COLS bf16 row-major (COLS contiguous).
static const int COLS = 8192, ROWS = 16384;  // 256 MB

// MODE 0: same tile every rep (L2 hit after the first).  MODE 1: a fresh tile every rep (after an
// L2 flush: HBM).
template <int MODE>
__global__ void tma2d_lat(const __grid_constant__ CUtensorMap tmap, long long* out, int reps, int box_rows,
                          uint32_t bytes) {
  extern __shared__ uint8_t raw[];
  __shared__ uint64_t bar;
  uint32_t dst = (smem_u32(raw) + 1023) & ~1023u;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x != 0) return;
  mbar_init(b, 1);
  mbar_fence_init();
  asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap) : "memory");
  for (int r = 0; r < reps; ++r) {
    int c0 = 0, c1 = 0;
    if (MODE == 1) {
      c0 = (r % (COLS / 64)) * 64;
      c1 = ((r / (COLS / 64)) * box_rows) % ROWS;
    }
    long long t0 = clk();
    mbar_arrive_expect_tx(b, bytes);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(&tmap), "r"(c0), "r"(c1), "r"(b)
        : "memory");
    mbar_wait(b, r & 1);
    long long t1 = clk();
    out[r] = t1 - t0;
  }
}

template <int MODE>
__global__ void bulk1d_lat(const uint8_t* src, long long* out, int reps, uint32_t bytes) {
  extern __shared__ uint8_t raw[];
  __shared__ uint64_t bar;
  uint32_t dst = (smem_u32(raw) + 127) & ~127u;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x != 0) return;
  mbar_init(b, 1);
  mbar_fence_init();
  for (int r = 0; r < reps; ++r) {
    const uint8_t* s = src + (MODE == 1 ? (size_t)r * 65536 * 4 : 0);
    long long t0 = clk();
    mbar_arrive_expect_tx(b, bytes);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
        "l"(s), "r"(bytes), "r"(b)
        : "memory");
    mbar_wait(b, r & 1);
    long long t1 = clk();
    out[r] = t1 - t0;
  }
}

// Plain-load reference in the same conditions: one thread, ld.global.cg of one 16 B word from the
// same places, dependent (address += value&0), clock64 per load.
template <int MODE>
__global__ void ld_lat(const uint4* src, long long* out, int reps, uint32_t zero) {
  if (threadIdx.x != 0) return;
  uint32_t dep = 0;
  for (int r = 0; r < reps; ++r) {
    const uint4* p = src + (MODE == 1 ? (size_t)r * 65536 * 4 / 16 : 0) + dep;
    long long t0 = clk();
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
    dep = (v.x ^ v.y ^ v.z ^ v.w) & zero;
    asm volatile("" ::"r"(dep));
    long long t1 = clk();
    out[r] = t1 - t0 + (long long)dep;
  }
}

__global__ void fill_kernel(uint32_t* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (uint32_t)(i * 2654435761u) | 0x3f803f80u;
}
static uint32_t* g_flush;
static const size_t kFlushWords = (size_t)512 << 20 >> 2;  // 512 MB
static void flush_l2() {
  fill_kernel<<<num_sms() * 8, 512>>>(g_flush, kFlushWords);
  CKLAUNCH();
}

int main() {
  long long* d_out;
  CK(cudaMalloc(&d_out, 1 << 20));
  CK(cudaMalloc(&g_flush, kFlushWords * 4));
  uint8_t* tensor;
  size_t tbytes = (size_t)ROWS * COLS * 2;
  CK(cudaMalloc(&tensor, tbytes));
  fill_kernel<<<num_sms() * 8, 512>>>((uint32_t*)tensor, tbytes / 4);
  CKLAUNCH();
  warm_gpu();

  const PFN_encodeTiled encode = tensor_map_encoder();

  const int reps = 256;
  std::vector<long long> h(reps);
  auto collect = [&](int skip) {
    CK(cudaMemcpy(h.data(), d_out, reps * 8, cudaMemcpyDeviceToHost));
    return std::vector<double>(h.begin() + skip, h.end());
  };
  int smem = 64 * 1024;
  CK(cudaFuncSetAttribute(tma2d_lat<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(tma2d_lat<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(bulk1d_lat<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 1024));
  CK(cudaFuncSetAttribute(bulk1d_lat<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem + 1024));

  for (int box_rows : {64, 128}) {
    const CUtensorMap tmap = bf16_2d_map(encode, tensor, ROWS, COLS, box_rows);
    uint32_t bytes = 64 * box_rows * 2;
    char nm[96], me[300];
    // L2 hit
    tma2d_lat<0><<<1, 32, smem>>>(tmap, d_out, reps, box_rows, bytes);
    CKLAUNCH();
    auto v = collect(4);
    snprintf(nm, sizeof nm, "tma_2d_%dx64_bf16_l2hit_latency", box_rows);
    snprintf(me, sizeof me,
             "1 thread: clock64; mbarrier.arrive.expect_tx %u B; cp.async.bulk.tensor.2d (128B swizzle) of the same tile each rep; try_wait.parity loop; clock64",
             bytes);
    emit(nm, stats_of(v), "cycles", me);
    // HBM miss
    flush_l2();
    tma2d_lat<1><<<1, 32, smem>>>(tmap, d_out, reps, box_rows, bytes);
    CKLAUNCH();
    v = collect(4);
    snprintf(nm, sizeof nm, "tma_2d_%dx64_bf16_hbm_latency", box_rows);
    snprintf(me, sizeof me,
             "as l2hit but a fresh tile each rep in a 256 MB tensor after writing a 512 MB buffer to flush L2 (%u B per tile)", bytes);
    emit(nm, stats_of(v), "cycles", me);
  }
  for (uint32_t bytes : {4096u, 16384u, 65536u}) {
    char nm[96], me[300];
    bulk1d_lat<0><<<1, 32, smem + 1024>>>(tensor, d_out, reps, bytes);
    CKLAUNCH();
    auto v = collect(4);
    snprintf(nm, sizeof nm, "bulk_1d_%uKB_l2hit_latency", bytes / 1024);
    snprintf(me, sizeof me,
             "1 thread: clock64; arrive.expect_tx; cp.async.bulk.shared::cluster.global (1D, %u B, same source each rep); try_wait.parity loop; clock64",
             bytes);
    emit(nm, stats_of(v), "cycles", me);
    if (bytes == 16384u) {
      flush_l2();
      bulk1d_lat<1><<<1, 32, smem + 1024>>>(tensor, d_out, reps, bytes);
      CKLAUNCH();
      v = collect(4);
      snprintf(nm, sizeof nm, "bulk_1d_%uKB_hbm_latency", bytes / 1024);
      emit(nm, stats_of(v), "cycles", "as l2hit but a fresh 16 KB source (256 KB apart) each rep after an L2 flush");
    }
  }
  // plain 16 B load in the same two situations, for the 'TMA over a plain load' difference
  ld_lat<0><<<1, 32>>>((const uint4*)tensor, d_out, reps, 0u);
  CKLAUNCH();
  emit("ld_global_cg_16B_l2hit_latency_same_harness", stats_of(collect(4)), "cycles",
       "1 thread, ld.global.cg.v4 of the same 16 B each rep, clock64 around load+use");
  flush_l2();
  ld_lat<1><<<1, 32>>>((const uint4*)tensor, d_out, reps, 0u);
  CKLAUNCH();
  emit("ld_global_cg_16B_hbm_latency_same_harness", stats_of(collect(4)), "cycles",
       "1 thread, ld.global.cg.v4 of a fresh line (256 KB apart) each rep after an L2 flush, clock64 around load+use");
  return 0;
}
