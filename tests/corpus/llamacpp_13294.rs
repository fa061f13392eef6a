//! ggml-org/llama.cpp pull request #13294 (fixes #13287): in the MMQ kernel (`mul_mat_q`),
//! the threads write the destination ids of a tile into `ids_dst_shared` and other threads
//! read them when writing the tile back, with no barrier after the writes, and a later tile
//! of the stream-k loop rewrites them; depending on the matrix shape and SM count this raced
//! (broken output for Llama 4 Scout). The fix adds `__syncthreads()` after the writes and
//! before a later tile rewrites the buffer (#13299 does the same in the stream-k fixup).
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/llamacpp_13294.rs`.

/// The fixed twin: barriers after the writes and before the next tile rewrites the ids.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        ids_dst: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Written;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Read;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, Args>,
        written: Named<'_, Written>,
        read: Named<'_, Read>,
        ids_dst: &Tile<f32, 64, 1>,
    ) {
        let rows = cx.instance() * 16;
        for _ in 0..cx.args().tiles {
            let ids = cx.row_vec::<16>(1.0);
            cx.store_rows(&ids, ids_dst.rows::<16>(rows));
            written.sync().await;
            let all = cx.load_rows(ids_dst);
            let _ = all;
            read.sync().await;
        }
    }
}
