//! Error collection: every problem found is kept and reported together, each at its span
//! (the `Ctxt` pattern of serde_derive).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects errors during one expansion.
#[derive(Default)]
pub struct Errors {
    errors: RefCell<Vec<syn::Error>>,
}

impl Errors {
    /// Records an error spanning `tokens`.
    pub fn at(&self, tokens: impl ToTokens, message: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(tokens, message));
    }

    /// Records a `syn` error.
    pub fn push(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All errors combined into one, or `Ok` if there are none.
    pub fn finish(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut first) = errors.next() else { return Ok(()) };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}

/// "`a`, `b`, `c`" (or "none").
pub fn list<T: Display>(names: impl IntoIterator<Item = T>) -> String {
    let names: Vec<String> = names.into_iter().map(|n| format!("`{n}`")).collect();
    if names.is_empty() { "none".into() } else { names.join(", ") }
}
