//! Arrivals on named barriers (`bar.arrive`, `bar.sync`) and on the cluster barrier
//! (`barrier.cluster.arrive`), with the checks on named barriers: more threads than the
//! barrier counts, and two named barriers with one hardware id in use at once.

use warpspec_hw::NamedArrival;

use super::super::error::ViolationKind;
use super::CtaState;

impl CtaState {
    /// Arrives with `flat`'s threads on named barrier `index`; returns the use the arrival
    /// belongs to.
    pub(super) fn named_arrive(&mut self, flat: usize, index: u16) -> u64 {
        let local = index as usize;
        let Some(spec) = self.spec.named_barriers.get(local) else { return 0 };
        // This CTA's copies of the kernel's named barriers.
        let own = self.insts[flat].rank as usize * self.spec.named_barriers.len();
        let b = own + local;
        let shared = self
            .spec
            .named_barriers
            .iter()
            .enumerate()
            .find(|&(j, other)| j != local && other.id == spec.id && self.named[own + j].in_use());
        if let Some((_, other)) = shared {
            let kind = ViolationKind::NamedIdShared { name: spec.name, other: other.name, id: spec.id };
            self.violate(Some(flat), kind);
            return self.named[b].generation();
        }
        let threads = self.spec.roles[self.insts[flat].who.role as usize].threads_per_instance();
        let arrival = self.named[b].arrive(threads);
        match arrival {
            NamedArrival::Overflow { arrived, .. } => {
                let kind =
                    ViolationKind::NamedOverflow { name: spec.name, id: spec.id, threads: spec.threads, arrived };
                self.violate(Some(flat), kind);
            }
            NamedArrival::Joined { .. } | NamedArrival::Completed { .. } => {
                let unordered = self.races.as_mut().and_then(|races| {
                    let unordered = races.named_arrive(flat, b);
                    if matches!(arrival, NamedArrival::Completed { .. }) {
                        races.named_completed(b);
                    }
                    unordered
                });
                if let Some(agent) = unordered {
                    let kind = ViolationKind::UnorderedNamedArrival {
                        name: spec.name,
                        id: spec.id,
                        generation: arrival.generation(),
                        previous: self.agent(agent),
                    };
                    self.violate(Some(flat), kind);
                }
            }
        }
        arrival.generation()
    }

    /// `barrier.cluster.arrive` by `flat`'s threads; returns the use the arrival belongs to.
    pub(super) fn cluster_arrive(&mut self, flat: usize) -> u64 {
        let threads = self.spec.roles[self.insts[flat].who.role as usize].threads_per_instance();
        let arrival = self.cluster.arrive(threads);
        let index = self.named.len();
        if let Some(races) = self.races.as_mut() {
            // Each instance waits for every use it arrives on, so arrivals are ordered.
            let _ = races.named_arrive(flat, index);
            if matches!(arrival, NamedArrival::Completed { .. }) {
                races.named_completed(index);
            }
        }
        arrival.generation()
    }
}
