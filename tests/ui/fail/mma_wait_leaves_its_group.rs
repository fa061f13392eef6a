// `mma_wait(second, 1)` leaves the newest group in flight, and `second` is that group: the
// wait does not wait for it.
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
        let first = cx.wgmma(&mut acc, full.a(), full.a().t());
        let second = cx.wgmma(&mut acc, full.a(), full.a().t());
        cx.mma_wait(first, 0).await;
        cx.mma_wait(second, 1).await;
        data.release(full);
    }
}

fn main() {}
