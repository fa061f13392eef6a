// A raw two-stage ring: `Full` completes when the TMA bytes land (`arrive_expect_tx`),
// `Empty` when the consumer is done. The buffers start free, so the producer's first lap
// waits on `Empty` for parity 1, which passes at once; every later lap flips the parity.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    pub const STAGES: usize = 2;
    pub const BYTES: u32 = 64 * 16 * 4;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub steps: usize,
    }

    #[shared]
    pub struct Smem {
        buf: [Tile<f32, 64, 16>; STAGES],
    }

    #[barrier(arrive = [load], wait = [math], len = STAGES)]
    pub struct Full;

    #[barrier(arrive = [math], wait = [load], len = STAGES)]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn load(
        cx: &Ctx<'_, Args>,
        full: Arriver<'_, Full>,
        empty: Waiter<'_, Empty>,
        buf: &[Tile<f32, 64, 16>; STAGES],
    ) {
        for k in 0..cx.args().steps {
            let stage = k % STAGES;
            let lap = (k / STAGES) as u32;
            empty.wait(stage, (lap & 1) ^ 1).await;
            full.arrive_expect_tx(stage, BYTES);
            cx.tma_load(&cx.args().x, &[0, 0], &buf[stage], &full.tx(stage));
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(
        cx: &Ctx<'_, Args>,
        full: Waiter<'_, Full>,
        empty: Arriver<'_, Empty>,
        buf: &[Tile<f32, 64, 16>; STAGES],
    ) {
        for k in 0..cx.args().steps {
            let stage = k % STAGES;
            full.wait(stage, (k / STAGES) as u32 & 1).await;
            let tile = cx.load(&buf[stage]);
            empty.arrive(stage);
            cx.store_global(&tile, &cx.args().x, &[0, 0]);
        }
    }
}

fn main() {}
