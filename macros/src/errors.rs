//! Error collection: every problem found is kept and reported together, each at its span
//! (the `Ctxt` pattern of serde_derive).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;

use crate::diag::{Code, Diagnostic};

/// Collects errors during one expansion.
#[derive(Default)]
pub struct Errors {
    /// The errors, in the order recorded.
    errors: RefCell<Vec<syn::Error>>,
}

impl Errors {
    /// Records an error about the kernel's declarations spanning `tokens`.
    pub fn at(&self, tokens: impl ToTokens, message: impl Display) {
        self.coded(Code::Declaration, tokens, message);
    }

    /// Records an error of check `code` spanning `tokens`.
    pub fn coded(&self, code: Code, tokens: impl ToTokens, message: impl Display) {
        self.report(Diagnostic::new(code, Loc::of(tokens), message));
    }

    /// Records a diagnostic: its primary error, then one per related site.
    pub fn report(&self, d: Diagnostic) {
        self.errors.borrow_mut().extend(d.into_errors());
    }

    /// Records a `syn` error.
    pub fn push(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// How many errors were recorded.
    pub fn len(&self) -> usize {
        self.errors.borrow().len()
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

/// A source range an error points at: the spans of its first and last tokens (what
/// `syn::Error::new_spanned` keeps of a token stream), cheap to copy and store.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    /// Span of the first token.
    start: Span,
    /// Span of the last token.
    end: Span,
}

impl Loc {
    /// The range of `tokens`.
    pub fn of(tokens: impl ToTokens) -> Self {
        let mut tokens = tokens.into_token_stream().into_iter();
        let start = tokens.next().map_or_else(Span::call_site, |t| t.span());
        let end = tokens.last().map_or(start, |t| t.span());
        Self { start, end }
    }

    /// The range of one span.
    pub fn span(span: Span) -> Self {
        Self { start: span, end: span }
    }

    /// The 1-based line it starts on.
    pub fn line(self) -> usize {
        self.start.start().line
    }

    /// The 0-based column it starts at.
    pub fn column(self) -> usize {
        self.start.start().column
    }
}

impl ToTokens for Loc {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        for span in [self.start, self.end] {
            let mut punct = Punct::new('#', Spacing::Alone);
            punct.set_span(span);
            tokens.extend([TokenTree::Punct(punct)]);
        }
    }
}
