//! acts-project/acts pull request #307: the CUDA seed finder called `__syncthreads()` inside a
//! conditional that depends on the thread index, so only part of the block reached it
//! (undefined behaviour, which newer drivers turned into failures). The fix moves the
//! barrier out of the conditional.
//!
//! Re-enacted: the block-wide barrier is a named barrier of all four warps; warps 0 and 1
//! reach it inside a condition on the warp index. Buggy twin (fixed twin:
//! `tests/corpus/acts_307.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Block;

    #[role(warps = 4, regs = 64)]
    pub async fn block(cx: &Ctx<'_, ()>, sync: Named<'_, Block>) {
        if cx.instance() < 2 {
            sync.sync().await;
        }
    }
}

fn main() {}
