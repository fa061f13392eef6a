//! Findings particular to thread-block clusters: arrivals from the CTAs of a mask on a barrier
//! that counts fewer of them, the bytes a peer's multicast leaves out, and arrivals or bytes
//! onto a peer CTA that nothing orders before that CTA exits.

use warpspec_hw::VectorClock;

use super::barriers::Arrival;
use super::{EventKind, Sim, role_name};

/// An arrival or TMA load onto a barrier of another CTA of the cluster, as it happened: the
/// instance, the site, the barrier and the instance's clock at it.
pub(super) type PeerOp = (usize, usize, usize, VectorClock);

impl Sim<'_, '_> {
    /// Too many arrivals per phase on a barrier of a cluster's CTA: the instances of `role`
    /// that arrive on it (at `site`, among them) come from the CTAs of a mask, and its count
    /// covers fewer of them.
    pub(super) fn report_cluster_arrivals(
        &mut self,
        bar: usize,
        site: usize,
        role: usize,
        phases: &[(usize, Vec<Arrival>)],
    ) {
        let mut arrivers: Vec<usize> = phases
            .iter()
            .flat_map(|(_, a)| a.iter().map(|(i, ..)| *i))
            .filter(|&i| self.insts.get(i).is_some_and(|x| x.trace.role == role))
            .collect();
        arrivers.sort_unstable();
        arrivers.dedup();
        let mut ranks: Vec<usize> = arrivers.iter().filter_map(|&i| self.insts.get(i).map(|x| x.trace.rank)).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let b = self.an.table.bars.get(bar);
        let own = b.and_then(|b| b.rank).unwrap_or(0);
        let count = b.and_then(|b| b.count).unwrap_or(0);
        let key_name = b.map_or("count", |b| b.key);
        let loc = b.and_then(|b| b.declared.as_ref().map(|(l, _)| *l)).or_else(|| self.loc(site));
        let Some(loc) = loc else { return };
        let per_cta = arrivers.len() / ranks.len().max(1);
        let name = role_name(self.an.model, role);
        let peers: Vec<String> = ranks.iter().filter(|&&r| r != own).map(|r| r.to_string()).collect();
        let from = if peers.is_empty() {
            format!("the {per_cta} instances of {name} of its own CTA")
        } else {
            format!(
                "{name} of its own CTA and of peer CTA{} rank {} ({per_cta} instances each, {} in all)",
                if peers.len() == 1 { "" } else { "s" },
                peers.join(", "),
                arrivers.len()
            )
        };
        let fix = if ranks.len() > 1 {
            format!(
                "count the arrivals of every CTA in the mask: `{key_name} = {}` ({per_cta} instances of {name} per CTA x {} CTAs in the mask)",
                arrivers.len(),
                ranks.len(),
            )
        } else {
            format!("count every instance's arrival (`{key_name} = {}`)", arrivers.len())
        };
        let message = format!(
            "too many arrivals per phase on {}: {from} arrive on it at {} once per round, but a phase completes after {count} ({}), so the phase completes before they all arrived and the rest spill into the next phase; {fix}",
            self.an.table.bar(bar),
            self.cite(site),
            self.count_text(bar),
        );
        let key = format!("over:{}", bar % self.an.table.bars_per_cta.max(1));
        self.global(key.clone(), loc, message, &[bar]);
        self.relate(&key, site, format!("{name} of every CTA in the mask arrives here"));
    }

    /// The TMA loads a peer CTA's instance copies onto its own copy of stage `index` of `bar`
    /// but never onto `bar`: multicasts whose mask leaves out `bar`'s CTA (instance, site,
    /// bytes), one per site.
    pub(super) fn peer_multicasts(&self, bar: usize, index: usize) -> Vec<(usize, usize, i128)> {
        let t = &self.an.table;
        let Some(own) = t.bars.get(bar).and_then(|b| b.rank) else { return Vec::new() };
        let landed_here = |i: usize, site: usize| {
            self.insts.get(i).is_some_and(|x| {
                x.trace
                    .events
                    .iter()
                    .any(|e| e.site == site && matches!(e.kind, EventKind::Tma { bar: b, .. } if b == bar))
            })
        };
        let mut found: Vec<(usize, usize, i128)> = Vec::new();
        for (i, x) in self.insts.iter().enumerate() {
            if x.trace.rank == own {
                continue;
            }
            let theirs = t.on_rank(bar, x.trace.rank);
            for e in &x.trace.events {
                if let EventKind::Tma { bar: b, index: ix, bytes } = e.kind
                    && b == theirs
                    && x.trace.multicasts.contains(&e.site)
                    && ix == index
                    && !landed_here(i, e.site)
                    && !found.iter().any(|f| f.1 == e.site)
                {
                    found.push((i, e.site, bytes));
                }
            }
        }
        found
    }
}

impl Sim<'_, '_> {
    /// Records instance `i`'s arrival or TMA load at `site` onto `bar` when `bar` belongs to
    /// another CTA of the cluster.
    pub(super) fn note_peer_op(&mut self, i: usize, site: usize, bar: usize, clock: &VectorClock) {
        let own = self.insts.get(i).map(|x| x.trace.rank);
        let target = self.an.table.bars.get(bar).and_then(|b| b.rank);
        if target.is_some() && own != target {
            self.peer_ops.push((i, site, bar, clock.clone()));
        }
    }

    /// An arrival or multicast onto a peer CTA's barrier that no instance of that CTA has
    /// seen by the time it finished: the peer may have exited, its shared memory (and the
    /// barrier in it) released, when the operation lands. One finding per site.
    pub(super) fn report_peer_exit(&mut self) {
        if self.insts.iter().any(|x| x.trace.aborted.is_some()) {
            return;
        }
        let mut seen: Vec<usize> = Vec::new();
        for (i, site, bar, clock) in std::mem::take(&mut self.peer_ops) {
            let Some(target) = self.an.table.bars.get(bar).and_then(|b| b.rank) else { continue };
            let ordered = self.insts.iter().any(|x| x.trace.rank == target && x.clock.dominates(&clock));
            if ordered || seen.contains(&site) {
                continue;
            }
            seen.push(site);
            let Some(loc) = self.loc(site) else { continue };
            let what = match self.insts.get(i).and_then(|x| x.trace.events.iter().find(|e| e.site == site)) {
                Some(e) if matches!(e.kind, EventKind::Tma { .. }) => "multicasts bytes onto",
                _ => "arrives on",
            };
            let message = format!(
                "{} {what} {} at {}, but no instance of CTA rank {target} waits for that before it finishes{}, so CTA rank {target} may have exited, and its shared memory been released, when the operation lands: an access to a CTA of the cluster that has exited is an illegal access (`cluster target block not present`)",
                self.who(i),
                self.an.table.bar(bar),
                self.cite(site),
                self.scenario(),
            );
            let message = format!(
                "{message}; end every role with `cx.cluster_sync().await` after its last cluster operation, so that no CTA exits while a peer may still arrive on it or copy into it"
            );
            self.global(format!("peer-exit:{site}"), loc, message, &[]);
        }
    }
}
