//! vllm-project/vllm-xpu-kernels pull request #411: the GDN chunk kernels
//! (`chunk_compute_A_kernel`, `chunk_compute_wu_kernel`) refill the shared local memory
//! `g_slm_ptr`/`beta_slm_ptr` every (chunk, v_head) iteration with only a barrier after the
//! fill; nothing ordered the refill after the previous iteration's readers, so a sub-group
//! that finished early overwrote the values slower sub-groups still read in the `exp()`
//! epilogue (NaN logits at 32K tokens and more on XE2). The fix adds a barrier before the
//! refill.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/vllm_xpu_411.rs`.

/// The fixed twin: a barrier before each refill, after the previous iteration's reads.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub chunks: usize,
    }

    #[shared]
    pub struct Smem {
        g: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [group], threads = 128)]
    pub struct Filled;

    #[named_barrier(roles = [group], threads = 128)]
    pub struct Consumed;

    #[role(warps = 4, regs = 64)]
    pub async fn group(
        cx: &Ctx<'_, Args>,
        filled: Named<'_, Filled>,
        consumed: Named<'_, Consumed>,
        g: &Tile<f32, 64, 1>,
    ) {
        let rows = cx.instance() * 16;
        for _ in 0..cx.args().chunks {
            consumed.sync().await;
            let cumsum = cx.row_vec::<16>(0.5);
            cx.store_rows(&cumsum, g.rows::<16>(rows));
            filled.sync().await;
            let decay = cx.load_rows(g);
            let _ = cx.rows_exp2(&decay, 1.0);
        }
    }
}
