// The consumer waits for three slots before releasing any, on a ring of two stages: the
// third wait needs a slot the consumer itself still holds.
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

    #[pipeline(tma, producer = load, consumer = math, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..3 {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let first = data.wait().await;
        let second = data.wait().await;
        let third = data.wait().await;
        let tile = cx.load(third.buf());
        data.release(first);
        data.release(second);
        data.release(third);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
