//! The barrier table: every mbarrier array of the kernel (the `full` and `empty` sides of
//! each pipeline, then each `#[barrier]`) and every named barrier, with the counts, lengths
//! and roles the protocol checker needs, evaluated where the declarations allow.
//!
//! In a kernel with a cluster shape every CTA has its own copy of each barrier: the table
//! lists rank 0's arrays and named barriers, then rank 1's, and so on, and then the cluster
//! barrier (`barrier.cluster`), so that a run of the whole cluster can arrive on a peer's
//! barrier. Pipeline and endpoint indices name rank 0's copies; [`Table::on_rank`] moves them
//! to another CTA's.

use quote::ToTokens;

use crate::errors::Loc;
use crate::model::{EndpointKind, Model, Target};

/// The kernel's barriers.
pub struct Table {
    /// mbarrier arrays: pipeline `p` has `full` at `2p` and `empty` at `2p + 1`; plain
    /// barrier `b` is at `2 * pipelines + b`.
    pub bars: Vec<Bar>,
    /// Pipelines, in declaration order.
    pub pipes: Vec<Pipe>,
    /// Named barriers, in declaration order, CTA by CTA, then the cluster barrier.
    pub named: Vec<NamedBar>,
    /// CTAs per cluster (1 without a cluster shape).
    pub ranks: usize,
    /// mbarrier arrays of one CTA.
    pub bars_per_cta: usize,
    /// Named barriers the kernel declares (those of one CTA).
    pub named_per_cta: usize,
}

/// One mbarrier array.
#[derive(Clone)]
pub struct Bar {
    /// Its name in messages: `Operands.full`, `SFull`.
    pub name: String,
    /// Barriers in the array (stages), when known.
    pub len: Option<usize>,
    /// Arrivals that complete a phase, when known.
    pub count: Option<i128>,
    /// Where an explicit count is declared, and how it reads (`count = 2`).
    pub declared: Option<(Loc, String)>,
    /// How the count was derived when not declared.
    pub derived: String,
    /// The option that declares the count: `count`, `full_arrivals` or `empty_arrivals`.
    pub key: &'static str,
    /// Roles declared to arrive.
    pub arrivers: Vec<usize>,
    /// Roles declared to wait.
    pub waiters: Vec<usize>,
    /// The CTA it belongs to, in a kernel with a cluster shape.
    pub rank: Option<usize>,
}

/// One pipeline.
pub struct Pipe {
    /// Its name.
    pub name: String,
    /// Filled by TMA: `commit` expects the slot's bytes.
    pub tma: bool,
    /// Bytes `commit` expects (the guarded tiles of one stage), when known.
    pub tx: Option<i128>,
    /// The guarded tiles and their bytes, for messages: "`a` 16384 B + `b` 32768 B".
    pub tx_parts: String,
    /// Stages, when known.
    pub stages: Option<usize>,
    /// Index of its `full` array in [`Table::bars`].
    pub full: usize,
    /// Index of its `empty` array in [`Table::bars`].
    pub empty: usize,
    /// Guarded shared-memory fields.
    pub guards: Vec<usize>,
}

/// One named barrier.
#[derive(Clone)]
pub struct NamedBar {
    /// Its name.
    pub name: String,
    /// Threads per use, when known.
    pub threads: Option<i128>,
    /// Where an explicit thread count is declared.
    pub threads_decl: Option<Loc>,
    /// Hardware id (declared, or 1, 2, ... in declaration order), when known.
    pub id: Option<i128>,
    /// Where an explicit id is declared.
    pub id_decl: Option<Loc>,
    /// The declaration's name, for spans.
    pub decl: Loc,
    /// Roles declared to use it.
    pub roles: Vec<usize>,
}

/// What a role's endpoint parameter lets it do, in table terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Producer of pipeline `0`: waits on its `empty`, arrives on its `full`.
    Producer(usize),
    /// Consumer of pipeline `0`: waits on its `full`, arrives on its `empty`.
    Consumer(usize),
    /// Arrives on bar `0`.
    Arriver(usize),
    /// Waits on bar `0`.
    Waiter(usize),
    /// Uses named barrier `0`.
    Named(usize),
    /// An unguarded on-chip buffer (field `0`).
    Buffer(usize),
}

impl Table {
    /// The table of `model`'s barriers.
    pub fn build(model: &Model<'_>) -> Self {
        let k = model.kernel;
        let consts = &model.consts;
        let positive = |v: Option<i128>| v.and_then(|v| usize::try_from(v).ok()).filter(|&v| v > 0);
        let mut bars = Vec::new();
        let mut pipes = Vec::new();
        for (p, (decl, pipe)) in k.pipelines.iter().zip(&model.pipelines).enumerate() {
            let stages = match &decl.stages {
                Some(e) => positive(consts.eval(e)),
                None => match pipe.guards.first() {
                    Some(&f) => positive(model.fields.get(f).and_then(|f| f.stages)),
                    None => Some(1),
                },
            };
            let guard_bytes: Vec<(String, Option<i128>)> = pipe
                .guards
                .iter()
                .filter_map(|&f| model.fields.get(f))
                .map(|f| (f.name.to_string(), f.stage_bytes))
                .collect();
            let tx = guard_bytes.iter().try_fold(0i128, |t, (_, b)| t.checked_add((*b)?));
            let tx_parts = guard_bytes
                .iter()
                .map(|(n, b)| b.map_or_else(|| format!("`{n}`"), |b| format!("`{n}` {b} B")))
                .collect::<Vec<_>>()
                .join(" + ");
            let name = decl.name.to_string();
            let count = |declared: &Option<syn::Expr>, roles: &[usize], key: &'static str, side: &str| {
                let derived = format!("one arrival per instance of the {side} roles ({})", role_list(model, roles));
                match declared {
                    Some(e) => {
                        (consts.eval(e), Some((Loc::of(e), format!("`{key} = {}`", e.to_token_stream()))), derived)
                    }
                    None => (instances(model, roles), None, derived),
                }
            };
            let (full_count, full_decl, full_derived) =
                count(&decl.full_arrivals, &pipe.producers, "full_arrivals", "producer");
            bars.push(Bar {
                name: format!("{name}.full"),
                len: stages,
                count: full_count,
                declared: full_decl,
                derived: full_derived,
                key: "full_arrivals",
                arrivers: pipe.producers.clone(),
                waiters: pipe.consumers.clone(),
                rank: None,
            });
            let (empty_count, empty_decl, empty_derived) =
                count(&decl.empty_arrivals, &pipe.consumers, "empty_arrivals", "consumer");
            bars.push(Bar {
                name: format!("{name}.empty"),
                len: stages,
                count: empty_count,
                declared: empty_decl,
                derived: empty_derived,
                key: "empty_arrivals",
                arrivers: pipe.consumers.clone(),
                waiters: pipe.producers.clone(),
                rank: None,
            });
            pipes.push(Pipe {
                name,
                tma: decl.tma,
                tx,
                tx_parts,
                stages,
                full: 2 * p,
                empty: 2 * p + 1,
                guards: pipe.guards.clone(),
            });
        }
        for (decl, (arrive, wait)) in k.barriers.iter().zip(&model.barriers) {
            let derived = format!("one arrival per instance of the arriving roles ({})", role_list(model, arrive));
            let (count, declared) = match &decl.count {
                Some(e) => (consts.eval(e), Some((Loc::of(e), format!("`count = {}`", e.to_token_stream())))),
                None => (instances(model, arrive), None),
            };
            bars.push(Bar {
                name: decl.name.to_string(),
                len: match &decl.len {
                    Some(e) => positive(consts.eval(e)),
                    None => Some(1),
                },
                count,
                declared,
                derived,
                key: "count",
                arrivers: arrive.clone(),
                waiters: wait.clone(),
                rank: None,
            });
        }
        let mut named: Vec<NamedBar> = k
            .named
            .iter()
            .zip(&model.named)
            .enumerate()
            .map(|(i, (decl, roles))| NamedBar {
                name: decl.name.to_string(),
                threads: match &decl.threads {
                    Some(e) => consts.eval(e),
                    None => roles.iter().try_fold(0i128, |t, &r| t.checked_add(role_threads(model, r)?)),
                },
                threads_decl: decl.threads.as_ref().map(Loc::of),
                id: match &decl.id {
                    Some(e) => consts.eval(e),
                    None => i128::try_from(i).ok().map(|i| i + 1),
                },
                id_decl: decl.id.as_ref().map(Loc::of),
                decl: Loc::of(&decl.name),
                roles: roles.clone(),
            })
            .collect();
        let ranks = k.cluster.map_or(1, |(shape, _)| shape.ctas() as usize);
        let (bars_per_cta, named_per_cta) = (bars.len(), named.len());
        if ranks > 1 {
            let one = std::mem::take(&mut bars);
            bars = (0..ranks).flat_map(|r| one.iter().cloned().map(move |b| Bar { rank: Some(r), ..b })).collect();
            let one = std::mem::take(&mut named);
            named = (0..ranks)
                .flat_map(|r| {
                    one.iter().cloned().map(move |n| NamedBar { name: format!("{} of CTA rank {r}", n.name), ..n })
                })
                .collect();
        }
        let every: Vec<usize> = (0..model.roles.len()).collect();
        let threads = every.iter().try_fold(0i128, |t, &r| t.checked_add(role_threads(model, r)?));
        named.push(NamedBar {
            name: "cluster barrier".into(),
            threads: threads.and_then(|t| t.checked_mul(ranks as i128)),
            threads_decl: None,
            id: None,
            id_decl: None,
            decl: Loc::of(&k.module.ident),
            roles: every,
        });
        Table { bars, pipes, named, ranks, bars_per_cta, named_per_cta }
    }

    /// Bar `bar` (an index of rank 0's copies) in the CTA of rank `rank`.
    pub fn on_rank(&self, bar: usize, rank: usize) -> usize {
        bar % self.bars_per_cta.max(1) + rank * self.bars_per_cta
    }

    /// Named barrier `named` (an index of rank 0's copies, or the cluster barrier) in the CTA
    /// of rank `rank`.
    pub fn named_on_rank(&self, named: usize, rank: usize) -> usize {
        if named < self.named_per_cta { named + rank * self.named_per_cta } else { named }
    }

    /// The cluster barrier's index among the named barriers.
    pub fn cluster_barrier(&self) -> usize {
        self.named.len() - 1
    }

    /// " of CTA rank 1" for a bar of a cluster's CTA; nothing without a cluster shape.
    fn of_rank(&self, bar: usize) -> String {
        match self.bars.get(bar).and_then(|b| b.rank) {
            Some(r) => format!(" of CTA rank {r}"),
            None => String::new(),
        }
    }

    /// What endpoint `ep` of role `role` is, if it resolved.
    pub fn end(&self, model: &Model<'_>, role: usize, ep: usize) -> Option<End> {
        let e = model.roles.get(role)?.endpoints.get(ep)?;
        let raw = |b: usize| 2 * self.pipes.len() + b;
        Some(match (e.kind, e.target) {
            (EndpointKind::Producer, Target::Pipeline(p)) => End::Producer(p),
            (EndpointKind::Consumer, Target::Pipeline(p)) => End::Consumer(p),
            (EndpointKind::Arriver, Target::Barrier(b)) => End::Arriver(raw(b)),
            (EndpointKind::Waiter, Target::Barrier(b)) => End::Waiter(raw(b)),
            (EndpointKind::Named, Target::Named(n)) => End::Named(n),
            (EndpointKind::Buffer, Target::Buffer(f)) => End::Buffer(f),
            _ => return None,
        })
    }

    /// `Name[index]`, or `Name` for a single barrier.
    pub fn slot(&self, bar: usize, index: usize) -> String {
        match self.bars.get(bar) {
            Some(b) if b.len == Some(1) => format!("`{}`{}", b.name, self.of_rank(bar)),
            Some(b) => format!("`{}[{index}]`{}", b.name, self.of_rank(bar)),
            None => "a barrier".into(),
        }
    }

    /// The bar's name in backquotes.
    pub fn bar(&self, bar: usize) -> String {
        self.bars.get(bar).map_or_else(|| "a barrier".into(), |b| format!("`{}`{}", b.name, self.of_rank(bar)))
    }
}

/// Instances of the roles together, when known.
pub fn instances(model: &Model<'_>, roles: &[usize]) -> Option<i128> {
    roles.iter().try_fold(0i128, |t, &r| t.checked_add(model.roles.get(r)?.instances_value?))
}

/// Threads of all instances of role `r`, when known.
pub fn role_threads(model: &Model<'_>, r: usize) -> Option<i128> {
    let role = model.roles.get(r)?;
    role.instances_value?.checked_mul(i128::from(role.warps_per_instance) * 32)
}

/// "`a`, `b`" for role indices.
pub fn role_list(model: &Model<'_>, roles: &[usize]) -> String {
    crate::errors::list(roles.iter().filter_map(|&r| model.roles.get(r)).map(|r| &r.name))
}
