// The pipeline guards `a` and `b`, so `commit` expects the bytes of both; the producer only
// loads `a` onto the slot.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 64>, 2>,
        b: Ring<Tile<bf16, 64, 128>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [a, b])]
    pub struct Operands;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        let slot = ops.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.a(), &slot);
        ops.commit(slot);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
        let full = ops.wait().await;
        let mut acc = cx.fragment::<64, 128>(0.0);
        let mma = cx.wgmma(&mut acc, full.a(), full.b());
        cx.mma_wait(mma, 0).await;
        ops.release(full);
    }
}

fn main() {}
