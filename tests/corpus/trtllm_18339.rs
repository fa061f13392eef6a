//! NVIDIA/TensorRT-LLM pull request #18339 (fixes #18338): in the Blackwell CuTe DSL GVR
//! top-k decode kernel, every thread reads the Phase-1 bracket (`s_thr`) from shared memory,
//! and thread 0 then rewrites it to a synthetic bracket for the degenerate case, with no
//! barrier between the reads and the rewrite: a straggler warp could read the rewritten
//! bracket, evaluate the degenerate condition differently and skip the guarded barrier
//! (wrong sets, unwritten output slots, illegal accesses). The fix adds a barrier between the
//! reads and the rewrite.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/trtllm_18339.rs`.

/// The fixed twin: every warp has read the bracket before warp 0 rewrites it.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        s_thr: Tile<f32, 32, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Rewritten;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Read;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, ()>,
        read: Named<'_, Read>,
        rewritten: Named<'_, Rewritten>,
        s_thr: &Tile<f32, 32, 1>,
    ) {
        let bracket = cx.load_rows(s_thr);
        read.sync().await;
        if cx.instance() == 0 {
            let synthetic = cx.rows_scale(&bracket, 0.5);
            cx.store_rows(&synthetic, s_thr);
        }
        rewritten.sync().await;
        let _ = cx.load_rows(s_thr);
    }
}
