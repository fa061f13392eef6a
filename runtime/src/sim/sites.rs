//! Source sites: which kernel source line, and which DSL operation on it, each instruction of
//! a warp's queue came from, so that the report can attribute stall cycles to lines (a source
//! view, as Nsight Compute's).
//!
//! The DSL tells its backend the caller's [`Location`] before each operation
//! ([`crate::dsl::Event::At`]); the timing backend interns `(role, location, operation)` as a
//! [`Site`], a small number carried by every queued instruction ([`Queued`]). The SM adds each
//! closed stall interval of a warp to the site of the instruction at the head of its queue
//! when the interval opened (the head changes only when the warp issues, and every issue
//! closes an interval), so a site's cycles are the warp-cycles spent at that instruction.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::Location;

use crate::dsl::{BarrierSlot, MathKind, Op, Wait};
use crate::report::{SiteOp, SourceLine, SourceSite, StallCycles, WaitTarget};

use super::lower::Instr;
use super::sm::CtaShape;

/// An interned source site; [`Site::NONE`] for instructions with no source line (hand-built
/// programs, or time a warp spends with nothing queued).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Site(pub u32);

impl Site {
    /// No source site.
    pub const NONE: Site = Site(0);
}

/// One entry of a warp's instruction queue: the instruction and its source site.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queued {
    /// The instruction.
    pub instr: Instr,
    /// Where in the kernel source it came from.
    pub site: Site,
}

impl Queued {
    /// `instr` with no source site.
    pub fn unsited(instr: Instr) -> Self {
        Queued { instr, site: Site::NONE }
    }
}

/// What a site does: a DSL operation, or a wait on one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SiteKind {
    /// A non-blocking operation, by its DSL name.
    Op(&'static str),
    /// `mbarrier.try_wait.parity` on a stage.
    Phase(BarrierSlot),
    /// `bar.sync` on a named barrier.
    Named(u16),
    /// `wgmma.wait_group`.
    MmaGroups,
    /// `cp.async.bulk.wait_group.read`.
    Stores,
}

impl SiteKind {
    /// The site kind of a wait (its parity and count left out: one site per object waited on).
    pub fn of_wait(wait: &Wait) -> Self {
        match *wait {
            Wait::Parity { slot, .. } => SiteKind::Phase(slot),
            Wait::NamedSync { barrier } => SiteKind::Named(barrier),
            Wait::ClusterSync => SiteKind::Op("cluster_sync"),
            Wait::Mma { .. } => SiteKind::MmaGroups,
            Wait::Store { .. } => SiteKind::Stores,
        }
    }

    /// The site kind of an op: its DSL name.
    pub fn of_op(op: &Op) -> Self {
        SiteKind::Op(match op {
            Op::Arrive { .. } => "arrive",
            Op::TmaLoad { .. } => "tma_load",
            Op::TmaLoadMulticast { .. } => "tma_load_multicast",
            Op::ClusterArrive { .. } => "cluster_arrive",
            Op::TmaStore { .. } => "tma_store",
            Op::Mma { a_in_registers: false, .. } => "mma",
            Op::Mma { a_in_registers: true, .. } => "mma (A in registers)",
            Op::Umma { .. } => "umma",
            Op::MmaCommit { .. } => "mma_commit",
            Op::TmemLoad { .. } => "tmem_load",
            Op::TmemStore { .. } => "tmem_store",
            Op::Math { kind, .. } => match kind {
                MathKind::Fill { .. } => "fill",
                MathKind::Fma => "fma",
                MathKind::Exp2 => "exp2",
                MathKind::Exp2Poly => "exp2 (polynomial)",
                MathKind::Vote => "vote",
                MathKind::Recip => "recip",
                MathKind::Max => "max",
                MathKind::RowMax => "row_max",
                MathKind::RowSum => "row_sum",
                MathKind::Cast => "cast",
                MathKind::Select => "select",
            },
            Op::SharedLoad { .. } => "shared_load",
            Op::SharedStore { .. } => "shared_store",
            Op::FragmentStore { .. } => "store",
            Op::GlobalStore { .. } => "global_store",
            Op::NamedArrive { .. } => "named_arrive",
        })
    }
}

/// The key a site is interned by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SiteKey {
    role: u16,
    file: &'static str,
    line: u32,
    column: u32,
    kind: SiteKind,
}

/// The sites of one timing run, shared by the backends of every CTA slot.
#[derive(Debug, Default)]
pub struct SiteTable {
    inner: RefCell<Interned>,
}

#[derive(Debug, Default)]
struct Interned {
    keys: Vec<SiteKey>,
    ids: HashMap<SiteKey, Site>,
}

impl SiteTable {
    /// The site of `kind` issued by role `role` at `at`, written on `line` (`None`: no
    /// location known).
    pub(crate) fn intern(&self, role: u16, at: Option<(&'static Location<'static>, u32)>, kind: SiteKind) -> Site {
        let Some((at, line)) = at else { return Site::NONE };
        let key = SiteKey { role, file: at.file(), line, column: at.column(), kind };
        let mut inner = self.inner.borrow_mut();
        if let Some(&site) = inner.ids.get(&key) {
            return site;
        }
        inner.keys.push(key);
        let site = Site(inner.keys.len() as u32);
        inner.ids.insert(key, site);
        site
    }

    /// The kernel source line of `site`, if it has one.
    pub(crate) fn line(&self, site: Site) -> Option<SourceLine> {
        let inner = self.inner.borrow();
        let key = inner.keys.get((site.0 as usize).checked_sub(1)?)?;
        Some(SourceLine { file: key.file, line: key.line })
    }

    /// The sites with cycles, from per-site cycle counts (indexed by [`Site`]), most stall
    /// cycles (everything but `selected`) first.
    pub(crate) fn report(&self, cycles: &[StallCycles], shape: &CtaShape) -> Vec<SourceSite> {
        let inner = self.inner.borrow();
        let mut out: Vec<SourceSite> = inner
            .keys
            .iter()
            .enumerate()
            .filter_map(|(i, key)| {
                let c = cycles.get(i + 1).copied().unwrap_or_default();
                (c.total() > 0).then(|| SourceSite {
                    role: shape.roles.get(key.role as usize).copied().unwrap_or("?"),
                    file: key.file,
                    line: key.line,
                    column: key.column,
                    op: match key.kind {
                        SiteKind::Op(name) => SiteOp::Op(name),
                        SiteKind::Phase(slot) => SiteOp::Wait(WaitTarget::Phase(shape.stage(slot))),
                        SiteKind::Named(barrier) => SiteOp::Wait(WaitTarget::Named(shape.named_name(barrier))),
                        SiteKind::MmaGroups => SiteOp::Wait(WaitTarget::MmaGroups),
                        SiteKind::Stores => SiteOp::Wait(WaitTarget::Stores),
                    },
                    cycles: c,
                })
            })
            .collect();
        out.sort_by_key(|s| (std::cmp::Reverse(s.stall_cycles()), s.file, s.line, s.column));
        out
    }
}

/// Per-site warp-cycles by stall reason, indexed by [`Site`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SiteCycles(pub Vec<StallCycles>);

impl SiteCycles {
    /// Adds `cycles` under `reason` to `site`.
    #[inline]
    pub fn add(&mut self, site: Site, reason: crate::report::StallReason, cycles: u64) {
        let i = site.0 as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, StallCycles::default());
        }
        self.0[i].add(reason, cycles);
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &SiteCycles) {
        if other.0.len() > self.0.len() {
            self.0.resize(other.0.len(), StallCycles::default());
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            a.merge(b);
        }
    }
}
