// The slot is released while the `wgmma` reading it may still run: no `mma_wait` covers it.
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
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [a])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        let slot = data.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.a(), &slot);
        data.commit(slot);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let full = data.wait().await;
        let mut acc = cx.fragment::<64, 64>(0.0);
        let mma = cx.wgmma(&mut acc, full.a(), full.a().t());
        data.release(full);
        cx.mma_wait(mma, 0).await;
    }
}

fn main() {}
