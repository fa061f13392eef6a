//! The deadlock report: what every live instance waits for, when none of them can go on.

use std::time::Duration;

use crate::deadlock::Waiting;
use crate::dsl::Wait;

use super::super::error::{BlockedInstance, Deadlock};
use super::CtaState;

impl CtaState {
    /// The deadlock report of the CTA as it stands: what every live instance waits for.
    /// `watchdog` is set when the parallel-warps watchdog, not the executor, found it.
    pub fn deadlock(&self, watchdog: Option<Duration>) -> Deadlock {
        let spec = self.spec;
        let mut blocked = Vec::new();
        let mut finished = Vec::new();
        for (flat, inst) in self.insts.iter().enumerate() {
            if inst.finished {
                finished.push(self.describe(inst.rank, inst.who));
                continue;
            }
            let waiting = match inst.waiting {
                Some((wait, generation)) => self.describe_wait(inst.rank, wait, generation),
                None => Waiting::Nothing,
            };
            let instance = self.instance(flat);
            blocked.push(BlockedInstance {
                role: instance.role,
                instance: instance.index,
                warps: instance.warps,
                cta: instance.cta,
                waiting,
                watchdog,
            });
        }
        Deadlock { kernel: spec.name, block: self.block(0), blocked, finished }
    }

    /// What an instance of the CTA of rank `rank` in `wait` (for a named-barrier or cluster
    /// sync: on use `generation`) waits on.
    fn describe_wait(&self, rank: u32, wait: Wait, generation: u64) -> Waiting {
        let spec = self.spec;
        match wait {
            Wait::Parity { slot, parity } => {
                let Some(m) = self.try_mbar(rank, slot) else { return Waiting::UninitialisedBarrier };
                let b = &spec.barriers[slot.barrier as usize];
                let bar = &self.bars[m].hw;
                Waiting::Phase {
                    barrier: b.name.to_string(),
                    stage: u32::from(slot.index),
                    parity,
                    phase: bar.completed_phases(),
                    missing: bar.pending_arrivals(),
                    expected: bar.expected_arrivals(),
                    arrivers: spec.role_names(b.arrivers),
                    pending_bytes: bar.pending_tx(),
                }
            }
            Wait::NamedSync { barrier } => {
                let Some(b) = spec.named_barriers.get(barrier as usize) else { return Waiting::UnknownNamed };
                let state = self.named[rank as usize * spec.named_barriers.len() + barrier as usize];
                let arrived = if state.generation() == generation { state.arrived() } else { b.threads };
                Waiting::Named {
                    name: b.name.to_string(),
                    id: b.id,
                    arrived,
                    threads: b.threads,
                    roles: spec.role_names(b.roles),
                }
            }
            Wait::ClusterSync => {
                let threads = spec.threads() * self.blocks.len() as u32;
                let c = self.cluster;
                Waiting::Cluster { arrived: if c.generation() == generation { c.arrived() } else { threads }, threads }
            }
            Wait::Mma { pending } => Waiting::MmaGroups { pending },
            Wait::Store { pending } => Waiting::Stores { pending },
        }
    }
}
