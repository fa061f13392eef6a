//! Synchronisation endpoints: what a role holds of each pipeline and barrier.
//!
//! A role function receives only its own ends. A pipeline's producer end can
//! [`acquire`](Producer::acquire) an empty slot and [`commit`](Producer::commit) it; its
//! consumer end can [`wait`](Consumer::wait) for a full slot and [`release`](Consumer::release)
//! it. `acquire` and `wait` return move-only tokens ([`Slot`], [`Full`]) that are the only way
//! to reach the slot's tiles; `commit` and `release` consume them, so a slot cannot be
//! touched after it is handed over, nor handed over twice. Both ends follow CUTLASS's
//! `{index, phase}` pipeline state: the producer starts at phase 1 (the empty barriers count
//! as already drained), the consumer at phase 0.

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::kernel::{Cta, Kernel};
use super::ops::{Backend, BarrierSlot, Op, Wait, Who};

/// A pipeline declared with `#[pipeline]`: its place in the kernel and its slot view.
pub trait Pipeline: 'static {
    /// The kernel it belongs to.
    type Kernel: Kernel;
    /// Index into [`crate::dsl::KernelSpec::pipelines`].
    const INDEX: usize;
    /// The tiles of one slot, reached through a token.
    type View<'s>;
    /// The view of stage `stage` of the shared memory.
    fn view(smem: &<Self::Kernel as Kernel>::Smem, stage: usize) -> Self::View<'_>;
}

/// A plain mbarrier array declared with `#[barrier]`.
pub trait Barrier: 'static {
    /// The kernel it belongs to.
    type Kernel: Kernel;
    /// Index into [`crate::dsl::KernelSpec::barriers`].
    const INDEX: usize;
}

/// A named barrier declared with `#[named_barrier]`.
pub trait NamedBarrier: 'static {
    /// The kernel it belongs to.
    type Kernel: Kernel;
    /// Index into [`crate::dsl::KernelSpec::named_barriers`].
    const INDEX: usize;
}

/// A role parameter the generated code constructs for a role instance.
pub trait Endpoint<'a, K: Kernel>: Sized {
    /// Binds the endpoint to instance `who` of `cta`.
    fn bind(cta: &'a Cta<'a, K>, who: Who) -> Self;
}

/// A ring position in CUTLASS's vocabulary: stage index and phase parity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeState {
    /// Current stage.
    pub index: u32,
    /// Parity of the phase to wait for at this stage.
    pub phase: u32,
    /// Stages in the ring.
    pub stages: u32,
}

impl PipeState {
    /// State at stage 0 waiting for parity `phase`.
    pub const fn new(stages: u32, phase: u32) -> Self {
        Self { index: 0, phase, stages }
    }

    /// Moves to the next stage, flipping the parity when the ring wraps.
    pub fn advance(&mut self) {
        self.index += 1;
        if self.index == self.stages {
            self.index = 0;
            self.phase ^= 1;
        }
    }
}

/// Future of one blocking op; resolves when the backend says the wait is satisfied.
pub(crate) struct WaitFor<'a> {
    backend: &'a dyn Backend,
    who: Who,
    wait: Wait,
    first: bool,
}

impl<'a> WaitFor<'a> {
    pub(crate) fn new(backend: &'a dyn Backend, who: Who, wait: Wait) -> Self {
        Self { backend, who, wait, first: true }
    }
}

impl Future for WaitFor<'_> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        let first = std::mem::replace(&mut self.first, false);
        self.backend.poll_wait(self.who, self.wait, first)
    }
}

fn slot(barrier: u16, index: u32) -> BarrierSlot {
    BarrierSlot { barrier, index: index as u16 }
}

/// The producer end of pipeline `P`.
pub struct Producer<'a, P: Pipeline> {
    cta: &'a Cta<'a, P::Kernel>,
    who: Who,
    state: Cell<PipeState>,
}

/// The consumer end of pipeline `P`.
pub struct Consumer<'a, P: Pipeline> {
    cta: &'a Cta<'a, P::Kernel>,
    who: Who,
    state: Cell<PipeState>,
}

/// An acquired empty slot of pipeline `P`: gives write access to its tiles until committed.
#[must_use = "an acquired slot must be committed, or the consumers wait forever"]
pub struct Slot<'a, P: Pipeline> {
    index: u32,
    full: u16,
    view: P::View<'a>,
}

/// A full slot of pipeline `P`: gives read access to its tiles until released.
#[must_use = "a full slot must be released, or the producer waits forever"]
pub struct Full<'a, P: Pipeline> {
    index: u32,
    view: P::View<'a>,
}

impl<'a, P: Pipeline> std::ops::Deref for Slot<'a, P> {
    type Target = P::View<'a>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl<'a, P: Pipeline> std::ops::Deref for Full<'a, P> {
    type Target = P::View<'a>;
    fn deref(&self) -> &Self::Target {
        &self.view
    }
}

impl<P: Pipeline> Slot<'_, P> {
    /// The stage this slot occupies.
    pub fn stage(&self) -> usize {
        self.index as usize
    }
}

impl<P: Pipeline> Full<'_, P> {
    /// The stage this slot occupies.
    pub fn stage(&self) -> usize {
        self.index as usize
    }
}

/// A barrier that TMA loads can complete transaction bytes on.
pub trait TxTarget {
    /// The mbarrier the copy completes on.
    fn tx_slot(&self) -> BarrierSlot;
}

impl<P: Pipeline> TxTarget for Slot<'_, P> {
    fn tx_slot(&self) -> BarrierSlot {
        slot(self.full, self.index)
    }
}

impl<'a, P: Pipeline> Endpoint<'a, P::Kernel> for Producer<'a, P> {
    fn bind(cta: &'a Cta<'a, P::Kernel>, who: Who) -> Self {
        let stages = <P::Kernel as Kernel>::SPEC.pipelines[P::INDEX].stages;
        Self { cta, who, state: Cell::new(PipeState::new(stages, 1)) }
    }
}

impl<'a, P: Pipeline> Endpoint<'a, P::Kernel> for Consumer<'a, P> {
    fn bind(cta: &'a Cta<'a, P::Kernel>, who: Who) -> Self {
        let stages = <P::Kernel as Kernel>::SPEC.pipelines[P::INDEX].stages;
        Self { cta, who, state: Cell::new(PipeState::new(stages, 0)) }
    }
}

impl<'a, P: Pipeline> Producer<'a, P> {
    /// Waits until the next slot is empty and returns it.
    pub async fn acquire(&self) -> Slot<'a, P> {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let mut state = self.state.get();
        let wait = Wait::Parity { slot: slot(spec.empty, state.index), parity: state.phase };
        WaitFor::new(self.cta.backend, self.who, wait).await;
        let index = state.index;
        state.advance();
        self.state.set(state);
        Slot { index, full: spec.full, view: P::view(self.cta.smem, index as usize) }
    }

    /// Hands a filled slot to the consumers: one arrive on its full barrier, with the
    /// pipeline's transaction bytes expected when the pipeline is filled by TMA.
    pub fn commit(&self, slot_token: Slot<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::Arrive { slot: slot(spec.full, slot_token.index), tx_bytes: spec.tx_bytes };
        self.cta.backend.issue(self.who, op);
    }

    /// The state the next `acquire` uses.
    pub fn state(&self) -> PipeState {
        self.state.get()
    }
}

impl<'a, P: Pipeline> Consumer<'a, P> {
    /// Waits until the next slot is full and returns it.
    pub async fn wait(&self) -> Full<'a, P> {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let mut state = self.state.get();
        let wait = Wait::Parity { slot: slot(spec.full, state.index), parity: state.phase };
        WaitFor::new(self.cta.backend, self.who, wait).await;
        let index = state.index;
        state.advance();
        self.state.set(state);
        Full { index, view: P::view(self.cta.smem, index as usize) }
    }

    /// Hands a drained slot back to the producer: one arrive on its empty barrier.
    pub fn release(&self, full: Full<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::Arrive { slot: slot(spec.empty, full.index), tx_bytes: 0 };
        self.cta.backend.issue(self.who, op);
    }

    /// Hands a slot back once every MMA this instance issued so far has completed
    /// (`tcgen05.commit` onto the empty barrier): the release of a slot read by MMAs.
    pub fn release_on_mma_completion(&self, full: Full<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        self.cta.backend.issue(self.who, Op::MmaCommit { slot: slot(spec.empty, full.index) });
    }

    /// The state the next `wait` uses.
    pub fn state(&self) -> PipeState {
        self.state.get()
    }
}

/// The arriving end of barrier array `B`.
pub struct Arriver<'a, B: Barrier> {
    cta: &'a Cta<'a, B::Kernel>,
    who: Who,
    _barrier: PhantomData<B>,
}

/// The waiting end of barrier array `B`.
pub struct Waiter<'a, B: Barrier> {
    cta: &'a Cta<'a, B::Kernel>,
    who: Who,
    _barrier: PhantomData<B>,
}

impl<'a, B: Barrier> Endpoint<'a, B::Kernel> for Arriver<'a, B> {
    fn bind(cta: &'a Cta<'a, B::Kernel>, who: Who) -> Self {
        Self { cta, who, _barrier: PhantomData }
    }
}

impl<'a, B: Barrier> Endpoint<'a, B::Kernel> for Waiter<'a, B> {
    fn bind(cta: &'a Cta<'a, B::Kernel>, who: Who) -> Self {
        Self { cta, who, _barrier: PhantomData }
    }
}

impl<B: Barrier> Arriver<'_, B> {
    /// `mbarrier.arrive` on stage `index`.
    pub fn arrive(&self, index: usize) {
        self.arrive_expect_tx(index, 0);
    }

    /// `mbarrier.arrive.expect_tx` on stage `index`: arrive, and expect `bytes` more
    /// transaction bytes before the phase can complete.
    pub fn arrive_expect_tx(&self, index: usize, bytes: u32) {
        let op = Op::Arrive { slot: slot(B::INDEX as u16, index as u32), tx_bytes: bytes };
        self.cta.backend.issue(self.who, op);
    }

    /// `tcgen05.commit` onto stage `index`: one arrive once every MMA this instance issued
    /// so far has completed.
    pub fn arrive_on_mma_completion(&self, index: usize) {
        let op = Op::MmaCommit { slot: slot(B::INDEX as u16, index as u32) };
        self.cta.backend.issue(self.who, op);
    }

    /// Stage `index` as the completion target of a TMA load.
    pub fn tx(&self, index: usize) -> TxOn {
        TxOn(slot(B::INDEX as u16, index as u32))
    }
}

/// A TMA completion target on a plain barrier (see [`Arriver::tx`]).
pub struct TxOn(BarrierSlot);

impl TxTarget for TxOn {
    fn tx_slot(&self) -> BarrierSlot {
        self.0
    }
}

impl<B: Barrier> Waiter<'_, B> {
    /// `mbarrier.try_wait.parity` on stage `index` until the phase of parity `parity` has
    /// completed.
    pub async fn wait(&self, index: usize, parity: u32) {
        let wait = Wait::Parity { slot: slot(B::INDEX as u16, index as u32), parity: parity & 1 };
        WaitFor::new(self.cta.backend, self.who, wait).await
    }
}

/// A role's use of named barrier `B`.
pub struct Named<'a, B: NamedBarrier> {
    cta: &'a Cta<'a, B::Kernel>,
    who: Who,
    _barrier: PhantomData<B>,
}

impl<'a, B: NamedBarrier> Endpoint<'a, B::Kernel> for Named<'a, B> {
    fn bind(cta: &'a Cta<'a, B::Kernel>, who: Who) -> Self {
        Self { cta, who, _barrier: PhantomData }
    }
}

impl<B: NamedBarrier> Named<'_, B> {
    /// `bar.sync`: arrive with this instance's threads and wait until all the barrier's
    /// threads have arrived.
    pub async fn sync(&self) {
        let wait = Wait::NamedSync { barrier: B::INDEX as u16 };
        WaitFor::new(self.cta.backend, self.who, wait).await
    }

    /// `bar.arrive`: arrive with this instance's threads without waiting.
    pub fn arrive(&self) {
        self.cta.backend.issue(self.who, Op::NamedArrive { barrier: B::INDEX as u16 });
    }
}
