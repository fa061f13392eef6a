//! flashinfer-ai/flashinfer pull request #2996: `tinygemm2` launches 384 threads (compute
//! warps 0-3, two groups of DMA warps 4-11) and calls `__syncthreads()` inside the compute
//! branch only; 248 of the 384 threads never reach it, and the block hangs on some H100s.
//! Buggy twin: a CTA-wide barrier (all 384 threads) that only the compute warps sync on
//! (fixed twin, a barrier of the 128 compute threads: `tests/corpus/flashinfer_2996.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[named_barrier(roles = [compute, dma], threads = 384)]
    pub struct Block;

    #[role(warpgroups = 1, regs = 128)]
    pub async fn compute(_cx: &Ctx<'_, ()>, block: Named<'_, Block>) {
        block.sync().await;
    }

    #[role(warpgroups = 2, regs = 40)]
    pub async fn dma(_cx: &Ctx<'_, ()>, _block: Named<'_, Block>) {}
}

fn main() {}
