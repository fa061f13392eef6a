//! NVIDIA/Fuser pull request #3863 (fixes #3561): in warp-specialized circular buffering the
//! compute warp's `mbarrier::arrive` that lets the load warp refill a stage was issued before
//! the `wgmma.wait_group` covering the stage's MMA (the WAR sync was missing), so the next TMA
//! load could overwrite operands the MMA still read. The fix inserts `wgmma.commit_group` and
//! `wgmma.wait_group` before the arrive. Buggy twin: the slot is released before `mma_wait`
//! (fixed twin: `tests/corpus/fuser_3863.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub a: Global<bf16>,
        pub b: Global<bf16>,
        pub c: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 16>, 2>,
        b: Ring<Tile<bf16, 16, 8>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = compute, guards = [a, b])]
    pub struct Operands;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        for k in 0..cx.args().a.shape()[1] / 16 {
            let slot = ops.acquire().await;
            cx.tma_load(&cx.args().a, &[0, k * 16], slot.a(), &slot);
            cx.tma_load(&cx.args().b, &[k * 16, 0], slot.b(), &slot);
            ops.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn compute(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
        let mut acc = cx.fragment::<64, 8>(0.0);
        for _ in 0..cx.args().a.shape()[1] / 16 {
            let full = ops.wait().await;
            let mma = cx.wgmma(&mut acc, full.a(), full.b());
            ops.release(full);
            cx.mma_wait(mma, 0).await;
        }
        cx.store_global(&acc, &cx.args().c, &[0, 0]);
    }
}

fn main() {}
