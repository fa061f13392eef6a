//! The whole-kernel simulation: every role instance's trace run together on Hopper
//! `mbarrier` and named-barrier semantics (as the emulator runs them), with vector clocks
//! for what each instance can know of the others.
//!
//! It finds what no single role decides: waits nothing will satisfy (a cycle of waits, a
//! phase nothing arrives on, an arrive skipped on some path, too few arrivals per phase,
//! transaction bytes that never balance), too many arrivals per phase, waits that pass on
//! a phase they already saw or before data lands, and lapped phases: a phase that can
//! complete before a waiter of the previous phase has looked.

//!
//! The barriers are [`warpspec_hw`]'s, wrapped with what the findings need ([`barriers`]);
//! what the blocked instances of a run that does not finish wait for is explained in
//! [`deadlock`].

mod barriers;
mod cluster;
mod deadlock;
mod races;

use std::collections::HashMap;

use warpspec_hw::VectorClock;

use super::Analysis;
use super::interp::{Event, EventKind, Scenario, Trace};
use super::report::{role_name, who};
use super::table::role_list;
use barriers::{Arrival, BarrierState, NamedState};
use races::Accesses;

/// The phase, instance and clock of an arrival.
type FirstArrival = (usize, usize, VectorClock);

/// A wait as it happened.
struct WaitRec {
    /// The waiting instance.
    inst: usize,
    /// The instance's own clock at the wait.
    stamp: u32,
    /// The barrier.
    bar: usize,
    /// Its stage.
    index: usize,
    /// The phase it means to observe (-1: the one before the first).
    target: i64,
    /// The wait's site.
    site: usize,
    /// The parity waited for.
    parity: u8,
    /// The instance's first wait on this barrier.
    first: bool,
}

/// A role instance being run.
struct Inst<'t> {
    /// Its trace.
    trace: &'t Trace,
    /// Index of its next event.
    pc: usize,
    /// Its vector clock.
    clock: VectorClock,
    /// The wait (index into the records) or named generation it is in, if blocked.
    started: Option<usize>,
    /// Whether it finished.
    done: bool,
}

impl Inst<'_> {
    /// Its next event, if any.
    fn event(&self) -> Option<&Event> {
        self.trace.events.get(self.pc)
    }
}

/// Runs `traces` (all instances of one scenario) together and records what it finds.
pub fn simulate(an: &Analysis<'_>, scen: &Scenario, traces: &[Trace]) {
    let Some(mut sim) = Sim::new(an, scen, traces) else { return };
    let finished = sim.run();
    sim.report_named_threads(finished);
    // What the run itself found usually explains what follows from it.
    if sim.reported {
        return;
    }
    sim.report_races();
    sim.report_arrival_counts();
    sim.report_lapped();
    if finished {
        sim.report_leftover_bytes();
        sim.report_peer_exit();
    } else {
        sim.report_deadlock();
    }
}

/// The state of one simulation.
struct Sim<'s, 'a> {
    /// The kernel's analysis.
    an: &'s Analysis<'a>,
    /// The scenario simulated.
    scen: &'s Scenario,
    /// The role instances.
    insts: Vec<Inst<'s>>,
    /// Every mbarrier, by bar and stage.
    barriers: Vec<Vec<BarrierState>>,
    /// Every named barrier.
    named: Vec<NamedState>,
    /// Every wait that started.
    waits: Vec<WaitRec>,
    /// The phase each instance last meant to wait for on each (bar, stage).
    last_target: HashMap<(usize, usize, usize), i64>,
    /// Bars TMA loads complete on (their waits must not pass before data lands).
    data_bars: Vec<bool>,
    /// Bars something was reported about (later findings on them would only repeat it).
    flagged: Vec<bool>,
    /// Whether the run itself found something.
    reported: bool,
    /// Accesses of unguarded on-chip buffers.
    accesses: Accesses,
    /// Arrivals and TMA bytes onto a peer CTA's barriers.
    peer_ops: Vec<cluster::PeerOp>,
}

impl<'s, 'a> Sim<'s, 'a> {
    /// A simulation of `traces`, or `None` if a count or length is not known.
    fn new(an: &'s Analysis<'a>, scen: &'s Scenario, traces: &'s [Trace]) -> Option<Self> {
        let n = traces.len();
        let mut barriers = Vec::new();
        for bar in &an.table.bars {
            let (len, count) = (bar.len?, bar.count?);
            if count <= 0 || len > 64 {
                return None;
            }
            barriers.push((0..len).map(|_| BarrierState::new(count, n)).collect());
        }
        let mut named = Vec::new();
        for nb in &an.table.named {
            named.push(NamedState::new(nb.threads?, n));
        }
        let mut data_bars = vec![false; an.table.bars.len()];
        for t in traces {
            for e in &t.events {
                if let EventKind::Tma { bar, .. } = e.kind
                    && let Some(d) = data_bars.get_mut(bar)
                {
                    *d = true;
                }
            }
        }
        let insts = traces
            .iter()
            .map(|trace| Inst { trace, pc: 0, clock: VectorClock::zero(n), started: None, done: false })
            .collect();
        let flagged = vec![false; an.table.bars.len()];
        Some(Self {
            an,
            scen,
            insts,
            barriers,
            named,
            waits: Vec::new(),
            last_target: HashMap::new(),
            data_bars,
            flagged,
            reported: false,
            accesses: Accesses::default(),
            peer_ops: Vec::new(),
        })
    }

    /// Advances instance `i`'s own clock; returns its new value.
    fn tick(&mut self, i: usize) -> u32 {
        self.insts.get_mut(i).map_or(0, |inst| inst.clock.tick(i).time)
    }

    /// Runs until every instance finished (true) or none can move (false).
    fn run(&mut self) -> bool {
        loop {
            let mut progress = false;
            for i in 0..self.insts.len() {
                while self.step(i) {
                    progress = true;
                }
            }
            if self.insts.iter().all(|i| i.done) {
                return true;
            }
            if !progress {
                return false;
            }
        }
    }

    /// Performs instance `i`'s next event if it can; false if it is blocked or done.
    fn step(&mut self, i: usize) -> bool {
        let Some(inst) = self.insts.get(i) else { return false };
        if inst.done {
            return false;
        }
        let Some(&event) = inst.event() else {
            if let Some(inst) = self.insts.get_mut(i) {
                inst.done = true;
            }
            return true;
        };
        let started = inst.started;
        let passed = match event.kind {
            EventKind::Wait { bar, index, parity } => self.wait(i, event.site, started, bar, index, parity),
            EventKind::Arrive { bar, index, tx } => {
                self.tick(i);
                let clock = self.insts.get(i).map(|x| x.clock.clone()).unwrap_or_default();
                self.note_peer_op(i, event.site, bar, &clock);
                if let Some(barrier) = self.barriers.get_mut(bar).and_then(|s| s.get_mut(index)) {
                    barrier.arrive(i, event.site, event.visit, &clock, tx);
                }
                true
            }
            EventKind::Tma { bar, index, bytes } => {
                self.tick(i);
                let clock = self.insts.get(i).map(|x| x.clock.clone()).unwrap_or_default();
                self.note_peer_op(i, event.site, bar, &clock);
                if let Some(barrier) = self.barriers.get_mut(bar).and_then(|s| s.get_mut(index)) {
                    barrier.load(i, event.site, &clock, bytes);
                }
                true
            }
            EventKind::Sync { named } => self.named(i, event.site, named, started, true),
            EventKind::NamedArrive { named } => self.named(i, event.site, named, None, false),
            EventKind::Access { at, write, pending } => {
                self.access(i, event.site, at, write, pending);
                true
            }
            EventKind::Complete { id } => {
                self.complete(i, id);
                true
            }
        };
        if passed && let Some(inst) = self.insts.get_mut(i) {
            inst.pc += 1;
            inst.started = None;
        }
        passed
    }

    /// Instance `i` waits on stage `index` of `bar` for `parity`: whether the wait passes now.
    fn wait(&mut self, i: usize, site: usize, started: Option<usize>, bar: usize, index: usize, parity: u8) -> bool {
        let record = match started {
            Some(r) => r,
            None => {
                let stamp = self.tick(i);
                let last = self.last_target.get(&(i, bar, index)).copied();
                let target = match last {
                    None if parity == 1 => -1,
                    None => 0,
                    Some(t) if (t.rem_euclid(2) as u8) == parity => t + 2,
                    Some(t) => t + 1,
                };
                self.last_target.insert((i, bar, index), target);
                self.waits.push(WaitRec { inst: i, stamp, bar, index, target, site, parity, first: last.is_none() });
                let r = self.waits.len() - 1;
                if let Some(inst) = self.insts.get_mut(i) {
                    inst.started = Some(r);
                }
                if target == -1 && self.data_bars.get(bar).copied().unwrap_or(false) {
                    self.report_vacuous(r);
                }
                r
            }
        };
        let Some(barrier) = self.barriers.get(bar).and_then(|s| s.get(index)) else { return false };
        if !barrier.passes(parity) {
            return false;
        }
        let observed = barrier.completed() as i64 - 1;
        let seen = barrier.seen.clone();
        if let Some(inst) = self.insts.get_mut(i) {
            inst.clock.join(&seen);
        }
        let Some(target) = self.waits.get(record).map(|w| w.target) else { return true };
        if observed < target {
            self.report_stale(record, observed);
        }
        true
    }

    /// Instance `i` syncs (`sync`) or arrives on named barrier `n`: whether it may go on.
    fn named(&mut self, i: usize, site: usize, n: usize, started: Option<usize>, sync: bool) -> bool {
        if let Some(generation) = started {
            let Some(state) = self.named.get(n) else { return false };
            if state.generation() <= generation {
                return false;
            }
            let clock = state.done.get(generation).cloned().unwrap_or_default();
            if let Some(inst) = self.insts.get_mut(i) {
                inst.clock.join(&clock);
            }
            return true;
        }
        self.tick(i);
        let threads = self
            .an
            .model
            .roles
            .get(self.insts.get(i).map_or(0, |x| x.trace.role))
            .map_or(32, |r| i128::from(r.warps_per_instance) * 32);
        let clock = self.insts.get(i).map(|x| x.clock.clone()).unwrap_or_default();
        let Some(state) = self.named.get_mut(n) else { return false };
        // After a `bar.arrive`, the instance may use the barrier again only once it knows the
        // use that arrive joined has completed; otherwise, in some schedule, both count
        // toward one use.
        if let Some(&(g, first)) = state.arrived_in.get(&i) {
            let known = state.done.get(g).is_some_and(|done| clock.dominates(done));
            if !known {
                self.report_named_twice(i, n, first, site);
            }
        }
        let Some(state) = self.named.get_mut(n) else { return false };
        let generation = state.generation();
        if sync {
            state.arrived_in.remove(&i);
        } else {
            state.arrived_in.insert(i, (generation, site));
        }
        state.arrive(i, site, threads, &clock);
        if !sync {
            return true;
        }
        if let Some(inst) = self.insts.get_mut(i) {
            inst.started = Some(generation);
        }
        self.named(i, site, n, Some(generation), true)
    }

    // ---- reporting helpers ----

    /// How instance `i` reads in messages.
    fn who(&self, i: usize) -> String {
        self.insts.get(i).map_or_else(
            || "a role".into(),
            |x| who(self.an.model, x.trace.role, x.trace.instance, (self.an.table.ranks > 1).then_some(x.trace.rank)),
        )
    }

    /// How site `site` reads in messages.
    fn cite(&self, site: usize) -> String {
        self.an.sites.borrow().cite(site)
    }

    /// The span of site `site`.
    fn loc(&self, site: usize) -> Option<crate::errors::Loc> {
        self.an.sites.borrow().loc(site)
    }

    /// " (in a run where the loops make 5 iterations and `args.flag` is true)", or nothing
    /// when the text decides the run.
    fn scenario(&self) -> String {
        let mut parts = Vec::new();
        for (size, x) in &self.scen.sizes {
            parts.push(format!("`{size}` is {x}"));
        }
        if self.insts.iter().any(|x| x.trace.sized) {
            let every = if self.scen.sizes.is_empty() { "every" } else { "every other" };
            parts.push(match self.scen.v {
                1 => format!("the checker takes {every} run-time size as 1 (loops over them make 1 iteration)"),
                v => format!("the checker takes {every} run-time size as {v} (loops over them make {v} iterations)"),
            });
        }
        let mut choices: Vec<_> = self.scen.choices.iter().collect();
        choices.sort();
        for (key, &c) in choices.into_iter().take(3) {
            let key: String = key.chars().take(50).collect();
            parts.push(format!(
                "`{key}` is {}",
                if c == 1 {
                    "true".to_string()
                } else if c == 0 {
                    "false".to_string()
                } else {
                    format!("arm {}", c + 1)
                }
            ));
        }
        if parts.is_empty() {
            return String::new();
        }
        format!(" (in a run where {})", parts.join(" and "))
    }

    /// Records a finding about `bars`, unless one was already made about them.
    fn global(&mut self, key: String, loc: crate::errors::Loc, message: String, bars: &[usize]) {
        if bars.iter().any(|&b| self.flagged(b)) {
            return;
        }
        if self.an.findings.borrow_mut().global(key, loc, message, bars) {
            for &b in bars {
                if let Some(f) = self.flagged.get_mut(b) {
                    *f = true;
                }
            }
        }
    }

    /// Shows site `site` with `label` beside the finding recorded under `key`.
    fn relate(&self, key: &str, site: usize, label: String) {
        self.an.findings.borrow_mut().relate(key, self.loc(site), label);
    }

    /// Whether something was reported about `bar`.
    fn flagged(&self, bar: usize) -> bool {
        self.flagged.get(bar).copied().unwrap_or(false)
    }

    /// Instances of the roles declared to arrive on `bar`.
    fn arrivers(&self, bar: usize) -> Vec<usize> {
        let roles = self.an.table.bars.get(bar).map(|b| b.arrivers.clone()).unwrap_or_default();
        (0..self.insts.len()).filter(|&i| self.insts.get(i).is_some_and(|x| roles.contains(&x.trace.role))).collect()
    }

    /// Instances of the roles declared to use named barrier `n`.
    fn named_members(&self, n: usize) -> Vec<usize> {
        let roles = self.an.table.named.get(n).map(|b| b.roles.clone()).unwrap_or_default();
        (0..self.insts.len()).filter(|&i| self.insts.get(i).is_some_and(|x| roles.contains(&x.trace.role))).collect()
    }

    /// How the count of `bar` was set, for messages.
    fn count_text(&self, bar: usize) -> String {
        match self.an.table.bars.get(bar) {
            Some(b) => match &b.declared {
                Some((_, text)) => text.clone(),
                None => b.derived.clone(),
            },
            None => String::new(),
        }
    }

    // ---- findings during the run ----

    /// Reports a wait that passed on a phase its instance had already seen.
    fn report_stale(&mut self, record: usize, observed: i64) {
        let Some(w) = self.waits.get(record) else { return };
        let (bar, site, parity, inst) = (w.bar, w.site, w.parity, w.inst);
        let Some(loc) = self.loc(site) else { return };
        let slot = self.an.table.slot(bar, w.index);
        // The same wait has flipped its parity before: the position was reset (a persistent
        // loop that starts each tile over at parity 0), not left unflipped.
        let reset = self.waits.iter().any(|x| x.inst == inst && x.site == site && x.parity != parity);
        // A wait on one stage of a barrier of several, while the arrivals move on through the
        // stages: the stage index was computed once (a pointer to the first stage kept).
        let stages = self.an.table.bars.get(bar).and_then(|b| b.len).unwrap_or(1);
        let same_stage = self.waits.iter().filter(|x| x.inst == inst && x.site == site).all(|x| x.index == w.index);
        let others_arrived =
            self.barriers.get(bar).is_some_and(|st| st.iter().enumerate().any(|(x, st)| x != w.index && st.ever > 0));
        let fix = if stages > 1 && same_stage && others_arrived {
            format!(
                "this wait always uses stage {} of the barrier's {stages}, while the arrivals move through the stages: wait on the stage of the current round (its index computed every iteration), with that stage's parity",
                w.index
            )
        } else if reset {
            "this wait flips its parity, but its position starts over (e.g. `phase` reset for each persistent tile) while the barrier's phases go on: carry the ring position (the stage index and its parity) across the tiles instead of resetting it".to_string()
        } else {
            "flip the parity after every wait on the barrier (`phase ^= 1`)".to_string()
        };
        let message = format!(
            "{} waits on {slot} for parity {parity} again, but the barrier has completed no phase since its previous wait saw phase {observed}: the wait passes at once on that old phase instead of waiting for the next one{}; {fix}",
            self.who(inst),
            self.scenario()
        );
        self.reported = true;
        self.global(format!("stale:{site}"), loc, message, &[bar]);
    }

    /// Reports a first wait for parity 1 on a barrier that TMA loads complete.
    fn report_vacuous(&mut self, record: usize) {
        let Some(w) = self.waits.get(record) else { return };
        let (bar, index, site, inst) = (w.bar, w.index, w.site, w.inst);
        let Some(loc) = self.loc(site) else { return };
        let tma_site = self
            .insts
            .iter()
            .flat_map(|x| x.trace.events.iter())
            .find(|e| matches!(e.kind, EventKind::Tma { bar: b, .. } if b == bar))
            .map(|e| e.site);
        let tma = tma_site.map(|s| self.cite(s)).unwrap_or_default();
        let message = format!(
            "{}'s first wait on {} is for parity 1, which passes at once on a fresh barrier (the phase before the first counts as complete), before the TMA bytes copied onto it ({tma}) have landed; wait for parity 0 first (parity 1 is for waiting on buffers that start free)",
            self.who(inst),
            self.an.table.slot(bar, index)
        );
        self.reported = true;
        let key = format!("vacuous:{site}");
        self.global(key.clone(), loc, message, &[bar]);
        if let Some(t) = tma_site {
            self.relate(&key, t, "the TMA load whose bytes complete that phase".into());
        }
    }

    /// Reports an instance using a named barrier again before it can know that the use its
    /// previous `bar.arrive` joined has completed.
    fn report_named_twice(&mut self, i: usize, n: usize, first: usize, site: usize) {
        let Some(loc) = self.loc(site) else { return };
        let Some(nb) = self.an.table.named.get(n) else { return };
        let message = format!(
            "{} uses named barrier `{}` again at {} before anything tells it that the use its `bar.arrive` at {} joined has completed: `bar.arrive` counts threads, so in some schedule both count toward one use, which then completes without the other roles' threads{}; between the two, wait for something that follows the other threads' arrival (sync on the barrier, or wait on one they arrive on after it)",
            self.who(i),
            nb.name,
            self.cite(site),
            self.cite(first),
            self.scenario(),
        );
        self.reported = true;
        let key = format!("named-twice:{n}:{site}");
        self.an.findings.borrow_mut().global(key.clone(), loc, message, &[]);
        self.relate(&key, first, format!("{}'s earlier `bar.arrive`, whose use may not have completed", self.who(i)));
    }

    // ---- findings after the run ----

    /// Too many arrivals per phase: sibling instances of one role arrive at the same point
    /// of their programs, independently of each other, yet land in different phases.
    fn report_arrival_counts(&mut self) {
        for bar in 0..self.barriers.len() {
            // The first arrival at each (stage, site, visit): its phase, instance and clock.
            let mut first: HashMap<(usize, usize, u32), FirstArrival> = HashMap::new();
            let mut over = None;
            let phases: Vec<(usize, Vec<Arrival>)> = self.barriers.get(bar).map_or_else(Vec::new, |stages| {
                stages
                    .iter()
                    .enumerate()
                    .flat_map(|(index, s)| s.phases.iter().map(move |(_, a)| (index, a.clone())))
                    .collect()
            });
            for (phase_no, (index, arrivals)) in phases.iter().enumerate() {
                for (i, site, visit, clock) in arrivals {
                    let role = self.insts.get(*i).map_or(0, |x| x.trace.role);
                    match first.get(&(*index, *site, *visit)) {
                        Some((p, j, other))
                            if *p != phase_no
                                && j != i
                                && self.insts.get(*j).is_some_and(|x| x.trace.role == role)
                                && VectorClock::concurrent(*j, other, *i, clock) =>
                        {
                            over.get_or_insert((*site, role));
                        }
                        Some(_) => {}
                        None => {
                            first.insert((*index, *site, *visit), (phase_no, *i, clock.clone()));
                        }
                    }
                }
            }
            if let Some((site, role)) = over {
                if self.an.table.ranks > 1 {
                    self.report_cluster_arrivals(bar, site, role, &phases);
                    continue;
                }
                let n = self.insts.iter().filter(|x| x.trace.role == role).count();
                let b = self.an.table.bars.get(bar);
                let count = b.and_then(|b| b.count).unwrap_or(0);
                let loc = b.and_then(|b| b.declared.as_ref().map(|(l, _)| *l)).or_else(|| self.loc(site));
                let Some(loc) = loc else { continue };
                let message = format!(
                    "too many arrivals per phase on {}: each of the {n} instances of {} arrives at {} once per round, but a phase completes after {count} ({}), so the phase completes before they all arrived and the rest spill into the next phase; count every instance's arrival (`{} = {n}`) or arrive from one instance (`if cx.instance() == 0 {{ .. }}`)",
                    self.an.table.bar(bar),
                    role_name(self.an.model, role),
                    self.cite(site),
                    self.count_text(bar),
                    b.map_or("count", |b| b.key),
                );
                let key = format!("over:{bar}");
                self.global(key.clone(), loc, message, &[bar]);
                self.relate(&key, site, format!("each instance of {} arrives here", role_name(self.an.model, role)));
            }
        }
    }

    /// A phase that can complete before a waiter of the phase before it has looked.
    fn report_lapped(&mut self) {
        let mut found = Vec::new();
        for w in &self.waits {
            if self.flagged(w.bar) {
                continue;
            }
            let Ok(next) = usize::try_from(w.target + 1) else { continue };
            let Some(barrier) = self.barriers.get(w.bar).and_then(|s| s.get(w.index)) else { continue };
            let Some((clock, arrivals)) = barrier.phases.get(next) else { continue };
            if clock.get(w.inst) >= w.stamp {
                continue;
            }
            if let Some((a, site, _, _)) = arrivals.first() {
                found.push((w.bar, w.index, w.inst, w.site, w.target, *a, *site, next));
            }
        }
        for (bar, index, inst, wait_site, target, arriver, site, next) in found {
            if self.flagged(bar) {
                continue;
            }
            let Some(loc) = self.loc(site) else { continue };
            let seen = if target < 0 { "the barrier's initial state".to_string() } else { format!("phase {target}") };
            let message = format!(
                "lapped phase on {}: {} arrives at {} for phase {next} without having waited for anything that follows {}'s wait at {} (for {seen}), so phase {next} can complete before that wait has looked; the barrier then shows the wrong parity and the waiter hangs or passes early{}; make this arrive wait for the waiter first (e.g. on a barrier the waiter arrives on after its wait)",
                self.an.table.slot(bar, index),
                self.who(arriver),
                self.cite(site),
                self.who(inst),
                self.cite(wait_site),
                self.scenario()
            );
            let key = format!("lapped:{bar}:{site}");
            self.global(key.clone(), loc, message, &[bar]);
            self.relate(&key, wait_site, format!("{}'s wait, which may not have looked yet", self.who(inst)));
        }
    }

    /// Transaction bytes left over when every instance finished.
    fn report_leftover_bytes(&mut self) {
        let mut found = Vec::new();
        for (bar, stages) in self.barriers.iter().enumerate() {
            for (index, s) in stages.iter().enumerate() {
                if s.pending_tx() != 0 && !(s.tmas.is_empty() && s.expects.is_empty()) {
                    found.push((bar, index, s.pending_tx(), s.tmas.clone(), s.expects.clone()));
                }
            }
        }
        for (bar, index, tx, tmas, expects) in found {
            self.report_bytes(bar, index, tx, &tmas, &expects);
        }
    }

    /// Reports transaction bytes that do not balance on stage `index` of `bar`.
    fn report_bytes(
        &mut self,
        bar: usize,
        index: usize,
        tx: i128,
        tmas: &[(usize, usize, i128)],
        expects: &[(usize, usize, i128)],
    ) {
        let expected = expects.iter().fold(0i128, |t, e| t.saturating_add(e.2));
        let copied = tmas.iter().fold(0i128, |t, e| t.saturating_add(e.2));
        let site = expects.first().or(tmas.first()).map(|e| e.1);
        let Some(loc) = site.and_then(|s| self.loc(s)) else { return };
        let loads: Vec<String> = tmas.iter().map(|&(_, s, b)| format!("{} {b} B", self.cite(s))).collect();
        let expecting: Vec<String> = expects.iter().map(|&(_, s, b)| format!("{} {b} B", self.cite(s))).collect();
        let effect = if tx > 0 {
            "the phase waits for bytes that never come"
        } else {
            "the extra bytes complete on a phase that does not expect them"
        };
        let peer = if tx > 0 { self.peer_multicasts(bar, index) } else { Vec::new() };
        let fix = match peer.first() {
            Some(&(_, site, _)) => {
                let missing: Vec<String> = peer
                    .iter()
                    .map(|&(i, s, b)| format!("{} copies {b} B at {} onto its own CTA only", self.who(i), self.cite(s)))
                    .collect();
                let own = self.an.table.bars.get(bar).and_then(|b| b.rank).unwrap_or(0);
                let all = (1u32 << self.an.table.ranks.min(16)) - 1;
                let reason = format!(
                    "in the cluster, {}, so the bytes it would multicast to CTA rank {own} never come; name CTA rank {own} in the mask of that multicast (every CTA of the cluster: `{all:#b}`), so each CTA receives its peers' share of the stage",
                    missing.join(", ")
                );
                Some((site, reason))
            }
            None => None,
        };
        let message = format!(
            "transaction bytes do not balance on {}: its arrivals expect {expected} ({}) but the TMA loads onto it copy {copied} ({}), so {effect}{}; {}",
            self.an.table.slot(bar, index),
            if expecting.is_empty() { "none".into() } else { expecting.join(", ") },
            if loads.is_empty() { "none".into() } else { loads.join(", ") },
            self.scenario(),
            fix.as_ref().map_or("expect exactly the bytes of the tiles copied onto the barrier", |(_, r)| r.as_str()),
        );
        let (key, loc) = match fix {
            Some((site, _)) => {
                (format!("bytes:{}", bar % self.an.table.bars_per_cta.max(1)), self.loc(site).unwrap_or(loc))
            }
            None => (format!("bytes:{bar}"), loc),
        };
        self.global(key, loc, message, &[bar]);
    }

    /// Threads declared per use of each named barrier vs the threads that use it. Fewer
    /// threads than declared matter only in a run that did not finish (a `bar.sync` waited
    /// for them); when instances of its roles never reach the barrier in the run, the fix is
    /// to reach it, not to change `threads`.
    fn report_named_threads(&mut self, finished: bool) {
        for (n, nb) in self.an.table.named.iter().enumerate() {
            let members: Vec<usize> = (0..self.insts.len())
                .filter(|&i| {
                    self.insts.get(i).is_some_and(|x| {
                        x.trace.events.iter().any(|e| matches!(e.kind, EventKind::Sync { named } | EventKind::NamedArrive { named } if named == n))
                    })
                })
                .collect();
            if members.is_empty() {
                continue;
            }
            let model = self.an.model;
            let threads_of = |i: usize| {
                self.insts
                    .get(i)
                    .and_then(|x| model.roles.get(x.trace.role))
                    .map_or(32, |r| i128::from(r.warps_per_instance) * 32)
            };
            let total = members.iter().fold(0i128, |t, &i| t.saturating_add(threads_of(i)));
            let Some(declared) = nb.threads else { continue };
            if declared == total || (declared > total && finished) {
                continue;
            }
            let list: Vec<String> = members.iter().map(|&i| format!("{} ({})", self.who(i), threads_of(i))).collect();
            let (loc, how) = match nb.threads_decl {
                Some(l) => (l, format!("`threads = {declared}`")),
                None => (nb.decl, format!("{declared}, the threads of its roles {}", role_list(model, &nb.roles))),
            };
            let absent: Vec<String> =
                self.named_members(n).into_iter().filter(|i| !members.contains(i)).map(|i| self.who(i)).collect();
            let message = if declared > total && !absent.is_empty() {
                format!(
                    "named barrier `{}` counts {how} per use, but {} never reach{} it{}, so a use has only the threads of {} and a `bar.sync` on it never completes; make every instance of {} reach the barrier as often as the others (or leave the roles that do not use it out of `roles`)",
                    nb.name,
                    absent.join(", "),
                    if absent.len() == 1 { "es" } else { "" },
                    self.scenario(),
                    list.join(", "),
                    role_list(model, &nb.roles),
                )
            } else {
                let fix = if nb.threads_decl.is_some() {
                    format!("declare `threads = {total}`")
                } else {
                    format!("declare `threads = {total}`, or list only the roles that use it")
                };
                format!(
                    "named barrier `{}` counts {how} per use, but the instances that sync or arrive on it have {total}: {}; `bar.sync` waits for exactly the declared threads, so it {}; {fix}",
                    nb.name,
                    list.join(", "),
                    if declared > total { "never completes" } else { "completes before every thread has arrived" }
                )
            };
            self.an.findings.borrow_mut().global(format!("named-threads:{n}"), loc, message, &[]);
        }
    }
}
