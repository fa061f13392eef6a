//! One CTA on the emulator: the backend that resolves barriers, and the executor that polls
//! the role instances.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::{Context, Poll, Waker};

use super::error::{BlockedInstance, Deadlock, EmuError};
use super::mbarrier::MBarrier;
use crate::dsl::{Backend, Cta, Fault, Kernel, KernelSpec, Op, SmemBuffer, Wait, Who};
use crate::launch::Grid;

/// State of one named barrier.
#[derive(Clone, Copy, Default)]
struct NamedState {
    arrived: u32,
    generation: u64,
}

/// The emulator's backend for one CTA.
struct EmuBackend {
    spec: &'static KernelSpec,
    /// First flat instance index of each role.
    role_base: Vec<usize>,
    barriers: RefCell<Vec<Vec<MBarrier>>>,
    named: RefCell<Vec<NamedState>>,
    /// Per instance: the wait it is blocked in, and for a named-barrier sync the generation
    /// it waits to see pass.
    waiting: RefCell<Vec<Option<(Wait, u64)>>>,
    fault: RefCell<Option<(Who, Fault)>>,
    progress: Cell<u64>,
    mma_flops: Cell<u64>,
}

impl EmuBackend {
    fn new(spec: &'static KernelSpec) -> Self {
        let mut role_base = Vec::with_capacity(spec.roles.len());
        let mut total = 0;
        for role in spec.roles {
            role_base.push(total);
            total += role.instances as usize;
        }
        let barriers = spec.barriers.iter().map(|b| vec![MBarrier::new(b.arrivals); b.len as usize]).collect();
        Self {
            spec,
            role_base,
            barriers: RefCell::new(barriers),
            named: RefCell::new(vec![NamedState::default(); spec.named_barriers.len()]),
            waiting: RefCell::new(vec![None; total]),
            fault: RefCell::new(None),
            progress: Cell::new(0),
            mma_flops: Cell::new(0),
        }
    }

    fn flat(&self, who: Who) -> usize {
        self.role_base[who.role as usize] + who.instance as usize
    }

    fn bump(&self) {
        self.progress.set(self.progress.get() + 1);
    }

    /// Arrives with `who`'s threads on named barrier `index`; returns the generation the
    /// arrival belongs to.
    fn named_arrive(&self, who: Who, index: u16) -> u64 {
        let spec = &self.spec.named_barriers[index as usize];
        let threads = self.spec.roles[who.role as usize].threads_per_instance();
        let mut named = self.named.borrow_mut();
        let state = &mut named[index as usize];
        let generation = state.generation;
        state.arrived += threads;
        if state.arrived >= spec.threads {
            state.arrived = 0;
            state.generation += 1;
        }
        generation
    }

    fn describe_wait(&self, wait: Wait, generation: u64) -> (String, String) {
        let spec = self.spec;
        match wait {
            Wait::Parity { slot, parity } => {
                let b = &spec.barriers[slot.barrier as usize];
                let bar = &self.barriers.borrow()[slot.barrier as usize][slot.index as usize];
                let mut need = format!(
                    "phase {} (parity {parity}) to complete; {} of {} arrivals missing, expected from {}",
                    bar.completed_phases(),
                    bar.pending_arrivals(),
                    bar.expected_arrivals(),
                    spec.role_names(b.arrivers)
                );
                if bar.pending_tx() != 0 {
                    need += &format!("; {} transaction bytes outstanding", bar.pending_tx());
                }
                (format!("`{}[{}]`", b.name, slot.index), need)
            }
            Wait::NamedSync { barrier } => {
                let b = &spec.named_barriers[barrier as usize];
                let state = self.named.borrow()[barrier as usize];
                let arrived = if state.generation == generation { state.arrived } else { b.threads };
                (
                    format!("named barrier `{}` (id {})", b.name, b.id),
                    format!("{arrived} of {} threads arrived, expected from {}", b.threads, spec.role_names(b.roles)),
                )
            }
            Wait::Mma { pending } => ("wgmma.wait_group".into(), format!("at most {pending} MMA groups in flight")),
            Wait::Store { pending } => ("bulk store wait".into(), format!("at most {pending} TMA stores in flight")),
        }
    }
}

impl Backend for EmuBackend {
    fn has_data(&self) -> bool {
        true
    }

    fn issue(&self, who: Who, op: Op) {
        self.bump();
        match op {
            Op::Arrive { slot, tx_bytes } => {
                self.barriers.borrow_mut()[slot.barrier as usize][slot.index as usize].arrive(tx_bytes);
            }
            // MMAs complete when issued, so the commit arrives at once.
            Op::MmaCommit { slot } => {
                self.barriers.borrow_mut()[slot.barrier as usize][slot.index as usize].arrive(0);
            }
            Op::TmaLoad { slot, bytes, .. } => {
                self.barriers.borrow_mut()[slot.barrier as usize][slot.index as usize].complete_tx(bytes);
            }
            Op::NamedArrive { barrier } => {
                self.named_arrive(who, barrier);
            }
            Op::Mma { m, n, k, .. } | Op::Umma { m, n, k, .. } => {
                self.mma_flops.set(self.mma_flops.get() + 2 * u64::from(m) * u64::from(n) * u64::from(k));
            }
            Op::TmaStore { .. }
            | Op::Math { .. }
            | Op::SharedLoad { .. }
            | Op::SharedStore { .. }
            | Op::GlobalStore { .. }
            | Op::TmemLoad { .. }
            | Op::TmemStore { .. } => {}
        }
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        let flat = self.flat(who);
        if first {
            let generation = match wait {
                Wait::NamedSync { barrier } => self.named_arrive(who, barrier),
                _ => 0,
            };
            self.waiting.borrow_mut()[flat] = Some((wait, generation));
            self.bump();
        }
        let ready = match wait {
            Wait::Parity { slot, parity } => {
                self.barriers.borrow()[slot.barrier as usize][slot.index as usize].parity_passed(parity)
            }
            Wait::NamedSync { barrier } => {
                let generation = self.waiting.borrow()[flat].map_or(0, |w| w.1);
                self.named.borrow()[barrier as usize].generation != generation
            }
            // MMAs and TMA stores complete when issued.
            Wait::Mma { .. } | Wait::Store { .. } => true,
        };
        if ready {
            self.waiting.borrow_mut()[flat] = None;
            self.bump();
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.bump();
        self.fault.borrow_mut().get_or_insert((who, fault));
    }
}

/// Runs CTA number `linear` of the grid; returns the MMA flops it performed.
pub(super) fn run_cta<K: Kernel>(
    spec: &'static KernelSpec,
    grid: &Grid,
    linear: usize,
    params: &K::Params,
    smem: &mut K::Smem,
) -> Result<u64, EmuError> {
    let block = grid.block(linear);
    smem.reset();
    let smem = &*smem;
    let backend = EmuBackend::new(spec);
    let cta = Cta::<K> { params, smem, backend: &backend, block, grid: grid.dims };
    let instances: Vec<Who> = spec.instances().collect();
    let mut futures: Vec<_> = instances.iter().map(|&who| Some(K::spawn(&cta, who))).collect();
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        let before = backend.progress.get();
        let mut live = 0;
        for (slot, &who) in futures.iter_mut().zip(&instances) {
            let Some(future) = slot.as_mut() else { continue };
            let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
            match polled {
                Ok(Poll::Ready(())) => {
                    *slot = None;
                    backend.bump();
                }
                Ok(Poll::Pending) => live += 1,
                Err(payload) => {
                    let message = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "non-string panic payload".into());
                    return Err(EmuError::Panic { kernel: spec.name, block, instance: spec.describe(who), message });
                }
            }
            if let Some((who, fault)) = backend.fault.borrow_mut().take() {
                return Err(EmuError::Fault { kernel: spec.name, block, instance: spec.describe(who), fault });
            }
        }
        if live == 0 {
            return Ok(backend.mma_flops.get());
        }
        if backend.progress.get() == before {
            return Err(EmuError::Deadlock(deadlock(&backend, block, &instances, &futures)));
        }
    }
}

fn deadlock<T>(backend: &EmuBackend, block: [u32; 3], instances: &[Who], futures: &[Option<T>]) -> Deadlock {
    let spec = backend.spec;
    let mut blocked = Vec::new();
    let mut finished = Vec::new();
    for (&who, future) in instances.iter().zip(futures) {
        if future.is_none() {
            finished.push(spec.describe(who));
            continue;
        }
        let role = &spec.roles[who.role as usize];
        let first = spec.first_warp(who);
        let (barrier, waiting_for) = match backend.waiting.borrow()[backend.flat(who)] {
            Some((wait, generation)) => backend.describe_wait(wait, generation),
            None => ("nothing".into(), "not blocked on a barrier".into()),
        };
        blocked.push(BlockedInstance {
            role: role.name,
            instance: u32::from(who.instance),
            warps: (first, first + role.warps_per_instance - 1),
            barrier,
            waiting_for,
        });
    }
    Deadlock { kernel: spec.name, block, blocked, finished }
}
