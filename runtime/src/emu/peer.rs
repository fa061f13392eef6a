//! Arrivals and multicast bytes that land on another CTA of the cluster. A CTA releases its
//! shared memory, and the mbarriers in it, when its threads exit; an operation that lands
//! on it afterwards is an illegal access on the GPU ("cluster target block not present").
//! The emulator keeps every CTA of a cluster until the cluster ends, so it cannot see the
//! access fail; it asks instead, with the race detector's vector clocks, whether some
//! instance of the target CTA had seen each such operation before it finished. If none had,
//! the target may have exited first in some schedule.

use std::panic::Location;

use warpspec_hw::VectorClock;

/// An arrival or TMA load of one instance onto a barrier of another CTA of its cluster.
pub(super) struct PeerOp {
    /// The issuing instance (flat index).
    pub flat: usize,
    /// The rank of the CTA it lands on.
    pub target: u32,
    /// The barrier (flat index over the cluster).
    pub barrier: usize,
    /// The issuer's clock at the operation.
    pub clock: VectorClock,
    /// Where it was issued.
    pub at: Option<&'static Location<'static>>,
}

/// The first operation that no instance of its target CTA had seen by the time it finished:
/// `finals` gives the final clock and CTA rank of every instance.
pub(super) fn unseen<'o>(ops: &'o [PeerOp], finals: &[(u32, &VectorClock)]) -> Option<&'o PeerOp> {
    ops.iter().find(|op| !finals.iter().any(|(rank, clock)| *rank == op.target && clock.dominates(&op.clock)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_is_seen_once_an_instance_of_its_target_joined_its_clock() {
        let mut issuer = VectorClock::zero(2);
        issuer.tick(0);
        let op = PeerOp { flat: 0, target: 1, barrier: 3, clock: issuer.clone(), at: None };
        let blind = VectorClock::zero(2);
        assert!(unseen(std::slice::from_ref(&op), &[(1, &blind)]).is_some());
        let mut seen = VectorClock::zero(2);
        seen.join(&issuer);
        assert!(unseen(std::slice::from_ref(&op), &[(1, &seen)]).is_none());
        // An instance of another CTA having seen it does not help.
        assert!(unseen(std::slice::from_ref(&op), &[(0, &seen), (1, &blind)]).is_some());
    }
}
