//! Dao-AILab/flash-attention issue #1344: in the FlashAttention-3 (Hopper) forward epilogue
//! with `kUseVarSeqLen`, `O` is written to global memory by `write_tiled()` instead of a TMA
//! store: every thread copies part of the `O` tile from shared memory to global memory, but
//! the threads were not synchronized between the register-to-shared copy and that
//! shared-to-global copy, so a fast thread could copy rows a slow warp had not yet written
//! (reproduced by delaying the last warp). The maintainer confirmed the hazard ("I think
//! you're right") and pointed to the epilogue of the `decode` branch as the fix, which the
//! reporter reviewed.
//!
//! Re-enacted: two MMA warpgroups each write their 64 rows of `o`, then each copies its 32
//! columns of all 128 rows out. Both accesses of a racing pair go through narrowed views
//! (rows, columns) whose offsets the text decides; the checker compares their rectangles.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/flash_attention_1344.rs`.

/// The fixed twin: the warpgroups meet between the two copies.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub o: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        o: Tile<f32, 128, 64>,
    }

    #[named_barrier(roles = [epilogue], threads = 256)]
    pub struct Written;

    #[role(warpgroups = 2, regs = 232)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, written: Named<'_, Written>, o: &Tile<f32, 128, 64>) {
        let rows = cx.instance() * 64;
        let cols = cx.instance() * 32;
        let acc = cx.fragment::<64, 64>(1.0);
        cx.store(&acc, o.rows::<64>(rows));
        written.sync().await;
        let part = cx.load(o.cols::<32>(cols));
        cx.store_global(&part, &cx.args().o, &[0, cols]);
    }
}
