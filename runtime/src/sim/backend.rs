//! [`SimBackend`]: the [`Backend`] of a timing run, which turns the ops a role instance issues
//! into the instructions its warps execute in simulated time.

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::task::Poll;

use crate::dsl::{Backend, Event, Fault, KernelSpec, Op, Wait, Who};

use super::fold::ZeroFills;
use super::lower::{Instr, Issuer, Unsupported, lower};
use super::reuse::CastOrder;
use super::ring::{self, RingState};
use super::sites::{Queued, SiteKind, SiteTable};
use super::timing::Timing;
use super::wait_forms::WaitForm;

/// The backend of one CTA slot of a timing run.
///
/// The protocol between the simulator and a role instance's future:
/// - the simulator polls the future; every [`Backend::issue`] lowers its op
///   ([`super::lower::lower`]) and appends the instructions to the instance's pending list,
///   returning at once;
/// - the first poll of a wait ([`Backend::poll_wait`] with `first = true`) appends a wait
///   instruction and returns `Pending`: the future is suspended there;
/// - the simulator executes the instance's warps in simulated time; once a warp reaches the
///   wait and the wait is satisfied, it calls [`SimBackend::release`] and polls the future
///   again: the wait returns `Ready` and the future runs ahead to its next wait.
///
/// Each queued instruction carries its source site ([`super::sites`]): the location the DSL
/// reported ([`Event::At`]) before the op, for the instance that issues it.
///
/// A backend is reused by the CTAs that run one after another in its slot.
pub struct SimBackend<'t> {
    spec: &'static KernelSpec,
    timing: &'t Timing,
    sites: &'t SiteTable,
    has_data: bool,
    pending: RefCell<Vec<Queued>>,
    lowered: RefCell<Vec<Instr>>,
    at: Cell<Option<(Who, &'static Location<'static>)>>,
    release: Cell<bool>,
    fault: RefCell<Option<(Who, Fault)>>,
    unsupported: Cell<Option<(Who, Unsupported)>>,
    casts: CastOrder,
    fills: ZeroFills,
    /// Each role's ring state, by role index.
    rings: Vec<RingState>,
}

impl<'t> SimBackend<'t> {
    /// A backend for CTAs of `spec` timed with `timing`, interning source sites in `sites`;
    /// `has_data`: whether tiles and fragments carry numbers (the combined mode).
    pub fn new(spec: &'static KernelSpec, timing: &'t Timing, sites: &'t SiteTable, has_data: bool) -> Self {
        SimBackend {
            spec,
            timing,
            sites,
            has_data,
            pending: RefCell::new(Vec::new()),
            lowered: RefCell::new(Vec::new()),
            at: Cell::new(None),
            release: Cell::new(false),
            fault: RefCell::new(None),
            unsupported: Cell::new(None),
            casts: CastOrder::default(),
            fills: ZeroFills::default(),
            rings: (0..spec.roles.len()).map(|role| RingState::of(spec, role as u16)).collect(),
        }
    }

    /// Lets the next poll of the wait the instance is suspended in return `Ready`.
    pub fn release(&self) {
        self.release.set(true);
    }

    /// Withdraws a release the last poll did not consume.
    pub fn clear_release(&self) {
        self.release.set(false);
    }

    /// Moves the instructions issued since the last call to the end of `out`.
    pub fn drain_into(&self, out: &mut Vec<Queued>) {
        out.append(&mut self.pending.borrow_mut());
    }

    /// Readies the slot for its next CTA: drops what the last one left queued or held back.
    pub fn reset(&self) {
        self.pending.borrow_mut().clear();
        self.fills.clear();
    }

    /// The ring state of `who`'s role (uniform for a role the spec does not list).
    fn ring(&self, who: Who) -> RingState {
        self.rings.get(who.role as usize).copied().unwrap_or(RingState::Uniform)
    }

    /// Takes the first op recorded that the machine cannot execute, if any.
    pub fn take_unsupported(&self) -> Option<(Who, Unsupported)> {
        self.unsupported.take()
    }

    /// Takes the first fault recorded, if any.
    pub fn take_fault(&self) -> Option<(Who, Fault)> {
        self.fault.borrow_mut().take()
    }
}

impl Backend for SimBackend<'_> {
    fn has_data(&self) -> bool {
        self.has_data
    }

    fn issue(&self, who: Who, op: Op) {
        if let Op::TmaLoadMulticast { mask, .. } | Op::ClusterArrive { mask, .. } = op
            && let Some(problem) = self.mask_problem(mask)
        {
            let what = if matches!(op, Op::ClusterArrive { .. }) { "cluster arrival" } else { "multicast TMA load" };
            let location = self.location(who).unwrap_or(Location::caller());
            self.fault(who, Fault { message: format!("a {what} with CTA mask {mask:#06b} {problem}"), location });
            return;
        }
        let issuer = self.spec.roles.get(who.role as usize).map_or(Issuer::uniform(self.timing.warp_size), Issuer::of);
        let mut lowered = self.lowered.borrow_mut();
        lowered.clear();
        let ring = self.ring(who);
        ring::before_op(self.spec, ring, &op, &mut lowered);
        if let Err(e) = lower(&op, issuer, self.timing, &mut lowered)
            && self.unsupported.get().is_none()
        {
            self.unsupported.set(Some((who, e)));
        }
        ring::after_op(self.spec, ring, self.timing, &op, &mut lowered);
        let site = self.sites.intern(who.role, self.written(who), SiteKind::of_op(&op));
        let mut queued: Vec<Queued> = lowered.drain(..).map(|instr| Queued { instr, site }).collect();
        let mut pending = self.pending.borrow_mut();
        if let Some(mut fill) = self.fills.release(who, Some(&op)) {
            pending.append(&mut fill);
        }
        if !self.fills.hold(who, &op, self.timing, &mut queued) {
            self.casts.issue(who, &op, self.timing, &mut queued, &mut pending);
        }
    }

    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()> {
        if first {
            let written = self.written(who);
            let site = self.sites.intern(who.role, written, SiteKind::of_wait(&wait));
            let state = self.ring(who);
            let form = written.map_or(WaitForm::Uniform, |(_, line)| self.timing.wait_forms.of(line));
            let mut lowered = self.lowered.borrow_mut();
            lowered.clear();
            ring::wait(self.spec, state, wait, form, self.timing.ring_advance_at_loop_tail, &mut lowered);
            let mut pending = self.pending.borrow_mut();
            if let Some(mut fill) = self.fills.release(who, None) {
                pending.append(&mut fill);
            }
            pending.extend(lowered.drain(..).map(|instr| Queued { instr, site }));
            self.casts.waited(who, &wait, &mut pending);
            Poll::Pending
        } else if self.release.replace(false) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    fn fault(&self, who: Who, fault: Fault) {
        self.fault.borrow_mut().get_or_insert((who, fault));
    }

    fn observe(&self, who: Who, event: Event) {
        if let Event::At(at) = event {
            self.at.set(Some((who, at)));
        }
    }
}

impl SimBackend<'_> {
    /// Why `mask` names no valid set of CTAs of the kernel's cluster, if it does not.
    fn mask_problem(&self, mask: u16) -> Option<String> {
        let shape = self.spec.cluster_shape();
        match shape.ranks(mask) {
            Ok(ranks) if !ranks.is_empty() => None,
            Ok(_) => Some("names no CTA".to_string()),
            Err(outside) => Some(format!(
                "names rank {outside}, but the cluster has {} CTA(s) (ranks 0..{})",
                shape.ctas(),
                shape.ctas()
            )),
        }
    }

    /// The source location `who` reported last, if it was the last to report one.
    fn location(&self, who: Who) -> Option<&'static Location<'static>> {
        self.at.get().filter(|(w, _)| *w == who).map(|(_, at)| at)
    }

    /// The source location `who` reported last, with the written line of the operation it
    /// issues now ([`crate::dsl::written_line`]: the statement's line hint, which arithmetic,
    /// reporting no location, has too).
    fn written(&self, who: Who) -> Option<(&'static Location<'static>, u32)> {
        self.location(who).map(|at| (at, crate::dsl::written_line(at)))
    }
}
