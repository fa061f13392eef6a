//! acts-project/acts pull request #307: the CUDA seed finder called `__syncthreads()` inside a
//! conditional that depends on the thread index, so only part of the block reached it
//! (undefined behaviour, which newer drivers turned into failures). The fix moves the
//! barrier out of the conditional.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/acts_307.rs`.

/// The fixed twin: every warp reaches the barrier.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Block;

    #[role(warps = 4, regs = 64)]
    pub async fn block(_cx: &Ctx<'_, ()>, sync: Named<'_, Block>) {
        sync.sync().await;
    }
}
