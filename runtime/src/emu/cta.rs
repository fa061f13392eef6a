//! One CTA, or the CTAs of one thread-block cluster, on one thread: the backend over their
//! [`CtaState`], and the executor that polls the role instances (CTA by CTA, in warp order
//! within each) in the order a [`Policy`] gives.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::{Context, Poll, Waker};

use super::EmuOptions;
use super::error::EmuError;
use super::schedule::Picker;
use super::state::CtaState;
use super::tiles::TileNames;
use crate::dsl::{
    Backend, ClusterTiles, Cta, Event, Fault, Kernel, KernelSpec, Op, RoleFuture, SmemBuffer, TileCell, Wait, Who,
};
use crate::launch::Grid;

/// What one CTA did.
pub(super) struct CtaRun {
    /// Flops of its MMAs.
    pub flops: u64,
    /// Scheduling steps: polls of role instances.
    pub steps: u64,
}

/// The state of a CTA or cluster run on one thread.
struct EmuBackend {
    state: RefCell<CtaState>,
}

/// The backend one CTA of the run sees: its rank in the cluster and the run's state.
struct Member<'s> {
    rank: u32,
    backend: &'s EmuBackend,
}

impl Backend for Member<'_> {
    fn has_data(&self) -> bool {
        true
    }

    fn issue(&self, who: Who, op: Op) {
        self.backend.state.borrow_mut().issue(self.rank, who, op);
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        self.backend.state.borrow_mut().poll_wait(self.rank, who, wait, first)
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.backend.state.borrow_mut().fault(self.rank, who, fault);
    }

    fn observe(&self, who: Who, event: Event) {
        self.backend.state.borrow_mut().observe(self.rank, who, event);
    }
}

/// The CTAs of cluster number `cluster` of `grid` (x fastest), by rank: `blockIdx` of each.
pub(super) fn cluster_blocks(spec: &KernelSpec, grid: &Grid, cluster: usize) -> Vec<[u32; 3]> {
    let shape = spec.cluster_shape();
    let [x, y, z] = shape.clusters(grid.dims);
    let at = Grid::new(x, y, z).block(cluster);
    (0..shape.ctas()).map(|rank| shape.block_of(at, rank)).collect()
}

/// The tile storages of each CTA's shared memory, by rank.
pub(super) fn cluster_cells<S: SmemBuffer>(smems: &[S]) -> Vec<Vec<&TileCell>> {
    smems
        .iter()
        .map(|smem| {
            let mut cells = Vec::new();
            smem.__cells(&mut cells);
            cells
        })
        .collect()
}

impl EmuBackend {
    fn progress(&self) -> u64 {
        self.state.borrow().progress()
    }

    /// The error recorded by the latest poll, if any.
    fn check(&self) -> Result<(), EmuError> {
        self.state.borrow_mut().take_error().map_or(Ok(()), Err)
    }
}

/// Polls a role future, turning a panic of role code into its message.
pub(super) fn poll_role(future: &mut RoleFuture<'_>, cx: &mut Context<'_>) -> Result<Poll<()>, String> {
    catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into())
    })
}

/// Runs cluster number `cluster` of the grid (a single CTA for a kernel without a cluster
/// shape) in `smems`, one shared memory per CTA by rank (zeroed first; allocated one after the
/// other, the first tile storage with ordinal `base`).
pub(super) fn run_cluster<K: Kernel>(
    spec: &'static KernelSpec,
    grid: &Grid,
    cluster: usize,
    params: &K::Params,
    smems: &mut [K::Smem],
    base: usize,
    options: &EmuOptions,
) -> Result<CtaRun, EmuError> {
    let blocks = cluster_blocks(spec, grid, cluster);
    smems.iter_mut().for_each(SmemBuffer::reset);
    let smems = &*smems;
    let cells = cluster_cells(smems);
    let instances: Vec<(u32, Who)> =
        (0..blocks.len() as u32).flat_map(|rank| spec.instances().map(move |who| (rank, who))).collect();
    let picker = Picker::new(options.policy, cluster, instances.len());
    let tiles = TileNames { fields: K::Smem::FIELDS, base, clustered: spec.clustered() };
    let state = CtaState::new(spec, blocks.clone(), options.race_detection, picker.is_some(), tiles);
    let backend = EmuBackend { state: RefCell::new(state) };
    let members: Vec<Member<'_>> = (0..blocks.len() as u32).map(|rank| Member { rank, backend: &backend }).collect();
    let ctas: Vec<Cta<'_, K>> = members
        .iter()
        .zip(smems)
        .zip(&blocks)
        .map(|((member, smem), &block)| Cta {
            params,
            smem,
            backend: member,
            block,
            grid: grid.dims,
            rank: member.rank,
            tiles: ClusterTiles::new(&cells),
        })
        .collect();
    let mut futures: Vec<Option<RoleFuture<'_>>> =
        instances.iter().map(|&(rank, who)| Some(K::spawn(&ctas[rank as usize], who))).collect();
    let result = match picker {
        None => round_robin(&backend, &instances, &mut futures),
        Some(picker) => explore(&backend, &instances, &mut futures, picker),
    };
    // Unfinished futures drop the tokens they hold: the run is decided, so those are ignored.
    backend.state.borrow_mut().stop();
    drop(futures);
    result
}

/// Polls one instance; records its completion or its panic.
fn step(
    backend: &EmuBackend,
    (rank, who): (u32, Who),
    slot: &mut Option<RoleFuture<'_>>,
    cx: &mut Context<'_>,
) -> Poll<()> {
    let Some(future) = slot.as_mut() else { return Poll::Ready(()) };
    match poll_role(future, cx) {
        Ok(Poll::Ready(())) => {
            *slot = None;
            backend.state.borrow_mut().finish(rank, who);
            Poll::Ready(())
        }
        Ok(Poll::Pending) => Poll::Pending,
        Err(message) => {
            backend.state.borrow_mut().panicked(rank, who, message);
            Poll::Pending
        }
    }
}

/// The end of a CTA whose instances all returned.
fn finished(backend: &EmuBackend, steps: u64) -> Result<CtaRun, EmuError> {
    backend.state.borrow_mut().end();
    backend.check()?;
    Ok(CtaRun { flops: backend.state.borrow().mma_flops(), steps })
}

fn deadlock(backend: &EmuBackend) -> Result<CtaRun, EmuError> {
    Err(EmuError::Deadlock(backend.state.borrow().deadlock(None)))
}

/// Polls the instances in warp order, each until it blocks; a pass without progress is a
/// deadlock.
fn round_robin(
    backend: &EmuBackend,
    instances: &[(u32, Who)],
    futures: &mut [Option<RoleFuture<'_>>],
) -> Result<CtaRun, EmuError> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut steps = 0;
    loop {
        let before = backend.progress();
        let mut live = 0;
        for (slot, &who) in futures.iter_mut().zip(instances) {
            if slot.is_none() {
                continue;
            }
            steps += 1;
            if step(backend, who, slot, &mut cx).is_pending() {
                live += 1;
            }
            backend.check()?;
        }
        if live == 0 {
            return finished(backend, steps);
        }
        if backend.progress() == before {
            return deadlock(backend);
        }
    }
}

/// Polls one runnable instance at a time, as `picker` chooses. An instance is runnable
/// unless its latest poll changed nothing and nothing has changed since; when no live
/// instance is runnable, the CTA is deadlocked.
fn explore(
    backend: &EmuBackend,
    instances: &[(u32, Who)],
    futures: &mut [Option<RoleFuture<'_>>],
    mut picker: Picker,
) -> Result<CtaRun, EmuError> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut blocked_at: Vec<Option<u64>> = vec![None; instances.len()];
    let mut runnable = Vec::with_capacity(instances.len());
    let mut steps = 0;
    loop {
        let progress = backend.progress();
        runnable.clear();
        let mut live = false;
        for (i, slot) in futures.iter().enumerate() {
            if slot.is_some() {
                live = true;
                if blocked_at[i] != Some(progress) {
                    runnable.push(i);
                }
            }
        }
        if !live {
            return finished(backend, steps);
        }
        if runnable.is_empty() {
            return deadlock(backend);
        }
        let i = picker.pick(&runnable, steps);
        steps += 1;
        if step(backend, instances[i], &mut futures[i], &mut cx).is_pending() {
            blocked_at[i] = (backend.progress() == progress).then_some(progress);
        }
        backend.check()?;
    }
}
