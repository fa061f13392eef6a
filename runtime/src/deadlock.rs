//! Deadlock reports, shared by the emulator and the timing model: which role instances of a
//! CTA are blocked and what each one waits on, as typed values with one rendering.

use std::fmt;
use std::time::Duration;

/// A CTA in which no role instance can make progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// The kernel.
    pub kernel: &'static str,
    /// `blockIdx` of the CTA.
    pub block: [u32; 3],
    /// Every blocked instance and what it waits for.
    pub blocked: Vec<BlockedInstance>,
    /// Instances that had already finished, described ("`load` #0 (warp 0)").
    pub finished: Vec<String>,
}

/// One blocked role instance in a [`Deadlock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedInstance {
    /// The role's name.
    pub role: &'static str,
    /// The instance's index within its role.
    pub instance: u32,
    /// Warps of the instance, first and last.
    pub warps: (u32, u32),
    /// Its CTA's rank in the cluster, in a kernel with a cluster shape (`None` otherwise).
    pub cta: Option<u32>,
    /// What it waits on.
    pub waiting: Waiting,
    /// Set when a watchdog, not the executor, found the deadlock: how long nothing moved.
    pub watchdog: Option<Duration>,
}

/// What a blocked instance waits on, with the state that keeps it waiting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// A phase of an mbarrier.
    Phase {
        /// The barrier array, e.g. `Operands.full`.
        barrier: String,
        /// The stage in the array.
        stage: u32,
        /// The parity waited with.
        parity: u32,
        /// The phase waited for (phases completed so far).
        phase: u64,
        /// Arrivals the phase still misses.
        missing: u32,
        /// Arrivals the phase expects.
        expected: u32,
        /// Who is expected to arrive, described ("`load`").
        arrivers: String,
        /// Transaction bytes the phase still waits for (0: none).
        pending_bytes: i64,
    },
    /// A stage outside its barrier array, which no `mbarrier.init` covers.
    UninitialisedBarrier,
    /// The cluster barrier (`barrier.cluster.arrive` / `wait`) of a thread-block cluster.
    Cluster {
        /// Threads of the cluster that arrived on the current use.
        arrived: u32,
        /// Threads of the cluster (every CTA's).
        threads: u32,
    },
    /// A use of a named barrier.
    Named {
        /// The named barrier.
        name: String,
        /// Its hardware id.
        id: u32,
        /// Threads that arrived at the use.
        arrived: u32,
        /// Threads the use needs.
        threads: u32,
        /// Who is expected to arrive, described.
        roles: String,
    },
    /// A named barrier the kernel does not declare.
    UnknownNamed,
    /// `wgmma.wait_group`: at most `pending` MMA groups in flight.
    MmaGroups {
        /// Groups that may stay in flight.
        pending: u32,
    },
    /// A bulk store wait: at most `pending` TMA stores still reading shared memory.
    Stores {
        /// Stores that may stay in flight.
        pending: u32,
    },
    /// Nothing: the instance is suspended outside a barrier wait.
    Nothing,
}

/// The object part of a [`Waiting`] ("`Data.full[1]`"), see [`Waiting::object`].
pub struct Object<'a>(&'a Waiting);

/// The condition part of a [`Waiting`] ("phase 1 (parity 1) to complete; ..."), see
/// [`Waiting::condition`].
pub struct Condition<'a>(&'a Waiting);

impl Waiting {
    /// What is waited on: the barrier, named barrier or wait instruction.
    pub fn object(&self) -> Object<'_> {
        Object(self)
    }

    /// What the wait needs, and who was expected to provide it.
    pub fn condition(&self) -> Condition<'_> {
        Condition(self)
    }
}

impl fmt::Display for Object<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Waiting::Phase { barrier, stage, .. } => write!(f, "`{barrier}[{stage}]`"),
            Waiting::UninitialisedBarrier => f.write_str("an uninitialised barrier"),
            Waiting::Cluster { .. } => f.write_str("the cluster barrier (`barrier.cluster`)"),
            Waiting::Named { name, id, .. } => write!(f, "named barrier `{name}` (id {id})"),
            Waiting::UnknownNamed => f.write_str("an unknown named barrier"),
            Waiting::MmaGroups { .. } => f.write_str("wgmma.wait_group"),
            Waiting::Stores { .. } => f.write_str("bulk store wait"),
            Waiting::Nothing => f.write_str("nothing"),
        }
    }
}

impl fmt::Display for Condition<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Waiting::Phase { parity, phase, missing, expected, arrivers, pending_bytes, .. } => {
                write!(
                    f,
                    "phase {phase} (parity {parity}) to complete; {missing} of {expected} arrivals missing, \
                     expected from {arrivers}"
                )?;
                if *pending_bytes != 0 {
                    write!(f, "; {pending_bytes} transaction bytes outstanding")?;
                }
                Ok(())
            }
            Waiting::UninitialisedBarrier | Waiting::UnknownNamed => Ok(()),
            Waiting::Cluster { arrived, threads } => {
                write!(
                    f,
                    "{arrived} of the cluster's {threads} threads arrived, expected from every instance of every CTA"
                )
            }
            Waiting::Named { arrived, threads, roles, .. } => {
                write!(f, "{arrived} of {threads} threads arrived, expected from {roles}")
            }
            Waiting::MmaGroups { pending } => write!(f, "at most {pending} MMA groups in flight"),
            Waiting::Stores { pending } => write!(f, "at most {pending} TMA stores in flight"),
            Waiting::Nothing => f.write_str("not blocked on a barrier"),
        }
    }
}

impl fmt::Display for Waiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object(), self.condition())
    }
}

impl BlockedInstance {
    /// What the instance waits on, rendered ("`Data.full[1]`").
    pub fn barrier(&self) -> String {
        self.waiting.object().to_string()
    }

    /// What the wait needs, rendered, with the watchdog's note when it found the deadlock.
    pub fn waiting_for(&self) -> String {
        let mut out = self.waiting.condition().to_string();
        if let Some(limit) = self.watchdog {
            out += &format!(" (no progress for {limit:?}: stopped by the watchdog)");
        }
        out
    }
}

impl fmt::Display for BlockedInstance {
    /// "warps 1-4 (`math` #0) waits on `Data.full[1]`: phase 1 (parity 1) to complete; ..."
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (first, last) = self.warps;
        if let Some(rank) = self.cta {
            write!(f, "CTA rank {rank}, ")?;
        }
        if first == last {
            write!(f, "warp {first}")?;
        } else {
            write!(f, "warps {first}-{last}")?;
        }
        write!(f, " (`{}` #{}) waits on {}: {}", self.role, self.instance, self.waiting.object(), self.waiting_for())
    }
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.blocked.iter().any(|b| b.cta.is_some()) {
            writeln!(
                f,
                "deadlock in kernel `{}`, the cluster of CTA {:?}: every live warp of its CTAs is blocked",
                self.kernel, self.block
            )?;
        } else {
            writeln!(f, "deadlock in kernel `{}`, CTA {:?}: every live warp is blocked", self.kernel, self.block)?;
        }
        for b in &self.blocked {
            writeln!(f, "  {b}")?;
        }
        if !self.finished.is_empty() {
            writeln!(f, "  finished: {}", self.finished.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(waiting: Waiting) -> BlockedInstance {
        BlockedInstance { role: "math", instance: 0, warps: (1, 4), cta: None, waiting, watchdog: None }
    }

    #[test]
    fn one_rendering_for_every_wait() {
        let phase = Waiting::Phase {
            barrier: "Data.full".into(),
            stage: 1,
            parity: 1,
            phase: 1,
            missing: 1,
            expected: 1,
            arrivers: "`load`".into(),
            pending_bytes: 0,
        };
        assert_eq!(
            blocked(phase.clone()).to_string(),
            "warps 1-4 (`math` #0) waits on `Data.full[1]`: phase 1 (parity 1) to complete; 1 of 1 arrivals \
             missing, expected from `load`"
        );
        let mut with_bytes = phase;
        if let Waiting::Phase { pending_bytes, .. } = &mut with_bytes {
            *pending_bytes = 64;
        }
        assert!(with_bytes.to_string().ends_with("; 64 transaction bytes outstanding"));
        let named = Waiting::Named { name: "Meet".into(), id: 1, arrived: 128, threads: 256, roles: "`group`".into() };
        let b = BlockedInstance { warps: (4, 4), watchdog: Some(Duration::from_millis(50)), ..blocked(named) };
        assert_eq!(b.barrier(), "named barrier `Meet` (id 1)");
        assert_eq!(
            b.waiting_for(),
            "128 of 256 threads arrived, expected from `group` (no progress for 50ms: stopped by the watchdog)"
        );
        assert!(b.to_string().starts_with("warp 4 (`math` #0) waits on named barrier"));
        assert_eq!(Waiting::MmaGroups { pending: 0 }.to_string(), "wgmma.wait_group: at most 0 MMA groups in flight");
        assert_eq!(Waiting::Stores { pending: 1 }.to_string(), "bulk store wait: at most 1 TMA stores in flight");
        assert_eq!(Waiting::Nothing.to_string(), "nothing: not blocked on a barrier");
    }
}
