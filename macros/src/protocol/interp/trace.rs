//! What a run produces and what it assumes: the interface the simulation ([`super::super::sim`])
//! reads.

use std::collections::HashMap;
use std::rc::Rc;

use super::value::Rect;
use crate::errors::Loc;

/// What one run of the checker assumes about values the text does not decide.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    /// The trip count of every loop whose count is not in the text, and the value of every
    /// integer atom.
    pub v: i128,
    /// The arm each undecided condition takes, by the condition's name (0 = false).
    pub choices: HashMap<String, usize>,
    /// Run-time sizes that take a value of their own instead of `v`: a size compared with a
    /// constant (`if k_tiles == 0`), at the values around where the comparison flips, while
    /// the other sizes (`tiles`) keep theirs.
    pub sizes: Vec<(Rc<str>, i128)>,
}

impl Scenario {
    /// The value the scenario gives size `name`, when it gives it one of its own.
    pub fn size(&self, name: &str) -> Option<i128> {
        self.sizes.iter().find(|(n, _)| &**n == name).map(|(_, x)| *x)
    }
}

/// A barrier operation as one role instance performs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `mbarrier.try_wait.parity`.
    Wait {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// The parity waited for.
        parity: u8,
    },
    /// `mbarrier.arrive`, expecting transaction bytes.
    Arrive {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// Transaction bytes expected (0 for a plain arrive).
        tx: i128,
    },
    /// A TMA load completing its bytes.
    Tma {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// Bytes copied.
        bytes: i128,
    },
    /// `bar.sync` on a named barrier.
    Sync {
        /// The named barrier.
        named: usize,
    },
    /// `bar.arrive` on a named barrier.
    NamedArrive {
        /// The named barrier.
        named: usize,
    },
    /// A read or write of an unguarded on-chip buffer (a tensor-memory tile or a shared
    /// tile), by a synchronous copy or, until it completes, by an asynchronous operation.
    Access {
        /// The part of the buffer it covers.
        at: Footprint,
        /// A write (else a read).
        write: bool,
        /// The asynchronous operation that performs it (`None`: done when issued).
        pending: Option<AsyncId>,
    },
    /// An asynchronous operation of the instance completes: for its later operations, and
    /// for every instance that synchronizes with them.
    Complete {
        /// The operation.
        id: AsyncId,
    },
}

/// The part of an unguarded on-chip buffer an access covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// The `#[shared]` field.
    pub field: usize,
    /// The element of an array field, when known.
    pub elem: Option<i128>,
    /// Whether the access covers the whole tile (not a view narrowed with `rows`/`cols`).
    pub whole: bool,
    /// The rectangle it covers, when the text decides the view's offsets.
    pub rect: Option<Rect>,
}

impl Footprint {
    /// Whether two accesses may touch one element: the same field and element (an unknown
    /// element may be any), and rectangles that overlap. Two views narrowed at offsets the
    /// text does not decide may be disjoint: such a pair is left to the emulator, which
    /// compares the exact rectangles; a view of the whole tile overlaps every other.
    pub fn overlaps(&self, other: &Footprint) -> bool {
        let same_elem = self.elem == other.elem || self.elem.is_none() || other.elem.is_none();
        let may_be_disjoint = match (self.rect, other.rect) {
            (Some(x), Some(y)) => !x.overlaps(y),
            _ => !self.whole && !other.whole,
        };
        self.field == other.field && same_elem && !may_be_disjoint
    }
}

/// Which asynchronous operation of an instance: its kind and its number among those.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncId {
    /// The kind of operation.
    pub kind: AsyncKind,
    /// Its number among the instance's operations of that kind.
    pub index: usize,
}

/// Kinds of asynchronous operations that read or write on-chip buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncKind {
    /// A `wgmma` group, complete at `mma_wait`.
    Wgmma,
    /// A `tcgen05.mma`, complete at its commit (an arrive on MMA completion).
    Umma,
    /// A TMA store, complete at `store_wait` or `store_wait_all`.
    Store,
}

/// One operation of a trace: what, where (the site), and how many times the instance had
/// performed that site before (`visit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The operation.
    pub kind: EventKind,
    /// Its site.
    pub site: usize,
    /// Earlier performances of the site by the same instance.
    pub visit: u32,
}

/// What a skipped arm would have signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// An arrive on bar `0`.
    Bar(usize),
    /// A use of named barrier `0`.
    Named(usize),
}

/// A condition the scenario decided, with the signals of the arms not taken.
pub struct Decision {
    /// The condition's span.
    pub loc: Loc,
    /// What was assumed: "`args.flag` is false".
    pub what: String,
    /// Signals in the arms not taken, with how they read.
    pub skipped: Vec<(Signal, String)>,
    /// Whether the arm taken leaves a loop or the function (skipping what follows).
    pub exits: bool,
}

/// One role instance's run.
pub struct Trace {
    /// The role.
    pub role: usize,
    /// The instance.
    pub instance: usize,
    /// The rank of its CTA in the cluster (0 without a cluster shape).
    pub rank: usize,
    /// Its barrier operations in program order.
    pub events: Vec<Event>,
    /// Where it returned early, if it did.
    pub exit: Option<Loc>,
    /// Scenario decisions that skipped signals.
    pub decisions: Vec<Decision>,
    /// Why the run could not be followed to its end (the trace is then partial).
    pub aborted: Option<&'static str>,
    /// Conditions met that the scenario did not decide, with their arm counts.
    pub discovered: Vec<(String, usize)>,
    /// TMA loads onto plain barriers: (bar, site).
    pub raw_tx: Vec<(usize, usize)>,
    /// Plain barriers this instance expects transaction bytes on.
    pub expects: Vec<usize>,
    /// Whether a loop's trip count came from the scenario (a size or an open loop).
    pub sized: bool,
    /// Whether an `assert!` of the role failed: the kernel does not run this scenario.
    pub infeasible: bool,
    /// Arrivals that follow a tensor-memory load (`tcgen05.ld`) with no arrival between:
    /// the load's site and the arrival's. A lowering must wait for the load
    /// (`tcgen05.wait::ld`) before such an arrival.
    pub wait_ld: Vec<(usize, usize)>,
    /// Sites of the TMA multicast loads it issued.
    pub multicasts: Vec<usize>,
}
