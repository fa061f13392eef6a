//! One CTA on one thread: the backend over the CTA's [`CtaState`], and the executor that
//! polls the role instances in the order a [`Policy`] gives.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::{Context, Poll, Waker};

use super::EmuOptions;
use super::error::EmuError;
use super::schedule::Picker;
use super::state::CtaState;
use super::tiles::TileNames;
use crate::dsl::{Backend, Cta, Event, Fault, Kernel, KernelSpec, Op, RoleFuture, SmemBuffer, Wait, Who};
use crate::launch::Grid;

/// What one CTA did.
pub(super) struct CtaRun {
    /// Flops of its MMAs.
    pub flops: u64,
    /// Scheduling steps: polls of role instances.
    pub steps: u64,
}

/// The emulator's backend for a CTA run on one thread.
struct EmuBackend {
    state: RefCell<CtaState>,
}

impl Backend for EmuBackend {
    fn has_data(&self) -> bool {
        true
    }

    fn issue(&self, who: Who, op: Op) {
        self.state.borrow_mut().issue(who, op);
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        self.state.borrow_mut().poll_wait(who, wait, first)
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.state.borrow_mut().fault(who, fault);
    }

    fn observe(&self, who: Who, event: Event) {
        self.state.borrow_mut().observe(who, event);
    }
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

/// Runs CTA number `linear` of the grid in `smem` (zeroed first; its first tile storage has
/// ordinal `base`).
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
    let picker = Picker::new(options.policy, linear, instances.len());
    let state = CtaState::new(
        spec,
        block,
        options.race_detection,
        picker.is_some(),
        TileNames { fields: K::Smem::FIELDS, base },
    );
    let backend = EmuBackend { state: RefCell::new(state) };
    let cta = Cta::<K> { params, smem, backend: &backend, block, grid: grid.dims };
    let mut futures: Vec<Option<RoleFuture<'_>>> = instances.iter().map(|&who| Some(K::spawn(&cta, who))).collect();
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
fn step(backend: &EmuBackend, who: Who, slot: &mut Option<RoleFuture<'_>>, cx: &mut Context<'_>) -> Poll<()> {
    let Some(future) = slot.as_mut() else { return Poll::Ready(()) };
    match poll_role(future, cx) {
        Ok(Poll::Ready(())) => {
            *slot = None;
            backend.state.borrow_mut().finish(who);
            Poll::Ready(())
        }
        Ok(Poll::Pending) => Poll::Pending,
        Err(message) => {
            backend.state.borrow_mut().panicked(who, message);
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
    instances: &[Who],
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
    instances: &[Who],
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
