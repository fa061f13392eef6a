//! Where the warp-cycles went in the kernel source: per source site (a line of a role's code
//! and the DSL operation on it) and per object a role waits on — the source view and the
//! barrier breakdown of a [`super::SimReport`].

use std::fmt;
use std::sync::Arc;

use super::stall::{StallCycles, StallReason};
use super::trace::BarrierStage;

/// What a role waits on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WaitTarget {
    /// A phase of an mbarrier stage (`mbarrier.try_wait.parity`).
    Phase(BarrierStage),
    /// A named barrier (`bar.sync`).
    Named(Arc<str>),
    /// Its own MMA groups (`wgmma.wait_group`).
    MmaGroups,
    /// Its own TMA stores reading shared memory (`cp.async.bulk.wait_group.read`).
    Stores,
}

impl fmt::Display for WaitTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitTarget::Phase(stage) => write!(f, "mbarrier {stage}"),
            WaitTarget::Named(name) => write!(f, "named barrier {name}"),
            WaitTarget::MmaGroups => f.write_str("wgmma.wait_group"),
            WaitTarget::Stores => f.write_str("bulk store wait"),
        }
    }
}

/// The operation of a source site.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SiteOp {
    /// A non-blocking DSL operation, by name (`mma`, `tma_load`, `exp2`, ...).
    Op(&'static str),
    /// A wait.
    Wait(WaitTarget),
}

impl fmt::Display for SiteOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SiteOp::Op(name) => f.write_str(name),
            SiteOp::Wait(target) => write!(f, "wait on {target}"),
        }
    }
}

/// Warp-cycles spent at one source site: every cycle a warp of `role` had an instruction of
/// this site at the head of its queue, by stall reason (summed over warps and CTAs).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSite {
    /// The role whose code it is.
    pub role: &'static str,
    /// The source file.
    pub file: &'static str,
    /// The line.
    pub line: u32,
    /// The column of the call.
    pub column: u32,
    /// The operation.
    pub op: SiteOp,
    /// Warp-cycles by reason.
    pub cycles: StallCycles,
}

impl SourceSite {
    /// Warp-cycles stalled (every reason but `selected`).
    pub fn stall_cycles(&self) -> u64 {
        self.cycles.total() - self.cycles.get(StallReason::Selected)
    }

    /// The reason with the most stall cycles, if any.
    pub fn top_reason(&self) -> Option<StallReason> {
        StallReason::ALL
            .iter()
            .copied()
            .filter(|&r| r != StallReason::Selected && self.cycles.get(r) > 0)
            .max_by_key(|&r| (self.cycles.get(r), std::cmp::Reverse(r.index())))
    }

    /// `file:line` with the file name shortened to its last two components.
    pub fn short_location(&self) -> String {
        let parts: Vec<&str> = self.file.rsplit(['/', '\\']).take(2).collect();
        let file: Vec<&str> = parts.into_iter().rev().collect();
        format!("{}:{}", file.join("/"), self.line)
    }
}

/// Warp-cycles a role spent in waits on one object, by stall reason.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleWait {
    /// What it waited on.
    pub target: WaitTarget,
    /// Warp-cycles at the wait (testing it counts as `selected`).
    pub cycles: StallCycles,
}

impl RoleWait {
    /// Warp-cycles stalled at the wait (every reason but `selected`).
    pub fn stall_cycles(&self) -> u64 {
        self.cycles.total() - self.cycles.get(StallReason::Selected)
    }
}

/// Per role, the waits of `sites` summed by what they wait on, most stall cycles first.
pub(crate) fn role_waits(sites: &[SourceSite], role: &str) -> Vec<RoleWait> {
    let mut out: Vec<RoleWait> = Vec::new();
    for site in sites.iter().filter(|s| s.role == role) {
        let SiteOp::Wait(target) = &site.op else { continue };
        match out.iter_mut().find(|w| &w.target == target) {
            Some(w) => w.cycles.merge(&site.cycles),
            None => out.push(RoleWait { target: target.clone(), cycles: site.cycles }),
        }
    }
    out.sort_by(|a, b| b.stall_cycles().cmp(&a.stall_cycles()).then_with(|| a.target.cmp(&b.target)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(role: &'static str, line: u32, op: SiteOp, stalled: u64) -> SourceSite {
        let mut cycles = StallCycles::default();
        cycles.add(StallReason::LongScoreboard, stalled);
        cycles.add(StallReason::Selected, 1);
        SourceSite { role, file: "/src/kernels/gemm.rs", line, column: 9, op, cycles }
    }

    #[test]
    fn waits_are_summed_per_object_and_ranked() {
        let full = |s| WaitTarget::Phase(BarrierStage { name: "full".into(), stage: s });
        let sites = vec![
            site("consumer", 10, SiteOp::Wait(full(0)), 50),
            site("consumer", 11, SiteOp::Wait(full(0)), 25),
            site("consumer", 10, SiteOp::Wait(full(1)), 100),
            site("consumer", 12, SiteOp::Op("mma"), 500),
            site("producer", 20, SiteOp::Wait(full(0)), 7),
        ];
        let waits = role_waits(&sites, "consumer");
        assert_eq!(waits.len(), 2);
        assert_eq!((waits[0].target.to_string(), waits[0].stall_cycles()), ("mbarrier full[1]".into(), 100));
        assert_eq!((waits[1].stall_cycles(), waits[1].cycles.get(StallReason::Selected)), (75, 2));
        assert_eq!(sites[0].short_location(), "kernels/gemm.rs:10");
        assert_eq!(sites[0].top_reason(), Some(StallReason::LongScoreboard));
        assert_eq!(sites[3].op.to_string(), "mma");
        assert_eq!(sites[0].op.to_string(), "wait on mbarrier full[0]");
    }
}
