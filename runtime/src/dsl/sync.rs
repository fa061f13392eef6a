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
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::kernel::{Cta, Kernel};
use super::ops::{Backend, BarrierSlot, Event, Op, Wait, Who};

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
    at: &'static Location<'static>,
    first: bool,
}

impl<'a> WaitFor<'a> {
    /// The wait `wait` of instance `who`, written at `at` in the kernel source.
    pub(crate) fn new(backend: &'a dyn Backend, who: Who, wait: Wait, at: &'static Location<'static>) -> Self {
        Self { backend, who, wait, at, first: true }
    }
}

impl Future for WaitFor<'_> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        let first = std::mem::replace(&mut self.first, false);
        if first {
            self.backend.observe(self.who, Event::At(self.at));
        }
        self.backend.poll_wait(self.who, self.wait, first)
    }
}

/// Stage `index` of barrier array `barrier`. An index past what a `u16` holds saturates, so
/// that it stays out of range for the backend to report rather than wrapping onto a stage.
fn slot(barrier: u16, index: u32) -> BarrierSlot {
    BarrierSlot { barrier, index: u16::try_from(index).unwrap_or(u16::MAX) }
}

/// Stage `index` (a `usize` from kernel code) of barrier array `barrier`.
fn stage_slot(barrier: usize, index: usize) -> BarrierSlot {
    slot(barrier as u16, u32::try_from(index).unwrap_or(u32::MAX))
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
///
/// Dropping it uncommitted is reported to the backend (the emulator stops with an error
/// naming where it was acquired): the consumers would wait for it forever.
#[must_use = "an acquired slot must be committed, or the consumers wait forever"]
pub struct Slot<'a, P: Pipeline> {
    index: u32,
    full: u16,
    view: P::View<'a>,
    owner: TokenOwner<'a>,
}

/// A full slot of pipeline `P`: gives read access to its tiles until released.
///
/// Dropping it unreleased is reported to the backend: the producer would wait for it
/// forever.
#[must_use = "a full slot must be released, or the producer waits forever"]
pub struct Full<'a, P: Pipeline> {
    index: u32,
    view: P::View<'a>,
    owner: TokenOwner<'a>,
}

/// Who took a token and where, to report it if it is dropped instead of handed over.
struct TokenOwner<'a> {
    backend: &'a dyn Backend,
    who: Who,
    taken_at: &'static Location<'static>,
}

impl TokenOwner<'_> {
    /// Reports a token dropped without hand-over; `barrier` is where the hand-over would have
    /// arrived. Silent while a panic unwinds (the panic is the report).
    fn dropped(&self, barrier: BarrierSlot) {
        if !std::thread::panicking() {
            self.backend.observe(self.who, Event::TokenDropped { barrier, taken_at: self.taken_at });
        }
    }
}

impl<P: Pipeline> Drop for Slot<'_, P> {
    fn drop(&mut self) {
        self.owner.dropped(slot(self.full, self.index));
    }
}

impl<P: Pipeline> Drop for Full<'_, P> {
    fn drop(&mut self) {
        let empty = <P::Kernel as Kernel>::SPEC.pipelines[P::INDEX].empty;
        self.owner.dropped(slot(empty, self.index));
    }
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
    #[track_caller]
    pub fn acquire(&self) -> impl Future<Output = Slot<'a, P>> {
        let taken_at = Location::caller();
        async move {
            let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
            let mut state = self.state.get();
            let wait = Wait::Parity { slot: slot(spec.empty, state.index), parity: state.phase };
            WaitFor::new(self.cta.backend, self.who, wait, taken_at).await;
            let index = state.index;
            state.advance();
            self.state.set(state);
            let owner = TokenOwner { backend: self.cta.backend, who: self.who, taken_at };
            Slot { index, full: spec.full, view: P::view(self.cta.smem, index as usize), owner }
        }
    }

    /// Hands a filled slot to the consumers: one arrive on its full barrier, with the
    /// pipeline's transaction bytes expected when the pipeline is filled by TMA.
    #[track_caller]
    pub fn commit(&self, slot_token: Slot<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::Arrive { slot: slot(spec.full, slot_token.index), tx_bytes: spec.tx_bytes };
        std::mem::forget(slot_token);
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// The state the next `acquire` uses.
    pub fn state(&self) -> PipeState {
        self.state.get()
    }
}

impl<'a, P: Pipeline> Consumer<'a, P> {
    /// Waits until the next slot is full and returns it.
    #[track_caller]
    pub fn wait(&self) -> impl Future<Output = Full<'a, P>> {
        let taken_at = Location::caller();
        async move {
            let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
            let mut state = self.state.get();
            let wait = Wait::Parity { slot: slot(spec.full, state.index), parity: state.phase };
            WaitFor::new(self.cta.backend, self.who, wait, taken_at).await;
            let index = state.index;
            state.advance();
            self.state.set(state);
            let owner = TokenOwner { backend: self.cta.backend, who: self.who, taken_at };
            Full { index, view: P::view(self.cta.smem, index as usize), owner }
        }
    }

    /// Hands a drained slot back to the producer: one arrive on its empty barrier.
    #[track_caller]
    pub fn release(&self, full: Full<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::Arrive { slot: slot(spec.empty, full.index), tx_bytes: 0 };
        std::mem::forget(full);
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// Hands a drained slot back to the producers of every CTA of the cluster in `mask`: one
    /// arrive on the stage's empty barrier in each of those CTAs
    /// (`mbarrier.arrive.shared::cluster` on the peer's barrier, through `mapa`). This is the
    /// release of a multicast pipeline: each CTA whose producer multicasts into this CTA's
    /// slot must learn that the slot is free, so its empty barrier counts the consumers of
    /// every CTA it writes into (`empty_arrivals`).
    #[track_caller]
    pub fn release_cluster(&self, full: Full<'a, P>, mask: u16) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::ClusterArrive { slot: slot(spec.empty, full.index), mask };
        std::mem::forget(full);
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// Hands a slot back once every MMA this instance issued so far has completed
    /// (`tcgen05.commit` onto the empty barrier): the release of a slot read by MMAs.
    #[track_caller]
    pub fn release_on_mma_completion(&self, full: Full<'a, P>) {
        let spec = &<P::Kernel as Kernel>::SPEC.pipelines[P::INDEX];
        let op = Op::MmaCommit { slot: slot(spec.empty, full.index) };
        std::mem::forget(full);
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
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
    #[track_caller]
    pub fn arrive(&self, index: usize) {
        self.arrive_expect_tx(index, 0);
    }

    /// `mbarrier.arrive.expect_tx` on stage `index`: arrive, and expect `bytes` more
    /// transaction bytes before the phase can complete.
    #[track_caller]
    pub fn arrive_expect_tx(&self, index: usize, bytes: u32) {
        let op = Op::Arrive { slot: stage_slot(B::INDEX, index), tx_bytes: bytes };
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// `mbarrier.arrive` on stage `index` of every CTA of the cluster in `mask` (a peer CTA's
    /// barrier through its `shared::cluster` address).
    #[track_caller]
    pub fn arrive_cluster(&self, index: usize, mask: u16) {
        let op = Op::ClusterArrive { slot: stage_slot(B::INDEX, index), mask };
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// `tcgen05.commit` onto stage `index`: one arrive once every MMA this instance issued
    /// so far has completed.
    #[track_caller]
    pub fn arrive_on_mma_completion(&self, index: usize) {
        let op = Op::MmaCommit { slot: stage_slot(B::INDEX, index) };
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, op);
    }

    /// Stage `index` as the completion target of a TMA load.
    pub fn tx(&self, index: usize) -> TxOn {
        TxOn(stage_slot(B::INDEX, index))
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
    #[track_caller]
    pub fn wait(&self, index: usize, parity: u32) -> impl Future<Output = ()> {
        let wait = Wait::Parity { slot: stage_slot(B::INDEX, index), parity: parity & 1 };
        WaitFor::new(self.cta.backend, self.who, wait, Location::caller())
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
    #[track_caller]
    pub fn sync(&self) -> impl Future<Output = ()> {
        let wait = Wait::NamedSync { barrier: B::INDEX as u16 };
        WaitFor::new(self.cta.backend, self.who, wait, Location::caller())
    }

    /// `bar.arrive`: arrive with this instance's threads without waiting.
    #[track_caller]
    pub fn arrive(&self) {
        self.cta.backend.observe(self.who, Event::At(Location::caller()));
        self.cta.backend.issue(self.who, Op::NamedArrive { barrier: B::INDEX as u16 });
    }
}
