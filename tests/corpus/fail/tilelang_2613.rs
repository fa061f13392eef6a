//! tile-ai/tilelang issue #2613: an un-pipelined warp-specialized GEMM shares one shared
//! operand between both warp groups; the loop-back `__syncthreads()` is missing, so the next
//! iteration's all-threads copy into `A_shared` overwrites the operand while the other warp
//! group's asynchronous WGMMA (waited with `warpgroup_wait<0>`, which orders only the issuing
//! warp group's own reads) still reads it. The fixed twin syncs the two warp groups after
//! their MMA waits, before the next copy.
//!
//! Re-enacted: two warpgroups each copy half the rows of a shared `a` (`store`), meet at a
//! named barrier (the post-copy barrier the compiler did insert), run a `wgmma` over all of
//! `a`, wait for it, and loop; the buggy twin has no loop-back barrier.
//!
//! This is the buggy twin, which the checker rejects (WS0025); the fixed twin is
//! `tests/corpus/tilelang_2613.rs`.

/// The buggy twin: no loop-back barrier.
#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<f32>,
        pub k_tiles: usize,
    }

    #[shared]
    pub struct Smem {
        a: Tile<bf16, 64, 16>,
        b: Tile<bf16, 16, 8>,
    }

    #[named_barrier(roles = [compute], threads = 256)]
    pub struct Copied;

    #[role(warpgroups = 2, regs = 232)]
    pub async fn compute(cx: &Ctx<'_, Args>, copied: Named<'_, Copied>, a: &Tile<bf16, 64, 16>, b: &Tile<bf16, 16, 8>) {
        let half = cx.instance() * 32;
        let mut acc = cx.fragment::<64, 8>(0.0);
        for k in 0..cx.args().k_tiles {
            let values = cx.fragment::<32, 16>(k as f32);
            cx.store(&values, a.rows::<32>(half)); // @tilelang-2613-copy
            copied.sync().await;
            let mma = cx.wgmma(&mut acc, a, b);
            cx.mma_wait(mma, 0).await;
        }
        cx.store_global(&acc, &cx.args().c, &[0, 0]);
    }
}

fn main() {}
