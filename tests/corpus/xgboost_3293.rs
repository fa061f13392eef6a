//! dmlc/xgboost pull request #3293 (fixes #3264): `gpu_hist` performed a cub block reduction
//! inside a loop, reusing one temporary shared-memory buffer, with no barrier between
//! successive reductions: threads starting the next reduction overwrote the buffer while
//! others still read the previous result (nondeterministic splits on K80). The fix adds the
//! barrier between successive calls.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/xgboost_3293.rs`.

/// The fixed twin: a barrier between successive reductions.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub features: usize,
    }

    #[shared]
    pub struct Smem {
        temp: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Partials;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Consumed;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, Args>,
        partials: Named<'_, Partials>,
        consumed: Named<'_, Consumed>,
        temp: &Tile<f32, 64, 1>,
    ) {
        let rows = cx.instance() * 16;
        for _ in 0..cx.args().features {
            let partial = cx.row_vec::<16>(1.0);
            cx.store_rows(&partial, temp.rows::<16>(rows));
            partials.sync().await;
            let sums = cx.load_rows(temp);
            consumed.sync().await;
            let _ = sums;
        }
    }
}
