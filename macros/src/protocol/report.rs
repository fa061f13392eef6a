//! What the protocol checker found, and the vocabulary of its messages: operation sites
//! (a method call in the kernel text, with its span and how it reads) and findings
//! (an error at a span), deduplicated across role instances and runs.

use std::collections::{HashMap, HashSet};

use crate::diag::{Code, Diagnostic};
use crate::errors::{Errors, Loc};
use crate::model::Model;

/// A method call the checker records as an operation.
pub struct Site {
    /// Its span.
    pub loc: Loc,
    /// Its IR position.
    pub pos: warpspec_ir::Pos,
    /// How it reads: `ops.release`, `cx.tma_load`.
    pub text: String,
}

impl Site {
    /// "`ops.release` (line 34)".
    pub fn cite(&self) -> String {
        format!("`{}` (line {})", self.text, self.loc.line())
    }
}

/// Every operation site met so far, numbered in the order first met.
#[derive(Default)]
pub struct Sites {
    /// Site numbers by the IR node of their method call.
    by_call: HashMap<u32, usize>,
    /// The sites, by number.
    list: Vec<Site>,
}

impl Sites {
    /// The number of the site of the method call at IR node `node`, made by `site` when
    /// first met.
    pub fn id(&mut self, node: u32, site: impl FnOnce() -> Site) -> usize {
        if let Some(&id) = self.by_call.get(&node) {
            return id;
        }
        let id = self.list.len();
        self.list.push(site());
        self.by_call.insert(node, id);
        id
    }

    /// Site `id`.
    pub fn get(&self, id: usize) -> Option<&Site> {
        self.list.get(id)
    }

    /// "`ops.release` (line 34)" for site `id`.
    pub fn cite(&self, id: usize) -> String {
        self.get(id).map_or_else(|| "an operation".into(), Site::cite)
    }

    /// The span of site `id`.
    pub fn loc(&self, id: usize) -> Option<Loc> {
        self.get(id).map(|s| s.loc)
    }

    /// The IR position of site `id`.
    pub fn pos(&self, id: usize) -> Option<warpspec_ir::Pos> {
        self.get(id).map(|s| s.pos)
    }
}

/// One error to report.
struct Finding {
    /// Its deduplication key (whose prefix names the check).
    key: String,
    /// Where.
    loc: Loc,
    /// What, and how to fix it.
    message: String,
    /// Other sites involved.
    related: Vec<(Loc, String)>,
}

/// Secondary spans one finding shows, at most.
const MAX_RELATED: usize = 3;

/// The findings of one kernel, in the order found.
#[derive(Default)]
pub struct Findings {
    /// Keys of the findings recorded (deduplication).
    seen: HashSet<String>,
    /// The findings.
    list: Vec<Finding>,
    /// Bars a local finding made unreliable for whole-kernel findings.
    tainted: HashSet<usize>,
}

impl Findings {
    /// Records a finding of a role's own code (the `bars` it makes unreliable are tainted:
    /// whole-kernel findings about them would only repeat it). `key` deduplicates.
    pub fn local(&mut self, key: String, loc: Loc, message: String, bars: &[usize]) {
        self.tainted.extend(bars);
        self.record(key, loc, message);
    }

    /// Records a whole-kernel finding about `bars`, unless a local finding already explains
    /// one of them. Returns whether it was recorded (or had been).
    pub fn global(&mut self, key: String, loc: Loc, message: String, bars: &[usize]) -> bool {
        if bars.iter().any(|b| self.tainted.contains(b)) {
            return false;
        }
        self.record(key, loc, message);
        true
    }

    /// Records a finding unless its key was seen.
    fn record(&mut self, key: String, loc: Loc, message: String) {
        if self.seen.insert(key.clone()) {
            self.list.push(Finding { key, loc, message, related: Vec::new() });
        }
    }

    /// Shows `loc` with `label` beside the finding recorded under `key` (a secondary span).
    pub fn relate(&mut self, key: &str, loc: Option<Loc>, label: String) {
        let Some(loc) = loc else { return };
        if let Some(f) = self.list.iter_mut().find(|f| f.key == key)
            && f.related.len() < MAX_RELATED
            && !f.related.iter().any(|(l, _)| l.line() == loc.line() && l.column() == loc.column())
            && !(f.loc.line() == loc.line() && f.loc.column() == loc.column())
        {
            f.related.push((loc, label));
        }
    }

    /// Hands every finding to `errors`.
    pub fn emit(self, errors: &Errors) {
        for f in self.list {
            let mut d = Diagnostic::new(Code::of_key(&f.key), f.loc, f.message);
            d.related = f.related;
            errors.report(d);
        }
    }
}

/// "`consumer` #1" for an instance of a role with several, "`consumer`" for a role of one.
pub fn who(model: &Model<'_>, role: usize, instance: usize, cta: Option<usize>) -> String {
    let Some(r) = model.roles.get(role) else { return "a role".into() };
    let name = if r.instances_value == Some(1) { format!("`{}`", r.name) } else { format!("`{}` #{instance}", r.name) };
    match cta {
        Some(rank) => format!("{name} of CTA rank {rank}"),
        None => name,
    }
}

/// "`consumer`".
pub fn role_name(model: &Model<'_>, role: usize) -> String {
    model.roles.get(role).map_or_else(|| "a role".into(), |r| format!("`{}`", r.name))
}
