//! One streaming multiprocessor, discrete-event: sub-partition schedulers, per-warp in-order
//! issue with a scoreboard, pipes, the tensor cores, the TMA unit, the shared-memory port,
//! mbarriers and named barriers. One file per unit:
//! - [`warp`]: warps, their scoreboard and why each cannot issue;
//! - [`scheduler`]: which eligible warp each sub-partition issues from;
//! - [`pipes`]: the sub-partitions' pipes, the shared-memory and tensor-memory ports, and
//!   the tensor cores' interference with the pipes;
//! - [`sync`]: mbarriers, named barriers and the waits on them;
//! - [`units`]: the tensor cores and the TMA unit (collective instructions);
//! - [`shape`]: what the SM knows of the CTAs it runs;
//! - [`trace`]: the spans the SM records.
//!
//! **Time.** The SM is stepped only at cycles where something can happen: a warp may issue,
//! or an asynchronous unit completes (a TMA copy lands, a CTA retires). At each step every
//! sub-partition scheduler picks at most one eligible warp and issues one warp-instruction
//! from it; the SM then computes the next cycle at which any warp can become eligible (the
//! latest of its operand-ready, pipe-free and wake-up times) or an event is due, and sleeps
//! until then. Long latencies cost nothing to skip.
//!
//! **Warps.** Warp `w` of a CTA (numbered as [`crate::dsl::KernelSpec::first_warp`]) runs on
//! sub-partition `w % 4`. Each warp executes its queue of lowered instructions
//! ([`super::lower::Instr`]) in order. A warp is eligible when it is not blocked in a wait, its
//! next instruction's operands are ready (the scoreboard: see [`super::lower::Dep`]) and the
//! instruction's pipe of its sub-partition is free (each warp-instruction holds its pipe for
//! the pipe's interval, `32 / lanes per sub-partition` cycles). Shared-memory accesses also
//! need the SM's shared-memory port, which each access holds for `bytes / bandwidth` cycles.
//! While the tensor cores have work queued, a counted instruction holds its pipe for the
//! interval times the pipe's measured `tensor.interference` factor (H200: ALU x2, MUFU x1.38,
//! shuffles x3.85, FMA x1.3; calibration/README.md item 11).
//!
//! **Schedulers.** Greedy-then-oldest (keep issuing from the warp that issued last while it
//! stays eligible, else the oldest eligible warp) or loose round-robin (the first eligible
//! warp after the one that issued last) — [`SchedulerPolicy`].
//!
//! **Asynchronous units.** `wgmma` groups are collective: when the last warp of the
//! warpgroup has issued a group, its native MMAs queue on the SM's tensor cores (one server
//! for the four: a warpgroup spans all four sub-partitions, so per-sub-partition queues
//! would hold identical work); completion is tracked per group for `wgmma.wait_group`. TMA
//! copies queue on the SM's TMA unit (a bandwidth server), then go through the GPU-wide
//! memory system ([`super::memory`]); a load completes its bytes on its mbarrier when the
//! data lands. A TMA store's source has been read when it leaves the TMA unit.
//!
//! **Barriers.** mbarriers follow [`warpspec_hw::MBarrier`], named barriers
//! [`warpspec_hw::NamedBarrier`]; a waiter sees a completed phase
//! `sync.mbarrier_wake_cycles` after the completing arrival or transaction, and a warp whose
//! wait finds its phase already completed passes `sync.mbarrier_passed_wait_cycles` after it
//! began (the `try_wait`'s return), or after its [`super::lower::Instr::TryWait`] where the
//! lowering issued the `try_wait` ahead of independent instructions ([`super::ring::wait`]);
//! `sync.mbarrier_passed_wait_cycles_per_thread` where the compiled code addresses the
//! barrier per thread ([`super::wait_forms`]).
//! A named barrier releases its waiters
//! `sync.named_barrier_cycles` after the last warp arrives, and the last warp itself (with
//! any that arrived less than the difference of the two before it, still issuing past their
//! `bar.sync`) `sync.named_barrier_last_arrival_cycles` after its arrival. A wait is an instruction: testing
//! it takes an issue cycle; a warp whose wait cannot pass sleeps until the object it waits on
//! changes.

mod cluster;
mod pipes;
mod scheduler;
pub(crate) mod shape;
mod sync;
mod tensor;
mod trace;
mod units;
mod warp;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::dsl::BarrierSlot;
use crate::report::{CycleWindow, Flow, Span, StallCycles, StallReason};

use super::error::SimError;
use super::memory::{MemorySystem, Server};
use super::sites::{Queued, Site, SiteCycles};
use super::timing::{ExecPipe, Timing};

pub(crate) use cluster::{ClusterLink, Outgoing};
pub use scheduler::SchedulerPolicy;
pub(crate) use shape::{BarrierShape, CtaShape, InstanceShape, NamedShape};

use pipes::SubPartition;
use shape::WarpOwner;
use sync::{InstanceSync, MBar, NamedState};
use tensor::TensorCores;
use warp::{Gate, Warp};

/// A cycle that never comes.
pub(crate) const NEVER: u64 = u64::MAX;

/// Where a CTA runs: an SM, and its place among the CTAs resident on that SM (0 up to the
/// occupancy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// The SM.
    pub sm: usize,
    /// The CTA's resident index on it.
    pub resident: usize,
}

/// Runs the role programs of the CTAs placed on the SMs.
pub(crate) trait Driver {
    /// Starts the next CTA of the grid, if any, at `place`; returns its linear index.
    fn launch(&mut self, place: Place) -> Option<usize>;
    /// Runs instance `instance` of the CTA at `place` to its next wait (`release`: past the
    /// wait it is suspended in), appending its new instructions to `out`. Returns whether the
    /// instance's program has finished.
    fn resume(&mut self, place: Place, instance: usize, release: bool, out: &mut Vec<Queued>)
    -> Result<bool, SimError>;
    /// The CTA at `place` has retired.
    fn retire(&mut self, place: Place);
    /// `blockIdx` of CTA `cta`.
    fn block(&self, cta: usize) -> [u32; 3];
    /// Makes CTA `cta` (linear index) the next one [`Driver::launch`] starts (the cluster
    /// scheduler starts the CTAs of a cluster together, out of grid order).
    fn seek(&mut self, cta: usize);
}

/// Counters of one SM.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SmStats {
    /// Warp-instructions issued.
    pub issued: u64,
    /// Cycles each pipe was busy, summed over sub-partitions, indexed by [`ExecPipe::index`].
    pub pipe_busy: [u64; ExecPipe::ALL.len()],
    /// Cycles the tensor cores were busy.
    pub tensor_busy: f64,
    /// Tensor-core multiply-adds.
    pub mma_fma: u64,
    /// Bytes through the shared-memory port.
    pub smem_bytes: u64,
    /// Bytes TMA copies wrote into shared memory (loads) or read from it (stores).
    pub tma_bytes: u64,
    /// Bytes of tensor-memory accesses (`tcgen05.ld`/`tcgen05.st`).
    pub tmem_bytes: u64,
    /// Warp-cycles per stall reason, per source site.
    pub site_cycles: SiteCycles,
    /// Warp-cycles per stall reason, per role.
    pub role_stalls: Vec<StallCycles>,
    /// CTAs completed.
    pub ctas: u64,
    /// Cycle the SM first had room for a CTA with none left to take (`None`: never).
    pub starved_at: Option<u64>,
    /// Cycle the SM's last CTA retired.
    pub last_retire: u64,
}

/// Static inputs of every step.
pub(crate) struct Env<'a> {
    /// Machine timing.
    pub timing: &'a Timing,
    /// The kernel's CTA shape.
    pub shape: &'a CtaShape,
    /// Scheduler policy.
    pub policy: SchedulerPolicy,
    /// CTAs traced per traced SM (0 on SMs not traced).
    pub trace_ctas: u32,
    /// Trace events kept at most, per SM.
    pub trace_limit: usize,
    /// Record only spans overlapping this window.
    pub trace_window: Option<CycleWindow>,
}

/// A CTA resident on the SM, and its barriers.
#[derive(Debug, Default)]
struct Resident {
    active: bool,
    cta: usize,
    generation: u32,
    barriers: Vec<Vec<MBar>>,
    named: Vec<NamedState>,
    instances: Vec<InstanceSync>,
    live_warps: u32,
    /// Every asynchronous copy of the CTA has completed by this cycle.
    outstanding: f64,
    traced: bool,
    /// The CTA's cluster (`None`: a kernel without clusters; the CTA is a cluster of one).
    cluster: Option<ClusterLink>,
    /// Warps of the CTA arrived at `barrier.cluster` in its current use (cluster of one).
    cluster_arrived: u32,
    /// Uses of `barrier.cluster` completed for this CTA.
    cluster_released: u32,
    /// When the latest use releases its waiters.
    cluster_release_at: u64,
    /// Warps waiting on `barrier.cluster`.
    cluster_waiters: Vec<u32>,
}

impl Resident {
    /// The mbarrier of a stage.
    fn mbar(&mut self, b: BarrierSlot) -> &mut MBar {
        &mut self.barriers[b.barrier as usize][b.index as usize]
    }
}

/// An asynchronous completion, for the CTA at `resident` while it is the same CTA
/// (`generation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// A TMA load's bytes land on their mbarrier.
    TxLand { resident: u32, generation: u32, barrier: BarrierSlot, bytes: u32 },
    /// A `tcgen05.commit` arrives: the MMAs before it have completed.
    MmaArrive { resident: u32, generation: u32, barrier: BarrierSlot },
    /// A CTA's last warp has exited and its copies have completed.
    Retire { resident: u32, generation: u32 },
    /// An arrival from a peer CTA of the cluster (`mbarrier.arrive.release.cluster`).
    RemoteArrive { resident: u32, generation: u32, barrier: BarrierSlot },
    /// A use of `barrier.cluster` has completed: the CTA's waiters resume.
    ClusterRelease { resident: u32, generation: u32 },
    /// A launched CTA's start-up ([`Timing::cta_start`]) is over: its roles begin.
    Start { resident: u32, generation: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Event {
    time: u64,
    seq: u64,
    kind: EventKind,
}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One SM.
#[derive(Debug)]
pub(crate) struct Sm {
    id: usize,
    residents: Vec<Resident>,
    warps: Vec<Warp>,
    gates: Vec<Gate>,
    owners: Vec<WarpOwner>,
    smsps: Vec<SubPartition>,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    tensor: TensorCores,
    tma: Server,
    /// The TMA unit's reads of shared memory for bulk stores.
    tma_store: Server,
    smem_free: f64,
    /// The cycle the SM's path for global stores is free (`MemorySystem::sector_write_rate`).
    write_free: f64,
    /// Earliest cycle a warp was woken for during the current step.
    wake_hint: u64,
    buf: Vec<Queued>,
    /// Counters.
    pub stats: SmStats,
    /// Trace spans recorded.
    pub trace: Vec<Span>,
    /// The source site of each recorded span.
    pub trace_sites: Vec<Site>,
    /// Waits linked to the arrivals that released them (indices into `trace`).
    pub trace_flows: Vec<Flow>,
    /// Trace spans dropped over the limit.
    pub trace_dropped: u64,
    /// Trace spans outside the window.
    pub trace_outside: u64,
    /// CTAs recorded.
    pub traced_ctas: u32,
    /// What this SM's steps send to other SMs and to the cluster scheduler.
    pub outbox: Vec<Outgoing>,
    /// A retiring CTA leaves its slot to the cluster scheduler instead of taking the next
    /// CTA of the grid itself.
    pub hold_slots: bool,
}

fn ceil(x: f64) -> u64 {
    x.ceil() as u64
}

impl Sm {
    /// An SM holding up to `residents` CTAs of `shape` at once.
    pub fn new(id: usize, residents: usize, env: &Env<'_>) -> Self {
        let warps_per_cta = env.shape.warps as usize;
        Sm {
            id,
            residents: (0..residents).map(|_| Resident::default()).collect(),
            warps: (0..residents * warps_per_cta).map(|_| Warp::idle()).collect(),
            gates: vec![Gate::idle(0); residents * warps_per_cta],
            owners: env.shape.warp_owners(),
            smsps: (0..env.timing.sub_partitions).map(|_| SubPartition::new()).collect(),
            events: BinaryHeap::new(),
            seq: 0,
            tensor: TensorCores::default(),
            tma: Server::new(env.timing.tma_bytes_per_clk),
            tma_store: Server::new(env.timing.tma_store_bytes_per_clk),
            smem_free: 0.0,
            write_free: 0.0,
            wake_hint: NEVER,
            buf: Vec::new(),
            stats: SmStats { role_stalls: vec![StallCycles::default(); env.shape.roles.len()], ..SmStats::default() },
            trace: Vec::new(),
            trace_sites: Vec::new(),
            trace_flows: Vec::new(),
            trace_dropped: 0,
            trace_outside: 0,
            traced_ctas: 0,
            outbox: Vec::new(),
            hold_slots: false,
        }
    }

    /// Cycles the TMA unit was busy.
    pub fn tma_busy(&self) -> f64 {
        self.tma.busy
    }

    /// The CTA at `resident`, if one is there.
    pub fn resident_cta(&self, resident: usize) -> Option<usize> {
        self.residents.get(resident).filter(|s| s.active).map(|s| s.cta)
    }

    /// How many CTAs the SM holds at once.
    pub fn resident_count(&self) -> usize {
        self.residents.len()
    }

    /// The SM's index.
    pub fn id(&self) -> usize {
        self.id
    }

    /// The place of the CTA at `resident`.
    fn place(&self, resident: usize) -> Place {
        Place { sm: self.id, resident }
    }

    pub(crate) fn push_event(&mut self, time: u64, kind: EventKind) {
        self.seq += 1;
        self.events.push(Reverse(Event { time, seq: self.seq, kind }));
    }

    /// The first CTA-local warp index of instance `inst` of the CTA at `resident`, and past
    /// its last.
    fn instance_warps(&self, resident: usize, inst: &InstanceShape, env: &Env<'_>) -> std::ops::Range<usize> {
        let base = resident * env.shape.warps as usize + inst.first_warp as usize;
        base..base + inst.warps as usize
    }

    /// Starts the next CTA of the grid, if any, at the empty `resident` at cycle `t`.
    pub fn launch(&mut self, resident: usize, t: u64, env: &Env<'_>, driver: &mut dyn Driver) -> Result<(), SimError> {
        let Some(cta) = driver.launch(self.place(resident)) else {
            self.stats.starved_at.get_or_insert(t);
            return Ok(());
        };
        let shape = env.shape;
        let traced = self.traced_ctas < env.trace_ctas;
        if traced {
            self.traced_ctas += 1;
        }
        let s = &mut self.residents[resident];
        s.active = true;
        s.cta = cta;
        s.generation = s.generation.wrapping_add(1);
        s.barriers = shape.barriers.iter().map(|b| (0..b.stages).map(|_| MBar::new(b.arrivals)).collect()).collect();
        s.named = shape.named.iter().map(|n| NamedState::new(n.threads)).collect();
        s.instances = shape.instances.iter().map(|_| InstanceSync::default()).collect();
        s.live_warps = shape.warps;
        s.outstanding = 0.0;
        s.traced = traced;
        s.cluster = None;
        s.cluster_arrived = 0;
        s.cluster_released = 0;
        s.cluster_release_at = 0;
        s.cluster_waiters.clear();
        let base = resident * shape.warps as usize;
        for w in 0..shape.warps as usize {
            let instance = self.owners[w].instance;
            let smsp = (w % self.smsps.len()) as u32;
            self.warps[base + w] = Warp {
                live: true,
                resident: resident as u32,
                instance,
                smsp,
                role: shape.instances[instance as usize].role,
                traced,
                ..Warp::idle()
            };
            self.gates[base + w] = Gate::idle(t);
            self.smsps[smsp as usize].warps.push((base + w) as u32);
        }
        if env.timing.cta_start > 0 {
            let generation = self.residents[resident].generation;
            self.push_event(t + env.timing.cta_start, EventKind::Start { resident: resident as u32, generation });
            return Ok(());
        }
        self.begin(resident, t, env, driver)
    }

    /// Runs every role instance of the CTA at `resident` to its first wait.
    fn begin(&mut self, resident: usize, t: u64, env: &Env<'_>, driver: &mut dyn Driver) -> Result<(), SimError> {
        for i in 0..env.shape.instances.len() {
            self.resume(resident, i, false, t, env, driver)?;
        }
        Ok(())
    }

    /// Runs instance `i` of the CTA at `resident` to its next wait and queues its
    /// instructions on its warps.
    fn resume(
        &mut self,
        resident: usize,
        i: usize,
        release: bool,
        t: u64,
        env: &Env<'_>,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let done = driver.resume(self.place(resident), i, release, &mut buf)?;
        if env.timing.interleave_element_wise {
            super::mix::interleave(&mut buf);
        }
        let warps = self.instance_warps(resident, &env.shape.instances[i], env);
        for w in warps.clone() {
            self.warps[w].queue.extend(buf.iter().copied());
            self.refresh(w);
        }
        self.buf = buf;
        let state = &mut self.residents[resident].instances[i];
        if release {
            state.released_waits += 1;
        }
        if done {
            state.future_done = true;
            for w in warps {
                if self.warps[w].live && self.warps[w].queue.is_empty() {
                    self.exit(w, t)?;
                }
            }
        }
        Ok(())
    }

    /// Warp `w` has executed its last instruction at cycle `t`.
    fn exit(&mut self, w: usize, t: u64) -> Result<(), SimError> {
        self.account(w, t, StallReason::Selected);
        let warp = &mut self.warps[w];
        let gate = &mut self.gates[w];
        warp.stalls.add(gate.reason, t.saturating_sub(gate.since));
        self.stats.site_cycles.add(gate.site, gate.reason, t.saturating_sub(gate.since));
        gate.since = t;
        warp.live = false;
        let (resident, smsp, role) = (warp.resident as usize, warp.smsp as usize, warp.role as usize);
        self.stats.role_stalls[role].merge(&warp.stalls);
        self.smsps[smsp].warps.retain(|&x| x as usize != w);
        let s = &mut self.residents[resident];
        s.live_warps -= 1;
        if s.live_warps == 0 {
            let at = (t + 1).max(ceil(s.outstanding));
            let generation = s.generation;
            self.push_event(at, EventKind::Retire { resident: resident as u32, generation });
        }
        Ok(())
    }

    /// Exits warp `w` if it has nothing left to run.
    fn maybe_exit(&mut self, w: usize, t: u64) -> Result<(), SimError> {
        let warp = &self.warps[w];
        let done = self.residents[warp.resident as usize].instances[warp.instance as usize].future_done;
        if warp.queue.is_empty() && done {
            self.exit(w, t + 1)?;
        }
        Ok(())
    }

    /// Processes cycle `t`: due events, then one issue per sub-partition. Returns the next
    /// cycle anything can happen on this SM, if any.
    pub fn step(
        &mut self,
        t: u64,
        env: &Env<'_>,
        mem: &mut MemorySystem,
        driver: &mut dyn Driver,
    ) -> Result<Option<u64>, SimError> {
        while let Some(Reverse(event)) = self.events.peek().copied()
            && event.time <= t
        {
            self.events.pop();
            self.apply(event.kind, t, env, driver)?;
        }
        self.wake_hint = NEVER;
        let mut next = NEVER;
        for s in 0..self.smsps.len() {
            let (pick, ready_at) = self.pick(s, t, env);
            next = next.min(ready_at);
            if let Some(w) = pick {
                self.account(w, t, StallReason::Selected);
                self.smsps[s].last_issued = Some(w as u32);
                self.stats.issued += 1;
                self.issue(w, t, env, mem, driver)?;
                if self.warps[w].live {
                    self.refresh(w);
                    let (ready, reason) = self.ready(w, s, env.timing);
                    self.account(w, t + 1, reason);
                    next = next.min(ready.max(t + 1));
                }
            }
        }
        next = next.min(self.wake_hint.max(t + 1));
        if let Some(Reverse(event)) = self.events.peek() {
            next = next.min(event.time.max(t + 1));
        }
        Ok((next != NEVER).then_some(next))
    }

    fn apply(&mut self, kind: EventKind, t: u64, env: &Env<'_>, driver: &mut dyn Driver) -> Result<(), SimError> {
        match kind {
            EventKind::TxLand { resident, generation, barrier, bytes } => {
                self.copy_interferes(t, bytes, units::CopyKind::TileLoad, env.timing);
                let s = &mut self.residents[resident as usize];
                if s.generation == generation && s.active && s.mbar(barrier).bar.complete_tx(bytes) {
                    // The TMA latency is calibrated up to the waiter resuming.
                    self.phase_completed(resident as usize, barrier, t, 0);
                }
            }
            EventKind::MmaArrive { resident, generation, barrier } => {
                let s = &mut self.residents[resident as usize];
                if s.generation == generation && s.active && s.mbar(barrier).bar.arrive(0) {
                    self.phase_completed(resident as usize, barrier, t, env.timing.mbarrier_wake);
                }
            }
            EventKind::Retire { resident, generation } => {
                let s = &mut self.residents[resident as usize];
                if s.generation == generation && s.active {
                    s.active = false;
                    self.stats.ctas += 1;
                    self.stats.last_retire = t;
                    driver.retire(self.place(resident as usize));
                    if self.hold_slots {
                        self.outbox.push(Outgoing::Freed { resident: resident as usize, at: t });
                    } else {
                        self.launch(resident as usize, t, env, driver)?;
                    }
                }
            }
            EventKind::RemoteArrive { resident, generation, barrier } => {
                let s = &mut self.residents[resident as usize];
                if s.generation == generation && s.active && s.mbar(barrier).bar.arrive(0) {
                    self.phase_completed(resident as usize, barrier, t, env.timing.mbarrier_wake);
                }
            }
            EventKind::Start { resident, generation } => {
                let s = &self.residents[resident as usize];
                if s.generation == generation && s.active {
                    self.begin(resident as usize, t, env, driver)?;
                }
            }
            EventKind::ClusterRelease { resident, generation } => {
                let s = &self.residents[resident as usize];
                if s.generation == generation && s.active {
                    self.release_cluster(resident as usize, t);
                }
            }
        }
        Ok(())
    }
}
