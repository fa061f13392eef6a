//! The barriers of a replay: [`warpspec_hw`]'s mbarrier and named barrier, each with what the
//! checker records on top (who arrived in the current phase or use, which TMA loads and
//! expectations made up its bytes, the happens-before clock each completion publishes).
//!
//! The replay's counts are `i128` (evaluated from the kernel text); the hardware types count
//! in `u32`. Values are clamped into `0..=u32::MAX`, far beyond any real count (a phase's
//! transaction count is 20 bits on hardware), so no realistic kernel sees the clamp.

use std::collections::HashMap;

use warpspec_hw::{MBarrier, NamedArrival, NamedBarrier, VectorClock};

/// An arrival in a phase: instance, site, visit, and the instance's clock.
pub(super) type Arrival = (usize, usize, u32, VectorClock);

/// A TMA load or an expectation of bytes: instance, site, bytes.
pub(super) type Bytes = (usize, usize, i128);

/// A replay count as the hardware counts it: clamped into `0..=u32::MAX`.
fn hw_count(value: i128) -> u32 {
    u32::try_from(value.clamp(0, i128::from(u32::MAX))).unwrap_or(u32::MAX)
}

/// One mbarrier stage of the replay and what the findings need of its phases.
pub(super) struct BarrierState {
    /// The barrier itself: phase, pending arrivals, transaction bytes.
    hw: MBarrier,
    /// Arrivals of the current phase.
    pub arrivals: Vec<Arrival>,
    /// TMA loads of the current phase.
    pub tmas: Vec<Bytes>,
    /// Arrivals of the current phase that expected bytes.
    pub expects: Vec<Bytes>,
    /// Join of the clocks of the current phase's arrivals and loads.
    clock: VectorClock,
    /// Each completed phase: its clock and arrivals.
    pub phases: Vec<(VectorClock, Vec<Arrival>)>,
    /// Join of all completed phases' clocks.
    pub seen: VectorClock,
    /// Arrivals ever.
    pub ever: usize,
}

impl BarrierState {
    /// A fresh barrier completing a phase after `count` arrivals, for `agents` instances.
    pub fn new(count: i128, agents: usize) -> Self {
        Self {
            hw: MBarrier::new(hw_count(count)),
            arrivals: Vec::new(),
            tmas: Vec::new(),
            expects: Vec::new(),
            clock: VectorClock::zero(agents),
            phases: Vec::new(),
            seen: VectorClock::zero(agents),
            ever: 0,
        }
    }

    /// Instance `inst` (clock `clock`) arrives at `site` on its `visit`-th pass, expecting
    /// `tx` bytes.
    pub fn arrive(&mut self, inst: usize, site: usize, visit: u32, clock: &VectorClock, tx: i128) {
        self.ever += 1;
        self.arrivals.push((inst, site, visit, clock.clone()));
        if tx != 0 {
            self.expects.push((inst, site, tx));
        }
        self.clock.join(clock);
        if self.hw.arrive(hw_count(tx)) {
            self.complete();
        }
    }

    /// A TMA load by instance `inst` (clock `clock`) at `site` lands `bytes` bytes.
    pub fn load(&mut self, inst: usize, site: usize, clock: &VectorClock, bytes: i128) {
        self.tmas.push((inst, site, bytes));
        self.clock.join(clock);
        if self.hw.complete_tx(hw_count(bytes)) {
            self.complete();
        }
    }

    /// Records the phase the hardware barrier just completed.
    fn complete(&mut self) {
        let clock = std::mem::replace(&mut self.clock, VectorClock::zero(self.seen.agents()));
        self.seen.join(&clock);
        self.phases.push((clock, std::mem::take(&mut self.arrivals)));
        self.tmas.clear();
        self.expects.clear();
    }

    /// Whether a wait for `parity` passes (`mbarrier.try_wait.parity`).
    pub fn passes(&self, parity: u8) -> bool {
        self.hw.parity_passed(u32::from(parity))
    }

    /// Phases completed.
    pub fn completed(&self) -> usize {
        usize::try_from(self.hw.completed_phases()).unwrap_or(usize::MAX)
    }

    /// Arrivals the current phase still needs.
    pub fn pending_arrivals(&self) -> u32 {
        self.hw.pending_arrivals()
    }

    /// Transaction bytes expected but not yet copied (negative: copied before expected).
    pub fn pending_tx(&self) -> i128 {
        i128::from(self.hw.pending_tx())
    }
}

/// One named barrier of the replay and what the findings need of its uses.
pub(super) struct NamedState {
    /// The barrier itself: threads per use, threads arrived, uses completed.
    hw: NamedBarrier,
    /// Join of the clocks of the current use's arrivals.
    clock: VectorClock,
    /// Instances that arrived in the current use, with the site.
    pub members: Vec<(usize, usize)>,
    /// Clock of each completed use.
    pub done: Vec<VectorClock>,
    /// The use each instance last joined with a `bar.arrive` (not yet followed by a sync),
    /// and that arrive's site.
    pub arrived_in: HashMap<usize, (usize, usize)>,
}

impl NamedState {
    /// A named barrier whose uses take `threads` threads, for `agents` instances.
    pub fn new(threads: i128, agents: usize) -> Self {
        Self {
            hw: NamedBarrier::new(hw_count(threads)),
            clock: VectorClock::zero(agents),
            members: Vec::new(),
            done: Vec::new(),
            arrived_in: HashMap::new(),
        }
    }

    /// Instance `inst` (clock `clock`) arrives at `site` with `threads` threads; returns the
    /// use it joined. An arrival that carries a use past its thread count completes it: the
    /// replay goes on, and the mismatch is reported from the declarations.
    pub fn arrive(&mut self, inst: usize, site: usize, threads: i128, clock: &VectorClock) -> usize {
        self.members.push((inst, site));
        self.clock.join(clock);
        let arrival = match self.hw.arrive(hw_count(threads)) {
            NamedArrival::Overflow { .. } => self.hw.arrive(self.hw.threads() - self.hw.arrived()),
            arrival => arrival,
        };
        if let NamedArrival::Completed { .. } = arrival {
            let clock = std::mem::replace(&mut self.clock, VectorClock::zero(clock.agents()));
            self.done.push(clock);
            self.members.clear();
        }
        usize::try_from(arrival.generation()).unwrap_or(usize::MAX)
    }

    /// The current use (uses completed so far).
    pub fn generation(&self) -> usize {
        usize::try_from(self.hw.generation()).unwrap_or(usize::MAX)
    }

    /// Threads counted toward the current use.
    pub fn arrived(&self) -> u32 {
        self.hw.arrived()
    }
}
