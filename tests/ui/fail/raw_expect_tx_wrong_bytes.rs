// `arrive_expect_tx` expects 1024 bytes, but the tile copied onto the barrier has 4096.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [load], wait = [math])]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, loaded: Arriver<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        loaded.arrive_expect_tx(0, 1024);
        cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, loaded: Waiter<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        loaded.wait(0, 0).await;
        let tile = cx.load(buf);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
