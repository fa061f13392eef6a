// A persistent epilogue: each tile's accumulator goes into `out` and a TMA store copies it to
// C; the next tile writes `out` again while the previous tile's store may still read it. The
// loop cannot name the previous iteration's store group: `cx.store_wait_all().await` before
// the write is the fix (`pass/store_wait_all_overlaps_next_tile.rs`).
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
            let acc = cx.fragment::<64, 64>(1.0);
            cx.store(&acc, out.rows::<64>(rows));
            let _in_flight = cx.tma_store(out.rows::<64>(rows), &cx.args().c, &[tile * 128 + rows, 0]);
        }
        cx.store_wait_all().await;
    }
}

fn main() {}
