//! Types and paths as kernel code writes them.

use crate::expr::Expr;

/// A path: `x`, `P::STAGES`, `f32::MAX`, `Tile::<bf16, 64, 64>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// Starts with `::`.
    pub global: bool,
    /// Its segments.
    pub segments: Vec<Segment>,
}

/// One segment of a path, with its generic arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// The identifier.
    pub name: String,
    /// Its generic arguments (`<..>` or `::<..>`).
    pub generics: Vec<Generic>,
}

/// A generic argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Generic {
    /// A type, or a constant named by a path (`BM`), which reads the same.
    Type(Ty),
    /// A constant expression (`64`, `{ BM / 2 }`).
    Const(Expr),
    /// A lifetime, without its quote (`_`, `a`).
    Lifetime(String),
}

/// A type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A named type with its generic arguments: `u32`, `Tile<bf16, BM, BK>`.
    Path(Path),
    /// `&T` or `&mut T`.
    Ref {
        /// `&mut`.
        mutable: bool,
        /// The referenced type.
        elem: Box<Ty>,
    },
    /// `(A, B)`; `()` is the empty tuple.
    Tuple(Vec<Ty>),
    /// `[T; N]`.
    Array {
        /// The element type.
        elem: Box<Ty>,
        /// The length.
        len: Box<Expr>,
    },
    /// `[T]`.
    Slice(Box<Ty>),
    /// `_`.
    Infer,
    /// `!`.
    Never,
}

impl Path {
    /// The identifier of a one-segment path without generics (`x`, not `a::x` or `f::<T>`).
    pub fn ident(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [s] if !self.global && s.generics.is_empty() => Some(&s.name),
            _ => None,
        }
    }

    /// The identifier of its last segment.
    pub fn last(&self) -> Option<&str> {
        self.segments.last().map(|s| s.name.as_str())
    }
}

impl Ty {
    /// The name of the type's last path segment, through references: `Producer` for
    /// `&mut Producer<'_, P>`.
    pub fn name(&self) -> Option<&str> {
        match self {
            Ty::Path(p) => p.last(),
            Ty::Ref { elem, .. } => elem.name(),
            _ => None,
        }
    }
}
