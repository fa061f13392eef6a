//! The state of one emulated CTA, or of the CTAs of one thread-block cluster run together: their
//! mbarriers and named barriers, what each role instance is doing, and the sanitizer's checks.
//! An executor owns one per CTA or cluster (behind a `RefCell` on one thread, behind a mutex
//! with parallel warps) and feeds it the ops, waits and events of each CTA's instances, tagged
//! with the CTA's rank in the cluster; it answers the waits and keeps the first error.
//!
//! In a cluster every CTA has its own copy of each barrier; instances, mbarriers and named
//! barriers are numbered CTA by CTA (rank 0's first). A multicast TMA load completes its bytes
//! on the barrier of every CTA of its mask, a cluster arrival arrives on the barrier of every
//! CTA of its mask, and the cluster barrier (`barrier.cluster`) counts every thread of every
//! CTA. Reports name the CTA (by rank) of each instance and barrier.
//!
//! The checks, each at the op that exposes the problem:
//! - **over-arrival**: an arrival when the phase has every arrival it expects (its pending
//!   count would underflow), or a second arrival of one instance in a phase of a barrier
//!   whose count is its number of arriving instances (one arrival each);
//! - **transaction bytes**: more bytes landed than expected once every arrival is in (the
//!   phase can never complete); bytes still pending when the CTA ends;
//! - **lapped phase**: each instance's wait on an mbarrier is for a full phase number,
//!   inferred from its parity as the nearest phase at or after its previous wait on that
//!   mbarrier (waiters wait for every phase in order, as pipelines do); a wait that finds the
//!   barrier two or more phases past that number is reported instead of passing or blocking
//!   on the wrong phase;
//! - **races** on shared-memory and tensor-memory tiles, and **barrier order** (an arrival
//!   not ordered after the previous phase or use; a phase completing unordered with a wait
//!   on the phase before, which another schedule turns into a lapped phase) ([`Races`], on
//!   unless turned off);
//! - **uninitialised barriers**: a stage outside its barrier array;
//! - **teardown**: an instance finishing with MMAs or TMA stores in flight, a token dropped
//!   without hand-over, and at CTA end any phase partly arrived or with bytes pending, and
//!   any named barrier part-way through a use;
//! - **named barriers**: more threads arriving than the barrier counts, two named barriers
//!   with one hardware id in use at once.

use std::panic::Location;
use std::task::Poll;
use std::time::Duration;

use super::error::{
    Arrival, BarrierRef, BlockedInstance, Deadlock, EmuError, Instance, Race, RaceAccess, Violation, ViolationKind,
};
use super::race::{Access, Agent, Found, Lap, Races, Record};
use super::tiles::TileNames;
use crate::deadlock::Waiting;
use crate::dsl::{AccessKind, BarrierSlot, Event, Fault, KernelSpec, Op, TileAccess, Wait, Who};
use crate::error::{RoleFault, RolePanic};
use warpspec_hw::{MBarrier, NamedArrival, NamedBarrier};

type Loc = &'static Location<'static>;

/// One mbarrier, with what the sanitizer tracks of its current phase.
struct Bar {
    hw: MBarrier,
    /// Index of its array in the kernel's barriers.
    array: usize,
    /// The rank of its CTA in the cluster.
    rank: u32,
    /// Its stage in the array.
    stage: u32,
    /// Arrivals of the current phase: instance and source line.
    arrivals: Vec<(usize, Option<Loc>)>,
    /// Bytes the current phase's arrivals expect.
    expected_bytes: u64,
    /// Bytes TMA loads completed in the current phase.
    landed_bytes: u64,
    /// The arrival that completed the latest phase.
    last_completed_by: Option<(usize, Option<Loc>)>,
}

/// What one role instance is doing.
struct Inst {
    who: Who,
    /// The rank of its CTA in the cluster.
    rank: u32,
    /// The source line of its latest op or wait.
    at: Option<Loc>,
    /// The wait it is in, and for a named-barrier sync the use it waits to see completed.
    waiting: Option<(Wait, u64)>,
    /// The full phase number its current mbarrier wait is for.
    wait_phase: i64,
    mma_issued: u64,
    mma_done: u64,
    stores_issued: u64,
    stores_done: u64,
    /// `tcgen05.commit`s issued.
    umma_commits: u64,
    finished: bool,
}

/// The state of one CTA (see the module documentation).
pub(super) struct CtaState {
    spec: &'static KernelSpec,
    /// `blockIdx` of each CTA, by rank.
    blocks: Vec<[u32; 3]>,
    /// Whether the kernel has a cluster shape (reports then name CTAs by rank).
    clustered: bool,
    insts: Vec<Inst>,
    /// Instances of one CTA.
    per_cta: usize,
    /// Flat index of each role's first instance, in rank 0.
    role_base: Vec<usize>,
    /// Flat index of each barrier array's first mbarrier, in rank 0.
    bar_base: Vec<usize>,
    /// mbarriers of one CTA.
    bars_per_cta: usize,
    /// The cluster barrier (`barrier.cluster`): every thread of every CTA.
    cluster: NamedBarrier,
    /// Per barrier array: whether its count is its number of arriving instances, so that
    /// each arrives once per phase.
    once_each: Vec<bool>,
    bars: Vec<Bar>,
    /// Per instance and mbarrier (`instance * bars + mbarrier`): the phase number of its
    /// latest wait there (-1 before any: the phase before the first counts as complete).
    last_phase: Vec<i64>,
    named: Vec<NamedBarrier>,
    races: Option<Races>,
    /// Arrivals and TMA bytes onto another CTA of the cluster (with race detection on).
    peer_ops: Vec<super::peer::PeerOp>,
    tiles: TileNames,
    error: Option<EmuError>,
    /// Set once the run is decided: later events (tokens dropped with their futures) are
    /// ignored.
    stopped: bool,
    progress: u64,
    mma_flops: u64,
    yield_waits: bool,
}

impl CtaState {
    /// The state of CTA `block` of a kernel, before any instance runs: every mbarrier and
    /// named barrier initialised. With `race_detection`, tile accesses and barrier order are
    /// checked, and races name tiles by `tiles`; with `yield_waits`, every wait's first poll
    /// is a scheduling point.
    pub fn new(
        spec: &'static KernelSpec,
        blocks: Vec<[u32; 3]>,
        race_detection: bool,
        yield_waits: bool,
        tiles: TileNames,
    ) -> Self {
        let mut role_base = Vec::with_capacity(spec.roles.len());
        let mut total = 0;
        for role in spec.roles {
            role_base.push(total);
            total += role.instances as usize;
        }
        let ranks = blocks.len() as u32;
        let insts: Vec<Inst> = (0..ranks)
            .flat_map(|rank| spec.instances().map(move |who| (rank, who)))
            .map(|(rank, who)| Inst {
                who,
                rank,
                at: None,
                waiting: None,
                wait_phase: 0,
                mma_issued: 0,
                mma_done: 0,
                stores_issued: 0,
                stores_done: 0,
                umma_commits: 0,
                finished: false,
            })
            .collect();
        let mut bar_base = Vec::with_capacity(spec.barriers.len());
        let mut bars = Vec::new();
        for rank in 0..ranks {
            for (array, b) in spec.barriers.iter().enumerate() {
                if rank == 0 {
                    bar_base.push(bars.len());
                }
                bars.extend((0..b.len).map(|stage| Bar {
                    hw: MBarrier::new(b.arrivals),
                    array,
                    rank,
                    stage,
                    arrivals: Vec::new(),
                    expected_bytes: 0,
                    landed_bytes: 0,
                    last_completed_by: None,
                }));
            }
        }
        let bars_per_cta = bars.len() / blocks.len().max(1);
        let once_each = spec
            .barriers
            .iter()
            .map(|b| {
                let instances: u32 =
                    b.arrivers.iter().filter_map(|&r| spec.roles.get(r as usize)).map(|r| r.instances).sum();
                b.arrivals == instances
            })
            .collect();
        // Named barriers CTA by CTA, then the cluster barrier.
        let named_total = spec.named_barriers.len() * blocks.len();
        let races = race_detection.then(|| Races::new(insts.len(), bars.len(), named_total + 1));
        let per_cta = total;
        Self {
            spec,
            clustered: spec.clustered(),
            cluster: NamedBarrier::new(spec.threads() * ranks),
            last_phase: vec![-1; insts.len() * bars.len()],
            blocks,
            insts,
            per_cta,
            role_base,
            bar_base,
            bars_per_cta,
            once_each,
            bars,
            named: (0..ranks).flat_map(|_| spec.named_barriers.iter().map(|n| NamedBarrier::new(n.threads))).collect(),
            races,
            peer_ops: Vec::new(),
            tiles,
            error: None,
            stopped: false,
            progress: 0,
            mma_flops: 0,
            yield_waits,
        }
    }

    /// Counts every change of state: an executor that sees it unchanged after polling an
    /// instance knows the instance is blocked.
    pub fn progress(&self) -> u64 {
        self.progress
    }

    /// Flops of the MMAs issued so far.
    pub fn mma_flops(&self) -> u64 {
        self.mma_flops
    }

    /// Whether the run is decided (an error was recorded, or the executor stopped it).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Stops the run: later ops and events are ignored.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The first error recorded, if any.
    pub fn take_error(&mut self) -> Option<EmuError> {
        self.error.take()
    }

    fn bump(&mut self) {
        self.progress += 1;
    }

    fn flat(&self, rank: u32, who: Who) -> usize {
        rank as usize * self.per_cta + self.role_base[who.role as usize] + who.instance as usize
    }

    /// The CTA rank reports show, in a kernel with a cluster shape.
    fn shown(&self, rank: u32) -> Option<u32> {
        self.clustered.then_some(rank)
    }

    /// `blockIdx` of the CTA of rank `rank`.
    fn block(&self, rank: u32) -> [u32; 3] {
        self.blocks.get(rank as usize).copied().unwrap_or_default()
    }

    /// Records `error` unless an error is already recorded, and stops the run.
    pub fn record(&mut self, error: EmuError) {
        if self.error.is_none() && !self.stopped {
            self.error = Some(error);
        }
        self.stopped = true;
    }

    fn instance(&self, flat: usize) -> Instance {
        let who = self.insts[flat].who;
        let role = &self.spec.roles[who.role as usize];
        let first = self.spec.first_warp(who);
        Instance {
            role: role.name,
            index: u32::from(who.instance),
            warps: (first, first + role.warps_per_instance - 1),
            cta: self.shown(self.insts[flat].rank),
        }
    }

    fn barrier_ref(&self, m: usize) -> BarrierRef {
        let bar = &self.bars[m];
        BarrierRef { name: self.spec.barriers[bar.array].name, stage: bar.stage, cta: self.shown(bar.rank) }
    }

    fn arrivals(&self, m: usize) -> Vec<Arrival> {
        self.bars[m].arrivals.iter().map(|&(flat, at)| Arrival { by: self.instance(flat), at }).collect()
    }

    fn violate(&mut self, flat: Option<usize>, kind: ViolationKind) {
        let violation = Violation {
            kernel: self.spec.name,
            block: self.block(flat.map_or(0, |f| self.insts[f].rank)),
            by: flat.map(|f| self.instance(f)),
            at: flat.and_then(|f| self.insts[f].at),
            kind,
        };
        self.record(EmuError::Violation(Box::new(violation)));
    }

    /// The mbarrier `slot` names in the CTA of rank `rank`, if it is initialised.
    fn try_mbar(&self, rank: u32, slot: BarrierSlot) -> Option<usize> {
        let array = slot.barrier as usize;
        let spec = self.spec.barriers.get(array)?;
        let local = (u32::from(slot.index) < spec.len).then(|| self.bar_base[array] + slot.index as usize)?;
        (rank < self.blocks.len() as u32).then(|| rank as usize * self.bars_per_cta + local)
    }

    /// The mbarrier `slot` names in `flat`'s own CTA; reports its use if it is not
    /// initialised.
    fn mbar(&mut self, flat: usize, slot: BarrierSlot) -> Option<usize> {
        self.mbar_of(flat, self.insts[flat].rank, slot)
    }

    /// The mbarrier `slot` names in the CTA of rank `rank`; reports its use by `flat` if it is
    /// not initialised.
    fn mbar_of(&mut self, flat: usize, rank: u32, slot: BarrierSlot) -> Option<usize> {
        let m = self.try_mbar(rank, slot);
        if m.is_none() {
            let (name, stages) = self
                .spec
                .barriers
                .get(slot.barrier as usize)
                .map_or(("(no such barrier array)", 0), |b| (b.name, b.len));
            self.violate(
                Some(flat),
                ViolationKind::UninitialisedBarrier { name, stage: u32::from(slot.index), stages },
            );
        }
        m
    }

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

    /// Describes agent `agent` of the race detector for a report.
    fn agent(&self, agent: Agent) -> String {
        match agent {
            Agent::Instance(f) => self.instance(f).to_string(),
            Agent::Tma(m) => format!("the TMA loads completing bytes on {}", self.barrier_ref(m)),
            Agent::Mma(f) => format!("the warpgroup MMAs of {}", self.instance(f)),
            Agent::Store(f) => format!("the TMA stores of {}", self.instance(f)),
            Agent::Umma(f) => format!("the tcgen05 MMAs committed by {}", self.instance(f)),
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

    /// Arrives with `flat`'s threads on named barrier `index`; returns the use the arrival
    /// belongs to.
    fn named_arrive(&mut self, flat: usize, index: u16) -> u64 {
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
    fn cluster_arrive(&mut self, flat: usize) -> u64 {
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

    /// How instance `who` of the CTA of rank `rank` reads in fault and panic reports.
    fn describe(&self, rank: u32, who: Who) -> String {
        match self.shown(rank) {
            Some(rank) => format!("CTA rank {rank}, {}", self.spec.describe(who)),
            None => self.spec.describe(who),
        }
    }

    /// Records a fault of role code of the CTA of rank `rank`.
    pub fn fault(&mut self, rank: u32, who: Who, fault: Fault) {
        self.bump();
        let (block, instance) = (self.block(rank), self.describe(rank, who));
        let fault = RoleFault { kernel: self.spec.name, block, instance, fault };
        self.record(EmuError::Fault(fault));
    }

    /// Records a panic of role code of the CTA of rank `rank`.
    pub fn panicked(&mut self, rank: u32, who: Who, message: String) {
        let (block, instance) = (self.block(rank), self.describe(rank, who));
        let panic = RolePanic { kernel: self.spec.name, block, instance, message };
        self.record(EmuError::Panic(panic));
    }

    /// Records an event of `who`, of the CTA of rank `rank`.
    pub fn observe(&mut self, rank: u32, who: Who, event: Event) {
        if self.stopped {
            return;
        }
        let flat = self.flat(rank, who);
        match event {
            Event::At(at) => self.insts[flat].at = Some(at),
            Event::Access(access) => self.access(flat, access),
            Event::TokenDropped { barrier, taken_at } => {
                let pipeline =
                    self.spec.pipelines.iter().find(|p| p.full == barrier.barrier || p.empty == barrier.barrier);
                let (pipeline, handover) = match pipeline {
                    Some(p) if p.full == barrier.barrier => (p.name, "commit"),
                    Some(p) => (p.name, "release"),
                    None => ("(unknown)", "hand-over"),
                };
                let kind =
                    ViolationKind::TokenDropped { pipeline, stage: u32::from(barrier.index), handover, taken_at };
                self.violate(Some(flat), kind);
            }
        }
    }

    fn access(&mut self, flat: usize, access: TileAccess) {
        if self.races.is_none() {
            return;
        }
        let lands_on = match access.kind {
            // A load completes on the barrier of the CTA whose tile it writes (a multicast
            // writes peers' tiles); one on an uninitialised barrier is reported by its op.
            AccessKind::TmaWrite { on } => match self.try_mbar(self.tiles.rank_of(access.tile), on) {
                Some(m) => Some((m, self.bars[m].hw.completed_phases())),
                None => return,
            },
            _ => None,
        };
        let inst = &self.insts[flat];
        let access = Access {
            who: flat,
            access,
            at: inst.at,
            lands_on,
            mma_issued: inst.mma_issued,
            stores_issued: inst.stores_issued,
            umma_commits: inst.umma_commits,
        };
        let found = self.races.as_mut().and_then(|races| races.access(access));
        if let Some(found) = found {
            let race = self.race(&found);
            self.violate(Some(flat), ViolationKind::Race(Box::new(race)));
        }
    }

    fn race(&self, found: &Found) -> Race {
        let mut tile = self.tiles.describe(found.key).unwrap_or_else(|| format!("shared tile #{}", found.tile));
        if let Some(m) = found.filled_by {
            tile += &format!(" (filled by TMA on {})", self.barrier_ref(m));
        }
        let access = |r: &Record| RaceAccess {
            by: self.instance(r.who),
            kind: r.kind,
            rows: r.rect.row..r.rect.row + r.rect.rows,
            cols: r.rect.col..r.rect.col + r.rect.cols,
            at: r.at,
            lands_on: r.lands_on.map(|(m, phase)| (self.barrier_ref(m), phase)),
        };
        let array = found.filled_by.map(|m| self.bars[m].array as u16);
        let pipeline = array.is_some_and(|a| self.spec.pipelines.iter().any(|p| p.full == a || p.empty == a));
        Race { tile, pipeline, earlier: access(&found.earlier), later: access(&found.later) }
    }

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

    /// Records `flat`'s arrival or TMA load onto mbarrier `m` of the CTA of rank `rank`, when
    /// that is another CTA of its cluster and race detection keeps clocks.
    fn note_peer_op(&mut self, flat: usize, rank: u32, m: usize) {
        if let Some(races) = &self.races
            && rank != self.insts[flat].rank
        {
            let clock = races.clock(flat).clone();
            let at = self.insts[flat].at;
            self.peer_ops.push(super::peer::PeerOp { flat, target: rank, barrier: m, clock, at });
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
            if let Some(op) = super::peer::unseen(&self.peer_ops, &finals) {
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
