//! One CTA with its role instances on distinct OS threads: real concurrency over the same
//! [`CtaState`] (mbarriers, checks and race detector) as the single-threaded executor,
//! shared through a [`Monitor`]. Each thread polls its instance's future, and when the
//! instance is blocked sleeps until the CTA's state changes. A CTA whose live instances are
//! all blocked is reported as deadlocked at once; the watchdog bounds every sleep, so a
//! wait that sees no progress for that long ends the run with the same report.

use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::EmuOptions;
use super::cta::{CtaRun, poll_role};
use super::error::EmuError;
use super::monitor::{Monitor, Versioned, Wake};
use super::state::CtaState;
use super::tiles::TileNames;
use crate::dsl::{Backend, Cta, Event, Fault, Kernel, KernelSpec, Op, SmemBuffer, Wait, Who};
use crate::launch::Grid;

impl Versioned for CtaState {
    fn version(&self) -> u64 {
        self.progress()
    }
}

/// The backend one warp thread sees: every call goes through the CTA's monitor.
struct ThreadBackend<'m> {
    monitor: &'m Monitor<CtaState>,
}

impl Backend for ThreadBackend<'_> {
    fn has_data(&self) -> bool {
        true
    }

    fn issue(&self, who: Who, op: Op) {
        self.monitor.with(|s| s.issue(who, op));
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        self.monitor.with(|s| s.poll_wait(who, wait, first))
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.monitor.with(|s| s.fault(who, fault));
    }

    fn observe(&self, who: Who, event: Event) {
        self.monitor.with(|s| s.observe(who, event));
    }
}

/// Runs CTA number `linear` of the grid in `smem` (zeroed first; its first tile storage has
/// ordinal `base`), one thread per role
/// instance.
pub(super) fn run_cta<K: Kernel>(
    spec: &'static KernelSpec,
    grid: &Grid,
    linear: usize,
    params: &K::Params,
    smem: &mut K::Smem,
    base: usize,
    options: &EmuOptions,
) -> Result<CtaRun, EmuError> {
    let block = grid.block(linear);
    smem.reset();
    let smem = &*smem;
    let instances: Vec<Who> = spec.instances().collect();
    let monitor = Monitor::new(
        CtaState::new(spec, block, options.race_detection, false, TileNames { fields: K::Smem::FIELDS, base }),
        instances.len(),
    );
    let shared = Shared::<K> { monitor: &monitor, params, smem, block, grid: grid.dims, watchdog: options.watchdog };
    let steps: u64 = std::thread::scope(|scope| {
        let mut threads = Vec::with_capacity(instances.len());
        for (thread, &who) in instances.iter().enumerate() {
            let shared = &shared;
            let name = format!("warp {}", spec.first_warp(who));
            match std::thread::Builder::new().name(name).spawn_scoped(scope, move || shared.run(thread, who)) {
                Ok(handle) => threads.push(handle),
                Err(e) => {
                    monitor.with(|s| s.panicked(who, format!("could not start the instance's thread: {e}")));
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

/// What the threads of one CTA share.
struct Shared<'a, K: Kernel> {
    monitor: &'a Monitor<CtaState>,
    params: &'a K::Params,
    smem: &'a K::Smem,
    block: [u32; 3],
    grid: [u32; 3],
    watchdog: Duration,
}

impl<K: Kernel> Shared<'_, K> {
    /// The thread of instance `who`: polls its future until it returns or the run stops.
    /// Returns the polls made.
    fn run(&self, thread: usize, who: Who) -> u64 {
        let monitor = self.monitor;
        let backend = ThreadBackend { monitor };
        let cta =
            Cta::<K> { params: self.params, smem: self.smem, backend: &backend, block: self.block, grid: self.grid };
        let mut future = K::spawn(&cta, who);
        let polls = self.drive(&mut future, thread, who);
        // The run is decided or this instance returned: dropping the future drops only what
        // an unfinished instance held, which the stopped state ignores.
        drop(future);
        polls
    }

    fn drive(&self, future: &mut crate::dsl::RoleFuture<'_>, thread: usize, who: Who) -> u64 {
        let monitor = self.monitor;
        let mut cx = Context::from_waker(Waker::noop());
        let mut polls = 0;
        loop {
            let seen = monitor.with(|s| s.progress());
            polls += 1;
            match poll_role(future, &mut cx) {
                Ok(Poll::Ready(())) => {
                    let stopped = monitor.with(|s| {
                        s.finish(who);
                        s.stopped()
                    });
                    monitor.finish(thread);
                    if stopped {
                        monitor.stop();
                    }
                    return polls;
                }
                Ok(Poll::Pending) => {}
                Err(message) => monitor.with(|s| s.panicked(who, message)),
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
