//! flashinfer-ai/flashinfer pull request #4533, fix 2: in the cute_dsl blk64 block-sparse
//! attention kernel on Blackwell, two named barriers of the correction warpgroup were given
//! one hardware barrier id, so their uses collided and a CTA wedged intermittently. Buggy
//! twin: two named barriers with one id, in use at the same time (fixed twin, distinct ids:
//! `tests/corpus/flashinfer_4533.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[named_barrier(roles = [softmax, correction], threads = 256, id = 4)]
    pub struct StatsReady;

    #[named_barrier(roles = [correction, epilogue], threads = 256, id = 4)]
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

fn main() {}
