// Smoke-test kernel for the device library (compiled after `warpspec::gpu::device_lib::source()`).
//
// C (M x N, f32) = A (M x K, bf16, row-major) * B^T (B: N x K, bf16, row-major), one 64 x 128
// tile of C per CTA. Warpgroup 0 is the producer: one elected thread streams 64-wide K blocks
// of A and B through a 2-stage ring with TMA (128-byte swizzle), completing on `full[s]`.
// Warpgroup 1 is the consumer: it waits on `full[s]`, runs wgmma (mode 0: A and B from shared
// memory; mode 1: A loaded into registers from the swizzled tile), releases the stage on
// `empty[s]`, and finally stages C in shared memory and stores it with a TMA store.
// Mode 2 deliberately hangs: the consumer waits on a barrier nobody arrives on.

#define BM 64
#define BN 128
#define BK 64
#define STAGES 2
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BN * BK * 2)

extern "C" __global__ void __launch_bounds__(256, 1)
    gemm_smoke(const __grid_constant__ ws::TensorMap map_a, const __grid_constant__ ws::TensorMap map_b,
               const __grid_constant__ ws::TensorMap map_c, int k_blocks, int mode) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    __shared__ ws::u64 full[STAGES], empty[STAGES], never;
    // TMA's 128-byte swizzle is a function of address bits 4-9: tiles start 1024-aligned.
    unsigned char* smem = smem_raw + ((1024u - (ws::smem_addr(smem_raw) & 1023u)) & 1023u);
    unsigned char* a_tiles = smem;
    unsigned char* b_tiles = smem + STAGES * A_BYTES;
    float* c_tile = reinterpret_cast<float*>(smem + STAGES * (A_BYTES + B_BYTES));
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            ws::mbar_init(&full[s], 1);
            ws::mbar_init(&empty[s], 128);
        }
        ws::mbar_init(&never, 1);
        ws::fence_mbarrier_init();
    }
    __syncthreads();

    if (ws::warpgroup_idx() == 0) {
        ws::setmaxnreg_dec<40>();
        if (mode == 2) return;
        if (ws::warp_in_warpgroup() == 0 && ws::elect_one()) {
            ws::tma_prefetch_map(&map_a);
            ws::tma_prefetch_map(&map_b);
            for (int kb = 0; kb < k_blocks; ++kb) {
                const int s = kb % STAGES;
                const unsigned phase = (kb / STAGES) & 1;
                ws::mbar_wait(&empty[s], phase ^ 1);
                ws::mbar_arrive_expect_tx(&full[s], A_BYTES + B_BYTES);
                ws::tma_load_2d(a_tiles + s * A_BYTES, &map_a, &full[s], kb * BK, m0);
                ws::tma_load_2d(b_tiles + s * B_BYTES, &map_b, &full[s], kb * BK, n0);
            }
        }
        return;
    }

    ws::setmaxnreg_inc<232>();
    if (mode == 2) {
        ws::mbar_wait(&never, 0);
    }
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;

    for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % STAGES;
        ws::mbar_wait(&full[s], (kb / STAGES) & 1);
        const unsigned char* a = a_tiles + s * A_BYTES;
        const ws::u64 desc_b = ws::smem_desc_sw128(b_tiles + s * B_BYTES);
        if (mode == 0) {
            const ws::u64 desc_a = ws::smem_desc_sw128(a);
            ws::wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 16; ++k) {
                ws::wgmma_ss_m64n128k16_f32_bf16(d, desc_a + 2 * k, desc_b + 2 * k, (kb > 0 || k > 0) ? 1u : 0u);
            }
        } else {
            // A fragment of m64k16: rows w*16 + lane/4 (+8), columns 2*(lane%4) (+8), bf16 pairs.
            ws::u32 frag[BK / 16][4];
            const ws::u32 row = ws::warp_in_warpgroup() * 16 + ws::lane_idx() / 4;
#pragma unroll
            for (int k = 0; k < BK / 16; ++k) {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const ws::u32 r = row + (j & 1) * 8;
                    const ws::u32 col = k * 16 + (ws::lane_idx() % 4) * 2 + (j >> 1) * 8;
                    frag[k][j] = *reinterpret_cast<const ws::u32*>(a + ws::sw128_offset(r, col * 2));
                }
            }
            ws::wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 16; ++k) {
                ws::wgmma_rs_m64n128k16_f32_bf16(d, frag[k], desc_b + 2 * k, (kb > 0 || k > 0) ? 1u : 0u);
            }
        }
        ws::wgmma_commit();
        ws::wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) ws::fence_operand(d[i]);
        ws::mbar_arrive(&empty[s]);
    }

#pragma unroll
    for (int i = 0; i < BN / 2; ++i) c_tile[ws::acc_row(i) * BN + ws::acc_col(i)] = d[i];
    ws::fence_proxy_async();
    ws::named_sync(1, 128);
    if (ws::thread_in_warpgroup() == 0) {
        ws::tma_store_2d(&map_c, c_tile, n0, m0);
        ws::tma_store_commit();
        ws::tma_store_wait_read<0>();
        ws::tma_store_wait<0>();
    }
}
