// The consumer keeps one MMA in flight: it issues the MMA of step k, then waits for the MMA
// of step k - 1 with one group in flight (`wgmma.wait_group 1`), which completes that
// older group, and releases its slot. `MmaGroup` holds no borrow, so only the checker can
// tell this from releasing the newest slot.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub a: Global<bf16>,
        pub b: Global<bf16>,
        pub c: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 64>, 3>,
        b: Ring<Tile<bf16, 64, 128>, 3>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [a, b])]
    pub struct Operands;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        for k in 0..cx.args().a.shape()[1].div_ceil(64) {
            let slot = ops.acquire().await;
            cx.tma_load(&cx.args().a, &[0, k * 64], slot.a(), &slot);
            cx.tma_load(&cx.args().b, &[k * 64, 0], slot.b(), &slot);
            ops.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
        let steps = cx.args().a.shape()[1].div_ceil(64);
        // The first K step is peeled: the kernel needs at least one (as CUTLASS's mainloop
        // asserts `k_tile_count >= 1`).
        assert!(steps > 0);
        let mut acc = cx.fragment::<64, 128>(0.0);
        let mut prev = ops.wait().await;
        let mut prev_g = cx.wgmma(&mut acc, prev.a(), prev.b());
        for _ in 1..steps {
            let cur = ops.wait().await;
            let g = cx.wgmma(&mut acc, cur.a(), cur.b());
            cx.mma_wait(prev_g, 1).await;
            ops.release(prev);
            prev = cur;
            prev_g = g;
        }
        cx.mma_wait(prev_g, 0).await;
        ops.release(prev);
        cx.store_global(&acc, &cx.args().c, &[0, 0]);
    }
}

fn main() {}
