//! flashinfer-ai/flashinfer pull request #3439: in the checkpointing SSU (mamba) kernel,
//! `load_state_per_warp` has each warp load its own rows of `smem.state` with `cp.async`,
//! and `replay_state_mma` then has every warp read the full extent of `smem.state`; between
//! the two there were only `__syncwarp()` and `__pipeline_wait_prior(0)`, which order a
//! warp's own copies but not the other warps', so a warp read rows its peers had not yet
//! written (different output on every launch). The fix adds a barrier across the warps.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/flashinfer_3439.rs`.

/// The fixed twin: a barrier across the warps between the loads and the reads.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        state: Tile<f32, 64, 64>,
    }

    #[named_barrier(roles = [replay], threads = 128)]
    pub struct Loaded;

    #[role(warps = 4, regs = 128)]
    pub async fn replay(cx: &Ctx<'_, Args>, loaded: Named<'_, Loaded>, state: &Tile<f32, 64, 64>) {
        let rows = cx.instance() * 16;
        let mine = cx.fragment::<16, 64>(1.0);
        cx.store(&mine, state.rows::<16>(rows));
        loaded.sync().await;
        let h = cx.load(state);
        cx.store_global(&h, &cx.args().out, &[rows, 0]);
    }
}
