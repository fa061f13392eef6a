//! Named barriers (`bar.sync id, threads` / `bar.arrive id, threads`).
//!
//! A named barrier counts threads. A *use* completes when the threads that arrived reach the
//! count the instruction names; completion releases every thread that synced on that use and
//! starts the next use (its generation). `bar.arrive` counts without waiting; `bar.sync`
//! counts and waits for the use it joined to complete. An arrival that would carry the count
//! past the barrier's thread count is undefined on hardware: it is reported, not counted.

/// What an arrival on a [`NamedBarrier`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedArrival {
    /// The arrival joined use `generation`, which still waits for other threads.
    Joined {
        /// The use the arrival joined.
        generation: u64,
    },
    /// The arrival completed use `generation`: its waiters are released.
    Completed {
        /// The use the arrival completed.
        generation: u64,
    },
    /// The arrival would carry use `generation` past the barrier's thread count; nothing was
    /// counted.
    Overflow {
        /// The use it would have joined.
        generation: u64,
        /// Threads that would then have arrived.
        arrived: u32,
    },
}

impl NamedArrival {
    /// The use the arrival belongs to.
    pub fn generation(self) -> u64 {
        match self {
            NamedArrival::Joined { generation }
            | NamedArrival::Completed { generation }
            | NamedArrival::Overflow { generation, .. } => generation,
        }
    }
}

/// One named barrier: its thread count and the state of its current use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NamedBarrier {
    threads: u32,
    arrived: u32,
    generation: u64,
}

impl NamedBarrier {
    /// A barrier whose uses complete after `threads` threads.
    pub fn new(threads: u32) -> Self {
        Self { threads, arrived: 0, generation: 0 }
    }

    /// `threads` threads arrive (a warp: 32, a warpgroup: 128).
    pub fn arrive(&mut self, threads: u32) -> NamedArrival {
        let generation = self.generation;
        let arrived = self.arrived.saturating_add(threads);
        if arrived > self.threads {
            return NamedArrival::Overflow { generation, arrived };
        }
        if arrived == self.threads {
            self.arrived = 0;
            self.generation += 1;
            NamedArrival::Completed { generation }
        } else {
            self.arrived = arrived;
            NamedArrival::Joined { generation }
        }
    }

    /// Whether use `generation` has completed.
    pub fn completed(&self, generation: u64) -> bool {
        self.generation > generation
    }

    /// The current use (uses completed so far).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Threads counted toward the current use.
    pub fn arrived(&self) -> u32 {
        self.arrived
    }

    /// Threads per use.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Whether a use is part-way: some threads arrived, not all.
    pub fn in_use(&self) -> bool {
        self.arrived > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_completes_at_its_thread_count() {
        let mut b = NamedBarrier::new(256);
        assert_eq!(b.arrive(128), NamedArrival::Joined { generation: 0 });
        assert!(b.in_use() && !b.completed(0));
        assert_eq!(b.arrive(128), NamedArrival::Completed { generation: 0 });
        assert!(b.completed(0) && !b.completed(1));
        assert_eq!((b.generation(), b.arrived()), (1, 0));
    }

    #[test]
    fn an_overflowing_arrival_is_not_counted() {
        let mut b = NamedBarrier::new(160);
        assert_eq!(b.arrive(128), NamedArrival::Joined { generation: 0 });
        assert_eq!(b.arrive(128), NamedArrival::Overflow { generation: 0, arrived: 256 });
        assert_eq!(b.arrived(), 128);
        assert_eq!(b.arrive(32).generation(), 0);
        assert!(b.completed(0));
    }
}
