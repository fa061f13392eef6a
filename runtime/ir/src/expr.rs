//! Expressions of the Rust subset kernel code uses, with DSL operations resolved.

use crate::ops::Op;
use crate::pos::Pos;
use crate::stmt::{Block, Pat};
use crate::ty::{Generic, Path, Ty};

/// An expression and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Its position.
    pub pos: Pos,
    /// What it is.
    pub kind: ExprKind,
}

/// A literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    /// An integer: its decimal digits and its suffix (`u32`, or empty).
    Int {
        /// The value in decimal (it may not fit any machine integer).
        digits: String,
        /// The type suffix, or empty.
        suffix: String,
    },
    /// A floating-point number: its digits and its suffix.
    Float {
        /// The value as written, without the suffix.
        digits: String,
        /// The type suffix, or empty.
        suffix: String,
    },
    /// `true` or `false`.
    Bool(bool),
    /// A string.
    Str(String),
    /// A character.
    Char(char),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`.
    Not,
    /// `-`.
    Neg,
    /// `*`.
    Deref,
}

/// A binary operator (also the operator of a compound assignment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `^`.
    BitXor,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// A field of a struct or tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    /// `.name`.
    Named(String),
    /// `.0`.
    Index(u32),
}

/// A macro call (`assert!`, `debug_assert_eq!`, `println!`).
#[derive(Clone, Debug, PartialEq)]
pub struct Macro {
    /// The macro's path.
    pub path: Path,
    /// Its arguments, when they are comma-separated expressions.
    pub args: Option<Vec<Expr>>,
    /// The identifiers among its top-level tokens (what it may capture).
    pub idents: Vec<String>,
}

/// An arm of a `match`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// The pattern.
    pub pat: Pat,
    /// The guard (`if cond`).
    pub guard: Option<Expr>,
    /// The body.
    pub body: Expr,
}

/// What an expression is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// A variable, constant or other path.
    Path(Path),
    /// `(e)` (also the invisible group a `macro_rules!` fragment leaves).
    Paren(Box<Expr>),
    /// `&e` or `&mut e`.
    Ref {
        /// `&mut`.
        mutable: bool,
        /// The referenced expression.
        expr: Box<Expr>,
    },
    /// `e.await`.
    Await(Box<Expr>),
    /// `e as T`.
    Cast {
        /// The value.
        expr: Box<Expr>,
        /// The type.
        ty: Ty,
    },
    /// A unary operation.
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        expr: Box<Expr>,
    },
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinOp,
        /// The left operand.
        left: Box<Expr>,
        /// The right operand.
        right: Box<Expr>,
    },
    /// `place = value`.
    Assign {
        /// The place.
        left: Box<Expr>,
        /// The value.
        right: Box<Expr>,
    },
    /// `place op= value`.
    AssignOp {
        /// The operator.
        op: BinOp,
        /// The place.
        left: Box<Expr>,
        /// The value.
        right: Box<Expr>,
    },
    /// A block, maybe labelled (`'a: { .. }`).
    Block {
        /// The label, without its quote.
        label: Option<String>,
        /// The block.
        block: Block,
    },
    /// `if cond { .. } else ..`.
    If {
        /// The condition (a [`ExprKind::Let`] for `if let`).
        cond: Box<Expr>,
        /// The block run when it holds.
        then: Block,
        /// The `else` branch: a block or another `if`.
        els: Option<Box<Expr>>,
    },
    /// `match scrutinee { arms }`.
    Match {
        /// The value matched.
        scrutinee: Box<Expr>,
        /// The arms, in order.
        arms: Vec<Arm>,
    },
    /// `for pat in iter { body }`.
    For {
        /// The label, without its quote.
        label: Option<String>,
        /// The pattern each item binds.
        pat: Pat,
        /// What is iterated.
        iter: Box<Expr>,
        /// The body.
        body: Block,
    },
    /// `while cond { body }`.
    While {
        /// The label, without its quote.
        label: Option<String>,
        /// The condition (a [`ExprKind::Let`] for `while let`).
        cond: Box<Expr>,
        /// The body.
        body: Block,
    },
    /// `loop { body }`.
    Loop {
        /// The label, without its quote.
        label: Option<String>,
        /// The body.
        body: Block,
    },
    /// `break 'label value`.
    Break {
        /// The label, without its quote.
        label: Option<String>,
        /// The value.
        value: Option<Box<Expr>>,
    },
    /// `continue 'label`.
    Continue {
        /// The label, without its quote.
        label: Option<String>,
    },
    /// `return value`.
    Return(Option<Box<Expr>>),
    /// `e?`.
    Try(Box<Expr>),
    /// `let pat = expr` in a condition.
    Let {
        /// The pattern.
        pat: Pat,
        /// The value matched.
        expr: Box<Expr>,
    },
    /// A call of a function (a module helper, `min`, `drop`, ..).
    Call {
        /// The function called.
        func: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A method that is not a DSL operation: host methods of integers, ranges and shapes
    /// (`div_ceil`, `min`, `shape`), and the views a pipeline token gives of its slot.
    Method {
        /// The receiver.
        receiver: Box<Expr>,
        /// The method's name.
        method: String,
        /// Its turbofish arguments.
        generics: Vec<Generic>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A DSL operation, resolved through the catalogue: its operands are in the order of
    /// [`crate::OpSpec::operands`], read by name with [`ExprKind::operand`].
    Op {
        /// The operation.
        op: Op,
        /// What it is called on.
        receiver: Box<Expr>,
        /// Its turbofish arguments (`rows::<64>`, `cast::<bf16>`).
        generics: Vec<Generic>,
        /// The operands.
        operands: Vec<Expr>,
    },
    /// A macro call.
    Macro(Macro),
    /// A closure (`|r, c| c <= r`).
    Closure {
        /// Its parameters.
        params: Vec<Pat>,
        /// Its body.
        body: Box<Expr>,
    },
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `[a, b]`.
    Array(Vec<Expr>),
    /// `[value; len]`.
    Repeat {
        /// The repeated value.
        value: Box<Expr>,
        /// The length.
        len: Box<Expr>,
    },
    /// `Path { field: value, .. }`.
    Struct {
        /// The struct's path.
        path: Path,
        /// The fields given.
        fields: Vec<(Member, Expr)>,
        /// `..rest`.
        rest: Option<Box<Expr>>,
    },
    /// `base.member`.
    Field {
        /// The struct or tuple.
        base: Box<Expr>,
        /// The field.
        member: Member,
    },
    /// `base[index]`.
    Index {
        /// What is indexed.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `start..end` or `start..=end`.
    Range {
        /// The start.
        start: Option<Box<Expr>>,
        /// The end.
        end: Option<Box<Expr>>,
        /// `..=`.
        closed: bool,
    },
}

impl ExprKind {
    /// Operand `name` of a DSL operation, by its name in the catalogue.
    pub fn operand(&self, name: &str) -> Option<&Expr> {
        match self {
            ExprKind::Op { op, operands, .. } => operands.get(op.operand(name)?),
            _ => None,
        }
    }
}

impl Expr {
    /// The value of a constant integer expression: literals, constants `lookup` knows, and
    /// `+ - * / %` over them (the arithmetic of array lengths and const generics).
    pub fn const_value(&self, lookup: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        match &self.kind {
            ExprKind::Lit(Lit::Int { digits, .. }) => digits.parse().ok(),
            ExprKind::Path(p) => lookup(p.ident()?),
            ExprKind::Paren(e) | ExprKind::Cast { expr: e, .. } => e.const_value(lookup),
            ExprKind::Block { label: None, block } => block.sole_expr()?.const_value(lookup),
            ExprKind::Binary { op, left, right } => {
                let (l, r) = (left.const_value(lookup)?, right.const_value(lookup)?);
                match op {
                    BinOp::Add => l.checked_add(r),
                    BinOp::Sub => l.checked_sub(r),
                    BinOp::Mul => l.checked_mul(r),
                    BinOp::Div => l.checked_div(r),
                    BinOp::Rem => l.checked_rem(r),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl Generic {
    /// The value of a const generic argument (`64`, `BM`, `{ BM / 2 }`).
    pub fn const_value(&self, lookup: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        match self {
            Generic::Const(e) => e.const_value(lookup),
            Generic::Type(Ty::Path(p)) => lookup(p.ident()?),
            _ => None,
        }
    }
}
