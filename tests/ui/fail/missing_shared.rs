// The struct of on-chip buffers lacks `#[shared]`: one error at the pipeline guard that names
// its field, pointing at the struct, instead of type errors from the generated code.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
    }

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
