//! Diagnostics in the manner of rustc's: an error code per check (`WS0001`, explained in
//! `docs/checks.md`), a primary span, secondary spans at the other roles' sites, notes and a
//! `help:` line with the fix.
//!
//! A stable proc macro can only emit `compile_error!`, one span each (`proc_macro::Diagnostic`,
//! with labelled secondary spans and child notes, is nightly-only; serde_derive, thiserror and
//! syn report through `syn::Error::combine`, one `compile_error!` per span). So a diagnostic
//! is emitted as a chain: the primary error carries the code, the message, its notes and the
//! help as lines of its text; each secondary span follows as its own `compile_error!` that
//! reads `note: <label> (related to WS00xx above)`, pointing at the other site.

use std::fmt;

use crate::errors::Loc;

/// The check a diagnostic comes from; `docs/checks.md` has a section per code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A cycle of waits: no instance of the cycle can move.
    Cycle,
    /// A wait whose arrivers all finished.
    Starved,
    /// An arrival skipped by an early exit or a condition.
    Skipped,
    /// A pipeline token dropped without being handed over.
    Dropped,
    /// Too many arrivals per phase.
    OverArrival,
    /// Too few arrivals per phase.
    UnderArrival,
    /// Transaction bytes that do not balance.
    Bytes,
    /// A TMA load completing on the wrong barrier.
    TmaTarget,
    /// A first wait for parity 1 on a barrier TMA completes.
    Vacuous,
    /// A wait for a parity the barrier already showed.
    Stale,
    /// A phase that can complete before a waiter of the phase before looked.
    Lapped,
    /// Shared memory handed back while an asynchronous operation still reads it.
    EarlyHandback,
    /// `mma_wait` that leaves its own group in flight.
    MmaWait,
    /// A named barrier used again before the use its `bar.arrive` joined completed.
    NamedReuse,
    /// A named barrier's thread count.
    NamedThreads,
    /// A named barrier's hardware id.
    NamedId,
    /// An endpoint a role is not declared for, or takes twice.
    Endpoint,
    /// A barrier index out of range.
    Index,
    /// A register budget.
    Registers,
    /// `wgmma` in a role of single warps.
    WarpgroupMma,
    /// Stage counts that differ.
    Stages,
    /// Shared memory, tensor memory or threads over what a CTA has.
    Budget,
    /// The kernel's declarations: a missing or malformed item.
    Declaration,
    /// Tensor memory handed back to the MMA warp before it was read.
    TensorMemory,
    /// A plain shared-memory store racing an in-flight asynchronous read.
    SharedRace,
    /// An arrival or multicast onto a peer CTA that may land after the peer exited.
    PeerExit,
    /// A tile written while a TMA store of the same instance may still read it.
    StoreRewrite,
    /// A role that ends with a TMA store still reading shared memory.
    StoreAtExit,
}

impl Code {
    /// Every code, in number order.
    pub const ALL: [Code; 28] = [
        Code::Cycle,
        Code::Starved,
        Code::Skipped,
        Code::Dropped,
        Code::OverArrival,
        Code::UnderArrival,
        Code::Bytes,
        Code::TmaTarget,
        Code::Vacuous,
        Code::Stale,
        Code::Lapped,
        Code::EarlyHandback,
        Code::MmaWait,
        Code::NamedReuse,
        Code::NamedThreads,
        Code::NamedId,
        Code::Endpoint,
        Code::Index,
        Code::Registers,
        Code::WarpgroupMma,
        Code::Stages,
        Code::Budget,
        Code::Declaration,
        Code::TensorMemory,
        Code::SharedRace,
        Code::PeerExit,
        Code::StoreRewrite,
        Code::StoreAtExit,
    ];

    /// Its number: `WS0001` is 1.
    pub fn number(self) -> usize {
        Code::ALL.iter().position(|&c| c == self).map_or(0, |i| i + 1)
    }

    /// The code of a protocol finding, by the prefix of its deduplication key.
    pub fn of_key(key: &str) -> Code {
        match key.split(':').next().unwrap_or("") {
            "cycle" => Code::Cycle,
            "starved" => Code::Starved,
            "exit" | "skip" => Code::Skipped,
            "leak" => Code::Dropped,
            "over" => Code::OverArrival,
            "under" => Code::UnderArrival,
            "bytes" | "tx" => Code::Bytes,
            "tma-wrong" | "tma-untracked" | "unexpected-tx" => Code::TmaTarget,
            "vacuous" => Code::Vacuous,
            "stale" => Code::Stale,
            "lapped" => Code::Lapped,
            "early" | "early-umma" | "early-store" | "handback" => Code::EarlyHandback,
            "mma_wait" => Code::MmaWait,
            "named-twice" => Code::NamedReuse,
            "named-threads" | "threads" => Code::NamedThreads,
            "id-range" | "id-dup" => Code::NamedId,
            "twice" => Code::Endpoint,
            "range" => Code::Index,
            "wgmma-warps" => Code::WarpgroupMma,
            "tmem" => Code::TensorMemory,
            "smem-race" => Code::SharedRace,
            "peer-exit" => Code::PeerExit,
            "store-rewrite" => Code::StoreRewrite,
            "store-exit" => Code::StoreAtExit,
            _ => Code::Declaration,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WS{:04}", self.number())
    }
}

/// How the tails of messages that state a fact (not a fix) begin.
const FACTS: [&str; 6] =
    ["declared:", "the roles are", "its fields are", "nothing ever arrives", "ids are", "shared memory is reached"];

/// One problem: where, what, the other sites involved, and how to fix it.
pub struct Diagnostic {
    /// The check.
    pub code: Code,
    /// The primary span.
    pub loc: Loc,
    /// What is wrong.
    pub message: String,
    /// Other sites involved, each with what happens there.
    pub related: Vec<(Loc, String)>,
    /// Further explanation.
    pub notes: Vec<String>,
    /// The fix.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `code` at `loc`. A message written "what; fix" is split into the
    /// message and its `help:` line (a tail that states a fact, such as the names declared,
    /// becomes a note).
    pub fn new(code: Code, loc: Loc, message: impl fmt::Display) -> Self {
        let message = message.to_string();
        let mut notes = Vec::new();
        let (message, help) = match message.rsplit_once("; ") {
            Some((what, tail)) if FACTS.iter().any(|f| tail.starts_with(f)) => {
                notes.push(tail.to_string());
                (what.to_string(), None)
            }
            Some((what, fix)) if !fix.is_empty() => (what.to_string(), Some(fix.to_string())),
            _ => (message, None),
        };
        Self { code, loc, message, related: Vec::new(), notes, help }
    }

    /// The errors to emit, primary first.
    pub fn into_errors(self) -> Vec<syn::Error> {
        let mut text = format!("[{}] {}", self.code, self.message);
        for note in &self.notes {
            text.push_str(&format!("\n= note: {note}"));
        }
        if let Some(help) = &self.help {
            text.push_str(&format!("\n= help: {help}"));
        }
        let mut out = vec![syn::Error::new_spanned(self.loc, text)];
        for (loc, label) in self.related {
            out.push(syn::Error::new_spanned(loc, format!("note: {label} (related to {} above)", self.code)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_numbered_in_order_and_documented() {
        let docs = std::fs::read_to_string(crate::test_support::root().join("docs/checks.md")).unwrap_or_default();
        for (i, code) in Code::ALL.iter().enumerate() {
            assert_eq!(code.number(), i + 1);
            let heading = format!("### {code}");
            assert!(docs.contains(&heading), "docs/checks.md has no section `{heading}`");
        }
    }

    #[test]
    fn a_message_with_a_fix_gets_a_help_line_and_related_notes() {
        let loc = Loc::span(proc_macro2::Span::call_site());
        let mut d = Diagnostic::new(Code::Stale, loc, "waits again: it passes at once; flip the parity");
        d.related.push((loc, "the previous wait".into()));
        let errors: Vec<String> = d.into_errors().iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0], "[WS0010] waits again: it passes at once\n= help: flip the parity");
        assert_eq!(errors[1], "note: the previous wait (related to WS0010 above)");
        let d = Diagnostic::new(Code::Declaration, loc, "unknown role `x`; the roles are `a`, `b`");
        assert_eq!(d.into_errors()[0].to_string(), "[WS0023] unknown role `x`\n= note: the roles are `a`, `b`");
    }
}
