// The struct of launch arguments lacks `#[params]`: one error at the role that names it,
// pointing at the struct, instead of type errors from the generated code.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

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
        let slot = data.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
        data.commit(slot);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let full = data.wait().await;
        let tile = cx.load(full.buf());
        data.release(full);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
