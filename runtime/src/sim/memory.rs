//! The memory system shared by all SMs: L2 and HBM as bandwidth servers, and an L2 content
//! model that decides hits and misses.
//!
//! **Bandwidth.** Each level is a first-come-first-served server: a request of
//! `b` bytes arriving at cycle `t` starts when the server is free (`max(t, free)`), holds it
//! for `b / rate` cycles, and its data is delivered one latency after it leaves the server.
//! Requests arrive in simulated-time order because the whole GPU runs in one event loop
//! ordered by cycle, so a single "free at" time per level is an exact FIFO queue. This is a
//! token bucket with no burst allowance: it captures saturation (queueing delay grows once the
//! demand of all SMs exceeds the level's bandwidth) without modelling banks, partitions or
//! the crossbar.
//!
//! **Hits.** A load that names its source tile ([`GlobalTile`]) hits if that tile is resident in
//! an LRU of the L2's capacity; a miss also goes through HBM (bandwidth and latency) and then
//! occupies L2. Loads that name no tile count as hits. Stores write through L2 and are charged
//! to HBM bandwidth as the eventual write-back.

use std::collections::{BTreeMap, HashMap};

use crate::dsl::GlobalTile;

use super::timing::Timing;

/// A first-come-first-served bandwidth server.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Server {
    /// Bytes per cycle.
    rate: f64,
    /// Cycle at which the last accepted request leaves the server.
    free: f64,
    /// Cycles the server has been busy.
    pub busy: f64,
    /// Bytes served.
    pub bytes: u64,
}

impl Server {
    /// A server moving `rate` bytes per cycle.
    pub fn new(rate: f64) -> Self {
        Server { rate: rate.max(f64::MIN_POSITIVE), free: 0.0, busy: 0.0, bytes: 0 }
    }

    /// Serves `bytes` arriving at `t`; returns the cycle the last byte leaves the server.
    pub fn serve(&mut self, t: f64, bytes: u32) -> f64 {
        let start = self.free.max(t);
        let duration = f64::from(bytes) / self.rate;
        self.free = start + duration;
        self.busy += duration;
        self.bytes += u64::from(bytes);
        self.free
    }
}

/// An LRU set of tiles with a byte capacity.
#[derive(Debug, Default)]
struct Lru {
    capacity: u64,
    used: u64,
    stamp: u64,
    entries: HashMap<GlobalTile, (u64, u32)>,
    order: BTreeMap<u64, GlobalTile>,
}

impl Lru {
    /// Touches `key` of `bytes`; returns whether it was resident.
    fn touch(&mut self, key: GlobalTile, bytes: u32) -> bool {
        self.stamp += 1;
        let stamp = self.stamp;
        if let Some(entry) = self.entries.get_mut(&key) {
            self.order.remove(&entry.0);
            entry.0 = stamp;
            self.order.insert(stamp, key);
            return true;
        }
        self.entries.insert(key, (stamp, bytes));
        self.order.insert(stamp, key);
        self.used += u64::from(bytes);
        while self.used > self.capacity {
            let Some((_, victim)) = self.order.pop_first() else { break };
            if let Some((_, size)) = self.entries.remove(&victim) {
                self.used -= u64::from(size);
            }
        }
        false
    }
}

/// L2 and HBM, shared by every SM of the GPU.
#[derive(Debug)]
pub(crate) struct MemorySystem {
    /// The L2 bandwidth server.
    pub l2: Server,
    /// The HBM bandwidth server.
    pub hbm: Server,
    l2_latency: f64,
    hbm_latency: f64,
    lru: Lru,
    /// Loads that hit in L2, and that missed.
    pub hits: u64,
    /// Loads that missed in L2.
    pub misses: u64,
}

impl MemorySystem {
    /// The memory system of `timing`'s machine.
    pub fn new(timing: &Timing) -> Self {
        MemorySystem {
            l2: Server::new(timing.l2_bytes_per_clk),
            hbm: Server::new(timing.hbm_bytes_per_clk),
            l2_latency: timing.l2_latency as f64,
            hbm_latency: timing.hbm_latency as f64,
            lru: Lru { capacity: timing.l2_bytes, ..Lru::default() },
            hits: 0,
            misses: 0,
        }
    }

    /// A load of `bytes` arriving at the L2 at `t`; returns the cycle its data reaches the SM
    /// and whether it hit in L2. `key` names the tile for the hit/miss decision (`None`: a
    /// hit); `force_miss` sends the load to HBM regardless.
    pub fn load(&mut self, t: f64, bytes: u32, key: Option<GlobalTile>, force_miss: bool) -> (f64, bool) {
        let hit = !force_miss && key.is_none_or(|k| self.lru.touch(k, bytes));
        let l2_done = self.l2.serve(t, bytes);
        if hit {
            self.hits += 1;
            (l2_done + self.l2_latency, true)
        } else {
            self.misses += 1;
            let hbm_done = self.hbm.serve(t, bytes);
            (l2_done.max(hbm_done) + self.hbm_latency, false)
        }
    }

    /// A store of `bytes` arriving at the L2 at `t`; returns the cycle it is written to L2.
    pub fn store(&mut self, t: f64, bytes: u32, key: Option<GlobalTile>) -> f64 {
        if let Some(k) = key {
            self.lru.touch(k, bytes);
        }
        self.hbm.serve(t, bytes);
        self.l2.serve(t, bytes) + self.l2_latency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_queues_requests_at_its_rate() {
        let mut s = Server::new(100.0);
        assert_eq!(s.serve(0.0, 1000), 10.0);
        assert_eq!(s.serve(5.0, 1000), 20.0);
        assert_eq!(s.serve(50.0, 100), 51.0);
        assert_eq!((s.busy, s.bytes), (21.0, 2100));
    }

    #[test]
    fn lru_evicts_the_oldest_tile() {
        let mut lru = Lru { capacity: 200, ..Lru::default() };
        let key = |origin| GlobalTile { tensor: 1, origin };
        assert!(!lru.touch(key(0), 100));
        assert!(!lru.touch(key(1), 100));
        assert!(lru.touch(key(0), 100));
        assert!(!lru.touch(key(2), 100));
        assert!(lru.touch(key(0), 100));
        assert!(!lru.touch(key(1), 100), "tile 1 was the least recently used");
    }
}
