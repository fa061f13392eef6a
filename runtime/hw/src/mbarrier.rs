//! Hopper `mbarrier` semantics: a phase bit, a pending-arrival count and a transaction count.
//!
//! A phase completes when every expected arrival has happened and the transaction count is
//! back to zero; completion flips the phase and re-arms the arrival count. Waiters test the
//! parity of a phase (`try_wait.parity`): waiting for parity `p` succeeds once the current
//! phase's parity differs from `p`, so a waiter that starts at parity 1 passes at once (the
//! "previous" phase counts as complete), which is how producers start on empty buffers.

/// One mbarrier object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MBarrier {
    expected: u32,
    pending: u32,
    tx: i64,
    completed: u64,
}

impl MBarrier {
    /// `mbarrier.init` with `arrivals` expected arrivals per phase.
    pub fn new(arrivals: u32) -> Self {
        Self { expected: arrivals, pending: arrivals, tx: 0, completed: 0 }
    }

    /// `mbarrier.arrive` (with `expect_tx` of `tx_bytes`). Returns true if the phase
    /// completed. An arrival on a barrier with no arrivals pending counts toward the next
    /// phase, as on hardware.
    pub fn arrive(&mut self, tx_bytes: u32) -> bool {
        self.tx += i64::from(tx_bytes);
        self.pending = self.pending.saturating_sub(1);
        self.try_complete()
    }

    /// `complete_tx` of `bytes` (what a TMA copy does when its data has landed). Returns true
    /// if the phase completed.
    pub fn complete_tx(&mut self, bytes: u32) -> bool {
        self.tx -= i64::from(bytes);
        self.try_complete()
    }

    fn try_complete(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.completed += 1;
            self.pending = self.expected;
            true
        } else {
            false
        }
    }

    /// Whether a wait for parity `parity` is satisfied.
    pub fn parity_passed(&self, parity: u32) -> bool {
        (self.completed & 1) as u32 != parity & 1
    }

    /// Phases completed since initialisation (the current phase's number).
    pub fn completed_phases(&self) -> u64 {
        self.completed
    }

    /// Arrivals still missing in the current phase.
    pub fn pending_arrivals(&self) -> u32 {
        self.pending
    }

    /// Arrivals per phase.
    pub fn expected_arrivals(&self) -> u32 {
        self.expected
    }

    /// Transaction bytes expected but not yet completed (negative if more bytes completed
    /// than were expected so far).
    pub fn pending_tx(&self) -> i64 {
        self.tx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_completes_after_all_arrivals_and_bytes() {
        let mut b = MBarrier::new(2);
        assert!(b.parity_passed(1) && !b.parity_passed(0));
        assert!(!b.arrive(128));
        assert!(!b.arrive(0));
        assert!(!b.parity_passed(0), "bytes still outstanding");
        assert!(b.complete_tx(128));
        assert!(b.parity_passed(0) && !b.parity_passed(1));
        assert_eq!((b.completed_phases(), b.pending_arrivals(), b.pending_tx()), (1, 2, 0));
    }

    #[test]
    fn bytes_may_land_before_they_are_expected() {
        let mut b = MBarrier::new(1);
        assert!(!b.complete_tx(64));
        assert_eq!(b.pending_tx(), -64);
        assert!(b.arrive(64));
        assert_eq!(b.completed_phases(), 1);
    }

    #[test]
    fn more_bytes_than_expected_keep_the_phase_open() {
        let mut b = MBarrier::new(1);
        b.complete_tx(96);
        assert!(!b.arrive(64));
        assert_eq!(b.pending_tx(), -32);
        assert!(!b.parity_passed(0));
    }
}
