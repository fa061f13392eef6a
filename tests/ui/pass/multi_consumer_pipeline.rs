// Two different roles consume every slot of one pipeline, a warpgroup (`math`) and a warp
// (`stats`); the empty barrier counts one release from each.
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
        buf: Ring<Tile<f32, 64, 16>, 4>,
    }

    #[pipeline(tma, producer = load, consumer = [math, stats], guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for i in 0..cx.args().x.shape()[0].div_ceil(64) {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[i * 64, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        for i in 0..cx.args().x.shape()[0].div_ceil(64) {
            let full = data.wait().await;
            let mut tile = cx.load(full.buf());
            data.release(full);
            cx.exp2(&mut tile);
            cx.store_global(&tile, &cx.args().x, &[i * 64, 0]);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn stats(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let mut total = cx.row_vec::<64>(0.0);
        for _ in 0..cx.args().x.shape()[0].div_ceil(64) {
            let full = data.wait().await;
            let tile = cx.load(full.buf());
            data.release(full);
            let sum = cx.row_sum(&tile);
            let one = cx.row_vec::<64>(1.0);
            total = cx.rows_fma(&sum, &one, &total);
        }
        let _ = total;
        let _ = &cx.args().y;
    }
}

fn main() {}
