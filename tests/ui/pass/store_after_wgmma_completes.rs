// The fixed twin of `fail/store_overwrites_tile_wgmma_reads.rs`: warpgroup 0 waits for its
// `wgmma` before the two meet, so warpgroup 1's `store` follows the MMA's reads of `w`.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        w: Tile<bf16, 64, 64>,
    }

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 232)]
    pub async fn group(cx: &Ctx<'_, Args>, meet: Named<'_, Meet>, w: &Tile<bf16, 64, 64>) {
        let mut acc = cx.fragment::<64, 64>(0.0);
        if cx.instance() == 0 {
            let g = cx.wgmma(&mut acc, w, w.t());
            cx.mma_wait(g, 0).await;
            meet.sync().await;
        } else {
            meet.sync().await;
            let fresh = cx.fragment::<64, 64>(1.0);
            cx.store(&fresh, w);
        }
        cx.store_global(&acc, &cx.args().out, &[0, 0]);
    }
}

fn main() {}
