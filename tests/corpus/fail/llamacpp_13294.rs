//! ggml-org/llama.cpp pull request #13294 (fixes #13287): in the MMQ kernel (`mul_mat_q`),
//! the threads write the destination ids of a tile into `ids_dst_shared` and other threads
//! read them when writing the tile back, with no barrier after the writes, and a later tile
//! of the stream-k loop rewrites them; depending on the matrix shape and SM count this raced
//! (broken output for Llama 4 Scout). The fix adds `__syncthreads()` after the writes and
//! before a later tile rewrites the buffer (#13299 does the same in the stream-k fixup).
//!
//! Re-enacted: per tile, four warps write their ids, then each reads all of them. Buggy twin
//! (fixed twin: `tests/corpus/llamacpp_13294.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        ids_dst: Tile<f32, 64, 1>,
    }

    #[role(warps = 4, regs = 64)]
    pub async fn block(cx: &Ctx<'_, Args>, ids_dst: &Tile<f32, 64, 1>) {
        let rows = cx.instance() * 16;
        for _ in 0..cx.args().tiles {
            let ids = cx.row_vec::<16>(1.0);
            cx.store_rows(&ids, ids_dst.rows::<16>(rows));
            let all = cx.load_rows(ids_dst);
            let _ = all;
        }
    }
}

fn main() {}
