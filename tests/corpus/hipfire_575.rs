//! warpfront/hipfire pull request #575 (fixes #574): in `qwen35_fa_prep` every wave reads
//! the broadcast `sdata[0]` (the sum of squares) and the kernel then reuses `sdata` for the
//! RoPE stage with no barrier between the read and the reuse, so a lagging wave reads a value
//! the next stage already wrote (NaN downstream). The fix adds the missing `__syncthreads()`.
//!
//! Re-enacted: two warpgroups write partial sums into a shared `sdata` tile (`store_rows`),
//! sync, read the broadcast (`load_rows`), then write their RoPE values into the same tile;
//! the buggy twin has no barrier between the read and the reuse.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/hipfire_575.rs`.

/// The fixed twin: a barrier between the broadcast read and the reuse.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        sdata: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [wave], threads = 256)]
    pub struct Reduced;

    #[named_barrier(roles = [wave], threads = 256)]
    pub struct Read;

    #[role(warpgroups = 2, regs = 128)]
    pub async fn wave(cx: &Ctx<'_, ()>, reduced: Named<'_, Reduced>, read: Named<'_, Read>, sdata: &Tile<f32, 64, 1>) {
        let rows = cx.instance() * 32;
        let partial = cx.row_vec::<32>(1.0);
        cx.store_rows(&partial, sdata.rows::<32>(rows));
        reduced.sync().await;
        let sum = cx.load_rows(sdata);
        read.sync().await;
        let rope = cx.row_vec::<32>(0.5);
        cx.store_rows(&rope, sdata.rows::<32>(rows));
        let out = cx.rows_scale(&sum, 2.0);
        let _ = out;
    }
}
