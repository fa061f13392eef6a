//! Dao-AILab/quack pull request #146: in the SM100 GEMM, the `EpilogueLoad` named barrier
//! between the A/B load warps (`arrive()` after the first tile's TMA loads) and the epilogue
//! load warp (`arrive_and_wait()`) was declared for `2 * WARP_SIZE` threads, right for one
//! A/B load warp but not for the four of `gather_A`: the barrier's count no longer matched
//! the warps that use it, and the epilogue load warp could hang. The fix counts
//! `(num_ab_load_warps + 1) * WARP_SIZE` threads.
//!
//! Re-enacted with four A/B load warps. Buggy twin (fixed twin: `tests/corpus/quack_146.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[named_barrier(roles = [ab_load, epi_load], threads = 64)]
    pub struct EpilogueLoad;

    #[role(warps = 4, regs = 40)]
    pub async fn ab_load(_cx: &Ctx<'_, ()>, epilogue_load: Named<'_, EpilogueLoad>) {
        epilogue_load.arrive();
    }

    #[role(warps = 1, regs = 40)]
    pub async fn epi_load(_cx: &Ctx<'_, ()>, epilogue_load: Named<'_, EpilogueLoad>) {
        epilogue_load.sync().await;
    }
}

fn main() {}
