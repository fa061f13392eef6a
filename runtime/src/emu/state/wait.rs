//! The waits of role instances: on an mbarrier phase (with the lapped-phase check), on a
//! named barrier or the cluster barrier, and for MMAs and TMA stores.

use std::task::Poll;

use crate::dsl::{Wait, Who};

use super::super::error::{Arrival, ViolationKind};
use super::CtaState;

impl CtaState {
    /// Polls a wait of `who`, of the CTA of rank `rank`; `first` is true on its first poll.
    pub fn poll_wait(&mut self, rank: u32, who: Who, wait: Wait, first: bool) -> Poll<()> {
        if self.stopped {
            return Poll::Pending;
        }
        let flat = self.flat(rank, who);
        if first {
            self.insts[flat].waiting = Some((wait, 0));
            self.bump();
        }
        let ready = match wait {
            Wait::Parity { slot, parity } => {
                let Some(m) = self.mbar(flat, slot) else { return Poll::Pending };
                if first {
                    let index = flat * self.bars.len() + m;
                    let last = self.last_phase[index];
                    let phase = if last.rem_euclid(2) == i64::from(parity & 1) { last } else { last + 1 };
                    self.last_phase[index] = phase;
                    self.insts[flat].wait_phase = phase;
                }
                let phase = self.insts[flat].wait_phase;
                let bar = &self.bars[m];
                let completed = bar.hw.completed_phases();
                if completed as i64 >= phase + 2 {
                    let kind = ViolationKind::LappedPhase {
                        barrier: self.barrier_ref(m),
                        phase,
                        parity: parity & 1,
                        completed,
                        last_completed_by: bar.last_completed_by.map(|(f, at)| Arrival { by: self.instance(f), at }),
                    };
                    self.violate(Some(flat), kind);
                    return Poll::Pending;
                }
                if first && self.yield_waits {
                    return Poll::Pending;
                }
                let ready = bar.hw.parity_passed(parity);
                if ready && let Some(races) = &mut self.races {
                    races.waited(flat, m, phase, self.insts[flat].at);
                }
                ready
            }
            Wait::NamedSync { barrier } => {
                if first {
                    let generation = self.named_arrive(flat, barrier);
                    self.insts[flat].waiting = Some((wait, generation));
                    if self.yield_waits || self.stopped {
                        return Poll::Pending;
                    }
                }
                let generation = self.insts[flat].waiting.map_or(0, |w| w.1);
                let b = rank as usize * self.spec.named_barriers.len() + barrier as usize;
                let ready = self.named.get(b).is_some_and(|s| s.completed(generation));
                if ready && let Some(races) = &mut self.races {
                    races.named_waited(flat, b);
                }
                ready
            }
            Wait::ClusterSync => {
                if first {
                    let generation = self.cluster_arrive(flat);
                    self.insts[flat].waiting = Some((wait, generation));
                    if self.yield_waits {
                        return Poll::Pending;
                    }
                }
                let generation = self.insts[flat].waiting.map_or(0, |w| w.1);
                let ready = self.cluster.completed(generation);
                if ready && let Some(races) = &mut self.races {
                    races.named_waited(flat, self.named.len());
                }
                ready
            }
            // MMAs and TMA stores complete when issued.
            Wait::Mma { pending } => {
                if first && self.yield_waits {
                    return Poll::Pending;
                }
                let inst = &mut self.insts[flat];
                let done = inst.mma_issued.saturating_sub(u64::from(pending));
                inst.mma_done = inst.mma_done.max(done);
                if let Some(races) = &mut self.races {
                    races.mma_waited(flat, done);
                }
                true
            }
            Wait::Store { pending } => {
                if first && self.yield_waits {
                    return Poll::Pending;
                }
                let inst = &mut self.insts[flat];
                let done = inst.stores_issued.saturating_sub(u64::from(pending));
                inst.stores_done = inst.stores_done.max(done);
                if let Some(races) = &mut self.races {
                    races.stores_waited(flat, done);
                }
                true
            }
        };
        if ready {
            self.insts[flat].waiting = None;
            self.bump();
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}
