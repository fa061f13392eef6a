//! Synchronisation: the CTA's mbarriers ([`warpspec_hw::MBarrier`]) and named barriers
//! ([`warpspec_hw::NamedBarrier`]) with the warps waiting on them, the per-instance state of
//! `wgmma.wait_group` and bulk-store waits, and what a blocked instance waits on.

use warpspec_hw::{MBarrier, NamedArrival, NamedBarrier};

use crate::deadlock::Waiting;
use crate::dsl::{BarrierSlot, Wait};

use super::super::error::SimError;
use super::super::lower::Instr;
use super::super::sites::Site;
use super::super::wait_forms::WaitForm;
use super::warp::Block;
use super::{Driver, Env, Sm};

/// An mbarrier and who waits on it.
#[derive(Debug)]
pub(super) struct MBar {
    pub bar: MBarrier,
    /// When waiters see the latest completed phase.
    visible_at: Option<u64>,
    waiters: Vec<u32>,
    /// The recorded span of the latest arrival on it (arrive, commit or TMA copy), if any.
    pub last_arrival: Option<usize>,
}

impl MBar {
    /// A barrier expecting `arrivals` per phase.
    pub fn new(arrivals: u32) -> Self {
        MBar { bar: MBarrier::new(arrivals), visible_at: None, waiters: Vec::new(), last_arrival: None }
    }
}

/// A named barrier, when its latest use released its waiters, and who waits on it since when.
#[derive(Debug)]
pub(super) struct NamedState {
    bar: NamedBarrier,
    /// When the waiters of the latest completed use resume.
    released_at: u64,
    /// The latest completed use, when the warps that arrived last pass it, and which.
    last: (u64, u64, Vec<u32>),
    /// Each waiter of the current use and its arrival.
    waiters: Vec<(u32, u64)>,
}

impl NamedState {
    /// A named barrier whose uses complete after `threads` threads.
    pub fn new(threads: u32) -> Self {
        NamedState {
            bar: NamedBarrier::new(threads),
            released_at: 0,
            last: (u64::MAX, 0, Vec::new()),
            waiters: Vec::new(),
        }
    }

    /// When warp `w`, which joined use `generation`, passes it (once completed).
    fn passes_at(&self, w: u32, generation: u64) -> u64 {
        let (of, at, warps) = &self.last;
        if *of == generation && warps.contains(&w) { *at } else { self.released_at }
    }
}

/// The synchronisation state of one role instance.
#[derive(Debug, Default)]
pub(super) struct InstanceSync {
    pub future_done: bool,
    pub released_waits: u32,
    /// Collective instructions fired.
    pub fired: u32,
    /// Completion cycle of each fired MMA group (committed: its last MMA fired).
    pub mma_done: Vec<u64>,
    /// The group being fired MMA by MMA, not yet committed: when its latest MMA reaches the
    /// tensor cores and when its MMAs so far complete.
    pub mma_open: Option<OpenGroup>,
    /// Every MMA (`wgmma` or `tcgen05.mma`) fired so far has completed by this cycle.
    pub mma_tail: f64,
    pub mma_waiters: Vec<u32>,
    /// Cycle each fired TMA store finished reading shared memory.
    pub store_read: Vec<u64>,
    pub store_waiters: Vec<u32>,
}

/// A `wgmma` group whose first MMAs have fired and whose commit has not.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpenGroup {
    /// When its latest MMA reaches the tensor cores.
    pub reach: f64,
    /// When its MMAs so far complete.
    pub done: f64,
}

/// The outcome of testing a wait.
pub(super) enum WaitTest {
    Pass,
    Until(u64),
    Blocked,
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

impl Sm {
    /// A phase of mbarrier `b` of the CTA at `resident` completed at `t`: its waiters see it
    /// `wake` cycles later.
    pub(super) fn phase_completed(&mut self, resident: usize, b: BarrierSlot, t: u64, wake: u64) {
        let bar = self.residents[resident].mbar(b);
        bar.visible_at = Some(t + wake);
        let waiters = std::mem::take(&mut bar.waiters);
        let mut keep = Vec::new();
        for w in waiters {
            let passes = match self.warps[w as usize].queue.front().map(|q| &q.instr) {
                Some(Instr::Wait(Wait::Parity { parity, .. })) => {
                    self.residents[resident].mbar(b).bar.parity_passed(*parity)
                }
                _ => true,
            };
            if passes {
                self.wake(w as usize, t + wake);
            } else {
                keep.push(w);
            }
        }
        self.residents[resident].mbar(b).waiters = keep;
    }

    /// `threads` of warp `w` arrive on named barrier `barrier` at `t`; a completed use
    /// releases its waiters `sync.named_barrier_cycles` later, except those that arrived so
    /// shortly before that they were still issuing past their `bar.sync` (less than the
    /// difference to `sync.named_barrier_last_arrival_cycles`): they pass with the last
    /// arrival, `sync.named_barrier_last_arrival_cycles` after it, as does a completing
    /// `bar.sync` itself. An arrival past the barrier's count is not counted (undefined on
    /// hardware; the emulator's sanitizer reports it).
    fn named_arrival(&mut self, w: usize, barrier: u16, t: u64, syncs: bool, env: &Env<'_>) -> NamedArrival {
        let resident = self.warps[w].resident as usize;
        let named = &mut self.residents[resident].named[barrier as usize];
        let arrival = named.bar.arrive(env.timing.warp_size);
        if let NamedArrival::Completed { generation } = arrival {
            let (release, last) =
                (env.timing.named_barrier, env.timing.named_barrier_last_arrival.min(env.timing.named_barrier));
            named.released_at = t + release;
            let mut with_last: Vec<u32> = if syncs { vec![w as u32] } else { Vec::new() };
            let mut wakes = Vec::new();
            for (x, arrived) in std::mem::take(&mut named.waiters) {
                if t - arrived < release - last {
                    with_last.push(x);
                    wakes.push((x, t + last));
                } else {
                    wakes.push((x, t + release));
                }
            }
            named.last = (generation, t + last, with_last);
            for (x, at) in wakes {
                self.wake(x as usize, at);
            }
        }
        arrival
    }

    /// `bar.arrive` of warp `w` on named barrier `barrier` at `t`.
    pub(super) fn named_arrive(&mut self, w: usize, barrier: u16, t: u64, env: &Env<'_>) {
        self.named_arrival(w, barrier, t, false, env);
    }

    /// Tests the wait at the head of warp `w` at cycle `t`.
    pub(super) fn test_wait(&mut self, w: usize, wait: Wait, t: u64, env: &Env<'_>) -> WaitTest {
        let (resident, instance) = (self.warps[w].resident as usize, self.warps[w].instance as usize);
        let first = !std::mem::replace(&mut self.warps[w].wait_started, true);
        match wait {
            Wait::ClusterSync => self.test_cluster_sync(w, first, t, env),
            Wait::Parity { slot: b, parity } => {
                let (issued, form) = self.warps[w].try_wait.take().unwrap_or((t, WaitForm::Uniform));
                let bar = self.residents[resident].mbar(b);
                if bar.bar.parity_passed(parity) {
                    let visible = bar.visible_at.unwrap_or(0);
                    // A `try_wait` that finds the phase completed returns after its own
                    // latency, counted from its issue (ahead of this test where the code put
                    // work between the two); one woken by the completion has that in its
                    // wake-up.
                    let visible = if first { visible.max(issued + env.timing.passed_wait(form)) } else { visible };
                    if visible <= t { WaitTest::Pass } else { WaitTest::Until(visible) }
                } else {
                    bar.waiters.push(w as u32);
                    WaitTest::Blocked
                }
            }
            Wait::Mma { pending } => {
                let state = &mut self.residents[resident].instances[instance];
                match group_wait(&state.mma_done, self.warps[w].mma_groups, pending, t) {
                    WaitTest::Blocked => {
                        state.mma_waiters.push(w as u32);
                        WaitTest::Blocked
                    }
                    other => other,
                }
            }
            Wait::Store { pending } => {
                let state = &mut self.residents[resident].instances[instance];
                match group_wait(&state.store_read, self.warps[w].stores, pending, t) {
                    WaitTest::Blocked => {
                        state.store_waiters.push(w as u32);
                        WaitTest::Blocked
                    }
                    other => other,
                }
            }
            Wait::NamedSync { barrier } => {
                if first {
                    let arrival = self.named_arrival(w, barrier, t, true, env);
                    self.warps[w].named_generation = arrival.generation();
                }
                let named = &mut self.residents[resident].named[barrier as usize];
                let generation = self.warps[w].named_generation;
                if named.bar.completed(generation) {
                    let at = named.passes_at(w as u32, generation);
                    if at <= t { WaitTest::Pass } else { WaitTest::Until(at) }
                } else {
                    named.waiters.push((w as u32, t));
                    WaitTest::Blocked
                }
            }
        }
    }

    /// Warp `w` passes its head wait at `t`.
    pub(super) fn pass_wait(
        &mut self,
        w: usize,
        wait: Wait,
        t: u64,
        env: &Env<'_>,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let warp = &mut self.warps[w];
        let site = warp.queue.pop_front().map_or(Site::NONE, |q| q.site);
        warp.block = Block::No;
        warp.wait_started = false;
        warp.waits_passed += 1;
        let (resident, instance, passed, start) =
            (warp.resident as usize, warp.instance as usize, warp.waits_passed, warp.head_start);
        if self.warps[w].traced {
            self.trace_wait(w, &wait, site, start, t + 1, env);
        }
        if self.residents[resident].instances[instance].released_waits < passed {
            self.resume(resident, instance, true, t, env, driver)?;
        }
        if self.warps[w].live {
            self.maybe_exit(w, t)?;
        }
        Ok(())
    }

    /// For a deadlock report: per instance of the CTA at `resident`, `None` if it finished,
    /// else what it waits on.
    pub fn waiting(&self, resident: usize, env: &Env<'_>) -> Vec<Option<Waiting>> {
        let shape = env.shape;
        let s = &self.residents[resident];
        shape
            .instances
            .iter()
            .map(|inst| {
                let warp = self.instance_warps(resident, inst, env).map(|w| &self.warps[w]).find(|w| w.live)?;
                Some(match warp.queue.front().map(|q| &q.instr) {
                    Some(Instr::Wait(Wait::Parity { slot: b, parity })) => {
                        let spec = &shape.barriers[b.barrier as usize];
                        let bar = &s.barriers[b.barrier as usize][b.index as usize].bar;
                        Waiting::Phase {
                            barrier: spec.name.to_string(),
                            stage: u32::from(b.index),
                            parity: *parity,
                            phase: bar.completed_phases(),
                            missing: bar.pending_arrivals(),
                            expected: spec.arrivals,
                            arrivers: spec.arrivers.clone(),
                            pending_bytes: bar.pending_tx(),
                        }
                    }
                    Some(Instr::Wait(Wait::NamedSync { barrier })) => match shape.named.get(*barrier as usize) {
                        Some(spec) => Waiting::Named {
                            name: spec.name.to_string(),
                            id: spec.id,
                            arrived: s.named[*barrier as usize].bar.arrived(),
                            threads: spec.threads,
                            roles: spec.roles.clone(),
                        },
                        None => Waiting::UnknownNamed,
                    },
                    Some(Instr::Wait(Wait::ClusterSync)) => Waiting::Cluster {
                        arrived: s.cluster_arrived * env.timing.warp_size,
                        threads: shape.warps * env.timing.warp_size,
                    },
                    Some(Instr::Wait(Wait::Mma { pending })) => Waiting::MmaGroups { pending: *pending },
                    Some(Instr::Wait(Wait::Store { pending })) => Waiting::Stores { pending: *pending },
                    _ => Waiting::Nothing,
                })
            })
            .collect()
    }
}
