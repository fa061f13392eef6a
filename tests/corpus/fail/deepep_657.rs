//! deepseek-ai/DeepEP issue #657 (fixed by #674, commit 099d5f2): in DeepEP V2's PP
//! send/recv `tma_copy`, one warp loads a stage from global memory with TMA, waits for it,
//! stores the stage back out with a TMA store, and before reissuing a TMA load into the same
//! stage calls `tma_store_wait<kNumStages - 1>()`. With two stages that is `wait_group 1`,
//! which returns at once while the stage's own store is the only one pending, so the next
//! load could overwrite shared memory the store was still reading. The fix waits for the
//! store (`wait_group 0`) before the stage is reused.
//!
//! Re-enacted: the copying warp drives a two-stage TMA pipeline it both fills and drains; the
//! wait that returns at once is re-enacted as releasing the stage before its store is waited
//! for (after the loop). Buggy twin (fixed twin: `tests/corpus/deepep_657.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub src: Global<bf16>,
        pub dst: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = copy, consumer = copy, guards = [buf])]
    pub struct Stages;

    #[role(warps = 1, regs = 40)]
    pub async fn copy(cx: &Ctx<'_, Args>, fill: Producer<'_, Stages>, drain: Consumer<'_, Stages>) {
        for i in 0..cx.args().src.shape()[0] / 64 {
            let slot = fill.acquire().await;
            cx.tma_load(&cx.args().src, &[i * 64, 0], slot.buf(), &slot);
            fill.commit(slot);
            let full = drain.wait().await;
            let _store = cx.tma_store(full.buf(), &cx.args().dst, &[i * 64, 0]);
            drain.release(full);
        }
        cx.store_wait_all().await;
    }
}

fn main() {}
