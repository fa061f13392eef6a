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
//!
//! One file per part of its work:
//! - [`ops`]: the non-blocking ops, and the arrivals and TMA bytes they bring to mbarriers;
//! - [`named`]: arrivals on named barriers and on the cluster barrier;
//! - [`wait`]: the waits of role instances;
//! - [`events`]: source lines, tile accesses (for the race detector) and dropped tokens;
//! - [`teardown`]: the checks when an instance returns and when every instance has;
//! - [`deadlock`]: what every live instance waits for, when none can go on.

mod deadlock;
mod events;
mod named;
mod ops;
mod teardown;
mod wait;

use std::panic::Location;

use super::error::{Arrival, BarrierRef, EmuError, Instance, Violation, ViolationKind};
use super::race::{Agent, Races};
use super::tiles::TileNames;
use crate::dsl::{BarrierSlot, Fault, KernelSpec, Wait, Who};
use crate::error::{RoleFault, RolePanic};
use warpspec_hw::{MBarrier, NamedBarrier};

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
}
