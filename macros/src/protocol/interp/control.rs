//! Control flow: conditions the scenario decides, `if`, `match`, and the one loop runner
//! behind `for`, `while` and `loop`.

use std::rc::Rc;

use warpspec_ir::visit::Visit;
use warpspec_ir::{Arm as MatchArm, Block, Expr, Pat, Pos};

use super::super::table::End;
use super::run::{Close, Run};
use super::scan::{Arm, ArmInfo, ArmScan};
use super::trace::{Decision, Signal};
use super::value::{Flow, Range, Val, pattern_matches, targets};
use super::{MAX_DECISIONS, MAX_ITERATIONS};

/// Where a scope of `if let` or `match` bindings ends, for messages.
const ARM_END: &str = "at the end of this `if let` or `match` arm";

/// A loop to run: what differs between `for`, `while` and `loop`.
pub(super) struct Loop<'a> {
    /// Its label.
    pub(super) label: Option<String>,
    /// Its body.
    pub(super) body: &'a Block,
    /// A `loop` or `while`: its exit condition, not the text, decides its trip count.
    pub(super) open: bool,
    /// Iterations the text gives (a `for`); `None` for an open loop.
    pub(super) count: Option<i128>,
    /// Where each iteration's scope of bindings closes (a `for` pattern, a `while`
    /// condition); `None` for `loop`, whose iterations bind nothing.
    pub(super) scope: Option<Pos>,
}

/// What one iteration did.
enum Step {
    /// The loop's head ended the loop with this flow (a `while` condition that failed or
    /// left).
    Stop(Flow),
    /// The body ran, with this flow.
    Ran(Flow),
}

impl<'a> Run<'_, 'a> {
    // ---- conditions ----

    /// The truth of a condition: decided by the text, by the loop-exit rule, or by the
    /// scenario. `arms` are the false and true arms (empty for a bare operand).
    pub(super) fn truth(&mut self, v: &Val, expr: &'a Expr, arms: &[Arm<'a>]) -> bool {
        if let Val::Bool(b) = v {
            return *b;
        }
        if let Some(forced) = self.forced {
            return forced;
        }
        let key = match v {
            Val::Atom(k) => k.to_string(),
            _ => self.an.text(expr.pos),
        };
        self.choose(key, expr.pos, arms, ChoiceKind::Bool) == 1
    }

    /// Picks an arm of an undecided condition.
    pub(super) fn choose(&mut self, key: String, at: Pos, arms: &[Arm<'a>], kind: ChoiceKind) -> usize {
        let domain = arms.len().max(2);
        for (i, arm) in arms.iter().enumerate() {
            if let Some(frame) = self.breaks_out(*arm) {
                let iteration = self.loops.get(frame).map_or(0, |f| f.iteration);
                if iteration >= self.scen.v {
                    return i;
                }
                return (0..domain).find(|&j| j != i).unwrap_or(0);
            }
        }
        let choice = match self.scen.choices.get(&key) {
            Some(&c) => c.min(domain - 1),
            None => {
                if !self.trace.discovered.iter().any(|(k, _)| *k == key) {
                    self.trace.discovered.push((key.clone(), domain));
                }
                0
            }
        };
        if self.trace.decisions.len() < MAX_DECISIONS {
            let mut skipped: Vec<(Signal, String)> =
                arms.iter().enumerate().filter(|(i, _)| *i != choice).flat_map(|(_, arm)| self.signals(*arm)).collect();
            // An arm taken that leaves the loop or the function skips what follows there.
            let mut exits = false;
            if let Some(arm) = arms.get(choice) {
                let taken = self.arm_info(*arm);
                let rest = if taken.returns || (matches!(kind, ChoiceKind::Try) && choice == 1) {
                    self.bodies.last().copied()
                } else if taken.leaves_loop {
                    self.loops.last().map(|f| f.body)
                } else {
                    None
                };
                if let Some(rest) = rest {
                    skipped.extend(self.signals(Arm::Block(rest)));
                    exits = true;
                } else {
                    // What the taken arm signals too was not skipped.
                    let done: Vec<Signal> = self.signals(*arm).into_iter().map(|(s, _)| s).collect();
                    skipped.retain(|(s, _)| !done.contains(s));
                }
            }
            if !skipped.is_empty() {
                let what = kind.describe(&key, choice);
                self.trace.decisions.push(Decision { loc: self.an.loc(at), what, skipped, exits });
            }
        }
        choice
    }

    /// What an arm contains (scanned once).
    pub(super) fn arm_info(&self, arm: Arm<'a>) -> Rc<ArmInfo> {
        let key = arm.key();
        if let Some(info) = self.an.arms.borrow().get(&key) {
            return info.clone();
        }
        let mut scan = ArmScan { info: ArmInfo::default(), loops: 0, an: self.an };
        match arm {
            Arm::Block(b) => scan.visit_block(b),
            Arm::Expr(e) => scan.visit_expr(e),
            Arm::Empty => {}
        }
        let info = Rc::new(scan.info);
        self.an.arms.borrow_mut().insert(key, info.clone());
        info
    }

    /// The open loop (`loop`, `while`) an arm's `break` leaves, if it has one: such a
    /// condition decides the loop's trip count.
    pub(super) fn breaks_out(&self, arm: Arm<'a>) -> Option<usize> {
        if matches!(arm, Arm::Empty) || self.loops.is_empty() {
            return None;
        }
        let info = self.arm_info(arm);
        let frame = if info.unlabeled_break {
            self.loops.len().checked_sub(1)
        } else {
            info.labels.iter().find_map(|l| self.loops.iter().rposition(|f| f.label.as_deref() == Some(l.as_str())))
        }?;
        self.loops.get(frame).filter(|f| f.open).map(|_| frame)
    }

    /// What an arm would signal, by the endpoints its receivers name here.
    pub(super) fn signals(&self, arm: Arm<'a>) -> Vec<(Signal, String)> {
        let info = self.arm_info(arm);
        info.signals
            .iter()
            .filter_map(|(name, site)| {
                let Some(Val::Endpoint(ep)) = self.lookup(name) else { return None };
                let signal = match self.an.table.end(self.an.model, self.role, *ep)? {
                    End::Producer(p) => Signal::Bar(self.an.table.pipes.get(p)?.full),
                    End::Consumer(p) => Signal::Bar(self.an.table.pipes.get(p)?.empty),
                    End::Arriver(b) => Signal::Bar(b),
                    End::Named(n) => Signal::Named(n),
                    End::Waiter(_) | End::Buffer(_) => return None,
                };
                Some((signal, site.clone()))
            })
            .collect()
    }

    // ---- branches ----

    /// Runs an `if`.
    pub(super) fn if_expr(&mut self, cond: &'a Expr, then: &'a Block, els: Option<&'a Expr>) -> Flow {
        let else_arm = match els {
            Some(e) => Arm::Expr(e),
            None => Arm::Empty,
        };
        let arms = [else_arm, Arm::Block(then)];
        // A condition that leaves a loop holds once the loop has made `v` iterations.
        let exit = arms.iter().enumerate().find_map(|(taken, arm)| {
            let frame = self.breaks_out(*arm)?;
            self.trace.sized = true;
            let done = self.loops.get(frame).is_some_and(|f| f.iteration >= self.scen.v);
            Some(if taken == 1 { done } else { !done })
        });
        self.scoped(|run| {
            let forced = exit.or(run.forced);
            let outer = std::mem::replace(&mut run.forced, forced);
            let value = run.eval(cond);
            run.forced = outer;
            let value = match value {
                Flow::Val(v) => v,
                other => {
                    let close = Close::after(&other, Val::Unknown, cond.pos, "in this condition");
                    return (other, close);
                }
            };
            let taken = match exit {
                Some(t) if !matches!(value, Val::Bool(_)) => t,
                _ => run.truth(&value, cond, &arms),
            };
            let flow = if taken {
                run.block(then)
            } else if let Some(e) = els {
                run.eval(e)
            } else {
                Flow::Val(Val::Unknown)
            };
            let close = Close::carrying(&flow, cond.pos, ARM_END);
            (flow, close)
        })
    }

    /// Runs a `match`.
    pub(super) fn match_expr(&mut self, scrutinee: &'a Expr, match_arms: &'a [MatchArm]) -> Flow {
        let value = val!(self, scrutinee);
        let mut chosen = None;
        let mut decided = true;
        for (i, arm) in match_arms.iter().enumerate() {
            match pattern_matches(&arm.pat, &value) {
                Some(true) if arm.guard.is_none() => {
                    chosen = Some(i);
                    break;
                }
                Some(false) => continue,
                _ => {
                    decided = false;
                    break;
                }
            }
        }
        let index = match (chosen, decided) {
            (Some(i), _) => i,
            (None, true) => return Flow::Val(Val::Unknown),
            (None, false) => {
                let key = match &value {
                    Val::Atom(k) => k.to_string(),
                    _ => self.an.text(scrutinee.pos),
                };
                let arms: Vec<Arm<'a>> = match_arms.iter().map(|a| Arm::Expr(&a.body)).collect();
                self.choose(key, scrutinee.pos, &arms, ChoiceKind::Match)
            }
        };
        let Some(arm) = match_arms.get(index) else { return Flow::Val(Val::Unknown) };
        self.scoped(|run| {
            run.bind(&arm.pat, value);
            let flow = run.eval(&arm.body);
            let close = Close::carrying(&flow, arm.pat.pos, ARM_END);
            (flow, close)
        })
    }

    // ---- loops ----

    /// Runs a `for` loop.
    pub(super) fn for_loop(&mut self, label: &Option<String>, pat: &'a Pat, iter: &'a Expr, body: &'a Block) -> Flow {
        let iter = val!(self, iter);
        self.trace.sized |= matches!(&iter, Val::Range(r) if r.sized) || !matches!(iter, Val::Range(_) | Val::Tuple(_));
        let (count, items) = match iter {
            Val::Range(r) => (r.len(), Items::Range(r)),
            Val::Tuple(vs) => (i128::try_from(vs.len()).unwrap_or(0), Items::List(vs)),
            _ => (self.scen.v, Items::Unknown),
        };
        let spec = Loop { label: label.clone(), body, open: false, count: Some(count), scope: Some(pat.pos) };
        self.run_loop(spec, |run, i| {
            let item = match &items {
                Items::Range(r) => r.nth(i),
                Items::List(vs) => usize::try_from(i).ok().and_then(|i| vs.get(i).cloned()).unwrap_or(Val::Unknown),
                Items::Unknown => Val::Unknown,
            };
            run.bind(pat, item);
            None
        })
    }

    /// Runs a `while` loop: its condition holds for the first `v` iterations when the text
    /// does not decide it.
    pub(super) fn while_loop(&mut self, label: &Option<String>, cond: &'a Expr, body: &'a Block) -> Flow {
        let spec = Loop { label: label.clone(), body, open: true, count: None, scope: Some(cond.pos) };
        self.run_loop(spec, |run, i| {
            let outer = run.forced.replace(i < run.scen.v);
            let cond = run.eval(cond);
            run.forced = outer;
            let go = match cond {
                Flow::Val(Val::Bool(b)) => b,
                Flow::Val(_) => {
                    run.trace.sized = true;
                    i < run.scen.v
                }
                other => return Some(other),
            };
            (!go).then_some(Flow::Val(Val::Unknown))
        })
    }

    /// Runs a `loop`.
    pub(super) fn loop_expr(&mut self, label: &Option<String>, body: &'a Block) -> Flow {
        let spec = Loop { label: label.clone(), body, open: true, count: None, scope: None };
        self.run_loop(spec, |_, _| None)
    }

    /// Runs a loop: iteration `i` runs `head(i)` (which binds the iteration's names, or ends
    /// the loop with a flow), then the body. A `break` or `continue` aimed at the loop is
    /// taken here; any other flow leaves it.
    pub(super) fn run_loop(&mut self, l: Loop<'a>, mut head: impl FnMut(&mut Self, i128) -> Option<Flow>) -> Flow {
        if l.count.is_some_and(|c| c > MAX_ITERATIONS) {
            return Flow::Abort;
        }
        self.loops.push(LoopFrame { label: l.label.clone(), iteration: 0, open: l.open, body: l.body });
        let mut i = 0;
        let result = loop {
            if l.count.is_some_and(|c| i >= c) {
                break Flow::Val(Val::Unknown);
            }
            if i > MAX_ITERATIONS {
                break Flow::Abort;
            }
            if let Some(frame) = self.loops.last_mut() {
                frame.iteration = i;
            }
            let step = match l.scope {
                Some(at) => self.scoped(|run| match head(run, i) {
                    Some(stop) => {
                        let close = Close::after(&stop, Val::Unknown, at, "in this condition");
                        (Step::Stop(stop), close)
                    }
                    None => {
                        let flow = run.block(l.body);
                        let close = Close::after(&flow, Val::Unknown, at, "at the end of the loop");
                        (Step::Ran(flow), close)
                    }
                }),
                None => match head(self, i) {
                    Some(stop) => Step::Stop(stop),
                    None => Step::Ran(self.block(l.body)),
                },
            };
            match step {
                Step::Stop(flow) => break flow,
                Step::Ran(Flow::Val(_)) => {}
                Step::Ran(Flow::Continue(label, _)) if targets(&label, &l.label) => {}
                Step::Ran(Flow::Break(label, v, _)) if targets(&label, &l.label) => break Flow::Val(v),
                Step::Ran(other) => break other,
            }
            i += 1;
        };
        self.loops.pop();
        result
    }

    /// The loops being run, outermost first: each body's node and the iteration it is in.
    pub(super) fn iterations(&self) -> Vec<(u32, i128)> {
        self.loops.iter().map(|f| (f.body.pos.node, f.iteration)).collect()
    }

    /// Whether an operation issued in the loop iterations `issued_in` (as [`Run::iterations`]
    /// gave them) was issued in an earlier iteration of a loop still being run: the loop's
    /// line and how many iterations ago.
    pub(super) fn iterations_ago(&self, issued_in: &[(u32, i128)]) -> Option<(u32, i128)> {
        for (frame, &(node, iteration)) in self.loops.iter().zip(issued_in) {
            if node != frame.body.pos.node {
                return None;
            }
            if iteration != frame.iteration {
                return Some((frame.body.pos.line, frame.iteration - iteration));
            }
        }
        None
    }
}

/// A loop being run.
pub(super) struct LoopFrame<'a> {
    /// Its label.
    pub(super) label: Option<String>,
    /// The iteration being run (from 0).
    pub(super) iteration: i128,
    /// A `loop` or `while`: its trip count is decided by its exit condition, not the text.
    pub(super) open: bool,
    /// Its body.
    pub(super) body: &'a Block,
}

/// The items a `for` loop iterates.
pub(super) enum Items {
    /// The values of a range.
    Range(Range),
    /// The elements of an array or tuple.
    List(Vec<Val>),
    /// Run-time items: the scenario's trip count of unknown values.
    Unknown,
}

/// What kind of condition a scenario decides, for messages.
#[derive(Clone, Copy)]
pub(super) enum ChoiceKind {
    /// An `if` or `while` condition, or a `&&`/`||` operand.
    Bool,
    /// A `match` scrutinee.
    Match,
    /// A `?`.
    Try,
    /// A `let .. else`.
    LetElse,
}

impl ChoiceKind {
    /// "`key` is true" and the like, for messages.
    pub(super) fn describe(self, key: &str, choice: usize) -> String {
        let key: String = key.chars().take(60).collect();
        match self {
            ChoiceKind::Bool => format!("`{key}` is {}", choice == 1),
            ChoiceKind::Match => format!("`{key}` matches arm {}", choice + 1),
            ChoiceKind::Try => format!("`{key}` {}", if choice == 1 { "fails" } else { "succeeds" }),
            ChoiceKind::LetElse => {
                format!("`{key}` {}", if choice == 1 { "does not match" } else { "matches" })
            }
        }
    }
}
