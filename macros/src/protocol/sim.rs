//! The whole-kernel simulation: every role instance's trace run together on Hopper
//! `mbarrier` and named-barrier semantics (as the emulator runs them), with vector clocks
//! for what each instance can know of the others.
//!
//! It finds what no single role decides: waits nothing will satisfy (a cycle of waits, a
//! phase nothing arrives on, an arrive skipped on some path, too few arrivals per phase,
//! transaction bytes that never balance), too many arrivals per phase, waits that pass on
//! a phase they already saw or before data lands, and lapped phases: a phase that can
//! complete before a waiter of the previous phase has looked.

use std::collections::HashMap;

use super::Analysis;
use super::interp::{Event, EventKind, Scenario, Signal, Trace};
use super::report::{role_name, who};
use super::table::role_list;

/// An arrival in a phase: instance, site, visit, and the instance's clock.
type Arrival = (usize, usize, u32, Vec<u32>);

/// The phase, instance and clock of an arrival.
type FirstArrival = (usize, usize, Vec<u32>);

/// One mbarrier.
struct Slot {
    /// Arrivals that complete a phase.
    count: i128,
    /// Arrivals the current phase still needs.
    pending: i128,
    /// Transaction bytes expected but not yet copied (negative: copied before expected).
    tx: i128,
    /// Phases completed.
    completed: usize,
    /// The current phase: arrivals, TMA loads (instance, site, bytes) and arrivals that
    /// expected bytes (instance, site, bytes).
    arrivals: Vec<Arrival>,
    /// TMA loads of the current phase: instance, site, bytes.
    tmas: Vec<(usize, usize, i128)>,
    /// Arrivals of the current phase that expected bytes: instance, site, bytes.
    expects: Vec<(usize, usize, i128)>,
    /// Join of the clocks of the current phase's arrivals and loads.
    clock: Vec<u32>,
    /// Each completed phase: its clock and arrivals.
    phases: Vec<(Vec<u32>, Vec<Arrival>)>,
    /// Join of all completed phases' clocks.
    seen: Vec<u32>,
    /// Arrivals ever.
    ever: usize,
}

impl Slot {
    /// A fresh barrier completing a phase after `count` arrivals, for `n` instances.
    fn new(count: i128, n: usize) -> Self {
        Self {
            count,
            pending: count,
            tx: 0,
            completed: 0,
            arrivals: Vec::new(),
            tmas: Vec::new(),
            expects: Vec::new(),
            clock: vec![0; n],
            phases: Vec::new(),
            seen: vec![0; n],
            ever: 0,
        }
    }

    /// Completes the phase if every arrival and byte is in.
    fn try_complete(&mut self) {
        if self.pending <= 0 && self.tx == 0 {
            let clock = std::mem::replace(&mut self.clock, vec![0; self.seen.len()]);
            join(&mut self.seen, &clock);
            self.phases.push((clock, std::mem::take(&mut self.arrivals)));
            self.tmas.clear();
            self.expects.clear();
            self.completed += 1;
            self.pending = self.count;
        }
    }

    /// Whether a wait for `parity` passes (`mbarrier.try_wait.parity`).
    fn passes(&self, parity: u8) -> bool {
        (self.completed & 1) as u8 != parity & 1
    }
}

/// One named barrier.
struct NamedState {
    /// Threads per use.
    threads: i128,
    /// Threads arrived in the current use.
    arrived: i128,
    /// Uses completed.
    generation: u64,
    /// Join of the clocks of the current use's arrivals.
    clock: Vec<u32>,
    /// Instances that arrived in this generation, with the site.
    members: Vec<(usize, usize)>,
    /// Clock of each completed generation.
    done: Vec<Vec<u32>>,
    /// The use each instance last joined with a `bar.arrive` (not yet followed by a sync),
    /// and that arrive's site.
    arrived_in: HashMap<usize, (usize, usize)>,
}

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
    clock: Vec<u32>,
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
    sim.report_named_threads();
    // What the run itself found usually explains what follows from it.
    if sim.reported {
        return;
    }
    sim.report_arrival_counts();
    sim.report_lapped();
    if finished {
        sim.report_leftover_bytes();
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
    slots: Vec<Vec<Slot>>,
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
}

impl<'s, 'a> Sim<'s, 'a> {
    /// A simulation of `traces`, or `None` if a count or length is not known.
    fn new(an: &'s Analysis<'a>, scen: &'s Scenario, traces: &'s [Trace]) -> Option<Self> {
        let n = traces.len();
        let mut slots = Vec::new();
        for bar in &an.table.bars {
            let (len, count) = (bar.len?, bar.count?);
            if count <= 0 || len > 64 {
                return None;
            }
            slots.push((0..len).map(|_| Slot::new(count, n)).collect());
        }
        let mut named = Vec::new();
        for nb in &an.table.named {
            named.push(NamedState {
                threads: nb.threads?,
                arrived: 0,
                generation: 0,
                clock: vec![0; n],
                members: Vec::new(),
                done: Vec::new(),
                arrived_in: HashMap::new(),
            });
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
        let insts =
            traces.iter().map(|trace| Inst { trace, pc: 0, clock: vec![0; n], started: None, done: false }).collect();
        let flagged = vec![false; an.table.bars.len()];
        Some(Self {
            an,
            scen,
            insts,
            slots,
            named,
            waits: Vec::new(),
            last_target: HashMap::new(),
            data_bars,
            flagged,
            reported: false,
        })
    }

    /// Advances instance `i`'s own clock; returns its new value.
    fn tick(&mut self, i: usize) -> u32 {
        let Some(inst) = self.insts.get_mut(i) else { return 0 };
        let Some(c) = inst.clock.get_mut(i) else { return 0 };
        *c += 1;
        *c
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
                if let Some(slot) = self.slots.get_mut(bar).and_then(|s| s.get_mut(index)) {
                    slot.tx = slot.tx.saturating_add(tx);
                    slot.pending = (slot.pending - 1).max(0);
                    slot.ever += 1;
                    slot.arrivals.push((i, event.site, event.visit, clock.clone()));
                    if tx != 0 {
                        slot.expects.push((i, event.site, tx));
                    }
                    join(&mut slot.clock, &clock);
                    slot.try_complete();
                }
                true
            }
            EventKind::Tma { bar, index, bytes } => {
                self.tick(i);
                let clock = self.insts.get(i).map(|x| x.clock.clone()).unwrap_or_default();
                if let Some(slot) = self.slots.get_mut(bar).and_then(|s| s.get_mut(index)) {
                    slot.tx = slot.tx.saturating_sub(bytes);
                    slot.tmas.push((i, event.site, bytes));
                    join(&mut slot.clock, &clock);
                    slot.try_complete();
                }
                true
            }
            EventKind::Sync { named } => self.named(i, event.site, named, started, true),
            EventKind::NamedArrive { named } => self.named(i, event.site, named, None, false),
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
        let Some(slot) = self.slots.get(bar).and_then(|s| s.get(index)) else { return false };
        if !slot.passes(parity) {
            return false;
        }
        let observed = slot.completed as i64 - 1;
        let seen = slot.seen.clone();
        if let Some(inst) = self.insts.get_mut(i) {
            join(&mut inst.clock, &seen);
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
            if state.generation as usize <= generation {
                return false;
            }
            let clock = state.done.get(generation).cloned().unwrap_or_default();
            if let Some(inst) = self.insts.get_mut(i) {
                join(&mut inst.clock, &clock);
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
            let known = state.done.get(g).is_some_and(|done| dominates(&clock, done));
            if !known {
                self.report_named_twice(i, n, first, site);
            }
        }
        let Some(state) = self.named.get_mut(n) else { return false };
        let generation = state.generation as usize;
        if sync {
            state.arrived_in.remove(&i);
        } else {
            state.arrived_in.insert(i, (generation, site));
        }
        state.arrived = state.arrived.saturating_add(threads);
        state.members.push((i, site));
        join(&mut state.clock, &clock);
        if state.arrived >= state.threads {
            let clock = std::mem::replace(&mut state.clock, vec![0; clock.len()]);
            state.done.push(clock);
            state.arrived = 0;
            state.members.clear();
            state.generation += 1;
        }
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
        self.insts.get(i).map_or_else(|| "a role".into(), |x| who(self.an.model, x.trace.role, x.trace.instance))
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
        if self.insts.iter().any(|x| x.trace.sized) {
            parts.push(match self.scen.v {
                1 => "the loops whose trip count is not in the text make 1 iteration".to_string(),
                v => format!("the loops whose trip count is not in the text make {v} iterations"),
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
        let message = format!(
            "{} waits on {slot} for parity {parity} again, but the barrier has completed no phase since its previous wait saw phase {observed}: the wait passes at once on that old phase instead of waiting for the next one{}; flip the parity after every wait on the barrier (`phase ^= 1`)",
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
        let tma = self
            .insts
            .iter()
            .flat_map(|x| x.trace.events.iter())
            .find(|e| matches!(e.kind, EventKind::Tma { bar: b, .. } if b == bar))
            .map(|e| self.cite(e.site))
            .unwrap_or_default();
        let message = format!(
            "{}'s first wait on {} is for parity 1, which passes at once on a fresh barrier (the phase before the first counts as complete), before the TMA bytes copied onto it ({tma}) have landed; wait for parity 0 first (parity 1 is for waiting on buffers that start free)",
            self.who(inst),
            self.an.table.slot(bar, index)
        );
        self.reported = true;
        self.global(format!("vacuous:{site}"), loc, message, &[bar]);
    }

    /// Reports an instance using a named barrier again before it can know that the use its
    /// previous `bar.arrive` joined has completed.
    fn report_named_twice(&mut self, i: usize, n: usize, first: usize, site: usize) {
        let Some(loc) = self.loc(site) else { return };
        let Some(nb) = self.an.table.named.get(n) else { return };
        let message = format!(
            "{} uses named barrier `{}` again at {} before anything tells it that the use its `bar.arrive` at {} joined has completed: `bar.arrive` counts threads, so in some schedule both count toward one use, which then completes without the other roles' threads; between the two, wait for something that follows the other threads' arrival (sync on the barrier, or wait on one they arrive on after it)",
            self.who(i),
            nb.name,
            self.cite(site),
            self.cite(first),
        );
        self.reported = true;
        self.an.findings.borrow_mut().global(format!("named-twice:{n}:{site}"), loc, message, &[]);
    }

    // ---- findings after the run ----

    /// Too many arrivals per phase: sibling instances of one role arrive at the same point
    /// of their programs, independently of each other, yet land in different phases.
    fn report_arrival_counts(&mut self) {
        for bar in 0..self.slots.len() {
            // The first arrival at each (stage, site, visit): its phase, instance and clock.
            let mut first: HashMap<(usize, usize, u32), FirstArrival> = HashMap::new();
            let mut over = None;
            let phases: Vec<(usize, Vec<Arrival>)> = self.slots.get(bar).map_or_else(Vec::new, |slots| {
                slots
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
                                && concurrent(*j, other, *i, clock) =>
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
                self.global(format!("over:{bar}"), loc, message, &[bar]);
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
            let Some(slot) = self.slots.get(w.bar).and_then(|s| s.get(w.index)) else { continue };
            let Some((clock, arrivals)) = slot.phases.get(next) else { continue };
            if clock.get(w.inst).copied().unwrap_or(0) >= w.stamp {
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
            self.global(format!("lapped:{bar}:{site}"), loc, message, &[bar]);
        }
    }

    /// Transaction bytes left over when every instance finished.
    fn report_leftover_bytes(&mut self) {
        let mut found = Vec::new();
        for (bar, slots) in self.slots.iter().enumerate() {
            for (index, s) in slots.iter().enumerate() {
                if s.tx != 0 && !(s.tmas.is_empty() && s.expects.is_empty()) {
                    found.push((bar, index, s.tx, s.tmas.clone(), s.expects.clone()));
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
        let message = format!(
            "transaction bytes do not balance on {}: its arrivals expect {expected} ({}) but the TMA loads onto it copy {copied} ({}), so {effect}{}; expect exactly the bytes of the tiles copied onto the barrier",
            self.an.table.slot(bar, index),
            if expecting.is_empty() { "none".into() } else { expecting.join(", ") },
            if loads.is_empty() { "none".into() } else { loads.join(", ") },
            self.scenario()
        );
        self.global(format!("bytes:{bar}"), loc, message, &[bar]);
    }

    /// Threads declared per use of each named barrier vs the threads that use it.
    fn report_named_threads(&mut self) {
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
            if declared == total {
                continue;
            }
            let list: Vec<String> = members.iter().map(|&i| format!("{} ({})", self.who(i), threads_of(i))).collect();
            let (loc, how) = match nb.threads_decl {
                Some(l) => (l, format!("`threads = {declared}`")),
                None => (nb.decl, format!("{declared}, the threads of its roles {}", role_list(model, &nb.roles))),
            };
            let fix = if nb.threads_decl.is_some() {
                format!("declare `threads = {total}`")
            } else {
                format!("declare `threads = {total}`, or list only the roles that use it")
            };
            let message = format!(
                "named barrier `{}` counts {how} per use, but the instances that sync or arrive on it have {total}: {}; `bar.sync` waits for exactly the declared threads, so it {}; {fix}",
                nb.name,
                list.join(", "),
                if declared > total { "never completes" } else { "completes before every thread has arrived" }
            );
            self.an.findings.borrow_mut().global(format!("named-threads:{n}"), loc, message, &[]);
        }
    }

    /// Explains why the blocked instances cannot move, once, at the most telling span.
    fn report_deadlock(&mut self) {
        let blocked: Vec<usize> =
            (0..self.insts.len()).filter(|&i| self.insts.get(i).is_some_and(|x| !x.done)).collect();
        // What each blocked instance waits for: a slot, or a named barrier.
        let mut waiting = Vec::new();
        for &i in &blocked {
            let Some(inst) = self.insts.get(i) else { continue };
            let Some(e) = inst.event() else { continue };
            match e.kind {
                EventKind::Wait { bar, index, parity } => {
                    let target = inst.started.and_then(|r| self.waits.get(r)).map_or(0, |w| w.target);
                    waiting.push((i, Block::Slot { bar, index, parity, target }, e.site));
                }
                EventKind::Sync { named } => waiting.push((i, Block::Named(named), e.site)),
                _ => {}
            }
        }
        // 1. Transaction bytes that can never balance.
        for &(_, block, _) in &waiting {
            if let Block::Slot { bar, index, .. } = block
                && let Some(s) = self.slots.get(bar).and_then(|s| s.get(index))
                && s.pending == 0
                && s.tx != 0
            {
                let (tx, tmas, expects) = (s.tx, s.tmas.clone(), s.expects.clone());
                return self.report_bytes(bar, index, tx, &tmas, &expects);
            }
        }
        // 2. An arrival skipped by an early return or by a condition.
        for &(i, block, site) in &waiting {
            let (signal, arrivers) = match block {
                Block::Slot { bar, .. } => (Signal::Bar(bar), self.arrivers(bar)),
                Block::Named(n) => (Signal::Named(n), self.named_members(n)),
            };
            let bars = block.bars();
            let what = self.describe(block);
            for &a in &arrivers {
                let Some(trace) = self.insts.get(a).map(|x| x.trace) else { continue };
                if let Some(exit) = trace.exit.filter(|_| self.insts.get(a).is_some_and(|x| x.done)) {
                    let message = format!(
                        "{} returns here before it arrives on {what}, but {} waits for that arrival at {} and never wakes{}; arrive before returning, or leave by the same path in every role",
                        self.who(a),
                        self.who(i),
                        self.cite(site),
                        self.scenario()
                    );
                    self.global(format!("exit:{}", exit.line()), exit, message, &bars);
                    return;
                }
                if let Some((d, skipped)) = trace
                    .decisions
                    .iter()
                    .find_map(|d| d.skipped.iter().find(|(s, _)| *s == signal).map(|(_, text)| (d, text)))
                {
                    let fix = if d.exits {
                        "arrive before leaving, or leave by the same path in every role"
                    } else {
                        "perform the arrive on every path (add an `else` that arrives, or move it out of the condition)"
                    };
                    let message = format!(
                        "when {}, this skips {skipped} of {}, but {} waits for it at {} on {what} and never wakes{}; {fix}",
                        d.what,
                        self.who(a),
                        self.who(i),
                        self.cite(site),
                        self.scenario()
                    );
                    self.global(format!("skip:{}", d.loc.line()), d.loc, message, &bars);
                    return;
                }
            }
        }
        // 3. A short phase that no instance still running will fill: every arriving
        // instance arrived in it, or those that did not have finished.
        for &(i, block, site) in &waiting {
            let Block::Slot { bar, index, .. } = block else { continue };
            let Some(s) = self.slots.get(bar).and_then(|s| s.get(index)) else { continue };
            let got = s.arrivals.len();
            let missing: Vec<usize> =
                self.arrivers(bar).into_iter().filter(|a| !s.arrivals.iter().any(|x| x.0 == *a)).collect();
            if got == 0 || s.pending <= 0 || missing.iter().any(|&a| self.insts.get(a).is_some_and(|x| !x.done)) {
                continue;
            }
            let list: Vec<String> =
                s.arrivals.iter().map(|a| format!("{} at {}", self.who(a.0), self.cite(a.1))).collect();
            let b = self.an.table.bars.get(bar);
            let declared = b.and_then(|b| b.declared.as_ref().map(|(l, _)| *l));
            let loc = declared.or_else(|| s.arrivals.first().and_then(|x| self.loc(x.1)));
            let Some(loc) = loc else { continue };
            let count = b.and_then(|b| b.count).unwrap_or(0);
            let key = b.map_or("count", |b| b.key);
            let (why, fix) = if missing.is_empty() {
                (
                    "every role that arrives on it has arrived".to_string(),
                    format!("declare `{key} = {got}`, or arrive from more instances"),
                )
            } else {
                let names: Vec<String> = missing.iter().map(|&a| self.who(a)).collect();
                (
                    format!("{} never arrive{} on it", names.join(", "), if names.len() == 1 { "s" } else { "" }),
                    format!("have every counted instance arrive, or declare `{key} = {got}`"),
                )
            };
            let message = format!(
                "too few arrivals per phase on {}: a phase needs {count} ({}), but {why} and the phase has {got} ({}); {} waits at {} forever{}; {fix}",
                self.an.table.slot(bar, index),
                self.count_text(bar),
                list.join(", "),
                self.who(i),
                self.cite(site),
                self.scenario()
            );
            self.global(format!("under:{bar}"), loc, message, &[bar]);
            return;
        }
        // 4. A cycle of waits.
        let succ = |sim: &Self, i: usize| -> Vec<usize> {
            let Some(&(_, block, _)) = waiting.iter().find(|w| w.0 == i) else { return Vec::new() };
            let candidates = match block {
                Block::Slot { bar, .. } => sim.arrivers(bar),
                Block::Named(n) => {
                    let members = sim.named.get(n).map(|s| s.members.clone()).unwrap_or_default();
                    sim.named_members(n).into_iter().filter(|m| !members.iter().any(|x| x.0 == *m)).collect()
                }
            };
            candidates.into_iter().filter(|c| blocked.contains(c)).collect()
        };
        for &(start, _, _) in &waiting {
            if let Some(cycle) = find_cycle(start, |i| succ(self, i)) {
                return self.report_cycle(&cycle, &waiting);
            }
        }
        // 5. Waits whose arrivers have all finished.
        if let Some(&(i, block, site)) = waiting.first() {
            self.report_starved(i, block, site);
        }
    }

    /// What a blocked instance waits for, in words.
    fn describe(&self, block: Block) -> String {
        match block {
            Block::Slot { bar, index, parity, target } => {
                let phase =
                    if target < 0 { "the phase before the first".to_string() } else { format!("phase {target}") };
                format!("{} ({phase}, parity {parity})", self.an.table.slot(bar, index))
            }
            Block::Named(n) => {
                let nb = self.an.table.named.get(n);
                format!("named barrier `{}`", nb.map_or("?", |b| b.name.as_str()))
            }
        }
    }

    /// Reports a cycle of waits.
    fn report_cycle(&mut self, cycle: &[usize], waiting: &[(usize, Block, usize)]) {
        let mut steps = Vec::new();
        let mut bars = Vec::new();
        let mut first_waits = 0;
        let mut span_site = None;
        let mut held = None;
        for &i in cycle {
            let Some(&(_, block, site)) = waiting.iter().find(|w| w.0 == i) else { continue };
            held = held.or_else(|| self.holding(i, block));
            let needs = match block {
                Block::Slot { bar, .. } => {
                    bars.push(bar);
                    let roles = self.an.table.bars.get(bar).map(|b| b.arrivers.clone()).unwrap_or_default();
                    role_list(self.an.model, &roles)
                }
                Block::Named(n) => {
                    let roles = self.an.table.named.get(n).map(|b| b.roles.clone()).unwrap_or_default();
                    role_list(self.an.model, &roles)
                }
            };
            let first =
                self.insts.get(i).and_then(|x| x.started).and_then(|r| self.waits.get(r)).is_some_and(|w| w.first);
            if let (Block::Slot { bar, target: 0, .. }, true) = (block, first) {
                first_waits += 1;
                if !self.data_bars.get(bar).copied().unwrap_or(false) && span_site.is_none() {
                    span_site = Some(site);
                }
            }
            steps.push(format!(
                "{} waits at {} for {}, which needs an arrival from {needs}",
                self.who(i),
                self.cite(site),
                self.describe(block)
            ));
        }
        let first_site = cycle.first().and_then(|i| waiting.iter().find(|w| w.0 == *i)).map(|w| w.2);
        let hint = if first_waits == cycle.len() {
            " Every wait in the cycle is its instance's first on that barrier, for parity 0: the side that waits for buffers to become free (an `empty` barrier) must start at parity 1, which passes at once on a fresh barrier."
                .to_string()
        } else if let Some((i, pipe, n, stages)) = held {
            format!(
                " {} already holds {n} slot(s) of `{pipe}`, whose ring has {stages} stage(s), and waits for another: it must hand one back before it can get more.",
                self.who(i)
            )
        } else {
            let stages = self.an.table.pipes.iter().filter_map(|p| p.stages).max().unwrap_or(1);
            if self.scen.v > i128::try_from(stages).unwrap_or(i128::MAX) {
                format!(
                    " The cycle needs more loop iterations ({}) than the rings have stages ({stages}): one role runs more than a ring's length ahead, or holds more slots than the ring has, before it hands any back.",
                    self.scen.v
                )
            } else {
                String::new()
            }
        };
        let site = if first_waits == cycle.len() { span_site.or(first_site) } else { first_site };
        let Some(loc) = site.and_then(|s| self.loc(s)) else { return };
        let message = format!("deadlock: {}; none can move{}.{hint}", steps.join("; "), self.scenario());
        self.global(
            format!("cycle:{}", bars.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",")),
            loc,
            message,
            &bars,
        );
    }

    /// Slots of a pipeline that instance `i`, blocked on `block`, holds when the ring has no
    /// more: (instance, pipeline, slots held, stages).
    fn holding(&self, i: usize, block: Block) -> Option<(usize, String, usize, usize)> {
        let Block::Slot { bar, .. } = block else { return None };
        let pipe = self.an.table.pipes.iter().find(|p| p.full == bar || p.empty == bar)?;
        let handed = if pipe.full == bar { pipe.empty } else { pipe.full };
        let inst = self.insts.get(i)?;
        let done = inst.trace.events.get(..inst.pc)?;
        let taken = done.iter().filter(|e| matches!(e.kind, EventKind::Wait { bar: b, .. } if b == bar)).count();
        let given = done.iter().filter(|e| matches!(e.kind, EventKind::Arrive { bar: b, .. } if b == handed)).count();
        let held = taken.saturating_sub(given);
        let stages = pipe.stages?;
        (held >= stages).then(|| (i, pipe.name.clone(), held, stages))
    }

    /// Reports a wait whose arrivers have all finished.
    fn report_starved(&mut self, i: usize, block: Block, site: usize) {
        let Some(loc) = self.loc(site) else { return };
        let what = self.describe(block);
        let message = match block {
            Block::Slot { bar, index, .. } => {
                let b = self.an.table.bars.get(bar);
                let arrivers = role_list(self.an.model, &b.map(|b| b.arrivers.clone()).unwrap_or_default());
                let slot = self.slots.get(bar).and_then(|s| s.get(index));
                let completed = slot.map_or(0, |s| s.completed);
                let others: Vec<usize> = self
                    .slots
                    .get(bar)
                    .map(|s| s.iter().enumerate().filter(|(_, s)| s.ever > 0).map(|(x, _)| x).collect())
                    .unwrap_or_default();
                let hint = if slot.is_some_and(|s| s.ever == 0) && !others.is_empty() {
                    format!(
                        "nothing ever arrives on {}: the arrivals go to index {}",
                        self.an.table.slot(bar, index),
                        others.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
                    )
                } else if b.is_some_and(|b| b.name.ends_with(".full") || b.name.ends_with(".empty")) {
                    "it waits for more slots than the other side hands over: make their loops agree".to_string()
                } else {
                    "it waits for one more phase than the roles complete: a wait on buffers that start free begins at parity 1 (the phase before the first counts as complete); otherwise arrive as often as it waits".to_string()
                };
                format!(
                    "{} waits at {} for {what}, but the roles that arrive on it ({arrivers}) finished after completing {completed} phase(s) of it, so it never wakes{}; {hint}",
                    self.who(i),
                    self.cite(site),
                    self.scenario()
                )
            }
            Block::Named(n) => {
                let nb = self.an.table.named.get(n);
                let arrived = self.named.get(n).map_or(0, |s| s.arrived);
                format!(
                    "{} waits at {} on {what}, which has {arrived} of its {} threads, and the roles that use it ({}) finished{}; every use needs all its threads (sync or arrive on it as often as the others do)",
                    self.who(i),
                    self.cite(site),
                    nb.and_then(|b| b.threads).unwrap_or(0),
                    role_list(self.an.model, &nb.map(|b| b.roles.clone()).unwrap_or_default()),
                    self.scenario()
                )
            }
        };
        self.global(format!("starved:{site}"), loc, message, &block.bars());
    }
}

/// What a blocked instance waits for.
#[derive(Clone, Copy)]
enum Block {
    /// A stage of an mbarrier.
    Slot {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// The parity waited for.
        parity: u8,
        /// The phase meant.
        target: i64,
    },
    /// A named barrier.
    Named(usize),
}

impl Block {
    /// The bars a block concerns.
    fn bars(self) -> Vec<usize> {
        match self {
            Block::Slot { bar, .. } => vec![bar],
            Block::Named(_) => Vec::new(),
        }
    }
}

/// A cycle through `start` in the graph `succ`, if there is one.
fn find_cycle(start: usize, succ: impl Fn(usize) -> Vec<usize>) -> Option<Vec<usize>> {
    let mut path = vec![start];
    let mut stack = vec![succ(start)];
    let mut visited = vec![start];
    while let Some(next) = stack.last_mut() {
        let Some(n) = next.pop() else {
            stack.pop();
            path.pop();
            continue;
        };
        if n == start {
            return Some(path);
        }
        if visited.contains(&n) || path.len() > 64 {
            continue;
        }
        visited.push(n);
        path.push(n);
        stack.push(succ(n));
    }
    None
}

/// Whether the arrivals of instance `i` (clock `a`) and `j` (clock `b`) are unordered.
fn concurrent(i: usize, a: &[u32], j: usize, b: &[u32]) -> bool {
    let knows = |x: &[u32], who: usize, y: &[u32]| x.get(who).copied().unwrap_or(0) >= y.get(who).copied().unwrap_or(1);
    !knows(b, i, a) && !knows(a, j, b)
}

/// Whether clock `a` has seen everything clock `b` has.
fn dominates(a: &[u32], b: &[u32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x >= y)
}

/// `into = max(into, other)` element-wise.
fn join(into: &mut [u32], other: &[u32]) {
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}
