//! The non-blocking ops of role instances: arrivals and TMA bytes on the mbarriers of the
//! instance's own CTA or of peers in its cluster, with the over-arrival, transaction-byte and
//! barrier-order checks at each, and the MMAs and TMA stores that later waits count.

use std::panic::Location;

use crate::dsl::{BarrierSlot, Fault, Op, Who};

use super::super::error::{Arrival, ViolationKind};
use super::super::peer::PeerOp;
use super::super::race::{Agent, Lap};
use super::CtaState;

impl CtaState {
    /// Executes a non-blocking op of `who`, of the CTA of rank `rank`.
    pub fn issue(&mut self, rank: u32, who: Who, op: Op) {
        if self.stopped {
            return;
        }
        self.bump();
        let flat = self.flat(rank, who);
        match op {
            Op::Arrive { slot, tx_bytes } => self.arrive(flat, rank, slot, tx_bytes),
            Op::ClusterArrive { slot, mask } => {
                for target in self.mask_ranks(flat, mask, "cluster arrival") {
                    self.arrive(flat, target, slot, 0);
                }
            }
            Op::TmaLoadMulticast { slot, bytes, mask, .. } => {
                for target in self.mask_ranks(flat, mask, "multicast TMA load") {
                    self.land(flat, target, slot, bytes);
                }
            }
            // MMAs complete when issued, so a commit arrives at once.
            Op::MmaCommit { slot } => {
                self.insts[flat].umma_commits += 1;
                let commits = self.insts[flat].umma_commits;
                let m = self.try_mbar(rank, slot);
                if let (Some(races), Some(m)) = (&mut self.races, m)
                    && let Some(agent) = races.umma_commit(flat, m, commits)
                {
                    return self.unordered_arrival(flat, m, agent);
                }
                self.arrive(flat, rank, slot, 0);
            }
            Op::TmaLoad { slot, bytes, .. } => self.land(flat, rank, slot, bytes),
            Op::NamedArrive { barrier } => {
                self.named_arrive(flat, barrier);
            }
            Op::Mma { m, n, k, .. } => {
                self.mma_flops += 2 * u64::from(m) * u64::from(n) * u64::from(k);
                self.insts[flat].mma_issued += 1;
            }
            Op::Umma { m, n, k, .. } => self.mma_flops += 2 * u64::from(m) * u64::from(n) * u64::from(k),
            Op::TmaStore { .. } => self.insts[flat].stores_issued += 1,
            _ => {}
        }
    }

    /// The ranks `mask` names; a rank outside the cluster (or an empty mask) is reported as
    /// a fault of `flat`'s `what`, and none are returned.
    fn mask_ranks(&mut self, flat: usize, mask: u16, what: &str) -> Vec<u32> {
        let shape = self.spec.cluster_shape();
        let problem = match shape.ranks(mask) {
            Ok(ranks) if !ranks.is_empty() => return ranks,
            Ok(_) => "names no CTA".to_string(),
            Err(outside) => {
                format!("names rank {outside}, but the cluster has {} CTA(s) (ranks 0..{})", shape.ctas(), shape.ctas())
            }
        };
        let at = self.insts[flat].at;
        let fault = Fault {
            message: format!("a {what} with CTA mask {mask:#06b} {problem}"),
            location: at.unwrap_or(Location::caller()),
        };
        let (rank, who) = (self.insts[flat].rank, self.insts[flat].who);
        self.fault(rank, who, fault);
        Vec::new()
    }

    /// An arrival of `flat` on `slot` of the CTA of rank `rank` (its own, or a peer's).
    fn arrive(&mut self, flat: usize, rank: u32, slot: BarrierSlot, tx: u32) {
        let Some(m) = self.mbar_of(flat, rank, slot) else { return };
        self.note_peer_op(flat, rank, m);
        let bar = &self.bars[m];
        let again = self.once_each[bar.array] && bar.arrivals.iter().any(|&(f, _)| f == flat);
        if bar.hw.pending_arrivals() == 0 || again {
            let kind = ViolationKind::OverArrival {
                barrier: self.barrier_ref(m),
                phase: bar.hw.completed_phases(),
                expected: bar.hw.expected_arrivals(),
                arrivals: self.arrivals(m),
                pending_bytes: bar.hw.pending_tx(),
            };
            return self.violate(Some(flat), kind);
        }
        if let Some(agent) = self.races.as_mut().and_then(|races| races.arrive(flat, m)) {
            return self.unordered_arrival(flat, m, agent);
        }
        let at = self.insts[flat].at;
        let bar = &mut self.bars[m];
        bar.arrivals.push((flat, at));
        bar.expected_bytes += u64::from(tx);
        if bar.hw.arrive(tx) {
            self.completed(m, flat);
        } else {
            self.check_bytes(m, flat);
        }
    }

    /// A TMA load of `flat` completes `bytes` on `slot` of the CTA of rank `rank`.
    fn land(&mut self, flat: usize, rank: u32, slot: BarrierSlot, bytes: u32) {
        let Some(m) = self.mbar_of(flat, rank, slot) else { return };
        self.note_peer_op(flat, rank, m);
        if let Some(agent) = self.races.as_mut().and_then(|races| races.load_lands(flat, m)) {
            return self.unordered_arrival(flat, m, agent);
        }
        let bar = &mut self.bars[m];
        bar.landed_bytes += u64::from(bytes);
        if bar.hw.complete_tx(bytes) {
            self.completed(m, flat);
        } else {
            self.check_bytes(m, flat);
        }
    }

    /// With every arrival in, a negative transaction count can never return to zero.
    fn check_bytes(&mut self, m: usize, flat: usize) {
        let bar = &self.bars[m];
        if bar.hw.pending_arrivals() == 0 && bar.hw.pending_tx() < 0 {
            let kind = ViolationKind::TxOverflow {
                barrier: self.barrier_ref(m),
                phase: bar.hw.completed_phases(),
                expected_bytes: bar.expected_bytes,
                landed_bytes: bar.landed_bytes,
            };
            self.violate(Some(flat), kind);
        }
    }

    fn completed(&mut self, m: usize, flat: usize) {
        let at = self.insts[flat].at;
        let bar = &mut self.bars[m];
        bar.last_completed_by = Some((flat, at));
        bar.arrivals.clear();
        bar.expected_bytes = 0;
        bar.landed_bytes = 0;
        let phase = bar.hw.completed_phases() - 1;
        if let Some(lap) = self.races.as_mut().and_then(|races| races.phase_completed(m, phase)) {
            self.lap_hazard(flat, m, phase, lap);
        }
    }

    /// Reports an arrival of `flat` on mbarrier `m` that is not ordered after `agent`'s part
    /// in the barrier's previous phase.
    fn unordered_arrival(&mut self, flat: usize, m: usize, agent: Agent) {
        let kind = ViolationKind::UnorderedArrival {
            barrier: self.barrier_ref(m),
            phase: self.bars[m].hw.completed_phases(),
            previous: self.agent(agent),
        };
        self.violate(Some(flat), kind);
    }

    /// Reports the completion of `phase` of `m` by `flat`, unordered with `lap`'s wait.
    fn lap_hazard(&mut self, flat: usize, m: usize, phase: u64, lap: Lap) {
        let kind = ViolationKind::LapHazard {
            barrier: self.barrier_ref(m),
            phase,
            waiter: Arrival { by: self.instance(lap.waiter), at: lap.at },
            waited: lap.phase,
            completed_by: Arrival { by: self.instance(flat), at: self.insts[flat].at },
        };
        self.violate(Some(flat), kind);
    }

    /// Records `flat`'s arrival or TMA load onto mbarrier `m` of the CTA of rank `rank`, when
    /// that is another CTA of its cluster and race detection keeps clocks.
    fn note_peer_op(&mut self, flat: usize, rank: u32, m: usize) {
        if let Some(races) = &self.races
            && rank != self.insts[flat].rank
        {
            let clock = races.clock(flat).clone();
            let at = self.insts[flat].at;
            self.peer_ops.push(PeerOp { flat, target: rank, barrier: m, clock, at });
        }
    }
}
