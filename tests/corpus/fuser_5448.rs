//! NVIDIA/Fuser pull request #5448 (following #5447): in a warp-specialized pointwise
//! kernel, the compute warps write each iteration's results to shared memory and TMA-store
//! them in the outer loop, but the pass that inserts write-after-read waits
//! (`insertWarAsyncWait`) took a short cut meant for `wgmma` and left the stores'
//! `cp.async.bulk.commit_group` and `wait_group` after the loop, so the next iteration's
//! writes could land while the previous iteration's store still read the tile. The fix
//! commits and waits in the loop, after each store. This is the fixed twin; the buggy twin,
//! which the checker rejects, is `tests/corpus/fail/fuser_5448.rs`.

/// The fixed twin: each iteration waits for its store before the next one writes the tile.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<bf16>,
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        results: Tile<bf16, 128, 64>,
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn compute(cx: &Ctx<'_, Args>, results: &Tile<bf16, 128, 64>) {
        for tile in 0..cx.args().tiles {
            let values = cx.fragment::<128, 64>(1.0);
            cx.store(&values, results);
            let store = cx.tma_store(results, &cx.args().out, &[tile * 128, 0]);
            cx.store_wait(store).await;
        }
        cx.store_wait_all().await;
    }
}
