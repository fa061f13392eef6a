//! Abstract values, and how control leaves an expression.

use std::collections::HashSet;
use std::rc::Rc;

use warpspec_ir::{Lit, Pat, PatKind, Pos};

use super::super::lin::Lin;
use super::trace::Footprint;
use crate::model::TileShape;

/// Whose tile a tile value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    /// A tile of the slot behind token `0`.
    Token(usize),
    /// An unguarded on-chip buffer (field `0`).
    Buffer(usize),
    /// Element `1` of an unguarded on-chip array (field `0`).
    Element(usize, u32),
}

impl Owner {
    /// The unguarded field it is part of, and the element when it is one.
    pub(super) fn buffer(self) -> Option<(usize, Option<i128>)> {
        match self {
            Owner::Buffer(f) => Some((f, None)),
            Owner::Element(f, i) => Some((f, Some(i128::from(i)))),
            Owner::Token(_) => None,
        }
    }
}

/// A range as a `for` loop iterates it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Range {
    /// First value.
    pub(super) start: i128,
    /// End (exclusive).
    pub(super) end: i128,
    /// Step between values.
    pub(super) step: i128,
    /// Iterated backwards.
    pub(super) rev: bool,
    /// Yields `(index, value)`.
    pub(super) enumerate: bool,
    /// Whether its bounds depend on run-time sizes.
    pub(super) sized: bool,
}

impl Range {
    /// Number of values.
    pub(super) fn len(&self) -> i128 {
        if self.end <= self.start || self.step <= 0 {
            return 0;
        }
        self.end.saturating_sub(self.start).saturating_add(self.step - 1) / self.step
    }

    /// The `i`-th value in iteration order.
    pub(super) fn nth(&self, i: i128) -> Val {
        let n = self.len();
        let k = if self.rev { n - 1 - i } else { i };
        let x = k.checked_mul(self.step).and_then(|d| self.start.checked_add(d)).map_or(Val::Unknown, Val::Int);
        if self.enumerate { Val::Tuple(vec![Val::Int(i), x]) } else { x }
    }
}

/// An abstract value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    /// An integer the text decides.
    Int(i128),
    /// An integer that depends on run-time sizes (see [`Lin`]).
    Sym(Lin),
    /// A boolean the text decides.
    Bool(bool),
    /// A run-time value, the same in every role of a CTA, named by how it was computed.
    Atom(Rc<str>),
    /// Nothing known.
    Unknown,
    /// The role's context.
    Ctx,
    /// Endpoint parameter `0` of the role.
    Endpoint(usize),
    /// Unguarded on-chip buffer (field `0`).
    Buffer(usize),
    /// A pipeline token.
    Token(usize),
    /// A tile (or window) of a slot or buffer, with its shape when known and, for a window
    /// of an unguarded buffer whose offsets the text decides, the rectangle it covers.
    Tile(Owner, Option<TileShape>, Option<Box<Rect>>),
    /// A `wgmma` group.
    Group(usize),
    /// A TMA store group.
    Store(usize),
    /// A TMA completion target on stage `1` of plain bar `0`.
    TxOn(usize, usize),
    /// A tuple or array.
    Tuple(Vec<Val>),
    /// A range.
    Range(Range),
}

/// How control leaves an expression (with where it leaves, for messages).
pub(super) enum Flow {
    /// Normally, with a value.
    Val(Val),
    /// `break 'label value`.
    Break(Option<String>, Val, Pos),
    /// `continue 'label`.
    Continue(Option<String>, Pos),
    /// `return value` (or a `?` that fails).
    Return(Val, Pos),
    /// The run cannot be followed further.
    Abort,
}

/// A pipeline token's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TokState {
    /// Held.
    Live,
    /// Handed over (committed or released), or reported dropped.
    Done,
    /// Moved where the checker cannot follow.
    Escaped,
}

/// A pipeline token taken by `acquire` or `wait`.
#[derive(Clone, Debug)]
pub(super) struct Token {
    /// Its pipeline.
    pub(super) pipe: usize,
    /// A producer's slot (else a consumer's full slot).
    pub(super) producer: bool,
    /// Its stage.
    pub(super) stage: usize,
    /// The `acquire` or `wait` that took it.
    pub(super) site: usize,
    /// The endpoint that took it.
    pub(super) ep: usize,
    /// Transaction bytes copied onto the slot so far (`None` once unknown).
    pub(super) loaded: Option<i128>,
    /// The TMA loads onto the slot: site and bytes.
    pub(super) loads: Vec<(usize, Option<i128>)>,
    /// Where it is in its life.
    pub(super) state: TokState,
}

/// An asynchronous operation reading tiles: a `wgmma` group, a TMA store, a `tcgen05.mma`.
#[derive(Clone, Debug)]
pub(super) struct Async {
    /// The operation's site.
    pub(super) site: usize,
    /// What it reads.
    pub(super) reads: Vec<Owner>,
    /// The part of an unguarded buffer a TMA store reads, when its source is one.
    pub(super) source: Option<Footprint>,
    /// The loops it was issued in, outermost first: each loop body's node and the iteration.
    pub(super) issued_in: Vec<(u32, i128)>,
    /// Whether it is known complete.
    pub(super) done: bool,
}

impl Async {
    /// An operation issued at `site` that reads `reads`, not yet complete.
    pub(super) fn new(site: usize, reads: Vec<Owner>) -> Self {
        Self { site, reads, source: None, issued_in: Vec::new(), done: false }
    }
}

/// A producer's or consumer's ring position (CUTLASS's `{index, phase}`).
#[derive(Clone, Copy, Debug)]
pub(super) struct PipeState {
    /// The next stage.
    pub(super) index: usize,
    /// The parity to wait for at it.
    pub(super) phase: u8,
    /// Stages in the ring.
    pub(super) stages: usize,
}

/// Whether a `break` with label `l` (or none) leaves the loop labelled `label`.
pub(super) fn targets(l: &Option<String>, label: &Option<String>) -> bool {
    l.is_none() || l == label
}

/// Element `i` of a destructured value.
pub(super) fn part(v: &Val, i: usize) -> Val {
    match v {
        Val::Tuple(vs) => vs.get(i).cloned().unwrap_or(Val::Unknown),
        Val::Atom(k) => Val::Atom(format!("{k}[{i}]").into()),
        _ => Val::Unknown,
    }
}

/// Adds the tokens `v` holds to `out`.
pub(super) fn collect_tokens(v: &Val, out: &mut HashSet<usize>) {
    match v {
        Val::Token(t) => {
            out.insert(*t);
        }
        Val::Tuple(vs) => vs.iter().for_each(|v| collect_tokens(v, out)),
        _ => {}
    }
}

/// Whether `pat` matches `v`: `None` when the text does not decide it.
pub(super) fn pattern_matches(pat: &Pat, v: &Val) -> Option<bool> {
    match &pat.kind {
        PatKind::Wild => Some(true),
        PatKind::Ident { sub: None, .. } => Some(true),
        PatKind::Lit(l) => match (l, v) {
            (Lit::Int { digits, .. }, Val::Int(x)) => Some(digits.parse::<i128>().ok()? == *x),
            (Lit::Bool(b), Val::Bool(x)) => Some(b == x),
            _ => None,
        },
        PatKind::Or(cases) => {
            let mut any = false;
            for case in cases {
                match pattern_matches(case, v) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => any = true,
                }
            }
            if any { None } else { Some(false) }
        }
        _ => None,
    }
}

/// Methods of a range.
pub(super) fn range_method(mut r: Range, name: &str, arg: Option<(i128, bool)>) -> Val {
    match name {
        "rev" => r.rev = !r.rev,
        "step_by" => match arg {
            Some((s, _)) if s > 0 && !r.rev => r.step = r.step.saturating_mul(s),
            _ => return Val::Unknown,
        },
        "enumerate" => r.enumerate = true,
        "into_iter" => {}
        _ => return Val::Unknown,
    }
    Val::Range(r)
}

/// An integer value: exact when the text decides it.
pub(super) fn int(x: Lin) -> Val {
    match x {
        Lin { base: None, off, exact: true, .. } => Val::Int(off),
        other => Val::Sym(other),
    }
}

/// The rectangle of an unguarded buffer a window covers, in the buffer's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// First row.
    pub row: i32,
    /// First column.
    pub col: i32,
    /// Rows.
    pub rows: i32,
    /// Columns.
    pub cols: i32,
}

impl Rect {
    /// The whole of a tile of `shape`, if its extents fit.
    pub fn whole(shape: TileShape) -> Option<Self> {
        Some(Self { row: 0, col: 0, rows: i32::try_from(shape.rows).ok()?, cols: i32::try_from(shape.cols).ok()? })
    }

    /// The window of `n` rows from row `start` of this rectangle.
    pub fn rows(self, start: i128, n: i128) -> Option<Self> {
        let row = self.row.checked_add(i32::try_from(start).ok()?)?;
        Some(Self { row, rows: i32::try_from(n).ok()?, ..self })
    }

    /// The window of `n` columns from column `start` of this rectangle.
    pub fn cols(self, start: i128, n: i128) -> Option<Self> {
        let col = self.col.checked_add(i32::try_from(start).ok()?)?;
        Some(Self { col, cols: i32::try_from(n).ok()?, ..self })
    }

    /// Whether the two rectangles share an element.
    pub fn overlaps(self, other: Self) -> bool {
        let end = |a: i32, n: i32| i64::from(a) + i64::from(n);
        i64::from(self.row) < end(other.row, other.rows)
            && i64::from(other.row) < end(self.row, self.rows)
            && i64::from(self.col) < end(other.col, other.cols)
            && i64::from(other.col) < end(self.col, self.cols)
    }
}
