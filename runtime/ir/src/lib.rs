//! The vocabulary of warpspec kernels, without any syntax-tree dependency, so that the
//! `#[kernel]` macro (at compile time) and the runtime's backends read the same declaration.
//!
//! - [`ops`]: every public operation of `Ctx`, of the pipeline and barrier endpoints, of
//!   their tokens and of tile views, declared once with its receiver, named operands, result
//!   and [`Class`]. The macro's protocol checker resolves method calls through it; a test in
//!   the runtime fails when a public DSL method is missing from it (or the catalogue names
//!   one that no longer exists).

#![deny(missing_docs)]

pub mod ops;

pub use ops::{Class, Issue, Op, OpSpec, Operand, OperandKind, Receiver, Returns};
