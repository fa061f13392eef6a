//! Where the generated code places the cast of a fragment that an in-flight `wgmma` with A in
//! registers may still read.
//!
//! In FlashAttention-3's overlapped loop, `P_j` is cast while `O += P_{j-1} V_{j-1}` (A in
//! registers, RS) runs; the generated CUDA keeps `P` in one register array, so ptxas places
//! the cast (`F2FP` and the `IMAD.U32` widening back, 128 instructions per warp at d 128)
//! after the `wgmma.wait_group` that retires that MMA (`WARPGROUP.DEPBAR.LE gsb0, 0x0`,
//! `calibration/sass/fa3_d128_loop.txt`, block "rescale O, cast P"). The DSL issues the cast
//! before that wait. On a `wgmma` machine the timing model therefore holds back a cast issued
//! while one of its instance's RS groups is in flight and queues it right after the first
//! wait that leaves none in flight (or before the instance's next MMA group, or after any
//! other wait).

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::dsl::{MathKind, Op, Wait, Who};

use super::sites::Queued;
use super::timing::{MmaKind, Timing};

/// One instance's MMA groups in flight (true: A in registers) and its held-back casts.
#[derive(Default)]
struct Instance {
    groups: VecDeque<bool>,
    held: Vec<Queued>,
}

/// Per role instance of a CTA slot: the casts held back behind an RS `wgmma`.
#[derive(Default)]
pub struct CastOrder {
    instances: RefCell<Vec<(Who, Instance)>>,
}

impl CastOrder {
    /// Appends the instructions `instrs` of `op`, issued by `who`, to `pending`, or holds
    /// them back (a cast while an RS group of `who` is in flight on a `wgmma` machine).
    pub fn issue(&self, who: Who, op: &Op, timing: &Timing, instrs: &mut Vec<Queued>, pending: &mut Vec<Queued>) {
        if timing.mma_kind != MmaKind::Warpgroup {
            pending.append(instrs);
            return;
        }
        let mut all = self.instances.borrow_mut();
        let at = match all.iter().position(|(w, _)| *w == who) {
            Some(at) => at,
            None => {
                all.push((who, Instance::default()));
                all.len() - 1
            }
        };
        let me = &mut all[at].1;
        match *op {
            Op::Mma { a_in_registers, .. } => {
                pending.append(&mut me.held);
                pending.append(instrs);
                me.groups.push_back(a_in_registers);
            }
            Op::Math { kind: MathKind::Cast, .. } if me.groups.iter().any(|&rs| rs) => me.held.append(instrs),
            _ => pending.append(instrs),
        }
    }

    /// After `who` queued `wait`: retires MMA groups, and queues the held-back casts once no
    /// RS group is in flight (after any wait other than an MMA wait).
    pub fn waited(&self, who: Who, wait: &Wait, pending: &mut Vec<Queued>) {
        let mut all = self.instances.borrow_mut();
        let Some((_, me)) = all.iter_mut().find(|(w, _)| *w == who) else { return };
        if let Wait::Mma { pending: keep } = *wait {
            while me.groups.len() > keep as usize {
                me.groups.pop_front();
            }
            if me.groups.iter().any(|&rs| rs) {
                return;
            }
        }
        pending.append(&mut me.held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::DType;
    use crate::sim::Machine;
    use crate::sim::lower::{Dep, Instr};
    use crate::sim::timing::ExecPipe;

    /// One marker instruction (`count` tells them apart).
    fn marker(count: u32) -> Vec<Queued> {
        vec![Queued::unsited(Instr::Exec { pipe: ExecPipe::Alu, count, dep: Dep::Stream, elements: 1 })]
    }

    fn counts(pending: &[Queued]) -> Vec<u32> {
        pending
            .iter()
            .map(|q| match q.instr {
                Instr::Exec { count, .. } => count,
                _ => 0,
            })
            .collect()
    }

    const WHO: Who = Who { role: 1, instance: 0 };
    const CAST: Op = Op::Math { kind: MathKind::Cast, rows: 64, cols: 128 };
    const FMA: Op = Op::Math { kind: MathKind::Fma, rows: 64, cols: 128 };

    fn mma(a_in_registers: bool) -> Op {
        Op::Mma { m: 64, n: 128, k: 128, dtype: DType::Bf16, a_in_registers }
    }

    #[test]
    fn a_cast_waits_for_the_rs_group_in_flight() {
        let timing = Timing::new(&Machine::h200(), 1.98);
        let order = CastOrder::default();
        let mut pending = Vec::new();
        order.issue(WHO, &mma(true), &timing, &mut marker(1), &mut pending);
        order.issue(WHO, &CAST, &timing, &mut marker(2), &mut pending);
        order.issue(WHO, &FMA, &timing, &mut marker(3), &mut pending);
        assert_eq!(counts(&pending), [1, 3], "the cast is held back");
        pending.push(Queued::unsited(Instr::Wait(Wait::Mma { pending: 0 })));
        order.waited(WHO, &Wait::Mma { pending: 0 }, &mut pending);
        assert_eq!(counts(&pending), [1, 3, 0, 2], "queued after the wait that retires the RS group");
        // With no RS group in flight, a cast is queued where it is issued.
        order.issue(WHO, &mma(false), &timing, &mut marker(4), &mut pending);
        order.issue(WHO, &CAST, &timing, &mut marker(5), &mut pending);
        assert_eq!(counts(&pending[4..]), [4, 5]);
    }

    #[test]
    fn a_held_cast_goes_before_the_next_group_or_after_a_partial_wait() {
        let timing = Timing::new(&Machine::h200(), 1.98);
        let order = CastOrder::default();
        let mut pending = Vec::new();
        order.issue(WHO, &mma(true), &timing, &mut marker(1), &mut pending);
        order.issue(WHO, &CAST, &timing, &mut marker(2), &mut pending);
        order.issue(WHO, &mma(false), &timing, &mut marker(3), &mut pending);
        assert_eq!(counts(&pending), [1, 2, 3], "flushed before the instance's next group");
        // RS then SS in flight: waiting down to one retires the RS group.
        order.issue(WHO, &CAST, &timing, &mut marker(4), &mut pending);
        assert_eq!(counts(&pending), [1, 2, 3], "an RS group is still in flight");
        order.waited(WHO, &Wait::Mma { pending: 2 }, &mut pending);
        assert_eq!(counts(&pending), [1, 2, 3], "nothing retired");
        order.waited(WHO, &Wait::Mma { pending: 1 }, &mut pending);
        assert_eq!(counts(&pending), [1, 2, 3, 4]);
        // Another instance's casts are not held behind this one's group.
        order.issue(WHO, &mma(true), &timing, &mut marker(5), &mut pending);
        order.issue(Who { role: 1, instance: 1 }, &CAST, &timing, &mut marker(6), &mut pending);
        assert_eq!(counts(&pending[4..]), [5, 6]);
    }

    #[test]
    fn casts_are_not_reordered_without_wgmma() {
        let timing = Timing::new(&Machine::b200(), 1.9);
        let order = CastOrder::default();
        let mut pending = Vec::new();
        order.issue(WHO, &mma(true), &timing, &mut marker(1), &mut pending);
        order.issue(WHO, &CAST, &timing, &mut marker(2), &mut pending);
        assert_eq!(counts(&pending), [1, 2]);
    }
}
