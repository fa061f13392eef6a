//! NVIDIA/cuml pull request #6578: the `_block_gemv` kernel loops; in each iteration every
//! thread writes to shared memory, the block syncs, and thread 0 reduces what is in shared
//! memory, but nothing held the other threads back: they continued into the next iteration
//! and overwrote shared memory while thread 0 was still reading it. The fix adds a sync
//! between the reduction and the next iteration.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/cuml_6578.rs`.

/// The fixed twin: the block meets after warp 0's reduction, before the next iteration's writes.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub rows: usize,
    }

    #[shared]
    pub struct Smem {
        partials: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Written;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Reduced;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, Args>,
        written: Named<'_, Written>,
        reduced: Named<'_, Reduced>,
        partials: &Tile<f32, 64, 1>,
    ) {
        let mine = cx.instance() * 16;
        for _ in 0..cx.args().rows {
            let partial = cx.row_vec::<16>(1.0);
            cx.store_rows(&partial, partials.rows::<16>(mine));
            written.sync().await;
            if cx.instance() == 0 {
                let sum = cx.load_rows(partials);
                let _ = sum;
            }
            reduced.sync().await;
        }
    }
}
