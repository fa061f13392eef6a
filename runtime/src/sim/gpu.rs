//! The whole GPU: CTAs placed on SMs under the occupancy limit, in waves, all SMs in one
//! event loop sharing the L2/HBM bandwidth; and [`simulate`], the timing run of a kernel.
//!
//! **Placement.** The occupancy calculator ([`super::occupancy()`]) gives the CTAs one SM holds
//! at once. At cycle 0 the first CTAs are dealt round-robin over the SMs (CTA `i` to SM
//! `i % SMs`, then a second round for each SM's second resident CTA, ...); whenever a CTA
//! retires, its SM takes the next CTA of the grid (in `blockIdx` order, x fastest) in its
//! place. The
//! grid therefore runs in waves of `SMs x CTAs per SM`, and the last, partial wave leaves SMs
//! idle: the report's tail. Launching a CTA costs no cycles (the block scheduler's latency is
//! not modelled); a CTA retires once its last warp has exited and its copies have landed.
//! A kernel with clusters of more than one CTA is placed cluster by cluster on the GPCs
//! instead ([`super::clusters`]): it runs in waves of resident clusters.
//!
//! **One event loop.** Every SM is stepped only at the cycles where it has something to do
//! ([`super::sm`]); a heap ordered by cycle picks the SM with the earliest next step, and an
//! SM keeps running while its next step comes no later than any other SM's. Memory requests
//! therefore reach the shared L2/HBM servers in cycle order. What a step does to another SM
//! (a multicast copy landing in a peer CTA, an arrival on a peer's barrier, a cluster
//! barrier's release) is queued on that SM at a later cycle and puts it back in the heap.
//! Every CTA is simulated: there is no shortcut for identical CTAs.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::deadlock::{BlockedInstance, Deadlock, Waiting};
use crate::dsl::{Cta, Kernel, KernelSpec, RoleFuture, SmemBuffer, Who};
use crate::error::{RoleFault, RolePanic};
use crate::launch::{self, Grid};
use crate::report::{
    Flow, HostCost, LevelTraffic, MemoryLevel, RoleStalls, SimReport, Span, StallCycles, Trace, TraceMeta, Unit,
    Utilisation, Waves, role_waits,
};

use warpspec_hw::ClusterShape;

use super::backend::SimBackend;
use super::clusters::ClusterRun;
use super::error::SimError;
use super::machine::Machine;
use super::memory::MemorySystem;
use super::occupancy::{BlockResources, Occupancy, OccupancyError, occupancy};
use super::options::{Progress, SimOptions};
use super::sites::{Queued, SiteCycles, SiteTable};
use super::sm::{CtaShape, Driver, Env, NEVER, Place, Sm};
use super::timing::{ExecPipe, Timing};

/// Grids larger than this are refused: the simulator keeps a small record per CTA.
const MAX_CTAS: usize = 1 << 24;

/// Times kernel `K` over `grid` with launch arguments `params` on `machine`.
///
/// The role programs run as in the emulator, but their ops drive the cycle-level model
/// instead of computing (unless [`SimOptions::compute`] is set); use
/// [`crate::dsl::Global::shape_only`] tensors for large problems. Returns an error if the
/// launch is invalid on `machine` (its [`Machine::cta_limits`]), no CTA fits on an SM, a
/// CTA deadlocks in simulated time, or role code faults or panics.
pub fn simulate<K: Kernel>(
    machine: &Machine,
    grid: Grid,
    params: &K::Params,
    opts: &SimOptions,
) -> Result<SimReport, SimError> {
    let spec = launch::check::<K>(&grid, &machine.cta_limits())?;
    if grid.ctas() > MAX_CTAS {
        return Err(SimError::Options(format!(
            "the grid has {} CTAs; the simulator handles at most {MAX_CTAS}",
            grid.ctas()
        )));
    }
    let clock = opts.clock(machine)?;
    let timing = Timing {
        copies_free: opts.copies_free,
        descriptor_placement: opts.descriptor_placement.clone(),
        wait_forms: opts.wait_forms.clone(),
        ..Timing::new(machine, clock)
    };
    let occupancy = kernel_occupancy(machine, spec)?;
    let shape = CtaShape::from_spec(spec);
    let ctas_per_sm = occupancy.ctas_per_sm as usize;
    let residents = machine.sm_count.value as usize * ctas_per_sm;
    let sites = SiteTable::default();
    let backends: Vec<SimBackend<'_>> =
        (0..residents).map(|_| SimBackend::new(spec, &timing, &sites, opts.compute)).collect();
    let smems: Vec<K::Smem> = (0..residents).map(|_| K::Smem::allocate(opts.compute)).collect();
    let cells: Vec<OnceCell<Cta<'_, K>>> = (0..grid.ctas()).map(|_| OnceCell::new()).collect();
    let mut driver = KernelDriver::<K> {
        spec,
        grid,
        params,
        backends: &backends,
        smems: &smems,
        cells: &cells,
        futures: (0..residents).map(|_| Vec::new()).collect(),
        resident_cta: vec![0; residents],
        instances: spec.instances().collect(),
        ctas_per_sm,
        next: 0,
    };
    let sms = machine.sm_count.value as usize;
    let run = GpuRun {
        machine,
        timing: &timing,
        shape: &shape,
        occupancy: &occupancy,
        ctas: grid.ctas(),
        clock,
        sms,
        sites: &sites,
        grid: grid.dims,
        cluster: spec.clustered().then(|| spec.cluster_shape()),
    };
    let mut report = run.run(opts, &mut driver)?;
    report.clocks = Some(super::clock::figures(machine, &report));
    Ok(report)
}

/// The occupancy of `spec` on `machine`, with the roles' register budgets.
///
/// The launch register count is the largest multiple of 8 the hardware check accepts for
/// the CTA's warps (what `__launch_bounds__` gives a warp-specialized kernel), capped at the
/// per-thread limit; each warp's budget is its role's `regs` (`setmaxnreg`). A CTA that is
/// not a whole number of warpgroups and mixes budgets is padded, for the register count
/// only, to whole warpgroups with warps at the smallest `setmaxnreg` budget.
pub fn kernel_occupancy(machine: &Machine, spec: &KernelSpec) -> Result<Occupancy, SimError> {
    let warp_size = machine.issue.warp_size.value.max(1);
    let sub_partitions = machine.issue.sub_partitions.value.max(1);
    let error = |error: OccupancyError| SimError::Occupancy { kernel: spec.name, error };
    let threads = spec.threads();
    let warps = spec.warps();
    let budgets: Vec<u32> = spec.roles.iter().flat_map(|r| std::iter::repeat_n(r.regs, r.warps() as usize)).collect();
    let launch_regs = |warps: u32| {
        let per_thread =
            machine.registers.regs_per_sm.value / (warps.div_ceil(sub_partitions) * sub_partitions * warp_size).max(1);
        let step = machine.registers.setmaxnreg.step.value.max(1);
        (per_thread / step * step).min(machine.registers.max_regs_per_thread.value)
    };
    let smem = spec.smem_bytes as u64;
    let block = BlockResources::new(threads, launch_regs(warps), smem, 0).with_warp_regs(budgets.clone());
    match occupancy(machine, &block) {
        Err(OccupancyError::WarpRegsNeedWarpgroups { .. }) => {
            let padded = warps.div_ceil(sub_partitions) * sub_partitions;
            let mut budgets = budgets;
            budgets.resize(padded as usize, machine.registers.setmaxnreg.min.value);
            let block = BlockResources::new(padded * warp_size, launch_regs(padded), smem, 0).with_warp_regs(budgets);
            let mut occ = occupancy(machine, &block).map_err(error)?;
            // The padding warps do not exist: count the kernel's own warps.
            occ.warps_per_cta = warps;
            occ.warps_per_sm = occ.ctas_per_sm * warps;
            Ok(occ)
        }
        other => other.map_err(error),
    }
}

/// Runs the role futures of the CTAs of kernel `K`.
struct KernelDriver<'a, K: Kernel> {
    spec: &'static KernelSpec,
    grid: Grid,
    params: &'a K::Params,
    backends: &'a [SimBackend<'a>],
    smems: &'a [K::Smem],
    cells: &'a [OnceCell<Cta<'a, K>>],
    /// Per resident CTA (SM-major), the futures of its instances.
    futures: Vec<Vec<Option<RoleFuture<'a>>>>,
    /// Per resident CTA, which CTA of the grid it is.
    resident_cta: Vec<usize>,
    instances: Vec<Who>,
    ctas_per_sm: usize,
    next: usize,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "non-string panic payload".into())
}

impl<'a, K: Kernel> Driver for KernelDriver<'a, K> {
    fn launch(&mut self, place: Place) -> Option<usize> {
        let cta = self.next;
        let cell = self.cells.get(cta)?;
        self.next += 1;
        let index = self.index(place);
        let backend = &self.backends[index];
        backend.clear_release();
        backend.reset();
        let cta_ref: &'a Cta<'a, K> = cell.get_or_init(|| Cta {
            params: self.params,
            smem: &self.smems[index],
            backend,
            block: self.grid.block(cta),
            grid: self.grid.dims,
            rank: self.spec.cluster_shape().rank(self.grid.block(cta)),
            tiles: crate::dsl::ClusterTiles::default(),
        });
        self.futures[index] = self.instances.iter().map(|&who| Some(K::spawn(cta_ref, who))).collect();
        self.resident_cta[index] = cta;
        Some(cta)
    }

    fn resume(
        &mut self,
        place: Place,
        instance: usize,
        release: bool,
        out: &mut Vec<Queued>,
    ) -> Result<bool, SimError> {
        let index = self.index(place);
        let backend = &self.backends[index];
        let Some(future) = self.futures[index].get_mut(instance).and_then(Option::as_mut) else { return Ok(true) };
        if release {
            backend.release();
        }
        let mut cx = Context::from_waker(Waker::noop());
        let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
        backend.clear_release();
        let who = self.instances[instance];
        let done = match polled {
            Ok(Poll::Ready(())) => {
                self.futures[index][instance] = None;
                true
            }
            Ok(Poll::Pending) => false,
            Err(payload) => {
                return Err(SimError::Panic(RolePanic {
                    kernel: self.spec.name,
                    block: self.resident_block(index),
                    instance: self.spec.describe(who),
                    message: panic_message(payload.as_ref()),
                }));
            }
        };
        if let Some((who, e)) = backend.take_unsupported() {
            return Err(SimError::Unsupported {
                kernel: self.spec.name,
                instance: self.spec.describe(who),
                needs: e.needs,
            });
        }
        if let Some((who, fault)) = backend.take_fault() {
            return Err(SimError::Fault(RoleFault {
                kernel: self.spec.name,
                block: self.resident_block(index),
                instance: self.spec.describe(who),
                fault,
            }));
        }
        backend.drain_into(out);
        Ok(done)
    }

    fn retire(&mut self, place: Place) {
        let index = self.index(place);
        self.futures[index].clear();
    }

    fn block(&self, cta: usize) -> [u32; 3] {
        self.grid.block(cta)
    }

    fn seek(&mut self, cta: usize) {
        self.next = cta;
    }
}

impl<K: Kernel> KernelDriver<'_, K> {
    /// The index of `place` among all resident CTAs (SM-major).
    fn index(&self, place: Place) -> usize {
        place.sm * self.ctas_per_sm + place.resident
    }

    /// `blockIdx` of resident CTA `index` (SM-major).
    fn resident_block(&self, index: usize) -> [u32; 3] {
        self.grid.block(self.resident_cta[index])
    }
}

/// One timing run of a grid on the whole GPU.
pub(crate) struct GpuRun<'a> {
    /// The machine.
    pub machine: &'a Machine,
    /// Its timing at the run's clock.
    pub timing: &'a Timing,
    /// The CTAs' shape.
    pub shape: &'a CtaShape,
    /// Occupancy of the kernel.
    pub occupancy: &'a Occupancy,
    /// CTAs of the grid.
    pub ctas: usize,
    /// Clock, GHz.
    pub clock: f64,
    /// SMs the grid may use (the machine's count for a kernel).
    pub sms: usize,
    /// The source sites the instructions name.
    pub sites: &'a SiteTable,
    /// The grid's dimensions.
    pub grid: [u32; 3],
    /// The kernel's clusters, when it has clusters of more than one CTA.
    pub cluster: Option<ClusterShape>,
}

impl GpuRun<'_> {
    /// Runs every CTA that `driver` hands out to completion and reports.
    pub fn run(&self, opts: &SimOptions, driver: &mut dyn Driver) -> Result<SimReport, SimError> {
        let start = Instant::now();
        let sm_count = self.sms.max(1);
        let ctas_per_sm = self.occupancy.ctas_per_sm.max(1) as usize;
        let trace = opts.trace;
        let env_plain = Env {
            timing: self.timing,
            shape: self.shape,
            policy: opts.policy.unwrap_or(self.machine.issue.scheduler_policy.value),
            trace_ctas: 0,
            trace_limit: 0,
            trace_window: None,
        };
        let env_traced = Env {
            trace_ctas: trace.map_or(0, |t| t.ctas_per_sm),
            trace_limit: trace.map_or(0, |t| t.max_events_per_sm),
            trace_window: trace.and_then(|t| t.window),
            ..env_plain
        };
        let traced_sms = trace.map_or(0, |t| t.sms as usize).min(sm_count);
        let env_of = |sm: usize| if sm < traced_sms { &env_traced } else { &env_plain };
        let mut sms: Vec<Sm> = (0..sm_count).map(|i| Sm::new(i, ctas_per_sm, env_of(i))).collect();
        let mut mem = MemorySystem::new(self.timing, sm_count, opts.seed);
        let mut clusters = match self.cluster {
            Some(shape) => {
                Some(ClusterRun::new(self.machine, shape, self.grid, self.shape.warps, ctas_per_sm, sm_count)?)
            }
            None => None,
        };
        let mut woken: Vec<(usize, u64)> = Vec::new();
        match &mut clusters {
            Some(run) => {
                sms.iter_mut().for_each(|sm| sm.hold_slots = true);
                run.dispatch(0, &mut sms, &env_of, driver, &mut woken)?;
                woken.clear();
            }
            None => {
                for resident in 0..ctas_per_sm {
                    for (i, sm) in sms.iter_mut().enumerate() {
                        sm.launch(resident, 0, env_of(i), driver)?;
                    }
                }
            }
        }
        // The cycle each SM is next due (`NEVER`: idle); heap entries that disagree are stale.
        let mut due: Vec<u64> = vec![0; sm_count];
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> = (0..sm_count).map(|i| Reverse((0, i))).collect();
        let interval = opts.progress_interval.unwrap_or(Duration::from_secs(1));
        let mut last_progress = start;
        let mut steps: u64 = 0;
        let mut now = 0;
        while let Some(Reverse((t0, i))) = heap.pop() {
            if due[i] != t0 {
                continue;
            }
            let env = env_of(i);
            let mut t = t0;
            loop {
                now = now.max(t);
                steps += 1;
                let mut next = sms[i].step(t, env, &mut mem, driver)?.unwrap_or(NEVER);
                if let Some(run) = &mut clusters
                    && !sms[i].outbox.is_empty()
                {
                    run.deliver(i, &mut sms, &env_of, driver, &mut woken)?;
                    for (j, at) in woken.drain(..) {
                        let at = at.max(t + 1);
                        if j == i {
                            next = next.min(at);
                        } else if at < due[j] {
                            due[j] = at;
                            heap.push(Reverse((at, j)));
                        }
                    }
                }
                due[i] = next;
                if next == NEVER {
                    break;
                }
                if heap.peek().is_none_or(|Reverse((top, _))| next <= *top) {
                    t = next;
                } else {
                    heap.push(Reverse((next, i)));
                    break;
                }
                if steps.is_multiple_of(4096)
                    && let Some(progress) = &opts.progress
                    && last_progress.elapsed() >= interval
                {
                    last_progress = Instant::now();
                    let ctas_done = sms.iter().map(|s| s.stats.ctas as usize).sum();
                    progress(&Progress { cycle: now, ctas_done, ctas: self.ctas, wall: start.elapsed() });
                }
            }
        }
        if let Some((i, resident)) = sms
            .iter()
            .enumerate()
            .find_map(|(i, sm)| (0..sm.resident_count()).find(|&r| sm.resident_cta(r).is_some()).map(|r| (i, r)))
        {
            return Err(self.deadlock(&sms[i], resident, env_of(i), now, driver, clusters.as_ref()));
        }
        for (i, sm) in sms.iter_mut().enumerate().take(traced_sms) {
            sm.trace_tensor_runs(true, env_of(i));
        }
        let resident_clusters = clusters.as_ref().map(|c| c.resident);
        Ok(self.report(&sms, &mem, traced_sms, &env_traced, start.elapsed(), resident_clusters))
    }

    /// The deadlock of the CTA at `resident` of `sm`.
    fn deadlock(
        &self,
        sm: &Sm,
        resident: usize,
        env: &Env<'_>,
        cycle: u64,
        driver: &dyn Driver,
        clusters: Option<&ClusterRun>,
    ) -> SimError {
        let block = sm.resident_cta(resident).map_or([0; 3], |cta| driver.block(cta));
        let cluster = clusters.and_then(|c| c.cluster_at(sm.id(), resident).map(|id| (c, id)));
        let mut blocked = Vec::new();
        let mut finished = Vec::new();
        for (inst, waiting) in self.shape.instances.iter().zip(sm.waiting(resident, env)) {
            match waiting {
                None => finished.push(self.shape.describe(inst)),
                Some(mut waiting) => blocked.push(BlockedInstance {
                    role: self.shape.role_name(inst),
                    instance: u32::from(inst.index),
                    warps: (inst.first_warp, inst.first_warp + inst.warps - 1),
                    cta: None,
                    waiting: {
                        if let (Waiting::Cluster { arrived, threads }, Some((run, id))) = (&mut waiting, cluster) {
                            *arrived = run.arrived_threads(id, env.timing.warp_size);
                            *threads = run.threads(env.timing.warp_size);
                        }
                        waiting
                    },
                    watchdog: None,
                }),
            }
        }
        SimError::Deadlock { cycle, deadlock: Deadlock { kernel: self.shape.kernel, block, blocked, finished } }
    }

    /// The timeline recorded on `traced` (the first SMs) of a run of `cycles`.
    fn trace(&self, traced: &[Sm], env: &Env<'_>, cycles: u64) -> Trace {
        let mut trace = Trace {
            meta: TraceMeta {
                kernel: self.shape.kernel,
                machine: self.machine.full_name,
                clock_ghz: self.clock,
                grid: self.grid,
                sms: self.sms.max(1) as u32,
                sms_traced: traced.len() as u32,
                ctas: self.ctas,
                ctas_traced: traced.iter().map(|s| s.traced_ctas as usize).sum(),
                cycles,
                window: env.trace_window,
            },
            ..Trace::default()
        };
        for (i, sm) in traced.iter().enumerate() {
            let base = trace.events.len();
            trace.events.extend(
                sm.trace
                    .iter()
                    .zip(&sm.trace_sites)
                    .map(|(span, &site)| Span { source: self.sites.line(site), ..span.clone() }),
            );
            trace.flows.extend(sm.trace_flows.iter().map(|f| Flow { from: base + f.from, to: base + f.to }));
            trace.threads.extend(sm.trace_tracks(env).into_iter().map(|track| (i as u32, track)));
            trace.dropped += sm.trace_dropped;
            trace.outside_window += sm.trace_outside;
        }
        trace
    }

    fn report(
        &self,
        sms: &[Sm],
        mem: &MemorySystem,
        traced_sms: usize,
        env: &Env<'_>,
        wall: Duration,
        resident_clusters: Option<u64>,
    ) -> SimReport {
        let t = self.timing;
        let sm_count = sms.len();
        let cycles = sms.iter().map(|s| s.stats.last_retire).max().unwrap_or(0).max(1);
        let sm_cycles = cycles as f64 * sm_count as f64;
        let issue_cycles = sm_cycles * t.sub_partitions as f64;
        let sum = |f: &dyn Fn(&Sm) -> f64| sms.iter().map(f).sum::<f64>();
        let pipe = |p: ExecPipe| sum(&|s| s.stats.pipe_busy[p.index()] as f64) / issue_cycles;
        let utilisation = Utilisation::from_fn(|unit| match unit {
            Unit::TensorCores => sum(&|s| s.stats.tensor_busy) / sm_cycles,
            Unit::Tma => sum(&|s| s.tma_busy()) / sm_cycles,
            Unit::Issue => sum(&|s| s.stats.issued as f64) / issue_cycles,
            Unit::Fma => pipe(ExecPipe::Fma),
            Unit::Alu => pipe(ExecPipe::Alu),
            Unit::Mufu => pipe(ExecPipe::Mufu),
            Unit::Lsu => pipe(ExecPipe::Lsu),
            Unit::Uniform => pipe(ExecPipe::Uniform),
            Unit::Smem => sum(&|s| s.stats.smem_bytes as f64) / (sm_cycles * t.smem_bytes_per_clk),
            Unit::L2 => mem.l2.busy / cycles as f64,
            Unit::Hbm => mem.hbm.busy / cycles as f64,
        });
        let mut site_cycles = SiteCycles::default();
        for sm in sms {
            site_cycles.merge(&sm.stats.site_cycles);
        }
        let sources = self.sites.report(&site_cycles.0, self.shape);
        let mut roles: Vec<RoleStalls> = self
            .shape
            .roles
            .iter()
            .enumerate()
            .map(|(r, &role)| RoleStalls {
                role,
                warps_per_cta: self.shape.instances.iter().filter(|i| i.role as usize == r).map(|i| i.warps).sum(),
                cycles: StallCycles::default(),
                waits: role_waits(&sources, role),
            })
            .collect();
        for sm in sms {
            for (role, stalls) in roles.iter_mut().zip(&sm.stats.role_stalls) {
                role.cycles.merge(stalls);
            }
        }
        let cluster_ctas = self.cluster.map_or(1, |c| c.ctas());
        let capacity = match resident_clusters {
            Some(clusters) => clusters as usize * cluster_ctas as usize,
            None => sm_count * self.occupancy.ctas_per_sm.max(1) as usize,
        };
        let starved = sms.iter().filter_map(|s| s.stats.starved_at).min();
        let waves = Waves {
            ctas_per_sm: self.occupancy.ctas_per_sm,
            capacity,
            waves: self.ctas as f64 / capacity as f64,
            tail_ctas: self.ctas % capacity,
            tail_cycles: starved.map_or(0, |s| cycles.saturating_sub(s)),
            cluster_ctas,
        };
        let trace = (traced_sms > 0).then(|| self.trace(&sms[..traced_sms], env, cycles));
        SimReport {
            kernel: self.shape.kernel,
            machine: self.machine.full_name,
            sms: sm_count as u32,
            clock_ghz: self.clock,
            ctas: self.ctas,
            warps_per_cta: self.shape.warps,
            occupancy_limiter: self.occupancy.limiter.to_string(),
            waves,
            cycles,
            mma_flops: 2 * sms.iter().map(|s| s.stats.mma_fma).sum::<u64>(),
            peak_tflops: self.machine.peak_dense_bf16_tflops(self.clock),
            utilisation,
            l2_hits: mem.hits,
            l2_misses: mem.misses,
            l2_coalesced: mem.coalesced,
            l2_coalesced_bytes: mem.coalesced_bytes,
            l2_far_hits: mem.far_hits,
            l2_sources: mem.content.bytes,
            traffic: MemoryLevel::ALL
                .into_iter()
                .filter(|&level| level != MemoryLevel::TensorMemory || t.tmem.is_some())
                .map(|level| LevelTraffic {
                    level,
                    bytes: match level {
                        MemoryLevel::Shared => sms.iter().map(|s| s.stats.smem_bytes + s.stats.tma_bytes).sum(),
                        // Between the SMs and the L2, coalesced answers included.
                        MemoryLevel::L2 => mem.l2.bytes + mem.coalesced_bytes,
                        MemoryLevel::Hbm => mem.hbm.bytes,
                        MemoryLevel::TensorMemory => sms.iter().map(|s| s.stats.tmem_bytes).sum(),
                    },
                })
                .collect(),
            roles,
            sources,
            clocks: None,
            trace,
            host: HostCost { wall, sm_cycles: cycles * sm_count as u64 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::RoleSpec;
    use crate::sim::occupancy::Limiter;

    const fn role(name: &'static str, instances: u32, warps_per_instance: u32, regs: u32) -> RoleSpec {
        RoleSpec { name, instances, warps_per_instance, regs }
    }

    const fn spec(roles: &'static [RoleSpec], smem_bytes: usize) -> KernelSpec {
        KernelSpec {
            name: "k",
            roles,
            barriers: &[],
            pipelines: &[],
            named_barriers: &[],
            smem_bytes,
            cluster: [1, 1, 1],
        }
    }

    #[test]
    fn role_budgets_set_the_register_limit() {
        let h100 = Machine::h100_sxm();
        // Producer warpgroup at 40, two consumer warpgroups at 232: 128 x 40 + 256 x 232
        // registers, one CTA per SM; with 64 KB of shared memory the registers still limit.
        static FA3: [RoleSpec; 2] = [role("producer", 1, 4, 40), role("consumer", 2, 4, 232)];
        let occ = kernel_occupancy(&h100, &spec(&FA3, 64 * 1024)).expect("fits");
        assert_eq!((occ.ctas_per_sm, occ.warps_per_cta, occ.limiter), (1, 12, Limiter::Registers));
        // One producer warp (not a whole warpgroup): padded for the register count only.
        static GEMM: [RoleSpec; 2] = [role("producer", 1, 1, 40), role("consumer", 2, 4, 232)];
        let occ = kernel_occupancy(&h100, &spec(&GEMM, 0)).expect("fits");
        assert_eq!((occ.ctas_per_sm, occ.warps_per_cta, occ.warps_per_sm), (1, 9, 9));
        // Small uniform budgets: the warp limit.
        static SMALL: [RoleSpec; 1] = [role("w", 1, 4, 32)];
        let occ = kernel_occupancy(&h100, &spec(&SMALL, 0)).expect("fits");
        assert_eq!(occ.ctas_per_sm, 16);
        // 256 registers for 12 warps cannot fit.
        static BIG: [RoleSpec; 1] = [role("w", 3, 4, 256)];
        assert!(matches!(kernel_occupancy(&h100, &spec(&BIG, 0)), Err(SimError::Occupancy { .. })));
    }

    #[test]
    fn launches_are_checked_against_the_machine_given() {
        static ROLES: [RoleSpec; 1] = [role("w", 1, 4, 32)];
        static SPEC: KernelSpec = spec(&ROLES, 200 * 1024);
        static HUGE_ROLES: [RoleSpec; 1] = [role("w", 9, 4, 32)];
        static HUGE: KernelSpec = spec(&HUGE_ROLES, 0);
        let one = Grid::new(1, 1, 1);
        let mut machine = Machine::h200();
        assert!(launch::check_spec(&SPEC, &one, &machine.cta_limits()).is_ok());
        machine.smem.max_per_cta_bytes.value = 100 * 1024;
        let err = launch::check_spec(&SPEC, &one, &machine.cta_limits());
        assert!(matches!(err, Err(crate::error::LaunchError::SharedMemory { limit: 102_400, .. })), "{err:?}");
        assert!(matches!(
            launch::check_spec(&HUGE, &one, &machine.cta_limits()),
            Err(crate::error::LaunchError::Threads { threads: 1152, .. })
        ));
        assert!(matches!(
            launch::check_spec(&SPEC, &Grid::new(0, 1, 1), &machine.cta_limits()),
            Err(crate::error::LaunchError::EmptyGrid { .. })
        ));
    }
}
