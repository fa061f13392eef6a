//! ggml-org/llama.cpp pull request #5853: in the CUDA soft max, the shared buffer `buf_iw`
//! holds the warps' partial maxima for a block reduction and is then reused for the partial
//! sums; `compute-sanitizer` reported the race: `buf_iw` was written for the sum while other
//! warps could still be reading it for the maximum, with no synchronization between. The fix
//! adds the missing `__syncthreads()`.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/llamacpp_5853.rs`.

/// The fixed twin: a barrier between the read of the maxima and the write of the sums.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        buf_iw: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct MaxWritten;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct SumWritten;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct MaxRead;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, ()>,
        max_written: Named<'_, MaxWritten>,
        sum_written: Named<'_, SumWritten>,
        max_read: Named<'_, MaxRead>,
        buf_iw: &Tile<f32, 64, 1>,
    ) {
        let rows = cx.instance() * 16;
        let max = cx.row_vec::<16>(1.0);
        cx.store_rows(&max, buf_iw.rows::<16>(rows));
        max_written.sync().await;
        let block_max = cx.load_rows(buf_iw);
        max_read.sync().await;
        let sum = cx.rows_scale(&max, 2.0);
        cx.store_rows(&sum, buf_iw.rows::<16>(rows));
        sum_written.sync().await;
        let block_sum = cx.load_rows(buf_iw);
        let _ = cx.rows_sub(&block_max, &block_sum);
    }
}
