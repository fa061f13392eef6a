//! The abstract interpreter: runs one role instance's body, in program order, over abstract
//! values, and records its barrier operations as a trace.
//!
//! Integers are computed exactly where the text decides them (literals, module constants,
//! `cx.instance()`, loop counters, locals). Values only known at run time (launch arguments,
//! `cx.block()`, tensor shapes) are *atoms*, named by how they were computed; as integers
//! they are sizes, which take the run's trip count `v` (see [`super::lin`]), and every
//! condition on atoms takes the value the run's [`Scenario`] assigns to it, the same in every
//! role, since a kernel's control flow may not depend on data. A condition that leaves a
//! `loop` or `while` holds on the loop's `v`-th iteration. Module functions the roles call
//! are run inline with their arguments, except register math (no operations, a data result).
//!
//! While running, the interpreter checks what one role decides alone: tokens handed over on
//! every path, transaction bytes of each TMA slot, slots released only after the MMAs and
//! TMA stores reading them completed, tiles written and roles ended only after their own TMA
//! stores have read them, `wgmma` only in warpgroup roles, indices in range.
//!
//! The parts, one concern each:
//! - [`trace`]: what a run produces ([`Trace`], [`Event`]) and what it assumes ([`Scenario`]);
//! - [`value`]: abstract values and how control leaves an expression ([`value::Flow`]);
//! - [`run`]: the run's state, its scopes (opened and closed by [`Run::scoped`]) and
//!   statements;
//! - [`eval`]: the evaluator of the Rust subset kernels use: expressions, calls, inlining;
//! - [`control`]: conditions the scenario decides, `if`, `match`, and the one loop runner;
//! - [`access`]: reads and writes of unguarded on-chip buffers (tensor memory, shared tiles)
//!   recorded for the simulation's race check;
//! - [`dsl`]: the meaning of DSL operations, resolved through the operation catalogue of
//!   `warpspec-ir` with operands read by name;
//! - [`diagnose`]: the findings one role's run reports;
//! - [`scan`]: syntax scans (what an arm signals or leaves, what a closure captures).

/// Evaluates an expression, passing any flow other than a value up.
macro_rules! val {
    ($run:expr, $e:expr) => {
        match $run.eval($e) {
            Flow::Val(v) => v,
            other => return other,
        }
    };
}

mod access;
mod control;
mod diagnose;
mod dsl;
mod eval;
mod run;
mod scan;
mod trace;
mod value;

pub use run::Run;
pub use scan::{ArmInfo, is_math};
pub use trace::{AsyncId, Event, EventKind, Footprint, Scenario, Signal, Trace};

/// Statements and expressions one run may evaluate.
const RUN_STEPS: u32 = 60_000;
/// Iterations one loop may make in one run.
const MAX_ITERATIONS: i128 = 4096;
/// Nesting of inlined module functions.
const MAX_DEPTH: u32 = 12;
/// Decisions with skipped signals kept per run, for messages.
const MAX_DECISIONS: usize = 64;
