// The epilogue hands the output buffer back (`OutEmpty`) while its TMA store may still read
// it: `math` may overwrite the tile before the store has read it.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        out: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [math], wait = [epilogue])]
    pub struct OutFull;

    #[barrier(arrive = [epilogue], wait = [math])]
    pub struct OutEmpty;

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, full: Arriver<'_, OutFull>, empty: Waiter<'_, OutEmpty>, out: &Tile<f32, 64, 16>) {
        for t in 0..cx.args().tiles {
            empty.wait(0, (t as u32 & 1) ^ 1).await;
            let acc = cx.fragment::<64, 16>(t as f32);
            cx.store(&acc, out);
            full.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, full: Waiter<'_, OutFull>, empty: Arriver<'_, OutEmpty>, out: &Tile<f32, 64, 16>) {
        for t in 0..cx.args().tiles {
            full.wait(0, t as u32 & 1).await;
            let store = cx.tma_store(out, &cx.args().out, &[t * 64, 0]);
            empty.arrive(0);
            cx.store_wait(store).await;
        }
    }
}

fn main() {}
