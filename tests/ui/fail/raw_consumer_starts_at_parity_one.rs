// A consumer's first wait on a barrier that TMA completes is for parity 1: on a fresh
// barrier it passes at once, before the bytes have landed.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    pub const BYTES: u32 = 64 * 16 * 4;

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
        loaded.arrive_expect_tx(0, BYTES);
        cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, loaded: Waiter<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        loaded.wait(0, 1).await;
        let tile = cx.load(buf);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
