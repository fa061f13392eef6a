//! NVIDIA/cudnn-frontend pull request #1049: in the SM90 DSA indexer backward, the threads of
//! a compute warpgroup write the rows of a dK shared-memory staging buffer, and one thread
//! issues the asynchronous bulk reduction that reads it into global memory. Neither that
//! thread's bulk wait nor the proxy fence orders the other threads: the reduction could read
//! rows not yet written, and the next top-k block's stores could overwrite rows the previous
//! reduction still read (intermittent non-finite values). The fix adds a warpgroup-scoped
//! named barrier after the staging stores and another after the bulk-read wait.
//!
//! Re-enacted: the four warps of one compute warpgroup write their columns of `staging` per
//! block; warp 0 issues the bulk copy out (a TMA store: the DSL has no TMA reduce-add, which
//! reads shared memory the same way) and waits for it. Buggy twin (fixed twin:
//! `tests/corpus/cudnn_frontend_1049.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub dk: Global<f32>,
        pub blocks: usize,
    }

    #[shared]
    pub struct Smem {
        staging: Tile<f32, 64, 64>,
    }

    #[role(warps = 4, regs = 128)]
    pub async fn reducer(cx: &Ctx<'_, Args>, staging: &Tile<f32, 64, 64>) {
        let cols = cx.instance() * 16;
        for block in 0..cx.args().blocks {
            let dk = cx.fragment::<64, 16>(1.0);
            cx.store(&dk, staging.cols::<16>(cols));
            if cx.instance() == 0 {
                let reduce = cx.tma_store(staging, &cx.args().dk, &[block * 64, 0]);
                cx.store_wait(reduce).await;
            }
        }
    }
}

fn main() {}
