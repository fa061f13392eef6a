//! The teardown checks: an instance returning with MMAs or TMA stores in flight, and a CTA
//! ending with a phase partly arrived or bytes pending, an arrival on a peer CTA that the
//! peer never waited for, or a named barrier part-way through a use.

use crate::dsl::Who;

use super::super::error::ViolationKind;
use super::super::peer;
use super::CtaState;

impl CtaState {
    /// `who`, of the CTA of rank `rank`, returned: checks that it left nothing in flight.
    pub fn finish(&mut self, rank: u32, who: Who) {
        if self.stopped {
            return;
        }
        self.bump();
        let flat = self.flat(rank, who);
        let inst = &mut self.insts[flat];
        inst.finished = true;
        inst.waiting = None;
        let mma_groups = inst.mma_issued - inst.mma_done;
        let stores = inst.stores_issued - inst.stores_done;
        if mma_groups > 0 || stores > 0 {
            self.violate(Some(flat), ViolationKind::AsyncPendingAtExit { mma_groups, stores });
        }
    }

    /// Every instance returned: checks that no barrier was left part-way.
    pub fn end(&mut self) {
        if self.stopped {
            return;
        }
        for m in 0..self.bars.len() {
            let bar = &self.bars[m];
            if !bar.arrivals.is_empty() || bar.hw.pending_tx() != 0 {
                let kind = ViolationKind::PendingAtExit {
                    barrier: self.barrier_ref(m),
                    phase: bar.hw.completed_phases(),
                    expected: bar.hw.expected_arrivals(),
                    arrivals: self.arrivals(m),
                    pending_bytes: bar.hw.pending_tx(),
                };
                return self.violate(None, kind);
            }
        }
        if let Some(races) = &self.races {
            let finals: Vec<_> = self.insts.iter().enumerate().map(|(f, inst)| (inst.rank, races.clock(f))).collect();
            if let Some(op) = peer::unseen(&self.peer_ops, &finals) {
                let kind = ViolationKind::PeerMayHaveExited { barrier: self.barrier_ref(op.barrier), at: op.at };
                return self.violate(Some(op.flat), kind);
            }
        }
        let open = self.named.iter().zip(self.spec.named_barriers.iter().cycle()).find(|(s, _)| s.in_use());
        if let Some((state, spec)) = open {
            let kind = ViolationKind::NamedPendingAtExit {
                name: spec.name,
                id: spec.id,
                arrived: state.arrived(),
                threads: spec.threads,
            };
            self.violate(None, kind);
        }
        self.stopped = true;
    }
}
