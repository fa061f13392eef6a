//! ggml-org/llama.cpp pull request #13469: #13438 had added a `__syncthreads()` to the CUDA
//! FlashAttention kernel (`flash_attn_ext_f16_process_tile`) inside the branch taken by the
//! warps with `threadIdx.y % np == 0`; for configurations with `np > 1` the other warps did
//! not execute it, so the points at which warps wait for each other became misaligned, and on
//! long contexts the results were wrong. The fix has the other warps execute a
//! `__syncthreads()` too (`else if (np > 1)`).
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/llamacpp_13469.rs`.

/// The fixed twin: the other warps execute the barrier too.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[named_barrier(roles = [warps], threads = 128)]
    pub struct Block;

    #[role(warps = 4, regs = 128)]
    pub async fn warps(cx: &Ctx<'_, ()>, block: Named<'_, Block>) {
        // `threadIdx.y % np == 0` with `np = 2`: warps 0 and 2 write the fixup metadata.
        if cx.instance() & 1 == 0 {
            let meta = cx.row_vec::<16>(1.0);
            let _ = meta;
            block.sync().await;
        } else {
            block.sync().await;
        }
        block.sync().await;
    }
}
