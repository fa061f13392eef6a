//! Clusters as units of the whole-GPU run: placement on the GPCs, waves of clusters, the
//! cluster barrier across SMs, and the delivery of what one SM's step does to another.
//!
//! **Placement.** The SMs are numbered GPC by GPC in the order of `clusters.gpc_sms`. A GPC
//! holds `SMs x CTAs per SM` CTA slots, and a cluster starts only when one GPC has a free
//! slot for each of its CTAs (all its CTAs on the SMs of one GPC, the hardware's guarantee):
//! it goes to the GPC with the most free slots (the lowest-numbered on a tie), its ranks
//! onto that GPC's free slots in slot order (first CTA slot of every SM before any second
//! one, so the CTAs of a cluster spread over distinct SMs). Clusters start in the order of
//! their index in the grid (`%clusterid`, x fastest), ranks in order. When a CTA retires
//! its slot returns to its GPC, and the next cluster starts as soon as a GPC has room: the
//! grid runs in waves of [`warpspec_hw::ClusterShape::resident_clusters`] clusters; SMs a GPC
//! cannot fill with whole clusters stay idle. Starting a cluster costs no cycles.
//!
//! **Barrier.** `barrier.cluster` counts one arrival per warp of every CTA of the cluster;
//! the last one releases the waiters of every CTA `clusters.cluster_barrier_cycles` later.

use warpspec_hw::ClusterShape;

use super::error::SimError;
use super::machine::Machine;
use super::sm::{ClusterLink, Driver, Env, EventKind, Outgoing, Sm};

/// The cluster scheduler of one run.
pub(crate) struct ClusterRun {
    shape: ClusterShape,
    /// Clusters per axis of the grid.
    per_axis: [u32; 3],
    /// Clusters of the grid.
    clusters: usize,
    /// Grid dimensions (CTAs).
    grid: [u32; 3],
    /// The next cluster to start.
    next: usize,
    /// GPC of each SM.
    gpc_of: Vec<usize>,
    /// Free `(resident, sm)` slots of each GPC.
    free: Vec<Vec<(usize, usize)>>,
    /// Where each started cluster's CTAs run.
    links: Vec<Option<ClusterLink>>,
    /// Warps arrived at the current use of `barrier.cluster`, per cluster.
    arrived: Vec<u32>,
    /// Warps of a cluster.
    warps: u32,
    /// Clusters the GPU holds at once.
    pub resident: u64,
}

impl ClusterRun {
    /// The scheduler for `grid` in clusters of `shape` (`warps` per CTA, `ctas_per_sm` CTAs
    /// per SM) on the first `sms` SMs of `machine`.
    pub fn new(
        machine: &Machine,
        shape: ClusterShape,
        grid: [u32; 3],
        warps: u32,
        ctas_per_sm: usize,
        sms: usize,
    ) -> Result<Self, SimError> {
        let layout = machine.clusters.gpc_sms.value;
        let total: u64 = layout.iter().map(|&n| u64::from(n)).sum();
        if total != sms as u64 {
            return Err(SimError::Clusters(format!(
                "the GPC layout {layout:?} of {} holds {total} SMs, but the run uses {sms}",
                machine.name
            )));
        }
        shape.check_grid(grid).map_err(|e| SimError::Clusters(e.to_string()))?;
        let resident = shape.resident_clusters(layout, ctas_per_sm as u32);
        if resident == 0 {
            return Err(SimError::Clusters(format!(
                "a cluster of {} CTAs does not fit in any GPC of {} ({layout:?} SMs, {ctas_per_sm} CTA(s) per SM)",
                shape.ctas(),
                machine.name
            )));
        }
        let gpc_of: Vec<usize> =
            layout.iter().enumerate().flat_map(|(g, &n)| std::iter::repeat_n(g, n as usize)).collect();
        let mut free = vec![Vec::new(); layout.len()];
        for resident in 0..ctas_per_sm {
            for (sm, &g) in gpc_of.iter().enumerate() {
                free[g].push((resident, sm));
            }
        }
        let per_axis = shape.clusters(grid);
        let clusters = per_axis.iter().map(|&n| n as usize).product();
        Ok(ClusterRun {
            shape,
            per_axis,
            clusters,
            grid,
            next: 0,
            gpc_of,
            free,
            links: vec![None; clusters],
            arrived: vec![0; clusters],
            warps: warps * shape.ctas(),
            resident,
        })
    }

    /// The linear index in the grid of rank `rank` of cluster `c`.
    fn cta(&self, c: usize, rank: u32) -> usize {
        let [nx, ny, _] = self.per_axis.map(|n| n as usize);
        let cluster = [(c % nx) as u32, (c / nx % ny) as u32, (c / (nx * ny)) as u32];
        let [x, y, z] = self.shape.block_of(cluster, rank).map(|v| v as usize);
        let [gx, gy, _] = self.grid.map(|d| d as usize);
        x + gx * (y + gy * z)
    }

    /// Starts clusters at `at` while a GPC has room for one; `woken` collects the SMs that
    /// took a CTA, with the cycle to step them.
    pub fn dispatch<'e>(
        &mut self,
        at: u64,
        sms: &mut [Sm],
        env_of: &dyn Fn(usize) -> &'e Env<'e>,
        driver: &mut dyn Driver,
        woken: &mut Vec<(usize, u64)>,
    ) -> Result<(), SimError> {
        let ctas = self.shape.ctas() as usize;
        while self.next < self.clusters {
            let Some(g) = (0..self.free.len())
                .filter(|&g| self.free[g].len() >= ctas)
                .max_by_key(|&g| (self.free[g].len(), std::cmp::Reverse(g)))
            else {
                return Ok(());
            };
            self.free[g].sort_unstable();
            let slots: Vec<(usize, usize)> = self.free[g].drain(..ctas).collect();
            let c = self.next;
            self.next += 1;
            let mut link = ClusterLink { id: c, ranks: Vec::with_capacity(ctas) };
            for (rank, &(resident, sm)) in slots.iter().enumerate() {
                driver.seek(self.cta(c, rank as u32));
                sms[sm].launch(resident, at, env_of(sm), driver)?;
                link.ranks.push((sm, resident as u32, sms[sm].generation(resident)));
                woken.push((sm, at + 1));
            }
            for &(sm, resident, _) in &link.ranks {
                sms[sm].link_cluster(resident as usize, link.clone());
            }
            self.links[c] = Some(link);
        }
        Ok(())
    }

    /// Delivers what SM `from` sent during its step at `t`: events to other SMs, arrivals at
    /// `barrier.cluster`, freed slots (which may start clusters). `woken` collects the SMs
    /// with something new to do, with the cycle.
    pub fn deliver<'e>(
        &mut self,
        from: usize,
        sms: &mut [Sm],
        env_of: &dyn Fn(usize) -> &'e Env<'e>,
        driver: &mut dyn Driver,
        woken: &mut Vec<(usize, u64)>,
    ) -> Result<(), SimError> {
        let outbox = std::mem::take(&mut sms[from].outbox);
        let mut freed_at = None;
        for message in outbox {
            match message {
                Outgoing::Event { sm, at, kind } => {
                    sms[sm].push_event(at, kind);
                    woken.push((sm, at));
                }
                Outgoing::ClusterArrive { cluster, at } => {
                    let Some(arrived) = self.arrived.get_mut(cluster) else { continue };
                    *arrived += 1;
                    if *arrived < self.warps {
                        continue;
                    }
                    *arrived = 0;
                    let release = at + env_of(from).timing.cluster_barrier;
                    if let Some(link) = &self.links[cluster] {
                        for &(sm, resident, generation) in &link.ranks {
                            sms[sm].push_event(release, EventKind::ClusterRelease { resident, generation });
                            woken.push((sm, release));
                        }
                    }
                }
                Outgoing::Freed { resident, at } => {
                    self.free[self.gpc_of[from]].push((resident, from));
                    freed_at = Some(at);
                }
            }
        }
        if let Some(at) = freed_at {
            self.dispatch(at, sms, env_of, driver, woken)?;
            if self.next >= self.clusters {
                sms[from].stats.starved_at.get_or_insert(at);
            }
        }
        Ok(())
    }

    /// Threads arrived at the current use of cluster `cluster`'s barrier, for a deadlock
    /// report.
    pub fn arrived_threads(&self, cluster: usize, warp_size: u32) -> u32 {
        self.arrived.get(cluster).map_or(0, |a| a * warp_size)
    }

    /// Threads of a cluster.
    pub fn threads(&self, warp_size: u32) -> u32 {
        self.warps * warp_size
    }

    /// The cluster of the CTA at `resident` of SM `sm`, if one has started there.
    pub fn cluster_at(&self, sm: usize, resident: usize) -> Option<usize> {
        self.links
            .iter()
            .rposition(|l| l.as_ref().is_some_and(|l| l.ranks.iter().any(|r| r.0 == sm && r.1 as usize == resident)))
    }
}
