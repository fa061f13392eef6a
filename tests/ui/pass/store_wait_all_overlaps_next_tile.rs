// The fixed twin of `fail/store_overwrites_tile_store_reads_next_tile.rs`: a persistent
// epilogue whose TMA store of one tile runs while the next tile is computed; each warpgroup
// waits for every store it issued (`store_wait_all`) just before writing `out` again, and
// once more before it ends. Within a tile it stores its rows in two halves: the second
// half's write does not touch the rows the first half's store still reads.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<bf16>,
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        out: Tile<bf16, 128, 64>,
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, out: &Tile<bf16, 128, 64>) {
        let rows = cx.instance() * 64;
        for tile in 0..cx.args().tiles {
            let top = cx.fragment::<32, 64>(1.0);
            let bottom = cx.fragment::<32, 64>(2.0);
            cx.store_wait_all().await;
            cx.store(&top, out.rows::<32>(rows));
            let _top = cx.tma_store(out.rows::<32>(rows), &cx.args().c, &[tile * 128 + rows, 0]);
            cx.store(&bottom, out.rows::<32>(rows + 32));
            let _bottom = cx.tma_store(out.rows::<32>(rows + 32), &cx.args().c, &[tile * 128 + rows + 32, 0]);
        }
        cx.store_wait_all().await;
    }
}

fn main() {}
