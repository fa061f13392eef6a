//! One CTA (or the CTAs of one cluster) with its role instances on distinct OS threads: real concurrency over the same
//! [`CtaState`] (mbarriers, checks and race detector) as the single-threaded executor,
//! shared through a [`Monitor`]. Each thread polls its instance's future, and when the
//! instance is blocked sleeps until the CTA's state changes. A CTA whose live instances are
//! all blocked is reported as deadlocked at once; the watchdog bounds every sleep, so a
//! wait that sees no progress for that long ends the run with the same report.

use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::EmuOptions;
use super::cta::{CtaRun, cluster_blocks, cluster_cells, poll_role};
use super::error::EmuError;
use super::monitor::{Monitor, Versioned, Wake};
use super::state::CtaState;
use super::tiles::TileNames;
use crate::dsl::{Backend, ClusterTiles, Cta, Event, Fault, Kernel, KernelSpec, Op, SmemBuffer, TileCell, Wait, Who};
use crate::launch::Grid;

impl Versioned for CtaState {
    fn version(&self) -> u64 {
        self.progress()
    }
}

/// The backend one warp thread sees: every call goes through the CTA's monitor.
struct ThreadBackend<'m> {
    monitor: &'m Monitor<CtaState>,
    /// The rank of the warp's CTA in its cluster.
    rank: u32,
}

impl Backend for ThreadBackend<'_> {
    fn has_data(&self) -> bool {
        true
    }

    fn issue(&self, who: Who, op: Op) {
        self.monitor.with(|s| s.issue(self.rank, who, op));
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        self.monitor.with(|s| s.poll_wait(self.rank, who, wait, first))
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.monitor.with(|s| s.fault(self.rank, who, fault));
    }

    fn observe(&self, who: Who, event: Event) {
        self.monitor.with(|s| s.observe(self.rank, who, event));
    }
}

/// Runs cluster number `cluster` of the grid (one CTA without a cluster shape) in `smems`,
/// one shared memory per CTA by rank (zeroed first; its first tile storage has ordinal
/// `base`), one thread per role instance of every CTA.
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
    let tiles = TileNames { fields: K::Smem::FIELDS, base, clustered: spec.clustered() };
    let monitor =
        Monitor::new(CtaState::new(spec, blocks.clone(), options.race_detection, false, tiles), instances.len());
    let shared = Shared::<K> {
        monitor: &monitor,
        params,
        smems,
        cells: &cells,
        blocks: &blocks,
        grid: grid.dims,
        watchdog: options.watchdog,
    };
    let steps: u64 = std::thread::scope(|scope| {
        let mut threads = Vec::with_capacity(instances.len());
        for (thread, &(rank, who)) in instances.iter().enumerate() {
            let shared = &shared;
            let name = format!("CTA {rank} warp {}", spec.first_warp(who));
            match std::thread::Builder::new().name(name).spawn_scoped(scope, move || shared.run(thread, rank, who)) {
                Ok(handle) => threads.push(handle),
                Err(e) => {
                    monitor.with(|s| s.panicked(rank, who, format!("could not start the instance's thread: {e}")));
                    monitor.stop();
                }
            }
        }
        threads.into_iter().map(|t| t.join().unwrap_or(0)).sum()
    });
    let mut state = monitor.into_inner();
    if let Some(error) = state.take_error() {
        return Err(error);
    }
    state.end();
    state.take_error().map_or(Ok(CtaRun { flops: state.mma_flops(), steps }), Err)
}

/// What the threads of one CTA or cluster share.
struct Shared<'a, K: Kernel> {
    monitor: &'a Monitor<CtaState>,
    params: &'a K::Params,
    /// Shared memory of each CTA, by rank.
    smems: &'a [K::Smem],
    cells: &'a [Vec<&'a TileCell>],
    /// `blockIdx` of each CTA, by rank.
    blocks: &'a [[u32; 3]],
    grid: [u32; 3],
    watchdog: Duration,
}

impl<K: Kernel> Shared<'_, K> {
    /// The thread of instance `who`: polls its future until it returns or the run stops.
    /// Returns the polls made.
    fn run(&self, thread: usize, rank: u32, who: Who) -> u64 {
        let monitor = self.monitor;
        let backend = ThreadBackend { monitor, rank };
        let cta = Cta::<K> {
            params: self.params,
            smem: &self.smems[rank as usize],
            backend: &backend,
            block: self.blocks[rank as usize],
            grid: self.grid,
            rank,
            tiles: ClusterTiles::new(self.cells),
        };
        let mut future = K::spawn(&cta, who);
        let polls = self.drive(&mut future, thread, rank, who);
        // The run is decided or this instance returned: dropping the future drops only what
        // an unfinished instance held, which the stopped state ignores.
        drop(future);
        polls
    }

    fn drive(&self, future: &mut crate::dsl::RoleFuture<'_>, thread: usize, rank: u32, who: Who) -> u64 {
        let monitor = self.monitor;
        let mut cx = Context::from_waker(Waker::noop());
        let mut polls = 0;
        loop {
            let seen = monitor.with(|s| s.progress());
            polls += 1;
            match poll_role(future, &mut cx) {
                Ok(Poll::Ready(())) => {
                    let stopped = monitor.with(|s| {
                        s.finish(rank, who);
                        s.stopped()
                    });
                    monitor.finish(thread);
                    if stopped {
                        monitor.stop();
                    }
                    return polls;
                }
                Ok(Poll::Pending) => {}
                Err(message) => monitor.with(|s| s.panicked(rank, who, message)),
            }
            if monitor.with(|s| s.stopped()) {
                monitor.stop();
                return polls;
            }
            let limit = match monitor.block(thread, seen, Some(self.watchdog)) {
                Wake::Changed => continue,
                Wake::Stopped => return polls,
                Wake::AllBlocked => None,
                Wake::TimedOut => Some(self.watchdog),
            };
            monitor.with(|s| {
                let deadlock = s.deadlock(limit);
                s.record(EmuError::Deadlock(deadlock));
            });
            monitor.stop();
            return polls;
        }
    }
}
