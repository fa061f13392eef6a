//! flashinfer-ai/flashinfer pull request #2996: a `__syncthreads()` reached only by the 128
//! compute threads of a 384-thread block. This is the fixed twin, a barrier of the compute
//! threads alone; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/flashinfer_2996.rs`.

/// The fixed twin: the barrier counts the compute warps only.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[named_barrier(roles = [compute], threads = 128)]
    pub struct Compute;

    #[role(warpgroups = 1, regs = 128)]
    pub async fn compute(_cx: &Ctx<'_, ()>, compute: Named<'_, Compute>) {
        compute.sync().await;
    }

    #[role(warpgroups = 2, regs = 40)]
    pub async fn dma(_cx: &Ctx<'_, ()>) {}
}
