// Two consumer warpgroups each release every slot, but the pipeline counts one release per
// phase of its empty barrier.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [buf], empty_arrivals = 1)]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..cx.args().x.shape()[0] {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        for _ in 0..cx.args().x.shape()[0] {
            let full = data.wait().await;
            let tile = cx.load(full.buf());
            data.release(full);
            cx.store_global(&tile, &cx.args().x, &[0, 0]);
        }
    }
}

fn main() {}
