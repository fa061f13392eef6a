//! Blocks, statements and patterns.

use crate::expr::{Expr, Lit, Macro, Member};
use crate::pos::Pos;
use crate::ty::{Path, Ty};

/// A block: statements, the last maybe a tail expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Where it opens.
    pub pos: Pos,
    /// Its closing brace (where the variables of its scope are dropped).
    pub close: Pos,
    /// Its statements, in order.
    pub stmts: Vec<Stmt>,
}

/// A statement and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// Its position (it spans the trailing `;`).
    pub pos: Pos,
    /// What it is.
    pub kind: StmtKind,
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let pat = init else { diverge };`.
    Let(Box<Local>),
    /// An expression; `semi` when it ends in `;` (otherwise, last in its block, it is the
    /// block's value).
    Expr {
        /// The expression.
        expr: Expr,
        /// Followed by `;`.
        semi: bool,
    },
    /// A macro call in statement position.
    Macro(Macro),
}

/// A `let` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    /// The pattern (with its type, if written, as [`PatKind::Typed`]).
    pub pat: Pat,
    /// The initialiser.
    pub init: Option<Expr>,
    /// The `else` branch of a `let .. else`.
    pub diverge: Option<Expr>,
}

/// A pattern and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Pat {
    /// Its position.
    pub pos: Pos,
    /// What it is.
    pub kind: PatKind,
}

/// What a pattern is.
#[derive(Clone, Debug, PartialEq)]
pub enum PatKind {
    /// `_`.
    Wild,
    /// `..` in a tuple or slice pattern.
    Rest,
    /// A name: `x`, `mut x`, `ref x`, `x @ sub`.
    Ident {
        /// The name.
        name: String,
        /// `mut`.
        mutable: bool,
        /// `ref`.
        by_ref: bool,
        /// `@ sub`.
        sub: Option<Box<Pat>>,
    },
    /// A literal.
    Lit(Lit),
    /// A path: a constant or a unit variant (`Option::None`).
    Path(Path),
    /// `(a, b)`.
    Tuple(Vec<Pat>),
    /// `[a, b]`.
    Slice(Vec<Pat>),
    /// `Path(a, b)`.
    TupleStruct {
        /// The struct or variant.
        path: Path,
        /// The fields.
        elems: Vec<Pat>,
    },
    /// `Path { field: pat, .. }`.
    Struct {
        /// The struct or variant.
        path: Path,
        /// The fields given.
        fields: Vec<(Member, Pat)>,
    },
    /// `pat: Ty` (a `let` or a closure parameter).
    Typed {
        /// The pattern.
        pat: Box<Pat>,
        /// The type.
        ty: Ty,
    },
    /// `&pat`.
    Ref(Box<Pat>),
    /// `a | b`.
    Or(Vec<Pat>),
}

impl Block {
    /// The block's only statement, when it is a tail expression (`{ BM / 2 }`).
    pub fn sole_expr(&self) -> Option<&Expr> {
        match self.stmts.as_slice() {
            [Stmt { kind: StmtKind::Expr { expr, semi: false }, .. }] => Some(expr),
            _ => None,
        }
    }
}
