//! Where the generated code drops a fragment's zero fill: into the MMA that accumulates into
//! the fragment right after it.
//!
//! FlashAttention-3's consumer starts each score block with `let mut s = cx.fragment(0.0)`
//! and issues `S = Q K^T` into it at once. The generated CUDA fills the registers and issues
//! `wgmma` with `scale-d` set, and ptxas folds the two: the group's first `HGMMA` reads no
//! accumulator (`HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16], RZ, !UPT`) and no move is left
//! for the fill, in every FA3-family kernel (`fa3_bf16_d64`/`_d128`, `flat_bf16_d64`/`_d128`;
//! `calibration/sass/README.md`, "The zero fill folded into the MMA"), while the fill of `O`,
//! first accumulated into inside the loop, stays (`CS2R` before the loop). The model charged
//! 64 moves a warp for the score block's fill every iteration.
//!
//! With `issue.fold_zero_fill`, on a `wgmma` machine, the timing model therefore holds back a
//! zero fill and drops it if the instance's next op is an MMA whose accumulator has the
//! fill's shape; any other op, or a wait, queues the fill first, as ptxas keeps a fill that a
//! loop's MMA accumulates into.

use std::cell::RefCell;

use crate::dsl::{MathKind, Op, Who};

use super::sites::Queued;
use super::timing::{MmaKind, Timing};

/// A zero fill held back: its op (rows and columns) and lowered instructions.
struct Held {
    who: Who,
    rows: u32,
    cols: u32,
    instrs: Vec<Queued>,
}

/// Per role instance of a CTA slot: the zero fill held back until the next op shows whether
/// an MMA folds it.
#[derive(Default)]
pub struct ZeroFills {
    held: RefCell<Vec<Held>>,
}

impl ZeroFills {
    /// Holds back `instrs`, the lowering of `op`, if `op` is a zero fill on a `wgmma` machine;
    /// returns whether it did.
    pub fn hold(&self, who: Who, op: &Op, timing: &Timing, instrs: &mut Vec<Queued>) -> bool {
        let Op::Math { kind: MathKind::Fill { zero: true }, rows, cols } = *op else { return false };
        if !timing.fold_zero_fill || timing.mma_kind != MmaKind::Warpgroup {
            return false;
        }
        let mut held = self.held.borrow_mut();
        debug_assert!(held.iter().all(|h| h.who != who), "a fill is released before the next op");
        held.push(Held { who, rows, cols, instrs: std::mem::take(instrs) });
        true
    }

    /// Before `who`'s next op (`Some`) or wait (`None`): the instructions of the fill held
    /// back for `who`, to be queued first, or nothing if there is none or `next` is an MMA
    /// accumulating into a fragment of the fill's shape (the fill is folded into it).
    pub fn release(&self, who: Who, next: Option<&Op>) -> Option<Vec<Queued>> {
        let mut held = self.held.borrow_mut();
        let at = held.iter().position(|h| h.who == who)?;
        let fill = held.swap_remove(at);
        match next {
            Some(&Op::Mma { m, n, .. }) if (m, n) == (fill.rows, fill.cols) => None,
            _ => Some(fill.instrs),
        }
    }

    /// Forgets every fill held back (a new CTA in the slot: a fill its role never used).
    pub fn clear(&self) {
        self.held.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::DType;
    use crate::sim::Machine;
    use crate::sim::lower::{Dep, Instr};
    use crate::sim::timing::ExecPipe;

    const WHO: Who = Who { role: 1, instance: 0 };
    const OTHER: Who = Who { role: 1, instance: 1 };

    fn moves() -> Vec<Queued> {
        vec![Queued::unsited(Instr::Exec { pipe: ExecPipe::Fma, count: 64, dep: Dep::None, elements: 1 })]
    }

    fn fill(zero: bool, rows: u32, cols: u32) -> Op {
        Op::Math { kind: MathKind::Fill { zero }, rows, cols }
    }

    fn mma(m: u32, n: u32) -> Op {
        Op::Mma { m, n, k: 64, dtype: DType::Bf16, a_in_registers: false }
    }

    fn h200() -> Timing {
        let mut machine = Machine::h200();
        machine.issue.fold_zero_fill.value = true;
        Timing::new(&machine, 1.98)
    }

    #[test]
    fn a_zero_fill_folds_into_the_mma_that_follows_it() {
        let timing = h200();
        let fills = ZeroFills::default();
        assert!(fills.hold(WHO, &fill(true, 64, 128), &timing, &mut moves()));
        assert!(fills.release(WHO, Some(&mma(64, 128))).is_none(), "folded");
        assert!(fills.release(WHO, None).is_none(), "nothing left");
    }

    #[test]
    fn a_fill_stays_before_anything_else() {
        let timing = h200();
        let fills = ZeroFills::default();
        // A constant other than 0 is not held.
        let mut instrs = moves();
        assert!(!fills.hold(WHO, &fill(false, 64, 128), &timing, &mut instrs));
        assert_eq!(instrs.len(), 1);
        // Another op, a wait, or an MMA into another shape: the fill is queued first.
        for next in [Some(fill(true, 64, 1)), None, Some(mma(64, 64))] {
            assert!(fills.hold(WHO, &fill(true, 64, 128), &timing, &mut moves()));
            assert_eq!(fills.release(WHO, next.as_ref()).map(|q| q.len()), Some(1), "{next:?}");
        }
        // Another instance's MMA does not fold this one's fill.
        assert!(fills.hold(WHO, &fill(true, 64, 128), &timing, &mut moves()));
        assert!(fills.release(OTHER, Some(&mma(64, 128))).is_none());
        assert_eq!(fills.release(WHO, None).map(|q| q.len()), Some(1));
        // Without `wgmma`, or without the parameter, nothing is held.
        let mut b200 = Machine::b200();
        b200.issue.fold_zero_fill.value = true;
        assert!(!fills.hold(WHO, &fill(true, 128, 128), &Timing::new(&b200, 1.9), &mut moves()));
        let mut off = Machine::h200();
        off.issue.fold_zero_fill.value = false;
        let off = Timing::new(&off, 1.98);
        assert!(!fills.hold(WHO, &fill(true, 64, 128), &off, &mut moves()));
    }
}
