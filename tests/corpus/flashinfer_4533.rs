//! flashinfer-ai/flashinfer pull request #4533, fix 2: two named barriers of the correction
//! warpgroup shared a hardware id. This is the fixed twin, with distinct ids; the buggy twin,
//! which the checker rejects, is `tests/corpus/fail/flashinfer_4533.rs`.

/// The fixed twin: distinct ids.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[named_barrier(roles = [softmax, correction], threads = 256, id = 4)]
    pub struct StatsReady;

    #[named_barrier(roles = [correction, epilogue], threads = 256, id = 5)]
    pub struct Reduced;

    #[role(warpgroups = 1, regs = 128)]
    pub async fn softmax(_cx: &Ctx<'_, ()>, stats: Named<'_, StatsReady>) {
        stats.arrive();
    }

    #[role(warpgroups = 1, regs = 128)]
    pub async fn correction(_cx: &Ctx<'_, ()>, stats: Named<'_, StatsReady>, reduced: Named<'_, Reduced>) {
        reduced.arrive();
        stats.sync().await;
    }

    #[role(warpgroups = 1, regs = 128)]
    pub async fn epilogue(_cx: &Ctx<'_, ()>, reduced: Named<'_, Reduced>) {
        reduced.sync().await;
    }
}
