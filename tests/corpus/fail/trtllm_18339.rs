//! NVIDIA/TensorRT-LLM pull request #18339 (fixes #18338): in the Blackwell CuTe DSL GVR
//! top-k decode kernel, every thread reads the Phase-1 bracket (`s_thr`) from shared memory,
//! and thread 0 then rewrites it to a synthetic bracket for the degenerate case, with no
//! barrier between the reads and the rewrite: a straggler warp could read the rewritten
//! bracket, evaluate the degenerate condition differently and skip the guarded barrier
//! (wrong sets, unwritten output slots, illegal accesses). The fix adds a barrier between the
//! reads and the rewrite.
//!
//! Re-enacted: four warps read the bracket; warp 0 rewrites it; all meet on the guarded
//! barrier. Buggy twin (fixed twin: `tests/corpus/trtllm_18339.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        s_thr: Tile<f32, 32, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Rewritten;

    #[role(warps = 4, regs = 64)]
    pub async fn block(cx: &Ctx<'_, ()>, rewritten: Named<'_, Rewritten>, s_thr: &Tile<f32, 32, 1>) {
        let bracket = cx.load_rows(s_thr);
        if cx.instance() == 0 {
            let synthetic = cx.rows_scale(&bracket, 0.5);
            cx.store_rows(&synthetic, s_thr);
        }
        rewritten.sync().await;
        let _ = cx.load_rows(s_thr);
    }
}

fn main() {}
