// The epilogue releases the slot while its TMA store may still be reading it, and waits
// for the store only after.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        out: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(producer = math, consumer = epilogue, guards = [out])]
    pub struct Out;

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, out: Producer<'_, Out>) {
        let slot = out.acquire().await;
        let acc = cx.fragment::<64, 16>(1.0);
        cx.store(&acc, slot.out());
        out.commit(slot);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, out: Consumer<'_, Out>) {
        let full = out.wait().await;
        let _store = cx.tma_store(full.out(), &cx.args().out, &[0, 0]);
        out.release(full);
        cx.store_wait_all().await;
    }
}

fn main() {}
