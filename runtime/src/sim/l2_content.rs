//! What the L2 holds: an LRU of tiles per partition, and where a load's lines come from.
//!
//! The GH100's L2 is divided into two partitions. Each caches the data its own SMs (those of
//! the GPCs wired to it) access, whichever partition the data's address is homed in, and
//! hardware keeps the copies coherent (NVIDIA A100 and H100 whitepapers). A line homed in the
//! far partition that the near one does not hold crosses the fabric between them to its home
//! slice: a far hit, or, if its home does not hold it either, a miss to HBM.
//!
//! A tile's lines are spread over the slices of both partitions by address, so half of them
//! are homed in each. The model keeps, per partition, an LRU of half tiles (a tile and the
//! partition its lines are homed in) of half the L2's capacity. A load by an SM of partition
//! `p` of tile `T`:
//! - the half homed in `p`: a hit if `p` holds it, else a miss (HBM), and then `p` holds it;
//! - the half homed in the other partition `q`: a hit if `p` holds a copy; else a far hit if
//!   `q` holds it; else a miss, and then `q` holds it; either way `p` then holds a copy.
//!
//! The load's data is complete when its slowest half is: [`Source`] is the worse of the two.
//! Shared tiles therefore take room in both partitions, which is what the H200's counters
//! show (`calibration/results/l2_partitions/`: a fifth of the L2's read sectors cross the
//! fabric, and only 57-79% of the SMs' sectors hit in the slice they reach). With one
//! partition the model is one LRU of the whole capacity.
//!
//! Which GPCs are wired to which partition is not documented; the model interleaves the SMs
//! (`sm % partitions`). How much that choice matters was tried on the H200 model: giving the
//! first half of the SMs (numbered GPC by GPC) to one partition, or a hashed half, moves
//! `ws_gemm` 128x128 and 256x128 at 4096^3 by under 0.1% in cycles and the cluster GEMM at
//! 4096^3 by 0.5% (`docs/validation.md`).

use std::collections::{BTreeMap, HashMap};

use crate::dsl::GlobalTile;
use crate::report::L2Sources;

/// Where the slowest of a load's lines comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    /// Every line from the SM's own partition.
    Near,
    /// Some from the other partition over the fabric, none from HBM.
    Far,
    /// Some from HBM.
    Hbm,
}

/// A tile's lines homed in one partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Half {
    tile: GlobalTile,
    home: u8,
}

/// An LRU set with a byte capacity.
#[derive(Debug)]
struct Lru<K> {
    capacity: u64,
    used: u64,
    stamp: u64,
    entries: HashMap<K, (u64, u32)>,
    order: BTreeMap<u64, K>,
}

impl<K: Copy + Eq + std::hash::Hash> Lru<K> {
    fn new(capacity: u64) -> Self {
        Lru { capacity, used: 0, stamp: 0, entries: HashMap::new(), order: BTreeMap::new() }
    }

    /// Whether `key` is resident, without touching it.
    #[cfg(test)]
    fn holds(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// Touches `key` of `bytes`; returns whether it was resident.
    fn touch(&mut self, key: K, bytes: u32) -> bool {
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

/// The L2's contents, by partition.
#[derive(Debug)]
pub(crate) struct L2Content {
    partitions: Vec<Lru<Half>>,
    /// Bytes of the loads that reached the L2, by source.
    pub bytes: L2Sources,
}

impl L2Content {
    /// An empty L2 of `capacity` bytes in `partitions` partitions (at least one).
    pub fn new(capacity: u64, partitions: u32) -> Self {
        let n = partitions.max(1);
        L2Content {
            partitions: (0..n).map(|_| Lru::new(capacity / u64::from(n))).collect(),
            bytes: L2Sources::default(),
        }
    }

    /// The partition SM `sm` belongs to.
    fn partition_of(&self, sm: usize) -> usize {
        sm % self.partitions.len()
    }

    /// A load of `bytes` of `tile` by SM `sm`: where its slowest lines come from, and the
    /// bytes that come from HBM.
    pub fn load(&mut self, sm: usize, tile: GlobalTile, bytes: u32) -> (Source, u32) {
        self.fetch(sm, tile, bytes, true)
    }

    /// A load of `tile` by SM `sm` that the coalescer answered with another load's data: the
    /// SM's partition then holds the tile as after a load, but no bytes are counted.
    pub fn copy_in(&mut self, sm: usize, tile: GlobalTile, bytes: u32) {
        self.fetch(sm, tile, bytes, false);
    }

    fn fetch(&mut self, sm: usize, tile: GlobalTile, bytes: u32, count: bool) -> (Source, u32) {
        let n = self.partitions.len();
        let p = self.partition_of(sm);
        let share = bytes / n as u32;
        let mut worst = Source::Near;
        let mut from_hbm = 0;
        for home in 0..n {
            let half = Half { tile, home: home as u8 };
            let part = if home + 1 == n { bytes - share * (n as u32 - 1) } else { share };
            let source = if self.partitions[p].touch(half, part) {
                Source::Near
            } else if home == p {
                Source::Hbm
            } else if self.partitions[home].touch(half, part) {
                Source::Far
            } else {
                Source::Hbm
            };
            let counter = match source {
                Source::Near => &mut self.bytes.near,
                Source::Far => &mut self.bytes.far,
                Source::Hbm => {
                    from_hbm += part;
                    &mut self.bytes.hbm
                }
            };
            if count {
                *counter += u64::from(part);
            }
            worst = worst.max(source);
        }
        (worst, from_hbm)
    }

    /// A store of `bytes` of `tile`: its lines are written into their home partitions.
    pub fn store(&mut self, tile: GlobalTile, bytes: u32) {
        let n = self.partitions.len();
        let share = bytes / n as u32;
        for home in 0..n {
            let part = if home + 1 == n { bytes - share * (n as u32 - 1) } else { share };
            self.partitions[home].touch(Half { tile, home: home as u8 }, part);
        }
    }

    /// Whether the whole of `tile` is held where SM `sm` reads it first (for tests).
    #[cfg(test)]
    fn near(&self, sm: usize, tile: GlobalTile) -> bool {
        let p = self.partition_of(sm);
        (0..self.partitions.len()).all(|home| self.partitions[p].holds(&Half { tile, home: home as u8 }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(origin: u64) -> GlobalTile {
        GlobalTile { tensor: 1, origin }
    }

    #[test]
    fn lru_evicts_the_oldest_key() {
        let mut lru = Lru::new(200);
        assert!(!lru.touch(0, 100));
        assert!(!lru.touch(1, 100));
        assert!(lru.touch(0, 100));
        assert!(!lru.touch(2, 100));
        assert!(lru.touch(0, 100));
        assert!(!lru.touch(1, 100), "key 1 was the least recently used");
    }

    #[test]
    fn a_tile_read_from_the_other_partition_is_a_far_hit_then_near() {
        // Four SMs: 0 and 2 on partition 0, 1 and 3 on partition 1.
        let mut l2 = L2Content::new(1 << 20, 2);
        assert_eq!(l2.load(0, tile(0), 1000), (Source::Hbm, 1000), "cold: both halves from HBM");
        assert_eq!(l2.load(2, tile(0), 1000), (Source::Near, 0), "same partition");
        // SM 1 is on the other partition: its own half is homed there and was fetched into
        // it; the other half it holds no copy of, and gets from partition 0 over the fabric.
        assert_eq!(l2.load(1, tile(0), 1000), (Source::Far, 0));
        assert!(l2.near(1, tile(0)), "and keeps a copy");
        assert_eq!(l2.load(3, tile(0), 1000), (Source::Near, 0));
        assert_eq!(l2.bytes, L2Sources { near: 2000 + 500, far: 500, hbm: 1000 });
    }

    #[test]
    fn shared_tiles_take_room_in_both_partitions() {
        // Three tiles read in turn by an SM of each partition: 3000 bytes fit the 4000 of one
        // pool, but each partition holds both halves of every tile it reads, 3000 bytes in
        // its 2000, and the cyclic reads never find the whole tile near.
        let mut split = L2Content::new(4000, 2);
        let mut whole = L2Content::new(4000, 1);
        for round in 0..3 {
            for t in 0..3 {
                for sm in [0, 1] {
                    let (s, _) = split.load(sm, tile(t), 1000);
                    let (w, _) = whole.load(sm, tile(t), 1000);
                    if round > 0 {
                        assert_eq!(w, Source::Near);
                        assert_ne!(s, Source::Near);
                    }
                }
            }
        }
        assert_eq!(whole.bytes.hbm, 3000, "one pool reads each tile from HBM once");
        assert!(split.bytes.hbm > 3000, "{:?}", split.bytes);
    }

    #[test]
    fn stores_land_in_the_home_partitions() {
        let mut l2 = L2Content::new(1 << 20, 2);
        l2.store(tile(5), 1000);
        assert_eq!(l2.load(0, tile(5), 1000), (Source::Far, 0), "the far half is not copied yet");
        assert_eq!(l2.load(0, tile(5), 1000), (Source::Near, 0));
        let mut one = L2Content::new(1 << 20, 1);
        one.store(tile(5), 1000);
        assert_eq!(one.load(0, tile(5), 1000), (Source::Near, 0));
    }
}
