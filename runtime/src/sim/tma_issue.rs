//! How the generated code issues a TMA copy: box by box, one 128-byte-wide column panel at a
//! time, each box after a chain of dependent instructions that moves its operands into place.

use crate::dsl::GlobalTile;
use crate::gpu::codegen::TileLayout;

use super::lower::{Dep, Instr, Issuer, exec};
use super::timing::{ExecPipe, Timing};

/// Dependent instructions the generated code runs to issue one TMA box (one
/// `cp.async.bulk.tensor` of a 128-byte-wide column panel): coordinates and shared-memory
/// address into uniform registers (`R2UR`, `USHF`, `UIADD3`, `ULEA`, `UMOV`), the `ELECT`
/// of the issuing thread and the predicate bookkeeping around `UTMALDG`. In the SASS of the
/// generated GEMMs (sm_90a, `calibration/sass/README.md`, "TMA issue and global stores"):
/// 71 instructions from the empty-stage wait to the `expect_tx` arrive for 5 boxes in the
/// producer of `ws_128x256_p4`; 10 between consecutive `UTMALDG`. Nsight Compute's stall
/// sampling (H200, `calibration/results/validate_stalls/regions.txt`, each warp weighted by
/// the live warps of its sub-partition) puts 265, 375, 374 and 360 cycles on that path per
/// k-step of the producers of the calibration kernels #0 (3 boxes), #25, #35 and #55 (5
/// boxes each) at 8192^3: 1374 cycles for 18 boxes, 76 a box, a chain of 19 dependent
/// instructions at the ALU's 4-cycle latency. For copies whose operands live on the uniform
/// datapath ([`CopyOperands::Uniform`]).
pub const TMA_ISSUE_INSTRS_PER_BOX: u32 = 19;

/// As [`TMA_ISSUE_INSTRS_PER_BOX`], for copies whose operands live in per-thread registers
/// ([`CopyOperands::PerThread`]): between consecutive `UTMALDG` of the loader path of
/// `flat_128x256_p4` sit 12 instructions, 3 of them `R2UR` (an ordinary register moved to
/// a uniform one) inside the `ELECT` loop, with the address arithmetic on the vector ALU
/// (`calibration/sass/README.md`, "TMA issue and global stores"). The stall sampling of the
/// same kernel puts 428 cycles on 5 boxes for v1 (#56, calibration set), 86 per box: a chain
/// of 22 instructions at the ALU's latency (88; v2, #57, also calibration: 94). The count
/// stands for the chain's length in cycles (the `R2UR` moves' latency), not for issue slots.
pub const TMA_ISSUE_INSTRS_PER_BOX_PER_THREAD: u32 = 22;

/// Where the generated code keeps the operands of the copies a role issues (the tensor map,
/// the coordinates, the shared-memory address and the barrier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyOperands {
    /// On the uniform datapath: a role of one instance runs its copies on values every
    /// thread of the warp holds alike (loop counters, block indices), which ptxas keeps in
    /// uniform registers.
    Uniform,
    /// In per-thread registers: a role of several instances picks the instance that loads by
    /// the thread index, so the ring state that instance updates is per-thread to ptxas, and
    /// each copy moves it to uniform registers first (`R2UR`).
    PerThread,
}

/// The TMA boxes of a `rows x cols` tile of `bytes`: one per column panel of the tile's
/// layout in the generated code ([`TileLayout`]), `(boxes, bytes of each, columns of each)`.
pub(super) fn tma_boxes(bytes: u32, rows: u32, cols: u32) -> (u32, u32, u32) {
    let elem_bytes = (bytes / (rows * cols).max(1)).max(1);
    let layout = TileLayout::of(cols, elem_bytes);
    let boxes = layout.panels.max(1);
    (boxes, bytes / boxes, layout.panel_cols)
}

/// The dependent instructions that issue `boxes` TMA boxes.
pub(super) fn tma_issue(boxes: u32, copies: CopyOperands, out: &mut Vec<Instr>) {
    let (pipe, per_box) = match copies {
        CopyOperands::Uniform => (ExecPipe::Uniform, TMA_ISSUE_INSTRS_PER_BOX),
        CopyOperands::PerThread => (ExecPipe::Alu, TMA_ISSUE_INSTRS_PER_BOX_PER_THREAD),
    };
    exec(pipe, per_box * boxes, Dep::Chain, out);
}

/// A TMA load of a `rows x cols` tile of `bytes` from `src`, box by box as the generated code
/// issues it: each box's chain of [`tma_issue`], then its copy (`copy(bytes, source)`), so a
/// box streams while the next one's chain runs. Box `p`'s source is the tile's origin moved
/// `p` panels along its rows (the same element index as a box of a tile that starts there).
/// Where copies are free ([`Timing::copies_free`]) only the copies, as one.
pub(super) fn tma_load_boxes(
    (bytes, rows, cols, src): (u32, u32, u32, GlobalTile),
    issuer: Issuer,
    timing: &Timing,
    out: &mut Vec<Instr>,
    copy: impl Fn(u32, GlobalTile) -> Instr,
) {
    if timing.copies_free {
        out.push(copy(bytes, src));
        return;
    }
    let (boxes, box_bytes, panel_cols) = tma_boxes(bytes, rows, cols);
    for p in 0..boxes {
        tma_issue(1, issuer.copies, out);
        let last = p + 1 == boxes;
        let moved = if last { bytes - box_bytes * (boxes - 1) } else { box_bytes };
        out.push(copy(moved, GlobalTile { origin: src.origin + u64::from(p * panel_cols), ..src }));
    }
}
