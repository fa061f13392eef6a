//! Lowering: the `#[kernel]` module's syntax into the typed kernel IR of `warpspec-ir`,
//! in the manner of cubecl-macros. Role bodies and the module functions they call become
//! [`warpspec_ir::Block`]s over the Rust subset kernels use, with DSL calls resolved
//! through the operation catalogue into [`warpspec_ir::ExprKind::Op`] nodes; anything
//! outside the subset is an error at its span. Every node gets a [`warpspec_ir::Pos`]; the
//! [`Sources`] side table maps it back to its tokens for diagnostics.
//!
//! - [`kernel`]: the declarations, the roles, and which module functions they reach;
//! - [`expr`]: expressions, with the receivers' DSL types tracked to resolve operations;
//! - [`syntax`]: blocks, statements, patterns, types and paths;
//! - [`source`]: the side table.

mod expr;
mod kernel;
mod source;
mod syntax;

use quote::ToTokens;
use warpspec_ir::{Pos, Receiver};

use crate::errors::Errors;
pub use kernel::lower;
pub use source::Sources;

/// A lowered kernel: the IR, and where each of its nodes came from.
pub struct Lowered<'a> {
    /// The kernel's IR.
    pub kernel: warpspec_ir::Kernel,
    /// The side table of its positions.
    pub sources: Sources<'a>,
}

/// The state of one lowering.
struct Lowerer<'a, 'e> {
    /// Where errors go.
    errors: &'e Errors,
    /// Whether an error was recorded.
    failed: bool,
    /// The side table being filled.
    sources: Sources<'a>,
    /// What the code being lowered is, for messages: "role code", "a kernel declaration".
    context: &'static str,
    /// Variables in scope with the DSL type each holds, if it holds one; innermost last.
    scope: Vec<(String, Option<Receiver>)>,
    /// Names of the module's plain functions, which calls may reach.
    module_fns: Vec<String>,
    /// Module functions called so far, in order first called.
    called: Vec<String>,
}

impl<'a> Lowerer<'a, '_> {
    /// Numbers a node lowered from `tokens`.
    fn pos(&mut self, tokens: &'a dyn ToTokens) -> Pos {
        self.sources.tokens(tokens)
    }

    /// Records that `what` (at `at`) is outside the subset kernels may use.
    fn unsupported(&mut self, at: &dyn ToTokens, what: &str, hint: &str) {
        self.failed = true;
        self.errors.at(at, format!("{what} is not supported in {}; {hint}", self.context));
    }

    /// Runs `f` in a scope of variables of its own.
    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let mark = self.scope.len();
        let out = f(self);
        self.scope.truncate(mark);
        out
    }

    /// The DSL type variable `name` holds.
    fn kind_of_var(&self, name: &str) -> Option<Receiver> {
        self.scope.iter().rev().find(|(n, _)| n == name).and_then(|(_, k)| *k)
    }
}

/// The DSL receiver a type is, by its name (`&Ctx<'_, P>`, `&mut Producer<'_, P>`).
fn receiver_of(ty: &warpspec_ir::Ty) -> Option<Receiver> {
    let name = ty.name()?;
    Receiver::ALL.iter().copied().find(|r| r.type_name() == name)
}

#[cfg(test)]
mod tests;
