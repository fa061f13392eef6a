//! The protocol checker: the kernel's barrier protocol, checked as a whole.
//!
//! [`interp`] runs each role instance's body abstractly and records its barrier operations
//! (waits, arrivals, TMA completions, named-barrier uses) with their spans, checking what a
//! role decides alone. [`sim`] runs all instances' traces together on mbarrier semantics and
//! checks what only the whole kernel decides. Both run for several scenarios: trip counts of
//! 1, 2, stages + 1 and 2 x stages + 1 for the loops whose count the text leaves open (so ring
//! wrap-around and a producer running ahead are covered), and each combination of the
//! conditions the text leaves open. [`table`] evaluates the declarations the runs need;
//! [`report`] deduplicates findings into errors.

mod interp;
mod lin;
mod report;
mod sim;
mod table;
#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use warpspec_ir::{Function, Kernel, Pos, WaitLd};

use crate::errors::{Errors, Loc};
use crate::lower::{Lowered, Sources};
use crate::model::{EndpointKind, Model, Target};
use interp::{ArmInfo, Run, Scenario, Trace};
use report::{Findings, Sites};
use table::Table;

/// Steps the interpreter may take over all runs of one kernel.
const BUDGET: u64 = 3_000_000;
/// Role instances the simulation follows (a CTA has at most 32 warps).
const MAX_INSTANCES: i128 = 32;
/// The largest trip count a comparison with a constant adds to the scenarios.
const MAX_THRESHOLD: i128 = 40;
/// Trip counts that comparisons with constants add, at most.
const MAX_EXTRA_TRIPS: usize = 6;
/// Rounds of discovering new undecided conditions.
const DISCOVERY_ROUNDS: usize = 4;

/// What the runs of one kernel share.
pub struct Analysis<'a> {
    /// The kernel.
    pub model: &'a Model<'a>,
    /// Its IR, which the runs follow.
    pub ir: &'a Kernel,
    /// Where the IR's nodes came from, for messages.
    sources: &'a Sources<'a>,
    /// Its barriers.
    pub table: Table,
    /// Module functions (not roles) that roles call.
    pub helpers: HashMap<String, &'a Function>,
    /// Operation sites met.
    pub sites: RefCell<Sites>,
    /// What was found.
    pub findings: RefCell<Findings>,
    /// What each condition arm contains, by the arm's address.
    pub arms: RefCell<HashMap<usize, Rc<ArmInfo>>>,
    /// Whether each module function is register math, by the function's address.
    math: RefCell<HashMap<usize, bool>>,
    /// Steps left over all runs of the kernel.
    budget: Cell<u64>,
    /// Trip counts at which a comparison of a size with a constant flips, met so far.
    thresholds: RefCell<BTreeSet<i128>>,
    /// Values around which a comparison of one size with a constant flips, by the size.
    size_thresholds: RefCell<BTreeMap<Rc<str>, BTreeSet<i128>>>,
}

impl<'a> Analysis<'a> {
    /// Whether module function `f` is register math the runs can skip (cached).
    pub fn is_math(&self, f: &'a Function) -> bool {
        let key = std::ptr::from_ref(f) as usize;
        *self.math.borrow_mut().entry(key).or_insert_with(|| interp::is_math(f))
    }

    /// The source range of the IR node at `pos`.
    pub fn loc(&self, pos: Pos) -> Loc {
        self.sources.loc(pos)
    }

    /// The text of the IR node at `pos`, as tokens print.
    pub fn text(&self, pos: Pos) -> String {
        self.sources.text(pos)
    }

    /// Notes that a comparison of a size with a constant flips at trip count `first`: the
    /// scenarios take the trip counts on both sides of it.
    pub fn threshold(&self, first: i128) {
        let mut t = self.thresholds.borrow_mut();
        for v in [first - 1, first, first + 1] {
            if (0..=MAX_THRESHOLD).contains(&v) {
                t.insert(v);
            }
        }
    }

    /// Notes that a comparison of size `size` with a constant flips at value `first`: runs
    /// in which that size alone takes the values on both sides of it follow.
    pub fn size_threshold(&self, size: Rc<str>, first: i128) {
        let mut t = self.size_thresholds.borrow_mut();
        let values = t.entry(size).or_default();
        for v in [first - 1, first, first + 1] {
            if (0..=MAX_THRESHOLD).contains(&v) {
                values.insert(v);
            }
        }
    }

    /// Spends `steps` of the budget; false once it is exhausted.
    pub fn spend(&self, steps: u64) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(steps));
        left >= steps
    }
}

/// How much of the protocol the runs covered.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Scenarios whose every instance was run to its end and simulated together.
    pub simulated: usize,
    /// Why other scenarios could only be checked role by role.
    pub partial: Vec<&'static str>,
    /// Arrivals a lowering must make wait for a tensor-memory load.
    pub wait_ld: Vec<WaitLd>,
}

/// Checks the kernel's protocol on its IR, recording every problem in `errors`.
pub fn check<'a>(model: &Model<'a>, lowered: &Lowered<'a>, errors: &Errors) -> Coverage {
    let table = Table::build(model);
    let mut findings = Findings::default();
    let sound = declarations(model, &table, &mut findings);
    // The runs need sound declarations and every role's parameters resolved (otherwise
    // rustc reports them).
    if !sound || model.roles.is_empty() || model.roles.iter().any(|r| !r.resolved) {
        findings.emit(errors);
        return Coverage::default();
    }
    let helpers = lowered.kernel.functions.iter().map(|f| (f.name.clone(), f)).collect();
    let an = Analysis {
        model,
        ir: &lowered.kernel,
        sources: &lowered.sources,
        table,
        helpers,
        sites: RefCell::default(),
        findings: RefCell::new(findings),
        arms: RefCell::default(),
        math: RefCell::default(),
        budget: Cell::new(BUDGET),
        thresholds: RefCell::default(),
        size_thresholds: RefCell::default(),
    };
    let coverage = scenarios(&an);
    an.findings.into_inner().emit(errors);
    coverage
}

/// Declaration rules: named-barrier ids and thread counts, endpoints taken twice. Returns
/// whether the declarations are sound enough to run the protocol.
fn declarations(model: &Model<'_>, table: &Table, findings: &mut Findings) -> bool {
    let mut sound = true;
    let mut ids: HashMap<i128, &str> = HashMap::new();
    for nb in table.named.iter().take(table.named_per_cta) {
        let loc = nb.id_decl.unwrap_or(nb.decl);
        if let Some(id) = nb.id {
            if !(1..=15).contains(&id) {
                let message = format!(
                    "named barrier `{}` has id {id}; ids are 1..=15 (0 is the CTA-wide `__syncthreads` barrier)",
                    nb.name
                );
                findings.local(format!("id-range:{}", nb.name), loc, message, &[]);
            }
            if let Some(first) = ids.insert(id, &nb.name) {
                let how = if nb.id_decl.is_some() {
                    ""
                } else {
                    " (named barriers without `id` get 1, 2, .. in declaration order)"
                };
                let message = format!(
                    "named barriers `{first}` and `{}` both use hardware id {id}{how}: their arrivals would count toward one barrier; give each its own `id`",
                    nb.name
                );
                findings.local(format!("id-dup:{}", nb.name), loc, message, &[]);
            }
        }
        if let (Some(threads), Some(loc)) = (nb.threads, nb.threads_decl)
            && (threads <= 0 || threads % 32 != 0 || threads > 1024)
        {
            let message = format!(
                "named barrier `{}` has `threads = {threads}`; `bar.sync` counts whole warps: a multiple of 32 in 32..=1024",
                nb.name
            );
            findings.local(format!("threads:{}", nb.name), loc, message, &[]);
        }
    }
    for role in &model.roles {
        for (i, e) in role.endpoints.iter().enumerate() {
            if e.kind == EndpointKind::Buffer || matches!(e.target, Target::Buffer(_)) {
                continue;
            }
            if let Some(first) = role.endpoints.iter().take(i).find(|f| f.kind == e.kind && f.target == e.target) {
                let what = match e.kind {
                    EndpointKind::Producer | EndpointKind::Consumer => {
                        "each keeps its own ring position, so both would take the same stages"
                    }
                    _ => "one endpoint does all its operations",
                };
                let message = format!(
                    "role `{}` takes the same end twice (`{}` and `{}`): {what}; take it once",
                    role.name, first.binding, e.binding
                );
                findings.local(format!("twice:{}:{}", role.name, e.binding), Loc::of(&e.ty), message, &[]);
                sound = false;
            }
        }
    }
    sound
}

/// Trip counts to run: 1, 2, and enough to wrap every ring once and twice, then 0 (every
/// loop over a run-time size may be empty: a tile with no work, an empty K split).
fn trip_counts(table: &Table) -> Vec<i128> {
    let stages = table
        .pipes
        .iter()
        .filter_map(|p| p.stages)
        .chain(table.bars.iter().filter_map(|b| b.len))
        .max()
        .unwrap_or(1)
        .min(16);
    let s = i128::try_from(stages).unwrap_or(1);
    let mut vs = vec![1, 2, s + 1, 2 * s + 1];
    vs.sort_unstable();
    vs.dedup();
    vs.push(0);
    vs
}

/// Assignments of the undecided conditions: every combination when there are few,
/// otherwise each one flipped alone.
fn assignments(keys: &[(String, usize)]) -> Vec<HashMap<String, usize>> {
    let total = keys.iter().try_fold(1usize, |t, (_, d)| t.checked_mul((*d).max(1))).unwrap_or(usize::MAX);
    if total <= 16 {
        let mut out = vec![HashMap::new()];
        for (key, domain) in keys {
            out = out
                .into_iter()
                .flat_map(|a| {
                    (0..(*domain).max(1)).map(move |c| {
                        let mut a = a.clone();
                        a.insert(key.clone(), c);
                        a
                    })
                })
                .collect();
        }
        return out;
    }
    let base: HashMap<String, usize> = keys.iter().map(|(k, _)| (k.clone(), 0)).collect();
    let mut out = vec![base.clone()];
    for (key, domain) in keys {
        for c in 1..(*domain).clamp(1, 4) {
            let mut a = base.clone();
            a.insert(key.clone(), c);
            out.push(a);
        }
    }
    out.push(keys.iter().map(|(k, d)| (k.clone(), d.saturating_sub(1))).collect());
    out
}

/// Runs every scenario, discovering undecided conditions as they are met. Every
/// combination of conditions runs with the trip counts up to one ring wrap; the second wrap
/// runs with every condition false (an unassigned condition is false, so a scenario from an
/// earlier round is not run again).
fn scenarios(an: &Analysis<'_>) -> Coverage {
    let mut coverage = Coverage::default();
    let mut vs = trip_counts(&an.table);
    let longest = vs.iter().copied().max().unwrap_or(1);
    let wraps = vs.len() > 4;
    let mut keys: Vec<(String, usize)> = Vec::new();
    let mut done: HashSet<(Vec<(String, usize)>, i128)> = HashSet::new();
    for round in 0..DISCOVERY_ROUNDS {
        let last = round + 1 == DISCOVERY_ROUNDS;
        let mut new = Vec::new();
        'runs: for choices in assignments(&keys) {
            let mut id: Vec<(String, usize)> =
                choices.iter().filter(|(_, c)| **c != 0).map(|(k, c)| (k.clone(), *c)).collect();
            id.sort();
            for &v in &vs {
                if (v == longest && wraps && !id.is_empty()) || !done.insert((id.clone(), v)) {
                    continue;
                }
                let scen = Scenario { v, choices: choices.clone(), sizes: Vec::new() };
                let Some(traces) = run_all(an, &scen) else { return coverage };
                for t in &traces {
                    for (k, d) in &t.discovered {
                        if !keys.iter().chain(&new).any(|(x, _)| x == k) {
                            new.push((k.clone(), *d));
                        }
                    }
                }
                expectations(an, &traces);
                obligations(an, &traces, &mut coverage.wait_ld);
                if !new.is_empty() && !last {
                    break 'runs;
                }
                // An `assert!` of the kernel rules this scenario out.
                if traces.iter().any(|t| t.infeasible) {
                    continue;
                }
                match traces.iter().find_map(|t| t.aborted) {
                    None => {
                        sim::simulate(an, &scen, &traces);
                        coverage.simulated += 1;
                    }
                    Some(why) => coverage.partial.push(why),
                }
            }
        }
        // Trip counts at which a comparison of a size with a constant flips.
        let extra: Vec<i128> = an.thresholds.borrow().iter().copied().filter(|v| !vs.contains(v)).collect();
        let room = (trip_counts(&an.table).len() + MAX_EXTRA_TRIPS).saturating_sub(vs.len());
        let extra: Vec<i128> = extra.into_iter().take(room).collect();
        if new.is_empty() && extra.is_empty() {
            break;
        }
        vs.extend(extra);
        keys.extend(new);
    }
    single_sizes(an, &mut coverage);
    coverage
}

/// Trip counts the other sizes take in a run where one size takes a value of its own.
const SINGLE_SIZE_TRIPS: [i128; 2] = [1, 2];
/// Values of one size that such runs take, at most, per size.
const SINGLE_SIZE_VALUES: usize = 3;

/// Runs in which one size compared with a constant takes the values on both sides of the
/// comparison while the others keep the scenario's trip count: `if k_tiles == 0` inside a
/// loop over `tiles` is then taken on some tiles, which the runs where every size is `v`
/// never show (they make `tiles` empty whenever `k_tiles` is 0).
fn single_sizes(an: &Analysis<'_>, coverage: &mut Coverage) {
    let sizes: Vec<(Rc<str>, Vec<i128>)> = an
        .size_thresholds
        .borrow()
        .iter()
        .map(|(s, vs)| (s.clone(), vs.iter().copied().take(SINGLE_SIZE_VALUES).collect()))
        .collect();
    for (size, values) in sizes {
        for x in values {
            for v in SINGLE_SIZE_TRIPS {
                let scen = Scenario { v, choices: HashMap::new(), sizes: vec![(size.clone(), x)] };
                let Some(traces) = run_all(an, &scen) else { return };
                if traces.iter().any(|t| t.infeasible) {
                    continue;
                }
                match traces.iter().find_map(|t| t.aborted) {
                    None => {
                        sim::simulate(an, &scen, &traces);
                        coverage.simulated += 1;
                    }
                    Some(why) => coverage.partial.push(why),
                }
            }
        }
    }
}

/// Runs every role instance of the kernel in `scen`; `None` once the budget is spent.
fn run_all(an: &Analysis<'_>, scen: &Scenario) -> Option<Vec<Trace>> {
    let mut traces = Vec::new();
    // Every CTA of a cluster runs its own instances, rank by rank.
    for rank in 0..an.table.ranks {
        for (r, role) in an.model.roles.iter().enumerate() {
            let n = role.instances_value.unwrap_or(1).clamp(0, MAX_INSTANCES);
            for i in 0..usize::try_from(n).unwrap_or(0) {
                let mut trace = Run::new(an, scen, r, i, rank).execute();
                if role.instances_value.is_none_or(|n| !(0..=MAX_INSTANCES).contains(&n)) {
                    trace.aborted.get_or_insert("a role whose instance count the checker cannot evaluate");
                }
                traces.push(trace);
            }
        }
    }
    if !an.spend(0) {
        return None;
    }
    Some(traces)
}

/// The arrivals of `traces` that follow a tensor-memory load, added to `out` once each.
fn obligations(an: &Analysis<'_>, traces: &[Trace], out: &mut Vec<WaitLd>) {
    let sites = an.sites.borrow();
    for t in traces {
        let Some(role) = an.ir.roles.get(t.role) else { continue };
        for &(load, arrive) in &t.wait_ld {
            let (Some(load), Some(arrive)) = (sites.pos(load), sites.pos(arrive)) else { continue };
            let w = WaitLd { role: role.func.name.clone(), load, arrive };
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
}

/// TMA loads onto a plain barrier that no role ever expects transaction bytes on.
fn expectations(an: &Analysis<'_>, traces: &[Trace]) {
    for t in traces {
        for &(bar, site) in &t.raw_tx {
            if traces.iter().any(|t| t.expects.contains(&bar)) {
                continue;
            }
            let Some(loc) = an.sites.borrow().loc(site) else { continue };
            let name = an.table.bar(bar);
            let message = format!(
                "this TMA load of {} completes its bytes on {name}, but no role expects transaction bytes on {name} (only `arrive_expect_tx` does): the bytes complete on a phase that does not count them; arrive on it with `arrive_expect_tx(index, bytes)` before the copies land",
                report::who(an.model, t.role, t.instance, (an.table.ranks > 1).then_some(t.rank))
            );
            an.findings.borrow_mut().local(format!("unexpected-tx:{site}"), loc, message, &[bar]);
        }
    }
}
