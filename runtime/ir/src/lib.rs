//! The vocabulary and the typed IR of warpspec kernels, without any syntax-tree dependency,
//! so that the `#[kernel]` macro (at compile time) and the runtime's backends read the same
//! declarations.
//!
//! - [`ops`]: every public operation of `Ctx`, of the pipeline and barrier endpoints, of
//!   their tokens and of tile views, declared once with its receiver, named operands, result
//!   and [`Class`]. The macro's protocol checker resolves method calls through it; a test in
//!   the runtime fails when a public DSL method is missing from it (or the catalogue names
//!   one that no longer exists).
//! - [`Kernel`] ([`kernel`]): a kernel's declarations, its roles and the module functions
//!   they call, with bodies as [`Block`]s of [`Stmt`]s ([`stmt`]) and [`Expr`]s ([`expr`])
//!   over the Rust subset kernels use; DSL calls are [`ExprKind::Op`] nodes. Every node
//!   carries its [`Pos`]. The macro lowers role bodies into it; its protocol checker
//!   analyses it; each kernel exposes it at run time for the backends to render.
//! - [`visit`]: a pre-order walk over bodies.

#![deny(missing_docs)]

pub mod expr;
pub mod kernel;
pub mod ops;
pub mod pos;
pub mod stmt;
pub mod ty;
pub mod visit;

pub use expr::{Arm, BinOp, Expr, ExprKind, Lit, Macro, Member, UnOp};
pub use kernel::{Barrier, Const, Field, Function, Kernel, NamedBarrier, Param, Pipeline, Role, WaitLd};
pub use ops::{Class, Issue, Op, OpSpec, Operand, OperandKind, Receiver, Returns};
pub use pos::Pos;
pub use stmt::{Block, Local, Pat, PatKind, Stmt, StmtKind};
pub use ty::{Generic, Path, Segment, Ty};
