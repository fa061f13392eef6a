//! Errors of an emulated run: launch errors, deadlocks, faults, panics, and the protocol
//! violations the sanitizer finds.

use std::fmt;
use std::ops::Range;
use std::panic::Location;

pub use crate::deadlock::{BlockedInstance, Deadlock};
use crate::dsl::AccessKind;
use crate::error::{LaunchError, RoleFault, RolePanic};

/// Why an emulated run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The launch was rejected before any CTA ran.
    Launch(LaunchError),
    /// Every live role instance of a CTA was blocked.
    Deadlock(Deadlock),
    /// Role code issued an invalid operation.
    Fault(RoleFault),
    /// Role code panicked.
    Panic(RolePanic),
    /// The sanitizer found a barrier-protocol violation or a data race.
    Violation(Box<Violation>),
}

impl EmuError {
    /// The violation, if this error is one.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            EmuError::Violation(v) => Some(v),
            _ => None,
        }
    }
}

/// A role instance named in a report: its role, its index in the role and its warps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The role's name.
    pub role: &'static str,
    /// The instance's index within its role.
    pub index: u32,
    /// Warps of the instance, first and last.
    pub warps: (u32, u32),
    /// Its CTA's rank in the cluster, in a kernel with a cluster shape (`None` otherwise).
    pub cta: Option<u32>,
}

/// One mbarrier of a report: a barrier array (or pipeline side) and a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierRef {
    /// The array's name, e.g. `Operands.full`.
    pub name: &'static str,
    /// The stage.
    pub stage: u32,
    /// The rank of the CTA it belongs to, in a kernel with a cluster shape.
    pub cta: Option<u32>,
}

/// An arrival on an mbarrier: who arrived and at which kernel source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The arriving instance.
    pub by: Instance,
    /// Where it arrived, when known.
    pub at: Option<&'static Location<'static>>,
}

/// A barrier-protocol violation or data race, found while a CTA ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The kernel.
    pub kernel: &'static str,
    /// `blockIdx` of the CTA.
    pub block: [u32; 3],
    /// The instance whose operation exposed the violation (none for the checks made when
    /// the CTA ends, which concern the CTA as a whole).
    pub by: Option<Instance>,
    /// The kernel source line of that operation, when known.
    pub at: Option<&'static Location<'static>>,
    /// What was violated.
    pub kind: ViolationKind,
}

/// The kinds of violation the sanitizer reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// More arrivals in a phase than the barrier's count: an arrival when every expected
    /// arrival of the phase has happened (the pending count would underflow), or a second
    /// arrival of one instance in a phase that expects one arrival from each arriving
    /// instance. The extra arrival would complete the next phase early.
    OverArrival {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase arrived on (phases count from 0).
        phase: u64,
        /// Arrivals the phase expects.
        expected: u32,
        /// The arrivals the phase already had.
        arrivals: Vec<Arrival>,
        /// Transaction bytes the phase still waits for.
        pending_bytes: i64,
    },
    /// More transaction bytes landed in a phase than its arrivals expected: every arrival
    /// has happened and the count went negative, so the phase can never complete.
    TxOverflow {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase.
        phase: u64,
        /// Bytes the phase's arrivals expected (`expect_tx`).
        expected_bytes: u64,
        /// Bytes TMA loads completed on the phase.
        landed_bytes: u64,
    },
    /// A wait for a phase the barrier has already moved two or more phases past: its parity
    /// now names a later phase, so the wait either passes on the wrong phase or blocks
    /// until a phase that may never come.
    LappedPhase {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase the waiter waits for (-1: the phase before the first, which counts as
        /// complete at initialisation).
        phase: i64,
        /// The parity it waits with.
        parity: u32,
        /// Phases the barrier has completed.
        completed: u64,
        /// The arrival that completed the latest phase.
        last_completed_by: Option<Arrival>,
    },
    /// Two accesses to a shared-memory or tensor-memory tile, at least one a write, that
    /// nothing orders.
    Race(Box<Race>),
    /// An arrival (TMA bytes, an MMA commit) on an mbarrier not ordered after the completion
    /// of the barrier's previous phase: under another schedule it joins that phase.
    UnorderedArrival {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase the arrival joined in this run.
        phase: u64,
        /// Whose part in the previous phase the arrival is not ordered after.
        previous: String,
    },
    /// An arrival on a named barrier not ordered after the barrier's previous use: under
    /// another schedule it joins that use.
    UnorderedNamedArrival {
        /// The named barrier.
        name: &'static str,
        /// Its hardware id.
        id: u32,
        /// The use (counting from 0) the arrival joined in this run.
        generation: u64,
        /// Whose arrival in the previous use it is not ordered after.
        previous: String,
    },
    /// A phase of an mbarrier completed without being ordered after a wait that passed on
    /// the phase before: under another schedule both complete before that wait, which then
    /// finds its parity lapped.
    LapHazard {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase that completed.
        phase: u64,
        /// The instance whose wait the completion is not ordered after, and where it waited.
        waiter: Arrival,
        /// The phase that instance waited for.
        waited: i64,
        /// The arrival that completed the phase.
        completed_by: Arrival,
    },
    /// An mbarrier outside the barrier array was used: no `mbarrier.init` covers it.
    UninitialisedBarrier {
        /// The barrier array.
        name: &'static str,
        /// The stage used.
        stage: u32,
        /// Stages the array has (and the kernel initialises).
        stages: u32,
    },
    /// The CTA finished with a phase partly arrived, or with transaction bytes pending.
    PendingAtExit {
        /// The barrier.
        barrier: BarrierRef,
        /// The phase left open.
        phase: u64,
        /// Arrivals the phase expects.
        expected: u32,
        /// The arrivals it had.
        arrivals: Vec<Arrival>,
        /// Transaction bytes expected and not landed (negative: landed and not expected).
        pending_bytes: i64,
    },
    /// The CTA finished with a named barrier partly arrived.
    NamedPendingAtExit {
        /// The named barrier.
        name: &'static str,
        /// Its hardware id.
        id: u32,
        /// Threads that arrived.
        arrived: u32,
        /// Threads it expects.
        threads: u32,
    },
    /// An arrival or multicast onto another CTA of the cluster that no instance of that CTA
    /// had seen by the time it finished: on the GPU the CTA may have exited, and its shared
    /// memory been released, when it lands.
    PeerMayHaveExited {
        /// The peer's barrier it lands on.
        barrier: BarrierRef,
        /// Where it was issued.
        at: Option<&'static Location<'static>>,
    },
    /// An instance finished with asynchronous operations it never waited for.
    AsyncPendingAtExit {
        /// Warpgroup MMA groups still in flight.
        mma_groups: u64,
        /// TMA stores still reading shared memory.
        stores: u64,
    },
    /// A pipeline token was dropped instead of handed over.
    TokenDropped {
        /// The pipeline.
        pipeline: &'static str,
        /// The slot's stage.
        stage: u32,
        /// The hand-over that never happened: `commit` or `release`.
        handover: &'static str,
        /// Where the token was taken.
        taken_at: &'static Location<'static>,
    },
    /// More threads arrived on a named barrier than it counts.
    NamedOverflow {
        /// The named barrier.
        name: &'static str,
        /// Its hardware id.
        id: u32,
        /// Threads it counts per use.
        threads: u32,
        /// Threads that would have arrived with this arrival.
        arrived: u32,
    },
    /// Two named barriers with one hardware id were in use at the same time.
    NamedIdShared {
        /// The named barrier arrived on.
        name: &'static str,
        /// The other named barrier, part-way through a use.
        other: &'static str,
        /// The shared id.
        id: u32,
    },
}

/// A data race: two unordered accesses to overlapping parts of one shared-memory tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The tile: its `#[shared]` field and stage, and the barrier whose TMA loads fill it, if
    /// any ("shared tile `a` (stage 1) (filled by TMA on `Operands.full[1]`)"); a tile
    /// outside the kernel's `#[shared]` struct by its number in order of first access
    /// ("shared tile #2").
    pub tile: String,
    /// Whether a pipeline guards the tile (its TMA loads complete on a pipeline's barrier):
    /// the advice speaks of slots only then.
    pub pipeline: bool,
    /// The earlier access.
    pub earlier: RaceAccess,
    /// The later access, which found the race.
    pub later: RaceAccess,
}

/// One access of a [`Race`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    /// The instance that issued it.
    pub by: Instance,
    /// What it was.
    pub kind: AccessKind,
    /// Rows of the tile it touched.
    pub rows: Range<u32>,
    /// Columns of the tile it touched.
    pub cols: Range<u32>,
    /// Where it was issued.
    pub at: Option<&'static Location<'static>>,
    /// For a TMA load: the barrier and phase its bytes complete.
    pub lands_on: Option<(BarrierRef, u64)>,
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Launch(e) => write!(f, "launch failed: {e}"),
            EmuError::Deadlock(d) => d.fmt(f),
            EmuError::Fault(e) => e.fmt(f),
            EmuError::Panic(e) => e.fmt(f),
            EmuError::Violation(v) => v.fmt(f),
        }
    }
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (first, last) = self.warps;
        if let Some(rank) = self.cta {
            write!(f, "CTA rank {rank}, ")?;
        }
        if first == last {
            write!(f, "warp {first} (`{}` #{})", self.role, self.index)
        } else {
            write!(f, "warps {first}-{last} (`{}` #{})", self.role, self.index)
        }
    }
}

impl fmt::Display for BarrierRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}[{}]`", self.name, self.stage)?;
        match self.cta {
            Some(rank) => write!(f, " of CTA rank {rank}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.by.fmt(f)?;
        if let Some(at) = self.at {
            write!(f, " at {at}")?;
        }
        Ok(())
    }
}

impl fmt::Display for RaceAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of rows {}..{}, columns {}..{} by {}",
            self.kind.describe(),
            self.rows.start,
            self.rows.end,
            self.cols.start,
            self.cols.end,
            self.by
        )?;
        if let Some(at) = self.at {
            write!(f, " at {at}")?;
        }
        if let Some((barrier, phase)) = self.lands_on {
            write!(f, ", landing with phase {phase} of {barrier}")?;
        }
        Ok(())
    }
}

/// `a, b and c`, or `none`.
fn list<T: fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`, CTA {:?}: ", self.kernel, self.block)?;
        self.kind.fmt(f)?;
        match (&self.by, self.at) {
            (Some(by), Some(at)) => write!(f, "\n  at {at}, by {by}"),
            (Some(by), None) => write!(f, "\n  by {by}"),
            (None, Some(at)) => write!(f, "\n  at {at}"),
            (None, None) => Ok(()),
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::OverArrival { barrier, phase, expected, arrivals, pending_bytes } => {
                write!(
                    f,
                    "over-arrival on {barrier}: phase {phase} expects {expected} arrival(s) and already has {} ({})",
                    arrivals.len(),
                    list(arrivals)
                )?;
                if arrivals.len() as u64 >= u64::from(*expected) {
                    write!(
                        f,
                        "; the phase is held open by {pending_bytes} transaction byte(s) still to land, and one more \
                         arrival underflows its pending count"
                    )?;
                } else {
                    write!(f, "; each arriving instance arrives once per phase, and this one already has")?;
                }
                write!(
                    f,
                    ". Arrive once per phase from one elected thread, or declare the count the protocol really has"
                )
            }
            ViolationKind::TxOverflow { barrier, phase, expected_bytes, landed_bytes } => write!(
                f,
                "transaction bytes above the expected count on {barrier}: phase {phase} expected {expected_bytes} \
                 byte(s) but TMA loads completed {landed_bytes}; with every arrival in, the phase can never \
                 complete. Make `expect_tx` (or the pipeline's tiles) match the bytes the loads copy"
            ),
            ViolationKind::LappedPhase { barrier, phase, parity, completed, last_completed_by } => {
                write!(
                    f,
                    "lapped phase: a wait on {barrier} for phase {phase} (parity {parity}) found the barrier \
                     {} phase(s) past it ({completed} completed); its parity now names a later phase",
                    (*completed as i64) - phase
                )?;
                if let Some(by) = last_completed_by {
                    write!(f, " (the latest phase was completed by {by})")?;
                }
                write!(
                    f,
                    ". Something arrives on the barrier without waiting for this instance: an over-arrival, or \
                     an arriver not held back by a barrier this instance releases"
                )
            }
            ViolationKind::Race(race) => race.fmt(f),
            ViolationKind::UnorderedArrival { barrier, phase, previous } => write!(
                f,
                "arrival on {barrier} for phase {phase} is not ordered after the completion of phase {}: nothing \
                 orders it after {previous}, so under another schedule it joins the earlier phase (an \
                 over-arrival, or a phase completed early); make the arriver wait, directly or through a \
                 barrier, for the earlier phase to complete before arriving again",
                phase.wrapping_sub(1)
            ),
            ViolationKind::UnorderedNamedArrival { name, id, generation, previous } => write!(
                f,
                "arrival on named barrier `{name}` (id {id}) for use {generation} is not ordered after use {}: \
                 nothing orders it after the arrival of {previous}, so under another schedule it joins the \
                 earlier use (which then completes without its threads); sync on the barrier, or wait for \
                 a barrier the others arrive on after their sync, before arriving again",
                generation.wrapping_sub(1)
            ),
            ViolationKind::LapHazard { barrier, phase, waiter, waited, completed_by } => write!(
                f,
                "lapped phase possible: phase {phase} of {barrier} completed (last arrival by {completed_by}) \
                 without being ordered after the wait of {waiter} for phase {waited}; under another schedule \
                 both phases complete before that wait, whose parity then names a later phase; make the \
                 arrivers of phase {phase} wait for every waiter of phase {waited} (a barrier each waiter \
                 arrives on after its wait)"
            ),
            ViolationKind::UninitialisedBarrier { name, stage, stages } => write!(
                f,
                "barrier used before initialisation: stage {stage} of `{name}`, which has {stages} stage(s) \
                 (0..{stages}); no `mbarrier.init` covers it"
            ),
            ViolationKind::PendingAtExit { barrier, phase, expected, arrivals, pending_bytes } => {
                write!(
                    f,
                    "the CTA finished with phase {phase} of {barrier} open: {} of {expected} arrival(s) ({})",
                    arrivals.len(),
                    list(arrivals)
                )?;
                if *pending_bytes > 0 {
                    write!(f, ", {pending_bytes} transaction byte(s) expected and never landed")?;
                } else if *pending_bytes < 0 {
                    write!(f, ", {} transaction byte(s) landed that no arrival expected", -pending_bytes)?;
                }
                write!(f, ". Every phase begun must be completed before the CTA exits")
            }
            ViolationKind::NamedPendingAtExit { name, id, arrived, threads } => write!(
                f,
                "the CTA finished with named barrier `{name}` (id {id}) part-way: {arrived} of {threads} threads \
                 arrived; every role instance that uses it must reach it"
            ),
            ViolationKind::PeerMayHaveExited { barrier, at } => {
                write!(f, "an arrival or multicast onto {barrier}")?;
                if let Some(at) = at {
                    write!(f, " (at {}:{})", at.file(), at.line())?;
                }
                write!(
                    f,
                    " that no instance of that CTA waited for before it finished: on the GPU the CTA may have \
                     exited, and its shared memory been released, when it lands (an illegal access); end every \
                     role with `cx.cluster_sync()` after its last cluster operation"
                )
            }
            ViolationKind::AsyncPendingAtExit { mma_groups, stores } => write!(
                f,
                "the instance finished with {mma_groups} warpgroup MMA group(s) and {stores} TMA store(s) in \
                 flight; wait for them (`mma_wait`, `store_wait` or `store_wait_all`) before returning"
            ),
            ViolationKind::TokenDropped { pipeline, stage, handover, taken_at } => write!(
                f,
                "a token of pipeline `{pipeline}` (stage {stage}) taken at {taken_at} was dropped without \
                 `{handover}`: the other side waits for it forever. Hand it over on every path"
            ),
            ViolationKind::NamedOverflow { name, id, threads, arrived } => write!(
                f,
                "named barrier `{name}` (id {id}) counts {threads} threads per use, but {arrived} arrived: the \
                 declared thread count does not match the warps that reach it"
            ),
            ViolationKind::NamedIdShared { name, other, id } => write!(
                f,
                "named barriers `{name}` and `{other}` share hardware id {id} and are in use at the same time; \
                 give them distinct ids"
            ),
        }
    }
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "data race on {}:", self.tile)?;
        writeln!(f, "  {}", self.later)?;
        writeln!(f, "  is not ordered after")?;
        write!(f, "  {}\n  ", self.earlier)?;
        f.write_str(self.advice())
    }
}

impl Race {
    /// What to change, by the two accesses and whether a pipeline guards the tile.
    fn advice(&self) -> &'static str {
        let writes = self.later.kind.writes();
        match (self.earlier.kind, self.later.kind, self.pipeline) {
            (AccessKind::TmaWrite { .. }, _, true) => {
                "the TMA write is in flight until its phase completes: wait for that phase (the pipeline's \
                 `wait`) before touching the slot"
            }
            (AccessKind::TmaWrite { .. }, _, false) => {
                "the TMA write is in flight until its phase completes: wait for that phase (the barrier's \
                 wait with that phase's parity) before touching the tile"
            }
            (AccessKind::MmaRead, _, true) if writes => {
                "the MMA reads the tile until an `mma_wait` covers it: wait for the MMA before releasing the \
                 slot, and write only after acquiring it"
            }
            (AccessKind::MmaRead, _, false) if writes => {
                "the MMA reads the tile until an `mma_wait` covers it: wait for the MMA, then hand the tile \
                 over through a barrier, before it is written again"
            }
            (AccessKind::TmaRead, _, _) if writes => {
                "the TMA store reads the tile until a `store_wait` or `store_wait_all` covers it: wait for the \
                 store before the tile is written again"
            }
            (AccessKind::UmmaRead | AccessKind::UmmaWrite, _, _) => {
                "a tcgen05 MMA reads or writes the tile until the `tcgen05.commit` after it arrives: wait on \
                 the barrier that commit arrives on (`arrive_on_mma_completion`, \
                 `release_on_mma_completion`) before touching the tile"
            }
            (AccessKind::TmemRead, AccessKind::UmmaWrite, _) => {
                "the tensor-memory tile was handed back to the MMA before it was read: load it \
                 (`tmem_load`) before the arrive that hands it back"
            }
            (_, _, true) if writes => {
                "the slot was written while the other access may still be in progress: hand it over through \
                 the pipeline (release, then acquire) between the two"
            }
            (_, _, false) if writes => {
                "the tile was written while the other access may still be in progress: order the two through \
                 a barrier (arrive after the first, wait before the second)"
            }
            _ => {
                "the read may see the tile before the write: order the write before it through a barrier \
                 (arrive after writing, wait before reading)"
            }
        }
    }
}

impl std::error::Error for EmuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EmuError::Launch(e) => Some(e),
            EmuError::Fault(e) => Some(e),
            EmuError::Panic(e) => Some(e),
            EmuError::Violation(v) => Some(v.as_ref()),
            EmuError::Deadlock(_) => None,
        }
    }
}

impl std::error::Error for Violation {
    /// A violation is a root cause: it names the operations involved.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

impl From<LaunchError> for EmuError {
    fn from(e: LaunchError) -> Self {
        EmuError::Launch(e)
    }
}
