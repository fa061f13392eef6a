//! One streaming multiprocessor, discrete-event: sub-partition schedulers, per-warp in-order
//! issue with a scoreboard, pipes, the tensor cores, the TMA unit, the shared-memory port,
//! mbarriers and named barriers.
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
//! **Barriers.** mbarriers follow [`warpspec_hw::MBarrier`]; a waiter sees a completed phase
//! `sync.mbarrier_wake_cycles` after the completing arrival or transaction. A named barrier
//! releases its waiters `sync.named_barrier_cycles` after the last warp arrives. A wait is an
//! instruction: testing it takes an issue slot; a warp whose wait cannot pass sleeps until
//! the object it waits on changes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::dsl::{BarrierSlot, Wait};
use crate::report::{StallCycles, StallReason, TraceEvent};
use warpspec_hw::MBarrier;

use super::error::SimError;
use super::lower::{Dep, Instr};
use super::memory::{MemorySystem, Server};
use super::timing::{ExecPipe, Timing};

/// A cycle that never comes.
pub(crate) const NEVER: u64 = u64::MAX;

/// How each sub-partition's scheduler picks among eligible warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchedulerPolicy {
    /// Greedy-then-oldest: the warp that issued last while it stays eligible, else the
    /// oldest eligible warp (earliest launched CTA, then lowest warp number).
    #[default]
    GreedyThenOldest,
    /// Loose round-robin: the first eligible warp after the one that issued last.
    LooseRoundRobin,
}

/// One role instance of the CTA's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InstanceShape {
    /// Index of its role.
    pub role: u16,
    /// Index within its role.
    pub index: u16,
    /// First CTA-local warp.
    pub first_warp: u32,
    /// Warps of the instance.
    pub warps: u32,
}

/// What the SM needs to know about every CTA it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CtaShape {
    /// The kernel's name, for messages.
    pub kernel: &'static str,
    /// Role names.
    pub roles: Vec<&'static str>,
    /// Instances in warp order.
    pub instances: Vec<InstanceShape>,
    /// Warps per CTA.
    pub warps: u32,
    /// mbarrier arrays: name, stages, arrivals per phase, the roles that arrive (described).
    pub barriers: Vec<(String, u32, u32, String)>,
    /// Named barriers: name, threads per use, the roles that use it (described).
    pub named: Vec<(String, u32, String)>,
}

impl CtaShape {
    /// `(instance, warp within instance)` of every CTA-local warp.
    fn warp_owners(&self) -> Vec<(u32, u32)> {
        let mut owners = vec![(0, 0); self.warps as usize];
        for (i, inst) in self.instances.iter().enumerate() {
            for w in 0..inst.warps {
                if let Some(o) = owners.get_mut((inst.first_warp + w) as usize) {
                    *o = (i as u32, w);
                }
            }
        }
        owners
    }

    /// `name[index]` of an mbarrier.
    pub fn barrier_name(&self, slot: BarrierSlot) -> String {
        let name = self.barriers.get(slot.barrier as usize).map_or("?", |b| b.0.as_str());
        format!("{name}[{}]", slot.index)
    }

    /// An instance for messages: "`consumer` #1 (warps 5-8)".
    pub fn describe(&self, inst: &InstanceShape) -> String {
        let role = self.roles.get(inst.role as usize).copied().unwrap_or("?");
        let last = inst.first_warp + inst.warps.max(1) - 1;
        let warps =
            if last == inst.first_warp { format!("warp {last}") } else { format!("warps {}-{last}", inst.first_warp) };
        format!("`{role}` #{} ({warps})", inst.index)
    }

    /// Name of a named barrier.
    pub fn named_name(&self, barrier: u16) -> &str {
        self.named.get(barrier as usize).map_or("?", |b| b.0.as_str())
    }
}

/// Runs the role programs of the CTAs placed on the SMs.
pub(crate) trait Driver {
    /// Starts the next CTA of the grid, if any, in `slot` of SM `sm`; returns its linear
    /// index.
    fn launch(&mut self, sm: usize, slot: usize) -> Option<usize>;
    /// Runs instance `instance` of the CTA in (`sm`, `slot`) to its next wait (`release`:
    /// past the wait it is suspended in), appending its new instructions to `out`. Returns
    /// whether the instance's program has finished.
    fn resume(
        &mut self,
        sm: usize,
        slot: usize,
        instance: usize,
        release: bool,
        out: &mut Vec<Instr>,
    ) -> Result<bool, SimError>;
    /// The CTA in (`sm`, `slot`) has retired.
    fn retire(&mut self, sm: usize, slot: usize);
    /// `blockIdx` of CTA `cta`.
    fn block(&self, cta: usize) -> [u32; 3];
}

/// Why a warp cannot issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// Not blocked.
    No,
    /// Blocked until the cycle, for the reason.
    Until(u64, StallReason),
    /// Blocked until something it waits on changes.
    Forever(StallReason),
}

/// One resident warp.
#[derive(Debug)]
struct Warp {
    live: bool,
    slot: u32,
    instance: u32,
    smsp: u32,
    role: u16,
    queue: VecDeque<Instr>,
    /// Instructions of the head burst still to issue (0: the head has not started).
    head_left: u32,
    /// Issue cycle of the head burst's first instruction (or of a wait's first test).
    head_start: u64,
    /// First result of the head burst (for global loads: when its first data returns).
    head_first_result: u64,
    /// Operands of the next result-consuming instruction are ready at this cycle...
    dep_ready: u64,
    /// ...and until then the warp stalls for this reason.
    dep_reason: StallReason,
    /// Inside a [`Dep::Chain`] burst: the previous instruction's result.
    chain_ready: u64,
    block: Block,
    /// Whether the head wait has been tested once (a `bar.sync` arrives on its first test).
    wait_started: bool,
    /// Generation of the named barrier the warp arrived at.
    named_generation: u64,
    waits_passed: u32,
    collectives: u32,
    mma_groups: u32,
    stores: u32,
    stalls: StallCycles,
    traced: bool,
}

/// A sub-partition unit a warp's next instruction needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// None (issue slot only).
    None,
    /// A pipe, admitting the instruction once its queue has room.
    Pipe(ExecPipe),
    /// The tensor-memory port.
    Tmem,
}

/// The hot part of a warp: when it can next issue (cached, recomputed only when its state
/// changes; other warps' issues can only make its units busier, so the cache is a lower
/// bound that the scheduler re-checks) and its current stall interval.
#[derive(Clone, Copy, Debug)]
struct Gate {
    /// Operands ready (or wake-up) at this cycle...
    at: u64,
    /// ...and the warp stalls for this reason until then.
    at_reason: StallReason,
    /// The unit the next instruction needs...
    unit: Unit,
    /// ...and the reason while it is busy.
    unit_reason: StallReason,
    /// The reason of the open stall interval...
    reason: StallReason,
    /// ...which started at this cycle.
    since: u64,
}

impl Gate {
    fn idle(t: u64) -> Self {
        Gate {
            at: NEVER,
            at_reason: StallReason::NoInstruction,
            unit: Unit::None,
            unit_reason: StallReason::NoInstruction,
            reason: StallReason::Selected,
            since: t,
        }
    }
}

impl Warp {
    fn idle() -> Self {
        Warp {
            live: false,
            slot: 0,
            instance: 0,
            smsp: 0,
            role: 0,
            queue: VecDeque::new(),
            head_left: 0,
            head_start: 0,
            head_first_result: 0,
            dep_ready: 0,
            dep_reason: StallReason::Wait,
            chain_ready: 0,
            block: Block::No,
            wait_started: false,
            named_generation: 0,
            waits_passed: 0,
            collectives: 0,
            mma_groups: 0,
            stores: 0,
            stalls: StallCycles::default(),
            traced: false,
        }
    }
}

/// An mbarrier and who waits on it.
#[derive(Debug)]
struct MBar {
    bar: MBarrier,
    /// When waiters see the latest completed phase.
    visible_at: Option<u64>,
    waiters: Vec<u32>,
}

/// A named barrier's state.
#[derive(Debug, Default)]
struct NamedState {
    arrived: u32,
    generation: u64,
    released_at: u64,
    waiters: Vec<u32>,
}

/// A role instance's state.
#[derive(Debug, Default)]
struct InstanceState {
    future_done: bool,
    released_waits: u32,
    /// Collective instructions fired.
    fired: u32,
    /// Completion cycle of each fired MMA group.
    mma_done: Vec<u64>,
    /// Every MMA (`wgmma` or `tcgen05.mma`) fired so far has completed by this cycle.
    mma_tail: f64,
    mma_waiters: Vec<u32>,
    /// Cycle each fired TMA store finished reading shared memory.
    store_read: Vec<u64>,
    store_waiters: Vec<u32>,
}

/// A CTA slot of the SM.
#[derive(Debug, Default)]
struct Slot {
    active: bool,
    cta: usize,
    generation: u32,
    barriers: Vec<Vec<MBar>>,
    named: Vec<NamedState>,
    instances: Vec<InstanceState>,
    live_warps: u32,
    /// Every asynchronous copy of the CTA has completed by this cycle.
    outstanding: f64,
    traced: bool,
}

/// An asynchronous completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EventKind {
    /// A TMA load's bytes land on their mbarrier.
    TxLand { slot: u32, generation: u32, barrier: BarrierSlot, bytes: u32 },
    /// A `tcgen05.commit` arrives: the MMAs before it have completed.
    MmaArrive { slot: u32, generation: u32, barrier: BarrierSlot },
    /// A CTA's last warp has exited and its copies have completed.
    Retire { slot: u32, generation: u32 },
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

/// One sub-partition: its scheduler and pipes.
#[derive(Debug)]
struct Smsp {
    /// Resident live warps, oldest first.
    warps: Vec<u32>,
    pipe_free: [u64; 4],
    /// Fractional pipe cycles owed to tensor-core interference, per pipe.
    pipe_debt: [f64; 4],
    /// The tensor-memory port is free from this cycle.
    tmem_free: f64,
    last_issued: Option<u32>,
}

/// Counters of one SM.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SmStats {
    /// Warp-instructions issued.
    pub issued: u64,
    /// Cycles each pipe was busy, summed over sub-partitions.
    pub pipe_busy: [u64; 4],
    /// Cycles the tensor cores were busy.
    pub tensor_busy: f64,
    /// Tensor-core multiply-adds.
    pub mma_fma: u64,
    /// Bytes through the shared-memory port.
    pub smem_bytes: u64,
    /// Warp-cycles per stall reason, per role.
    pub role_stalls: Vec<StallCycles>,
    /// CTAs completed.
    pub ctas: u64,
    /// Cycle the SM last had a CTA slot with no CTA left to take (`None`: never).
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
}

/// Trace thread ids of the SM's units.
pub(crate) const TRACE_TID_TENSOR: u32 = 100_000;
/// Trace thread id of the TMA unit.
pub(crate) const TRACE_TID_TMA: u32 = 100_001;

/// One SM.
#[derive(Debug)]
pub(crate) struct Sm {
    id: usize,
    slots: Vec<Slot>,
    warps: Vec<Warp>,
    gates: Vec<Gate>,
    owners: Vec<(u32, u32)>,
    smsps: Vec<Smsp>,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    tensor_free: f64,
    /// Fractional tensor-core cycles owed to FMA-pipe interference with RS MMAs.
    tensor_debt: f64,
    /// `(start, end)` of queued MMAs that read A from registers, oldest first.
    rs_windows: VecDeque<(f64, f64)>,
    tma: Server,
    smem_free: f64,
    /// Earliest cycle a warp was woken for during the current step.
    wake_hint: u64,
    buf: Vec<Instr>,
    /// Counters.
    pub stats: SmStats,
    /// Trace events recorded.
    pub trace: Vec<TraceEvent>,
    /// Trace events dropped over the limit.
    pub trace_dropped: u64,
    traced_ctas: u32,
}

fn ceil(x: f64) -> u64 {
    x.ceil() as u64
}

fn throttle(pipe: ExecPipe) -> StallReason {
    match pipe {
        ExecPipe::Fma | ExecPipe::Alu => StallReason::MathPipeThrottle,
        ExecPipe::Mufu | ExecPipe::Lsu => StallReason::MioThrottle,
    }
}

fn result_reason(pipe: ExecPipe) -> StallReason {
    match pipe {
        ExecPipe::Fma | ExecPipe::Alu => StallReason::Wait,
        ExecPipe::Mufu | ExecPipe::Lsu => StallReason::ShortScoreboard,
    }
}

fn wait_reason(wait: &Wait) -> StallReason {
    match wait {
        Wait::Parity { .. } | Wait::Store { .. } => StallReason::LongScoreboard,
        Wait::Mma { .. } => StallReason::Wait,
        Wait::NamedSync { .. } => StallReason::Barrier,
    }
}

/// The outcome of testing a wait.
enum WaitTest {
    Pass,
    Until(u64),
    Blocked,
}

impl Sm {
    /// An SM with `slots` CTA slots for CTAs of `shape`.
    pub fn new(id: usize, slots: usize, env: &Env<'_>) -> Self {
        let warps_per_cta = env.shape.warps as usize;
        Sm {
            id,
            slots: (0..slots).map(|_| Slot::default()).collect(),
            warps: (0..slots * warps_per_cta).map(|_| Warp::idle()).collect(),
            gates: vec![Gate::idle(0); slots * warps_per_cta],
            owners: env.shape.warp_owners(),
            smsps: (0..env.timing.sub_partitions)
                .map(|_| Smsp {
                    warps: Vec::new(),
                    pipe_free: [0; 4],
                    pipe_debt: [0.0; 4],
                    tmem_free: 0.0,
                    last_issued: None,
                })
                .collect(),
            events: BinaryHeap::new(),
            seq: 0,
            tensor_free: 0.0,
            tensor_debt: 0.0,
            rs_windows: VecDeque::new(),
            tma: Server::new(env.timing.tma_bytes_per_clk),
            smem_free: 0.0,
            wake_hint: NEVER,
            buf: Vec::new(),
            stats: SmStats { role_stalls: vec![StallCycles::default(); env.shape.roles.len()], ..SmStats::default() },
            trace: Vec::new(),
            trace_dropped: 0,
            traced_ctas: 0,
        }
    }

    /// Cycles the TMA unit was busy.
    pub fn tma_busy(&self) -> f64 {
        self.tma.busy
    }

    fn push_event(&mut self, time: u64, kind: EventKind) {
        self.seq += 1;
        self.events.push(Reverse(Event { time, seq: self.seq, kind }));
    }

    fn record(&mut self, env: &Env<'_>, event: TraceEvent) {
        if self.trace.len() < env.trace_limit {
            self.trace.push(event);
        } else {
            self.trace_dropped += 1;
        }
    }

    /// Starts the next CTA of the grid, if any, in the empty slot `slot` at cycle `t`.
    pub fn launch(&mut self, slot: usize, t: u64, env: &Env<'_>, driver: &mut dyn Driver) -> Result<(), SimError> {
        let Some(cta) = driver.launch(self.id, slot) else {
            self.stats.starved_at.get_or_insert(t);
            return Ok(());
        };
        let shape = env.shape;
        let traced = self.traced_ctas < env.trace_ctas;
        if traced {
            self.traced_ctas += 1;
        }
        let s = &mut self.slots[slot];
        s.active = true;
        s.cta = cta;
        s.generation = s.generation.wrapping_add(1);
        s.barriers = shape
            .barriers
            .iter()
            .map(|&(_, len, arrivals, _)| {
                (0..len).map(|_| MBar { bar: MBarrier::new(arrivals), visible_at: None, waiters: Vec::new() }).collect()
            })
            .collect();
        s.named = shape.named.iter().map(|_| NamedState::default()).collect();
        s.instances = shape.instances.iter().map(|_| InstanceState::default()).collect();
        s.live_warps = shape.warps;
        s.outstanding = 0.0;
        s.traced = traced;
        let base = slot * shape.warps as usize;
        for w in 0..shape.warps as usize {
            let (instance, _) = self.owners[w];
            let smsp = (w % self.smsps.len()) as u32;
            self.warps[base + w] = Warp {
                live: true,
                slot: slot as u32,
                instance,
                smsp,
                role: shape.instances[instance as usize].role,
                traced,
                ..Warp::idle()
            };
            self.gates[base + w] = Gate::idle(t);
            self.smsps[smsp as usize].warps.push((base + w) as u32);
        }
        for i in 0..shape.instances.len() {
            self.resume(slot, i, false, t, env, driver)?;
        }
        Ok(())
    }

    /// Runs instance `i` of `slot` to its next wait and queues its instructions on its warps.
    fn resume(
        &mut self,
        slot: usize,
        i: usize,
        release: bool,
        t: u64,
        env: &Env<'_>,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let done = driver.resume(self.id, slot, i, release, &mut buf)?;
        let inst = &env.shape.instances[i];
        let base = slot * env.shape.warps as usize + inst.first_warp as usize;
        for w in base..base + inst.warps as usize {
            self.warps[w].queue.extend(buf.iter().copied());
            self.refresh(w);
        }
        self.buf = buf;
        let state = &mut self.slots[slot].instances[i];
        if release {
            state.released_waits += 1;
        }
        if done {
            state.future_done = true;
            for w in base..base + inst.warps as usize {
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
        gate.since = t;
        warp.live = false;
        let (slot, smsp, role) = (warp.slot as usize, warp.smsp as usize, warp.role as usize);
        self.stats.role_stalls[role].merge(&warp.stalls);
        self.smsps[smsp].warps.retain(|&x| x as usize != w);
        let s = &mut self.slots[slot];
        s.live_warps -= 1;
        if s.live_warps == 0 {
            let at = (t + 1).max(ceil(s.outstanding));
            let generation = s.generation;
            self.push_event(at, EventKind::Retire { slot: slot as u32, generation });
        }
        Ok(())
    }

    /// Wakes warp `w` at cycle `at`, keeping its stall reason.
    fn wake(&mut self, w: usize, at: u64) {
        let warp = &mut self.warps[w];
        let reason = match warp.block {
            Block::Until(_, r) | Block::Forever(r) => r,
            Block::No => return,
        };
        warp.block = Block::Until(at, reason);
        self.refresh(w);
        self.wake_hint = self.wake_hint.min(at);
    }

    /// Closes warp `w`'s stall interval at `t` if its reason changes to `reason`.
    fn account(&mut self, w: usize, t: u64, reason: StallReason) {
        let gate = &mut self.gates[w];
        if reason != gate.reason {
            if t > gate.since {
                self.warps[w].stalls.add(gate.reason, t - gate.since);
            }
            gate.since = t;
            gate.reason = reason;
        }
    }

    /// Recomputes the cached issue condition of warp `w` from its state.
    fn refresh(&mut self, w: usize) {
        let warp = &self.warps[w];
        let (at, at_reason, unit, unit_reason) = match warp.block {
            Block::Until(at, r) => (at, r, Unit::None, r),
            Block::Forever(r) => (NEVER, r, Unit::None, r),
            Block::No => match warp.queue.front() {
                None => (NEVER, StallReason::NoInstruction, Unit::None, StallReason::NoInstruction),
                Some(head) => {
                    let first = warp.head_left == 0;
                    let operand = |dep: Dep, pipe: ExecPipe| -> (u64, StallReason) {
                        match dep {
                            Dep::None => (0, StallReason::Selected),
                            Dep::Stream | Dep::Chain if first => (warp.dep_ready, warp.dep_reason),
                            Dep::Stream => (0, StallReason::Selected),
                            Dep::Chain => (warp.chain_ready, result_reason(pipe)),
                        }
                    };
                    let (unit, unit_reason, (at, at_reason)) = match *head {
                        Instr::Exec { pipe, dep, .. } => (Unit::Pipe(pipe), throttle(pipe), operand(dep, pipe)),
                        Instr::Shared { .. } => {
                            (Unit::Pipe(ExecPipe::Lsu), StallReason::MioThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::GlobalLoad { .. } | Instr::GlobalStore { .. } => {
                            (Unit::Pipe(ExecPipe::Lsu), StallReason::LgThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::Tmem { .. } => {
                            (Unit::Tmem, StallReason::MioThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::Mma { a_in_registers: true, .. } if first => {
                            (Unit::None, StallReason::Selected, (warp.dep_ready, warp.dep_reason))
                        }
                        Instr::Mma { .. }
                        | Instr::Umma { .. }
                        | Instr::MmaCommit { .. }
                        | Instr::TmaLoad { .. }
                        | Instr::TmaStore { .. }
                        | Instr::Arrive { .. }
                        | Instr::NamedArrive { .. }
                        | Instr::Wait(_) => (Unit::None, StallReason::Selected, (0, StallReason::Selected)),
                    };
                    (at, at_reason, unit, unit_reason)
                }
            },
        };
        let gate = &mut self.gates[w];
        gate.at = at;
        gate.at_reason = at_reason;
        gate.unit = unit;
        gate.unit_reason = unit_reason;
    }

    /// The cycle warp `w` (on sub-partition `s`) can next issue, and why it cannot before.
    #[inline]
    fn ready(&self, w: usize, s: usize, timing: &Timing) -> (u64, StallReason) {
        let gate = &self.gates[w];
        let unit = match gate.unit {
            Unit::None => 0,
            Unit::Pipe(p) => self.smsps[s].pipe_free[p.index()].saturating_sub(timing.queue_cycles(p)),
            Unit::Tmem => ceil(self.smsps[s].tmem_free),
        };
        if gate.at >= unit { (gate.at, gate.at_reason) } else { (unit, gate.unit_reason) }
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
            let mut chosen: Option<(usize, usize)> = None;
            let mut first_eligible: Option<(usize, usize)> = None;
            let mut after_last: Option<(usize, usize)> = None;
            let last = self.smsps[s].last_issued;
            let mut seen_last = false;
            for pos in 0..self.smsps[s].warps.len() {
                let w = self.smsps[s].warps[pos] as usize;
                let (ready, reason) = self.ready(w, s, env.timing);
                if ready <= t {
                    self.account(w, t, StallReason::NotSelected);
                    first_eligible.get_or_insert((pos, w));
                    if Some(w as u32) == last {
                        if env.policy == SchedulerPolicy::GreedyThenOldest {
                            chosen = Some((pos, w));
                        }
                    } else if seen_last {
                        after_last.get_or_insert((pos, w));
                    }
                    next = next.min(t + 1);
                } else {
                    self.account(w, t, reason);
                    next = next.min(ready);
                }
                if Some(w as u32) == last {
                    seen_last = true;
                }
            }
            let pick = match env.policy {
                SchedulerPolicy::GreedyThenOldest => chosen.or(first_eligible),
                SchedulerPolicy::LooseRoundRobin => after_last.or(first_eligible),
            };
            if let Some((_, w)) = pick {
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
            EventKind::TxLand { slot, generation, barrier, bytes } => {
                let s = &mut self.slots[slot as usize];
                if s.generation == generation && s.active {
                    let completed = s.barriers[barrier.barrier as usize][barrier.index as usize].bar.complete_tx(bytes);
                    if completed {
                        // The TMA latency is calibrated up to the waiter resuming.
                        self.phase_completed(slot as usize, barrier, t, 0);
                    }
                }
            }
            EventKind::MmaArrive { slot, generation, barrier } => {
                let s = &mut self.slots[slot as usize];
                if s.generation == generation && s.active {
                    let completed = s.barriers[barrier.barrier as usize][barrier.index as usize].bar.arrive(0);
                    if completed {
                        self.phase_completed(slot as usize, barrier, t, env.timing.mbarrier_wake);
                    }
                }
            }
            EventKind::Retire { slot, generation } => {
                let s = &mut self.slots[slot as usize];
                if s.generation == generation && s.active {
                    s.active = false;
                    self.stats.ctas += 1;
                    self.stats.last_retire = t;
                    driver.retire(self.id, slot as usize);
                    self.launch(slot as usize, t, env, driver)?;
                }
            }
        }
        Ok(())
    }

    /// A phase of mbarrier `b` of `slot` completed at `t`: its waiters see it `wake` cycles
    /// later.
    fn phase_completed(&mut self, slot: usize, b: BarrierSlot, t: u64, wake: u64) {
        let bar = &mut self.slots[slot].barriers[b.barrier as usize][b.index as usize];
        bar.visible_at = Some(t + wake);
        let waiters = std::mem::take(&mut bar.waiters);
        let mut keep = Vec::new();
        for w in waiters {
            let passes = match self.warps[w as usize].queue.front() {
                Some(Instr::Wait(Wait::Parity { parity, .. })) => {
                    self.slots[slot].barriers[b.barrier as usize][b.index as usize].bar.parity_passed(*parity)
                }
                _ => true,
            };
            if passes {
                self.wake(w as usize, t + wake);
            } else {
                keep.push(w);
            }
        }
        self.slots[slot].barriers[b.barrier as usize][b.index as usize].waiters = keep;
    }

    /// Tests the wait at the head of warp `w` at cycle `t`.
    fn test_wait(&mut self, w: usize, wait: Wait, t: u64, env: &Env<'_>) -> WaitTest {
        let (slot, instance) = (self.warps[w].slot as usize, self.warps[w].instance as usize);
        let first = !std::mem::replace(&mut self.warps[w].wait_started, true);
        match wait {
            Wait::Parity { slot: b, parity } => {
                let bar = &mut self.slots[slot].barriers[b.barrier as usize][b.index as usize];
                if bar.bar.parity_passed(parity) {
                    let visible = bar.visible_at.unwrap_or(0);
                    if visible <= t { WaitTest::Pass } else { WaitTest::Until(visible) }
                } else {
                    bar.waiters.push(w as u32);
                    WaitTest::Blocked
                }
            }
            Wait::Mma { pending } => {
                let state = &mut self.slots[slot].instances[instance];
                match group_wait(&state.mma_done, self.warps[w].mma_groups, pending, t) {
                    WaitTest::Blocked => {
                        state.mma_waiters.push(w as u32);
                        WaitTest::Blocked
                    }
                    other => other,
                }
            }
            Wait::Store { pending } => {
                let state = &mut self.slots[slot].instances[instance];
                match group_wait(&state.store_read, self.warps[w].stores, pending, t) {
                    WaitTest::Blocked => {
                        state.store_waiters.push(w as u32);
                        WaitTest::Blocked
                    }
                    other => other,
                }
            }
            Wait::NamedSync { barrier } => {
                let threads = env.shape.named.get(barrier as usize).map_or(0, |n| n.1);
                let warp_size = env.timing.warp_size;
                let named = &mut self.slots[slot].named[barrier as usize];
                if first {
                    self.warps[w].named_generation = named.generation;
                    named.arrived += warp_size;
                    if named.arrived >= threads {
                        named.arrived = 0;
                        named.generation += 1;
                        named.released_at = t + env.timing.named_barrier;
                        let released = named.released_at;
                        for x in std::mem::take(&mut named.waiters) {
                            self.wake(x as usize, released);
                        }
                        return WaitTest::Until(released);
                    }
                }
                let named = &mut self.slots[slot].named[barrier as usize];
                if named.generation != self.warps[w].named_generation {
                    if named.released_at <= t { WaitTest::Pass } else { WaitTest::Until(named.released_at) }
                } else {
                    named.waiters.push(w as u32);
                    WaitTest::Blocked
                }
            }
        }
    }

    /// Issues one warp-instruction of warp `w` at cycle `t`.
    fn issue(
        &mut self,
        w: usize,
        t: u64,
        env: &Env<'_>,
        mem: &mut MemorySystem,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let Some(head) = self.warps[w].queue.front().copied() else { return Ok(()) };
        if let Instr::Wait(wait) = head {
            if !self.warps[w].wait_started {
                self.warps[w].head_start = t;
            }
            return match self.test_wait(w, wait, t, env) {
                WaitTest::Pass => self.pass_wait(w, wait, t, env, driver),
                WaitTest::Until(at) => {
                    self.warps[w].block = Block::Until(at, wait_reason(&wait));
                    Ok(())
                }
                WaitTest::Blocked => {
                    self.warps[w].block = Block::Forever(wait_reason(&wait));
                    Ok(())
                }
            };
        }
        let timing = env.timing;
        let smsp = self.warps[w].smsp as usize;
        let starting = self.warps[w].head_left == 0;
        if starting {
            let warp = &mut self.warps[w];
            warp.head_left = head.issue_slots().max(1);
            warp.head_start = t;
        }
        // One warp-instruction of the head.
        match head {
            Instr::Exec { pipe, dep, .. } => {
                let start = self.start_on(smsp, pipe, t, 0, timing);
                self.interfere(smsp, pipe, t, start, timing);
                let latency = timing.pipe(pipe).latency;
                let warp = &mut self.warps[w];
                if dep == Dep::Chain {
                    warp.chain_ready = start + latency;
                }
                if starting {
                    warp.head_first_result = start + latency;
                }
            }
            Instr::Shared { bytes, load, .. } => {
                let start = self.start_on(smsp, ExecPipe::Lsu, t, ceil(self.smem_free), timing);
                self.smem_free = self.smem_free.max(start as f64) + f64::from(bytes) / timing.smem_bytes_per_clk;
                self.stats.smem_bytes += u64::from(bytes);
                if starting && load {
                    self.warps[w].head_first_result = start + timing.smem_latency;
                }
            }
            Instr::GlobalLoad { bytes, from_hbm, .. } => {
                let start = self.start_on(smsp, ExecPipe::Lsu, t, 0, timing);
                let done = ceil(mem.load(start as f64, bytes, None, from_hbm).0);
                if starting {
                    self.warps[w].head_first_result = done;
                }
            }
            Instr::GlobalStore { bytes, .. } => {
                let start = self.start_on(smsp, ExecPipe::Lsu, t, 0, timing);
                let done = mem.store(start as f64, bytes, None);
                let s = &mut self.slots[self.warps[w].slot as usize];
                s.outstanding = s.outstanding.max(done);
            }
            Instr::Tmem { bytes, load, .. } => {
                let Some(tmem) = timing.tmem else { return Ok(()) };
                let port = &mut self.smsps[smsp].tmem_free;
                *port = port.max(t as f64) + f64::from(bytes) / tmem.bytes_per_clk_per_smsp;
                if starting && load {
                    self.warps[w].head_first_result = t + tmem.load_latency;
                }
            }
            Instr::Mma { .. }
            | Instr::Umma { .. }
            | Instr::MmaCommit { .. }
            | Instr::TmaLoad { .. }
            | Instr::TmaStore { .. }
            | Instr::Arrive { .. }
            | Instr::NamedArrive { .. }
            | Instr::Wait(_) => {}
        }
        let warp = &mut self.warps[w];
        warp.head_left -= 1;
        if warp.head_left > 0 {
            return Ok(());
        }
        // The head instruction has issued completely.
        warp.queue.pop_front();
        match head {
            Instr::Exec { pipe, dep, .. } => {
                warp.dep_ready = if dep == Dep::Chain { warp.chain_ready } else { warp.head_first_result };
                warp.dep_reason = result_reason(pipe);
            }
            Instr::Shared { load: true, .. } | Instr::Tmem { load: true, .. } => {
                warp.dep_ready = warp.head_first_result;
                warp.dep_reason = StallReason::ShortScoreboard;
            }
            Instr::GlobalLoad { .. } => {
                warp.dep_ready = warp.head_first_result;
                warp.dep_reason = StallReason::LongScoreboard;
            }
            _ => {}
        }
        if head.is_collective() {
            self.warps[w].collectives += 1;
        }
        if let Instr::Mma { .. } = head {
            self.warps[w].mma_groups += 1;
        }
        if let Instr::TmaStore { .. } = head {
            self.warps[w].stores += 1;
        }
        if head.is_collective() && self.last_to_issue(w, env) {
            self.fire(w, head, t, env, mem);
        }
        if let Instr::NamedArrive { barrier } = head {
            self.named_arrive(w, barrier, t, env);
        }
        if self.warps[w].traced {
            let start = self.warps[w].head_start;
            let name = label(&head, env);
            self.trace_warp(w, name, start, t + 1, env);
        }
        self.maybe_exit(w, t)
    }

    /// Queues one instruction issued at `t` on `pipe` of sub-partition `smsp`, to start no
    /// earlier than `not_before`; returns the cycle it starts executing.
    fn start_on(&mut self, smsp: usize, pipe: ExecPipe, t: u64, not_before: u64, timing: &Timing) -> u64 {
        let interval = timing.pipe(pipe).interval;
        let free = &mut self.smsps[smsp].pipe_free[pipe.index()];
        let start = t.max(*free).max(not_before);
        *free = start + interval;
        self.stats.pipe_busy[pipe.index()] += interval;
        start
    }

    /// Tensor-core interference with a counted instruction on `pipe` of sub-partition `smsp`,
    /// issued at `t` and started at `start` (`tensor.interference` of the machine): while the
    /// tensor cores are busy the pipe is held longer, and an FMA-pipe instruction delays a
    /// running MMA whose A operand is in registers.
    fn interfere(&mut self, smsp: usize, pipe: ExecPipe, t: u64, start: u64, timing: &Timing) {
        if (t as f64) >= self.tensor_free {
            return;
        }
        let factor = timing.tensor_busy_factor[pipe.index()];
        if factor > 1.0 {
            let debt = &mut self.smsps[smsp].pipe_debt[pipe.index()];
            *debt += timing.pipe(pipe).interval as f64 * (factor - 1.0);
            let whole = debt.floor();
            *debt -= whole;
            self.smsps[smsp].pipe_free[pipe.index()] += whole as u64;
            self.stats.pipe_busy[pipe.index()] += whole as u64;
        }
        if pipe == ExecPipe::Fma && timing.rs_delay_per_fma_instr > 0.0 && self.rs_running(start as f64) {
            self.delay_tensor(start, timing.rs_delay_per_fma_instr);
        }
    }

    /// Whether an MMA with A in registers occupies the tensor cores at `at`.
    fn rs_running(&mut self, at: f64) -> bool {
        while self.rs_windows.front().is_some_and(|&(_, end)| end <= at) {
            self.rs_windows.pop_front();
        }
        self.rs_windows.iter().any(|&(start, end)| start <= at && at < end)
    }

    /// Delays all tensor-core work not finished by `at` by `cycles` (accumulated until whole).
    fn delay_tensor(&mut self, at: u64, cycles: f64) {
        self.tensor_debt += cycles;
        let shift = self.tensor_debt.floor();
        if shift < 1.0 {
            return;
        }
        self.tensor_debt -= shift;
        self.tensor_free += shift;
        let at_f = at as f64;
        for slot in &mut self.slots {
            for inst in &mut slot.instances {
                for done in inst.mma_done.iter_mut().rev() {
                    if *done <= at {
                        break;
                    }
                    *done += shift as u64;
                }
                if inst.mma_tail > at_f {
                    inst.mma_tail += shift;
                }
            }
        }
        for w in &mut self.rs_windows {
            if w.1 > at_f {
                w.1 += shift;
                if w.0 > at_f {
                    w.0 += shift;
                }
            }
        }
    }

    /// Exits warp `w` if it has nothing left to run.
    fn maybe_exit(&mut self, w: usize, t: u64) -> Result<(), SimError> {
        let warp = &self.warps[w];
        let done = self.slots[warp.slot as usize].instances[warp.instance as usize].future_done;
        if warp.queue.is_empty() && done {
            self.exit(w, t + 1)?;
        }
        Ok(())
    }

    /// Warp `w` passes its head wait at `t`.
    fn pass_wait(
        &mut self,
        w: usize,
        wait: Wait,
        t: u64,
        env: &Env<'_>,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let warp = &mut self.warps[w];
        warp.queue.pop_front();
        warp.block = Block::No;
        warp.wait_started = false;
        warp.waits_passed += 1;
        let (slot, instance, passed, start) =
            (warp.slot as usize, warp.instance as usize, warp.waits_passed, warp.head_start);
        if self.warps[w].traced {
            let name = wait_label(&wait, env);
            self.trace_warp(w, name, start, t + 1, env);
        }
        if self.slots[slot].instances[instance].released_waits < passed {
            self.resume(slot, instance, true, t, env, driver)?;
        }
        if self.warps[w].live {
            self.maybe_exit(w, t)?;
        }
        Ok(())
    }

    /// Whether warp `w` is the last of its instance to issue its latest collective.
    fn last_to_issue(&self, w: usize, env: &Env<'_>) -> bool {
        let warp = &self.warps[w];
        let inst = &env.shape.instances[warp.instance as usize];
        let base = warp.slot as usize * env.shape.warps as usize + inst.first_warp as usize;
        let k = warp.collectives;
        (base..base + inst.warps as usize).all(|x| self.warps[x].collectives >= k)
    }

    /// The instance of warp `w` performs collective `instr` at `t`.
    fn fire(&mut self, w: usize, instr: Instr, t: u64, env: &Env<'_>, mem: &mut MemorySystem) {
        let timing = env.timing;
        let (slot, instance) = (self.warps[w].slot as usize, self.warps[w].instance as usize);
        self.slots[slot].instances[instance].fired += 1;
        let traced = self.slots[slot].traced;
        match instr {
            Instr::Mma { instrs, fma, n, dtype, .. } | Instr::Umma { instrs, fma, n, dtype } => {
                let a_in_registers = matches!(instr, Instr::Mma { a_in_registers: true, .. });
                let occupancy = fma as f64 / timing.tensor_rate(dtype);
                let latency = (timing.mma_latency(n) as f64).max(occupancy);
                let first_start = self.tensor_free.max(t as f64);
                let mut done = first_start;
                for _ in 0..instrs {
                    let start = self.tensor_free.max(t as f64);
                    self.tensor_free = start + occupancy;
                    done = start + latency;
                }
                self.stats.tensor_busy += occupancy * f64::from(instrs);
                if a_in_registers {
                    self.rs_windows.push_back((first_start, self.tensor_free));
                }
                self.stats.mma_fma += fma * u64::from(instrs);
                let state = &mut self.slots[slot].instances[instance];
                state.mma_tail = state.mma_tail.max(done);
                if let Instr::Mma { .. } = instr {
                    let done = ceil(done);
                    state.mma_done.push(done);
                    for x in std::mem::take(&mut state.mma_waiters) {
                        self.wake(x as usize, done.max(t));
                    }
                }
                if traced {
                    let name = format!("MMA x{instrs} (n{n}, {dtype})");
                    let (ts, end) = (ceil(first_start), ceil(self.tensor_free));
                    self.record(env, TraceEvent::span(self.id as u32, TRACE_TID_TENSOR, name, ts, end));
                }
            }
            Instr::MmaCommit { slot: b } => {
                let s = &mut self.slots[slot];
                let at = ceil(s.instances[instance].mma_tail).max(t);
                s.outstanding = s.outstanding.max(at as f64);
                let generation = s.generation;
                self.push_event(at, EventKind::MmaArrive { slot: slot as u32, generation, barrier: b });
            }
            Instr::TmaLoad { slot: b, bytes, src } => {
                // First data after the memory latency, then streamed into shared memory at
                // the TMA unit's rate (one copy at a time); the extra covers the rest up to
                // the waiter resuming (calibrated end to end).
                let (first_data, hit) = mem.load(t as f64, bytes, src, false);
                let streamed = self.tma.serve(first_data, bytes);
                let extra = if hit { timing.tma_extra_latency } else { timing.tma_miss_extra_latency };
                let land = ceil(streamed) + extra;
                let s = &mut self.slots[slot];
                s.outstanding = s.outstanding.max(land as f64);
                let generation = s.generation;
                self.push_event(land, EventKind::TxLand { slot: slot as u32, generation, barrier: b, bytes });
                if traced {
                    let name = format!("TMA load {bytes} B -> {}", env.shape.barrier_name(b));
                    self.record(env, TraceEvent::span(self.id as u32, TRACE_TID_TMA, name, t, land).asynchronous());
                }
            }
            Instr::TmaStore { bytes, dst } => {
                let read = self.tma.serve(t as f64, bytes);
                let written = mem.store(t as f64, bytes, dst);
                let s = &mut self.slots[slot];
                s.outstanding = s.outstanding.max(written);
                let read = ceil(read);
                let state = &mut s.instances[instance];
                state.store_read.push(read);
                for x in std::mem::take(&mut state.store_waiters) {
                    self.wake(x as usize, read.max(t));
                }
                if traced {
                    let name = format!("TMA store {bytes} B");
                    self.record(
                        env,
                        TraceEvent::span(self.id as u32, TRACE_TID_TMA, name, t, ceil(written)).asynchronous(),
                    );
                }
            }
            Instr::Arrive { slot: b, tx_bytes } => {
                let completed = self.slots[slot].barriers[b.barrier as usize][b.index as usize].bar.arrive(tx_bytes);
                if completed {
                    self.phase_completed(slot, b, t, timing.mbarrier_wake);
                }
            }
            Instr::Exec { .. }
            | Instr::Shared { .. }
            | Instr::GlobalLoad { .. }
            | Instr::GlobalStore { .. }
            | Instr::Tmem { .. }
            | Instr::NamedArrive { .. }
            | Instr::Wait(_) => {}
        }
    }

    /// `bar.arrive` of warp `w` on named barrier `barrier` at `t`.
    fn named_arrive(&mut self, w: usize, barrier: u16, t: u64, env: &Env<'_>) {
        let threads = env.shape.named.get(barrier as usize).map_or(0, |n| n.1);
        let slot = self.warps[w].slot as usize;
        let named = &mut self.slots[slot].named[barrier as usize];
        named.arrived += env.timing.warp_size;
        if named.arrived >= threads {
            named.arrived = 0;
            named.generation += 1;
            named.released_at = t + env.timing.named_barrier;
            let released = named.released_at;
            for x in std::mem::take(&mut named.waiters) {
                self.wake(x as usize, released);
            }
        }
    }

    fn trace_warp(&mut self, w: usize, name: String, start: u64, end: u64, env: &Env<'_>) {
        let tid = w as u32;
        self.record(env, TraceEvent::span(self.id as u32, tid, name, start, end));
    }

    /// Names of the trace threads of this SM: `(tid, name)`.
    pub fn trace_threads(&self, env: &Env<'_>) -> Vec<(u32, String)> {
        let mut out = vec![(TRACE_TID_TENSOR, "tensor cores".to_string()), (TRACE_TID_TMA, "TMA unit".to_string())];
        let shape = env.shape;
        for slot in 0..self.slots.len() {
            for (w, &(instance, lane)) in self.owners.iter().enumerate() {
                let inst = &shape.instances[instance as usize];
                let role = shape.roles.get(inst.role as usize).copied().unwrap_or("?");
                let tid = (slot * shape.warps as usize + w) as u32;
                out.push((tid, format!("slot {slot} warp {w} `{role}` #{} (warp {lane} of it)", inst.index)));
            }
        }
        out
    }

    /// The CTA in `slot`, if one is resident.
    pub fn resident_cta(&self, slot: usize) -> Option<usize> {
        self.slots.get(slot).filter(|s| s.active).map(|s| s.cta)
    }

    /// Number of CTA slots.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// For a deadlock report: per instance of the CTA in `slot`, whether it finished, and
    /// else the barrier it waits on and what that needs.
    pub fn describe_blocked(&self, slot: usize, env: &Env<'_>) -> Vec<Option<(String, String)>> {
        let shape = env.shape;
        let s = &self.slots[slot];
        shape
            .instances
            .iter()
            .map(|inst| {
                let base = slot * shape.warps as usize + inst.first_warp as usize;
                let warp = (base..base + inst.warps as usize).map(|w| &self.warps[w]).find(|w| w.live)?;
                Some(match warp.queue.front() {
                    Some(Instr::Wait(Wait::Parity { slot: b, parity })) => {
                        let spec = &shape.barriers[b.barrier as usize];
                        let bar = &s.barriers[b.barrier as usize][b.index as usize].bar;
                        let mut need = format!(
                            "phase {} (parity {parity}) to complete; {} of {} arrivals missing, expected from {}",
                            bar.completed_phases(),
                            bar.pending_arrivals(),
                            spec.2,
                            spec.3
                        );
                        if bar.pending_tx() != 0 {
                            need += &format!("; {} transaction bytes outstanding", bar.pending_tx());
                        }
                        (format!("`{}`", shape.barrier_name(*b)), need)
                    }
                    Some(Instr::Wait(Wait::NamedSync { barrier })) => {
                        let named = &s.named[*barrier as usize];
                        let (threads, roles) = shape.named.get(*barrier as usize).map_or((0, ""), |n| (n.1, &n.2));
                        (
                            format!("named barrier `{}`", shape.named_name(*barrier)),
                            format!("{} of {threads} threads arrived, expected from {roles}", named.arrived),
                        )
                    }
                    Some(Instr::Wait(Wait::Mma { pending })) => {
                        ("wgmma.wait_group".into(), format!("at most {pending} MMA groups in flight"))
                    }
                    Some(Instr::Wait(Wait::Store { pending })) => {
                        ("bulk store wait".into(), format!("at most {pending} TMA stores in flight"))
                    }
                    _ => ("nothing".into(), "its program suspended outside a barrier wait".into()),
                })
            })
            .collect()
    }
}

/// Tests a wait for "at most `pending` of the `issued` groups of this warp in flight" against
/// the completion cycles of the groups fired so far.
fn group_wait(done: &[u64], issued: u32, pending: u32, t: u64) -> WaitTest {
    let Some(group) = issued.checked_sub(pending + 1) else { return WaitTest::Pass };
    match done.get(group as usize) {
        Some(&at) if at <= t => WaitTest::Pass,
        Some(&at) => WaitTest::Until(at),
        None => WaitTest::Blocked,
    }
}

/// Trace name of a non-wait instruction.
fn label(instr: &Instr, env: &Env<'_>) -> String {
    match *instr {
        Instr::Exec { pipe, count, .. } => format!("{} x{count}", pipe.name()),
        Instr::Shared { count, load: true, .. } => format!("ld.shared x{count}"),
        Instr::Shared { count, load: false, .. } => format!("st.shared x{count}"),
        Instr::GlobalLoad { count, .. } => format!("ld.global x{count}"),
        Instr::GlobalStore { count, .. } => format!("st.global x{count}"),
        Instr::Mma { instrs, n, .. } => format!("wgmma issue x{instrs} (n{n})"),
        Instr::Umma { instrs, n, .. } => format!("tcgen05.mma issue x{instrs} (n{n})"),
        Instr::MmaCommit { slot } => format!("tcgen05.commit -> {}", env.shape.barrier_name(slot)),
        Instr::Tmem { count, load: true, .. } => format!("tcgen05.ld x{count}"),
        Instr::Tmem { count, load: false, .. } => format!("tcgen05.st x{count}"),
        Instr::TmaLoad { slot, bytes, .. } => format!("TMA load {bytes} B -> {}", env.shape.barrier_name(slot)),
        Instr::TmaStore { bytes, .. } => format!("TMA store {bytes} B"),
        Instr::Arrive { slot, .. } => format!("arrive {}", env.shape.barrier_name(slot)),
        Instr::NamedArrive { barrier } => format!("bar.arrive {}", env.shape.named_name(barrier)),
        Instr::Wait(w) => wait_label(&w, env),
    }
}

/// Trace name of a wait.
fn wait_label(wait: &Wait, env: &Env<'_>) -> String {
    match *wait {
        Wait::Parity { slot, parity } => format!("wait {} (parity {parity})", env.shape.barrier_name(slot)),
        Wait::Mma { pending } => format!("wgmma.wait_group {pending}"),
        Wait::Store { pending } => format!("bulk wait_group.read {pending}"),
        Wait::NamedSync { barrier } => format!("bar.sync {}", env.shape.named_name(barrier)),
    }
}
