//! Why the blocked instances of a replay that did not finish cannot move, explained once at
//! the most telling span: bytes that never balance, an arrival skipped on some path, a short
//! phase, a cycle of waits, or a wait whose arrivers all finished.

use super::super::interp::{EventKind, Signal};
use super::super::table::role_list;
use super::Sim;

impl Sim<'_, '_> {
    /// Explains why the blocked instances cannot move, once, at the most telling span.
    pub(super) fn report_deadlock(&mut self) {
        let blocked: Vec<usize> =
            (0..self.insts.len()).filter(|&i| self.insts.get(i).is_some_and(|x| !x.done)).collect();
        // What each blocked instance waits for: an mbarrier stage, or a named barrier.
        let mut waiting = Vec::new();
        for &i in &blocked {
            let Some(inst) = self.insts.get(i) else { continue };
            let Some(e) = inst.event() else { continue };
            match e.kind {
                EventKind::Wait { bar, index, parity } => {
                    let target = inst.started.and_then(|r| self.waits.get(r)).map_or(0, |w| w.target);
                    waiting.push((i, Block::Mbarrier { bar, index, parity, target }, e.site));
                }
                EventKind::Sync { named } => waiting.push((i, Block::Named(named), e.site)),
                _ => {}
            }
        }
        // 1. Transaction bytes that can never balance.
        for &(_, block, _) in &waiting {
            if let Block::Mbarrier { bar, index, .. } = block
                && let Some(s) = self.barriers.get(bar).and_then(|s| s.get(index))
                && s.pending_arrivals() == 0
                && s.pending_tx() != 0
            {
                let (tx, tmas, expects) = (s.pending_tx(), s.tmas.clone(), s.expects.clone());
                return self.report_bytes(bar, index, tx, &tmas, &expects);
            }
        }
        // 2. An arrival skipped by an early return or by a condition.
        for &(i, block, site) in &waiting {
            let (signal, arrivers) = match block {
                Block::Mbarrier { bar, .. } => (Signal::Bar(bar), self.arrivers(bar)),
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
                    let key = format!("exit:{}", exit.line());
                    self.global(key.clone(), exit, message, &bars);
                    self.relate(&key, site, format!("{} waits here for that arrival", self.who(i)));
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
                    let key = format!("skip:{}", d.loc.line());
                    self.global(key.clone(), d.loc, message, &bars);
                    self.relate(&key, site, format!("{} waits here for that arrival", self.who(i)));
                    return;
                }
            }
        }
        // 3. A short phase that no instance still running will fill: every arriving
        // instance arrived in it, or those that did not have finished.
        for &(i, block, site) in &waiting {
            let Block::Mbarrier { bar, index, .. } = block else { continue };
            let Some(s) = self.barriers.get(bar).and_then(|s| s.get(index)) else { continue };
            let got = s.arrivals.len();
            let missing: Vec<usize> =
                self.arrivers(bar).into_iter().filter(|a| !s.arrivals.iter().any(|x| x.0 == *a)).collect();
            if got == 0
                || s.pending_arrivals() == 0
                || missing.iter().any(|&a| self.insts.get(a).is_some_and(|x| !x.done))
            {
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
            let key = format!("under:{bar}");
            self.global(key.clone(), loc, message, &[bar]);
            self.relate(&key, site, format!("{} waits here forever", self.who(i)));
            return;
        }
        // 4. A cycle of waits.
        let succ = |sim: &Self, i: usize| -> Vec<usize> {
            let Some(&(_, block, _)) = waiting.iter().find(|w| w.0 == i) else { return Vec::new() };
            let candidates = match block {
                Block::Mbarrier { bar, .. } => sim.arrivers(bar),
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
            Block::Mbarrier { bar, index, parity, target } => {
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
                Block::Mbarrier { bar, .. } => {
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
            if let (Block::Mbarrier { bar, target: 0, .. }, true) = (block, first) {
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
        // What the cycle shows, then (after "; ", which becomes the `help:` line) the fix.
        let hint = if first_waits == cycle.len() {
            " Every wait in the cycle is its instance's first on that barrier, for parity 0; start the side that waits for buffers to become free (an `empty` barrier) at parity 1, which passes at once on a fresh barrier"
                .to_string()
        } else if let ([i], Some(&(_, Block::Mbarrier { .. }, _))) =
            (cycle, cycle.first().and_then(|i| waiting.iter().find(|w| w.0 == *i)))
        {
            format!(
                " {} waits for a phase that only its own later arrivals could complete: the parity it waits for names a phase past the one its last arrival completes; wait for the parity of the phase its last arrival completes (flip the parity once per phase)",
                self.who(*i)
            )
        } else if let Some((i, pipe, n, stages)) = held {
            format!(
                " {} already holds {n} slot(s) of `{pipe}`, whose ring has {stages} stage(s), and waits for another; hand one back (`release` or `commit`) before taking more slots than the ring has",
                self.who(i)
            )
        } else {
            let stages = self.an.table.pipes.iter().filter_map(|p| p.stages).max().unwrap_or(1);
            if !self.an.table.pipes.is_empty() && self.scen.v > i128::try_from(stages).unwrap_or(i128::MAX) {
                format!(
                    " The cycle needs more loop iterations ({}) than the rings have stages ({stages}): one role runs more than a ring's length ahead, or holds more slots than the ring has, before it hands any back; produce in the order the other side consumes (what it waits for first, first), or hand slots back before running a ring's length ahead",
                    self.scen.v
                )
            } else {
                "; make one of these waits satisfiable without the others moving: check the order of each role's waits and arrivals, and the parities they wait for".to_string()
            }
        };
        let site = if first_waits == cycle.len() { span_site.or(first_site) } else { first_site };
        let Some(loc) = site.and_then(|s| self.loc(s)) else { return };
        let message = format!("deadlock: {}, and none can move{}.{hint}", steps.join(", "), self.scenario());
        let message = message.replace(".;", ";");
        let key = format!("cycle:{}", bars.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(","));
        self.global(key.clone(), loc, message, &bars);
        for &i in cycle {
            if let Some(&(_, block, site)) = waiting.iter().find(|w| w.0 == i) {
                self.relate(&key, site, format!("{} waits here for {}", self.who(i), self.describe(block)));
            }
        }
    }

    /// Slots of a pipeline that instance `i`, blocked on `block`, holds when the ring has no
    /// more: (instance, pipeline, slots held, stages).
    fn holding(&self, i: usize, block: Block) -> Option<(usize, String, usize, usize)> {
        let Block::Mbarrier { bar, .. } = block else { return None };
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

    /// A use of named barrier `n` that some of its instances reach and others skip: the
    /// site, the instances that reach it, and those that do not. Found when the instances
    /// use the barrier different numbers of times.
    fn uneven_named_use(&self, n: usize) -> Option<(usize, Vec<usize>, Vec<usize>)> {
        let members = self.named_members(n);
        let uses = |x: usize| -> Vec<usize> {
            self.insts.get(x).map_or_else(Vec::new, |inst| {
                inst.trace
                    .events
                    .iter()
                    .filter(|e| matches!(e.kind, EventKind::Sync { named } | EventKind::NamedArrive { named } if named == n))
                    .map(|e| e.site)
                    .collect()
            })
        };
        let counts: Vec<(usize, Vec<usize>)> = members.iter().map(|&x| (x, uses(x))).collect();
        let most = counts.iter().map(|(_, u)| u.len()).max()?;
        if counts.iter().all(|(_, u)| u.len() == most) {
            return None;
        }
        let (_, full) = counts.iter().find(|(_, u)| u.len() == most)?;
        // The first site the fullest instance reaches more often than some other instance.
        let site = full.iter().copied().find(|&s| {
            let c = full.iter().filter(|&&x| x == s).count();
            counts.iter().any(|(_, u)| u.iter().filter(|&&x| x == s).count() < c)
        })?;
        let here = full.iter().filter(|&&x| x == site).count();
        let (reach, skip): (Vec<_>, Vec<_>) =
            counts.iter().partition(|(_, u)| u.iter().filter(|&&x| x == site).count() >= here);
        Some((site, reach.into_iter().map(|(x, _)| *x).collect(), skip.into_iter().map(|(x, _)| *x).collect()))
    }

    /// Reports a wait whose arrivers have all finished.
    fn report_starved(&mut self, i: usize, block: Block, site: usize) {
        if let Block::Named(n) = block
            && let Some((use_site, reach, skip)) = self.uneven_named_use(n)
            && let Some(loc) = self.loc(use_site)
        {
            let name = self.an.table.named.get(n).map_or_else(String::new, |b| b.name.clone());
            let list = |xs: &[usize]| xs.iter().map(|&x| self.who(x)).collect::<Vec<_>>().join(", ");
            let message = format!(
                "named barrier `{name}` is used at {} by {} but not by {}, so the instances use it different numbers of times and one of its uses never gathers all its threads ({} waits at {}){}; reach the barrier on every path (e.g. an `else` branch that syncs too), or give the branch a barrier that counts only the threads that take it",
                self.cite(use_site),
                list(&reach),
                list(&skip),
                self.who(i),
                self.cite(site),
                self.scenario()
            );
            let key = format!("starved:{use_site}");
            self.global(key.clone(), loc, message, &[]);
            self.relate(&key, site, format!("{} waits here for threads that never come", self.who(i)));
            return;
        }
        let Some(loc) = self.loc(site) else { return };
        let what = self.describe(block);
        let message = match block {
            Block::Mbarrier { bar, index, .. } => {
                let b = self.an.table.bars.get(bar);
                let arrivers = role_list(self.an.model, &b.map(|b| b.arrivers.clone()).unwrap_or_default());
                let barrier = self.barriers.get(bar).and_then(|s| s.get(index));
                let completed = barrier.map_or(0, |s| s.completed());
                let others: Vec<usize> = self
                    .barriers
                    .get(bar)
                    .map(|s| s.iter().enumerate().filter(|(_, s)| s.ever > 0).map(|(x, _)| x).collect())
                    .unwrap_or_default();
                let hint = if barrier.is_some_and(|s| s.ever == 0) && !others.is_empty() {
                    format!(
                        "nothing ever arrives on {}: the arrivals go to index {}; wait on the index the arrivals go to (or arrive on this one)",
                        self.an.table.slot(bar, index),
                        others.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
                    )
                } else if self.scen.v == 0 && self.insts.iter().any(|x| x.trace.sized) {
                    "with no work (every run-time size 0) the other side hands over nothing: guard the work that waits with the condition its producer's loop has (`if k_tiles > 0 { .. }`), or, if the kernel never runs without work, state it (`assert!(k_tiles > 0)`)".to_string()
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
                let arrived = self.named.get(n).map_or(0, |s| s.arrived());
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
    Mbarrier {
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
            Block::Mbarrier { bar, .. } => vec![bar],
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
