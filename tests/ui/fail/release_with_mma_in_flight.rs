// `mma_wait(first, 1)` leaves the newest group in flight, and that group reads `cur`, which
// is released right after.
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
        for _ in 0..2 {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.a(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let mut acc = cx.fragment::<64, 64>(0.0);
        let prev = data.wait().await;
        let first = cx.wgmma(&mut acc, prev.a(), prev.a().t());
        let cur = data.wait().await;
        let second = cx.wgmma(&mut acc, cur.a(), cur.a().t());
        cx.mma_wait(first, 1).await;
        data.release(cur);
        data.release(prev);
        cx.mma_wait(second, 0).await;
    }
}

fn main() {}
