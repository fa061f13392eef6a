//! The side table from IR positions back to the kernel's tokens: the spans diagnostics
//! point at and the text conditions are named by in messages.

use proc_macro2::Span;
use quote::ToTokens;
use warpspec_ir::Pos;

use crate::errors::Loc;

/// Where an IR node came from.
#[derive(Clone)]
enum Source<'a> {
    /// The tokens of a syntax node.
    Tokens(&'a dyn ToTokens),
    /// One span (a block's closing brace).
    Span(Span),
    /// A node whose tokens do not outlive the lowering (a macro's arguments, parsed from
    /// its tokens): its range and text, kept.
    Kept(Loc, String),
}

/// The source of every node of one lowered kernel, by node number.
#[derive(Default)]
pub struct Sources<'a> {
    /// The number of the first node.
    base: usize,
    /// The sources, by [`Pos::node`] less `base`.
    nodes: Vec<Source<'a>>,
}

impl<'a> Sources<'a> {
    /// Numbers a node lowered from `tokens`.
    pub fn tokens(&mut self, tokens: &'a dyn ToTokens) -> Pos {
        let loc = Loc::of(tokens);
        self.push(Source::Tokens(tokens), loc)
    }

    /// Numbers a node that is one span (a block's closing brace).
    pub fn span(&mut self, span: Span) -> Pos {
        self.push(Source::Span(span), Loc::span(span))
    }

    /// A table for nodes lowered apart (from tokens that do not outlive the lowering),
    /// numbered after this table's; [`Sources::absorb`] takes them back.
    pub fn apart<'b>(&self) -> Sources<'b> {
        Sources { base: self.base + self.nodes.len(), nodes: Vec::new() }
    }

    /// Takes back the nodes of a table made by [`Sources::apart`], keeping their ranges and
    /// texts.
    pub fn absorb(&mut self, apart: &Sources<'_>) {
        for i in 0..apart.nodes.len() {
            let pos = Pos { line: 0, column: 0, node: u32::try_from(apart.base + i).unwrap_or(u32::MAX) };
            self.nodes.push(Source::Kept(apart.loc(pos), apart.text(pos)));
        }
    }

    /// Records `source`, positioned at `loc`.
    fn push(&mut self, source: Source<'a>, loc: Loc) -> Pos {
        let node = u32::try_from(self.base + self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(source);
        let line = u32::try_from(loc.line()).unwrap_or(0);
        let column = u32::try_from(loc.column()).unwrap_or(0);
        Pos { line, column, node }
    }

    /// The source range of the node at `pos`, for an error.
    pub fn loc(&self, pos: Pos) -> Loc {
        match self.get(pos) {
            Some(Source::Tokens(t)) => Loc::of(*t),
            Some(Source::Span(s)) => Loc::span(*s),
            Some(Source::Kept(loc, _)) => *loc,
            None => Loc::span(Span::call_site()),
        }
    }

    /// The node's text as tokens print (`args . flag`), for naming it in messages.
    pub fn text(&self, pos: Pos) -> String {
        match self.get(pos) {
            Some(Source::Tokens(t)) => t.to_token_stream().to_string(),
            Some(Source::Kept(_, text)) => text.clone(),
            _ => String::new(),
        }
    }

    /// The source of the node at `pos`.
    fn get(&self, pos: Pos) -> Option<&Source<'a>> {
        self.nodes.get((pos.node as usize).checked_sub(self.base)?)
    }
}
