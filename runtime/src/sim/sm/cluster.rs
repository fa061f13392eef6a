//! What an SM does for thread-block clusters: multicast TMA loads, arrivals on the mbarriers
//! of peer CTAs, and `barrier.cluster`. Effects on a CTA of another SM leave through
//! [`Sm::outbox`]; the whole-GPU loop ([`crate::sim::gpu`]) delivers them to that SM's event
//! queue, or to the cluster scheduler ([`crate::sim::clusters`]) for `barrier.cluster`.
//!
//! - **Multicast load** (`cp.async.bulk.tensor .multicast::cluster`): the issuing CTA's TMA
//!   unit makes one request of `bytes` to the memory system (so L2 and HBM count the bytes
//!   once), streams them at its own rate, and the copy lands at the same cycle in every CTA
//!   of the mask, completing `bytes` on the same barrier stage of each. The SM-to-SM fabric
//!   adds no latency or bandwidth limit of its own (assumed: the multicast is replicated at
//!   the GPC, no public figure prices it). The shared-memory bytes written count once per
//!   destination.
//! - **Cluster arrival** (`mapa` + `mbarrier.arrive.release.cluster`): an arrival on the
//!   issuing CTA's own barrier is a local arrival; on a peer's it counts there
//!   `clusters.remote_arrive_cycles` later, and its waiters wake `sync.mbarrier_wake_cycles`
//!   after that.
//! - **`barrier.cluster`** (arrive + wait): every warp of every CTA of the cluster arrives;
//!   the last arrival releases the waiters of every CTA `clusters.cluster_barrier_cycles`
//!   later. A kernel without clusters is a cluster of one CTA: the same barrier over its
//!   own warps, counted on the SM.

use crate::dsl::BarrierSlot;
use crate::report::TmaCopy;

use super::super::memory::MemorySystem;
use super::sync::WaitTest;
use super::{Env, EventKind, Sm};

/// Where the CTAs of a cluster run: for each rank, its SM, its resident slot and the slot's
/// generation (which CTA occupies it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClusterLink {
    /// The cluster's index in the launch.
    pub id: usize,
    /// `(sm, resident, generation)` of each rank.
    pub ranks: Vec<(usize, u32, u32)>,
}

/// A message from an SM's step to the rest of the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outgoing {
    /// `kind` is due on SM `sm` at `at`.
    Event {
        /// The SM.
        sm: usize,
        /// The cycle.
        at: u64,
        /// What happens there.
        kind: EventKind,
    },
    /// One warp of cluster `cluster` arrived at `barrier.cluster` at `at`.
    ClusterArrive {
        /// The cluster.
        cluster: usize,
        /// The cycle.
        at: u64,
    },
    /// The CTA slot `resident` of this SM was freed at `at`.
    Freed {
        /// The slot.
        resident: usize,
        /// The cycle.
        at: u64,
    },
}

impl Sm {
    /// Links the CTA at `resident` to its cluster.
    pub fn link_cluster(&mut self, resident: usize, link: ClusterLink) {
        self.residents[resident].cluster = Some(link);
    }

    /// The generation of the CTA slot `resident` (which CTA occupies it).
    pub fn generation(&self, resident: usize) -> u32 {
        self.residents[resident].generation
    }

    /// The `(sm, resident, generation)` of each CTA of `mask`, seen from the CTA at `resident`
    /// (a CTA without a cluster is rank 0 of a cluster of one).
    fn destinations(&self, resident: usize, mask: u16) -> Vec<(usize, u32, u32)> {
        let s = &self.residents[resident];
        let own = (self.id, resident as u32, s.generation);
        (0..16u32)
            .filter(|r| mask & (1 << r) != 0)
            .filter_map(|r| match &s.cluster {
                Some(link) => link.ranks.get(r as usize).copied(),
                None => (r == 0).then_some(own),
            })
            .collect()
    }

    /// `kind` due at `at` on SM `sm`: queued here or sent out.
    fn send(&mut self, sm: usize, at: u64, kind: EventKind) {
        if sm == self.id {
            self.push_event(at, kind);
        } else {
            self.outbox.push(Outgoing::Event { sm, at, kind });
        }
    }

    /// The CTA at `resident` issues a multicast load of `bytes` to the CTAs of `mask` at `t`.
    pub(super) fn fire_multicast(
        &mut self,
        resident: usize,
        load: (BarrierSlot, u32, Option<crate::dsl::GlobalTile>, u16),
        t: u64,
        env: &Env<'_>,
        mem: &mut MemorySystem,
    ) {
        let (barrier, bytes, src, mask) = load;
        let land = self.load_lands(t, bytes, src, env, mem);
        let s = &mut self.residents[resident];
        s.outstanding = s.outstanding.max(land as f64);
        for (sm, to, generation) in self.destinations(resident, mask) {
            if !env.timing.copies_free {
                self.stats.tma_bytes += u64::from(bytes);
            }
            self.send(sm, land, EventKind::TxLand { resident: to, generation, barrier, bytes });
        }
        if self.residents[resident].traced {
            let copy = TmaCopy::Load { bytes, barrier: env.shape.stage(barrier) };
            let span = self.trace_copy(copy, t, land, env);
            self.note_arrival(resident, barrier, span);
        }
    }

    /// The CTA at `resident` arrives on `barrier` of each CTA of `mask` at `t`.
    pub(super) fn fire_cluster_arrive(
        &mut self,
        resident: usize,
        barrier: BarrierSlot,
        mask: u16,
        t: u64,
        env: &Env<'_>,
    ) {
        let own = (self.id, resident as u32, self.residents[resident].generation);
        for (sm, to, generation) in self.destinations(resident, mask) {
            if (sm, to, generation) == own {
                if self.residents[resident].mbar(barrier).bar.arrive(0) {
                    self.phase_completed(resident, barrier, t, env.timing.mbarrier_wake);
                }
            } else {
                let at = t + env.timing.remote_arrive;
                self.send(sm, at, EventKind::RemoteArrive { resident: to, generation, barrier });
            }
        }
    }

    /// Tests warp `w`'s `barrier.cluster` at `t` (`first`: it arrives now).
    pub(super) fn test_cluster_sync(&mut self, w: usize, first: bool, t: u64, env: &Env<'_>) -> WaitTest {
        let resident = self.warps[w].resident as usize;
        if first {
            self.warps[w].cluster_syncs += 1;
            let s = &mut self.residents[resident];
            match &s.cluster {
                Some(link) => self.outbox.push(Outgoing::ClusterArrive { cluster: link.id, at: t }),
                None => {
                    s.cluster_arrived += 1;
                    if s.cluster_arrived >= env.shape.warps {
                        s.cluster_arrived = 0;
                        let at = t + env.timing.cluster_barrier;
                        let generation = s.generation;
                        self.push_event(at, EventKind::ClusterRelease { resident: resident as u32, generation });
                    }
                }
            }
        }
        let target = self.warps[w].cluster_syncs;
        let s = &mut self.residents[resident];
        if s.cluster_released >= target {
            if s.cluster_release_at <= t { WaitTest::Pass } else { WaitTest::Until(s.cluster_release_at) }
        } else {
            s.cluster_waiters.push(w as u32);
            WaitTest::Blocked
        }
    }

    /// A use of `barrier.cluster` completes for the CTA at `resident` at `t`.
    pub(super) fn release_cluster(&mut self, resident: usize, t: u64) {
        let s = &mut self.residents[resident];
        s.cluster_released += 1;
        s.cluster_release_at = t;
        for w in std::mem::take(&mut s.cluster_waiters) {
            self.wake(w as usize, t);
        }
    }
}
