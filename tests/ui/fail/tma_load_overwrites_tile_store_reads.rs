// One warp stores `buf` to `y` with a TMA store, then loads `x` into `buf` with a TMA load
// while the store may still read it: the load's bytes can land under the copy.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub y: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [io], wait = [io])]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn io(
        cx: &Ctx<'_, Args>,
        arrive: Arriver<'_, Loaded>,
        loaded: Waiter<'_, Loaded>,
        buf: &Tile<f32, 64, 16>,
    ) {
        arrive.arrive_expect_tx(0, 64 * 16 * 4);
        let acc = cx.fragment::<64, 16>(1.0);
        cx.store(&acc, buf);
        let store = cx.tma_store(buf, &cx.args().y, &[0, 0]);
        cx.tma_load(&cx.args().x, &[0, 0], buf, &arrive.tx(0));
        loaded.wait(0, 0).await;
        cx.store_wait(store).await;
    }
}

fn main() {}
