//! Op timestamps in generated code: lane 0 of each warp of the first CTAs of the grid reads
//! the SM's cycle counter before each DSL operation of its role and stores it with the
//! operation's site, so a run on the GPU gives, per warp, when each op began: the same
//! quantity the timing model's timeline gives for its warps (see
//! [`crate::report::OpTimes`]).
//!
//! A timestamped kernel is a separate rendering ([`super::generate_timestamped`]): the kernel
//! without timestamps is rendered exactly as before. Each mark costs the warp a clock read,
//! a predicated store and an increment, with no branch (`timestamps.cuh`); `validate
//! op-times` reports the timestamped kernel's time beside the plain one's, so the
//! perturbation is measured, not assumed.

use std::fmt;

use warpspec_ir::Class;

use super::body::Body;
use super::error::{Unsupported, unsupported};

/// Which warps record and how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimestampSpec {
    /// CTAs that record: the first `ctas` of the grid, by linear block index.
    pub ctas: u32,
    /// Marks each warp keeps; three less than a power of two (a warp's row is a header, its
    /// end clock, the global timer at its end and its marks). A warp stops recording when its
    /// row is full.
    pub capacity: u32,
    /// Only the operations on these source lines record a mark (`None`: every operation that
    /// issues work or waits). Fewer marks perturb the kernel less: each clock read stops
    /// ptxas scheduling across the op boundary where it sits.
    pub lines: Option<MarkedLines>,
}

/// A set of at most [`MarkedLines::MAX`] source lines whose operations record a mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarkedLines {
    lines: [u32; MarkedLines::MAX],
    len: usize,
}

impl MarkedLines {
    /// Most lines a set holds.
    pub const MAX: usize = 8;

    /// The set of `lines`: one to [`Self::MAX`] positive line numbers, each once.
    pub fn new(lines: &[u32]) -> Result<Self, String> {
        if lines.is_empty() || lines.len() > Self::MAX {
            return Err(format!("mark 1 to {} source lines, not {}", Self::MAX, lines.len()));
        }
        let mut set = MarkedLines { lines: [0; Self::MAX], len: 0 };
        for &line in lines {
            if line == 0 {
                return Err("source lines count from 1; line 0 is not a line".into());
            }
            if set.contains(line) {
                return Err(format!("line {line} is listed twice"));
            }
            set.lines[set.len] = line;
            set.len += 1;
        }
        Ok(set)
    }

    /// Whether `line` is in the set.
    pub fn contains(&self, line: u32) -> bool {
        self.lines[..self.len].contains(&line)
    }
}

impl TimestampSpec {
    /// Words of one warp's row.
    pub fn row(&self) -> u32 {
        self.capacity + 3
    }

    /// Why the spec cannot be rendered for `warps` warps per CTA, if it cannot.
    pub fn check(&self, warps: u32) -> Result<(), String> {
        if self.ctas == 0 || self.capacity == 0 || !self.row().is_power_of_two() {
            return Err(format!(
                "timestamps need at least one CTA and a capacity three less than a power of two (a \
                 row of a header, the end clock, the end's global time and the marks), not {self:?}"
            ));
        }
        if self.words(warps) >= u32::MAX as usize {
            return Err(format!("{self:?} for {warps} warps per CTA needs 2^32 words or more; record fewer CTAs"));
        }
        Ok(())
    }

    /// Words of the device buffer for `warps` warps per CTA: a row per warp.
    pub fn words(&self, warps: u32) -> usize {
        self.ctas as usize * warps as usize * self.row() as usize
    }
}

/// An operation that records a mark: its role, source line and DSL name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampSite {
    /// The role whose code it is.
    pub role: String,
    /// The Rust source line of the call.
    pub line: u32,
    /// The DSL operation (`acquire`, `tma_load`, `mma`, ...).
    pub op: &'static str,
}

impl fmt::Display for TimestampSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` line {} ({})", self.role, self.line, self.op)
    }
}

/// What a timestamped rendering records: the spec, the CTA's warps and the sites, indexed by
/// the site number stored in each mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampLayout {
    /// Which warps record and how much.
    pub spec: TimestampSpec,
    /// Warps per CTA.
    pub warps: u32,
    /// The sites, by number.
    pub sites: Vec<TimestampSite>,
}

/// The device helpers a timestamped rendering includes after the prelude.
pub(super) const HELPERS: &str = include_str!("timestamps.cuh");

/// Most sites a kernel may have.
pub const MAX_SITES: usize = 1 << 16;

/// The name of the per-warp recorder (its next mark's word) in generated code, reserved
/// from kernel names.
pub(super) const RECORDER: &str = "ws_ts";

/// The name of the buffer's parameter, and of its field of `Params`.
pub(super) const BUFFER: &str = "ws_timestamps";

/// Whether operations of `class` record a mark: everything that issues work or waits, not
/// queries, views and the naming of a barrier stage.
fn marks(class: Class) -> bool {
    !matches!(class, Class::Query | Class::View | Class::TxTarget)
}

impl Body<'_> {
    /// Emits the mark before an operation of `class` called `op` on `line`, when rendering
    /// with timestamps (`timestamped`) and the spec marks that line.
    pub(super) fn timestamp(&mut self, class: Class, op: &'static str, line: u32) -> Result<(), Unsupported> {
        let Some(spec) = self.timestamped.filter(|s| marks(class) && s.lines.is_none_or(|l| l.contains(line))) else {
            return Ok(());
        };
        let row = spec.row();
        if self.uses.sites.len() >= MAX_SITES {
            return unsupported(line, format!("timestamps for more than {MAX_SITES} operations"));
        }
        let site = self.uses.sites.len();
        let role = self.plan.roles[self.role].name.clone();
        self.uses.sites.push(TimestampSite { role, line, op });
        self.line(format!("wsg::timestamp<{row}u>(P.{BUFFER}, {RECORDER}, {site}u);  // line {line}: {op}"));
        Ok(())
    }
}
