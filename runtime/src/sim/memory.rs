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
//! **Sharing among SMs.** A TMA load's data reaches its SM after the L2 latency and then
//! streams into shared memory. The L2 and the network behind it serve the lines of every
//! request outstanding at once, so a copy streams at its SM's own rate only while no other
//! SM waits for data: each SM gets an equal share of the L2's bandwidth among the SMs with a
//! TMA load outstanding (issued, not yet landed), itself included, at most its own rate. The
//! share is fixed when the copy is issued, from the loads outstanding then (a fluid
//! approximation of processor sharing; the FIFO above still bounds the total). With every SM
//! loading, a copy streams at the L2's rate over the SM count (about 43 B/clk per SM at 1.75
//! GHz on the H200, where one SM alone streams at 95). With `l2.share_among_streaming` (off
//! on the H200) the share is among the SMs whose data is streaming in when the copy's own
//! starts to arrive, not those still waiting out their latency ([`MemorySystem::streaming`]).
//!
//! Stores share the GPU's store bandwidth into L2 (measured apart from the loads' rate) the
//! same way, among the SMs with a store outstanding: a TMA store reads shared memory at its
//! share of what bulk stores write when all SMs store at once (4.72 TB/s), at most the one-SM
//! rate; a warp's global stores, 32 bytes per line (a fragment's column pairs), leave the SM
//! at its share of what such stores write (2.83 TB/s), at most one SM's rate alone (23 B/clk),
//! the next waiting for the SM's write path. Warp stores that write part of each sector (a
//! fragment rounded to 16 bits: 16 bytes per line) have rates of their own, measured apart
//! (1.0 TB/s and 5.5 B/clk: each instruction takes twice as long as a whole-sector one).
//!
//! **Latency.** Each load's latency is drawn from the measured distribution of its level
//! (`Timing::l2_latency_spread`, `hbm_latency_spread`: the median and the 10th and 90th
//! percentiles) with a seeded generator, so that identical warps do not move in lock-step and
//! a run is the same for the same seed. A TMA copy that hits in L2 takes the median: its lines
//! spread over many slices, and its measured latency varies by a few cycles (an 8 KB box: p10
//! 393, p90 400), where a single line's varies by tens. A TMA miss also pays more while
//! another SM has a TMA load outstanding ([`MemorySystem::loading`]; the extra is
//! the SM's, `sm/units.rs`): the H200's misses come back about 300 cycles later once even 8
//! SMs load, far below any bandwidth limit (calibration item 16).
//!
//! **Coalescing.** The L2's request coalescer (`l2.coalescing_window_cycles`, the H200's) answers
//! a TMA load of a tile that another SM's load asked the L2 for within the window (before or
//! after it) with that load's data: it reaches neither the slices nor HBM, costs them no
//! bandwidth, and its data arrives with the first load's. The L2's bandwidth is the slices'
//! (measured on bytes that reached them), so only the loads that reach them count against
//! it, and the SMs' shares of it (below) grow by the bytes delivered per byte the slices
//! served so far. A window, not the slices' queue: on the H200 the merged share stays at
//! 10-22% whatever the ring's depth, where merging every load still queued behind the slices
//! grew with the backlog deeper rings build (3% at 2 stages, 29% at 6). The window is fitted
//! on the calibration set's coalescer counters (`calibration/results/l2_coalescer/`).
//!
//! **Hits.** A load that names its source tile ([`GlobalTile`]) is looked up in the L2's
//! contents by partition (`super::l2_content`): it hits in the SM's own partition (the L2's
//! latency), hits in the other across the fabric for the lines homed there (`l2.far_hit_latency_cycles`),
//! or misses for some of its lines, which then also go through HBM (bandwidth for the bytes
//! missed, and latency); with `l2.hit_waits_for_fill` (on for the H100/H200, measured), a
//! hit on a tile whose miss is not yet back waits for it; with `l2.fill_takes_miss_extra` the
//! miss is back only after its extra latency at the SM (alone or loaded,
//! [`MemorySystem::miss_extra`]), for the waiting hits as for the missing SM. Loads that name
//! no tile count as hits. Stores write through L2 into
//! their home partitions and are charged to HBM bandwidth as the eventual write-back.

use std::collections::HashMap;

use crate::dsl::GlobalTile;
use crate::rng::Rng;

use super::l2_content::{L2Content, Source};
use super::machine::Spread;
use super::timing::Timing;

/// Bytes in an L2 sector, the unit a line is read and written in.
pub const SECTOR_BYTES: u32 = 32;

/// How much of each sector it touches a warp's store instruction writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectorFill {
    /// Whole sectors (32 bytes or more per line: 8-byte column pairs of an f32 fragment).
    Whole,
    /// Part of each (16 bytes per line: 4-byte pairs of a 16-bit fragment).
    Part,
}

impl SectorFill {
    /// The fill of a store instruction writing `bytes` over `lines` lines.
    pub fn of(bytes: u32, lines: u32) -> SectorFill {
        if bytes >= SECTOR_BYTES * lines.max(1) { SectorFill::Whole } else { SectorFill::Part }
    }
}

/// A rate in bytes per cycle for each [`SectorFill`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SectorRates {
    /// Of stores writing whole sectors.
    pub whole: f64,
    /// Of stores writing part of each.
    pub part: f64,
}

impl SectorRates {
    /// The rate of stores of `fill`.
    pub fn of(&self, fill: SectorFill) -> f64 {
        match fill {
            SectorFill::Whole => self.whole,
            SectorFill::Part => self.part,
        }
    }
}

/// What reaches the L2: a TMA copy of a tile, or a warp's load of lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// A TMA copy: its hit latency is the median (many lines over many slices).
    Bulk,
    /// A warp's load: each line's latency as measured.
    Lines,
}

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
        self.serve_at(t, bytes, self.rate)
    }

    /// Serves `bytes` arriving at `t` at `rate` bytes per cycle (at most the server's own);
    /// returns the cycle the last byte leaves the server.
    pub fn serve_at(&mut self, t: f64, bytes: u32, rate: f64) -> f64 {
        let start = self.free.max(t);
        let duration = f64::from(bytes) / rate.clamp(f64::MIN_POSITIVE, self.rate);
        self.free = start + duration;
        self.busy += duration;
        self.bytes += u64::from(bytes);
        self.free
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
    l2_spread: Spread,
    /// Hit latency of a TMA copy some of whose lines come from the far partition.
    l2_far_latency: f64,
    hbm_latency: f64,
    hbm_spread: Spread,
    rng: Rng,
    /// What the L2 holds, by partition.
    pub content: L2Content,
    /// Loads that hit in L2 (in the SM's own partition or across the fabric).
    pub hits: u64,
    /// Of them, loads some of whose lines came from the far partition.
    pub far_hits: u64,
    /// Loads that missed in L2.
    pub misses: u64,
    /// Loads the coalescer answered with another load's data (neither hits nor misses).
    pub coalesced: u64,
    /// Their bytes (delivered to the SMs like any load's, not through the slices).
    pub coalesced_bytes: u64,
    /// The coalescer's window in cycles (0: none).
    window: f64,
    /// Per tile, the cycle its latest load that reached the slices was asked for, and the
    /// cycle that load's data is back.
    last_asked: HashMap<GlobalTile, (f64, f64)>,
    /// Per tile, the cycle the data of its latest miss is back: a hit on the tile before then
    /// finds its lines still being filled from HBM and waits for them (kept only with
    /// `l2.hit_waits_for_fill`).
    filling: Option<HashMap<GlobalTile, f64>>,
    /// Whether a miss's extra latency at its SM delays its tile's fill
    /// (`l2.fill_takes_miss_extra`, [`MemorySystem::miss_extra`]).
    fill_takes_miss_extra: bool,
    /// Per SM, the cycle its last TMA load outstanding lands.
    landing: Vec<f64>,
    /// Per SM, the cycles its latest TMA data streams in, first byte to last (its copies
    /// stream one after another, so consecutive windows merge).
    streaming: Vec<(f64, f64)>,
    /// Bytes per cycle the GPU stores into L2 with TMA bulk stores.
    write_rate: f64,
    /// Bytes per cycle the GPU's warp stores write into L2, by how much of each sector.
    sector_write_rate: SectorRates,
    /// Per SM, the cycle its last store outstanding is written.
    writing: Vec<f64>,
}

impl MemorySystem {
    /// The memory system of `timing`'s machine with `sms` SMs, its latencies drawn with
    /// `seed`.
    pub fn new(timing: &Timing, sms: usize, seed: u64) -> Self {
        MemorySystem {
            l2: Server::new(timing.l2_bytes_per_clk),
            hbm: Server::new(timing.hbm_bytes_per_clk),
            l2_latency: timing.l2_latency as f64,
            l2_spread: timing.l2_latency_spread,
            l2_far_latency: timing.l2_far_latency as f64,
            hbm_latency: timing.hbm_latency as f64,
            hbm_spread: timing.hbm_latency_spread,
            rng: Rng::seeded(seed, 0),
            content: L2Content::new(timing.l2_bytes, timing.l2_partitions),
            hits: 0,
            far_hits: 0,
            misses: 0,
            coalesced: 0,
            coalesced_bytes: 0,
            window: timing.l2_coalescing_window,
            last_asked: HashMap::new(),
            filling: timing.l2_hit_waits_for_fill.then(HashMap::new),
            fill_takes_miss_extra: timing.l2_fill_takes_miss_extra,
            landing: vec![0.0; sms],
            streaming: vec![(0.0, 0.0); sms],
            write_rate: timing.l2_write_bytes_per_clk,
            sector_write_rate: timing.l2_sector_write_bytes_per_clk,
            writing: vec![0.0; sms],
        }
    }

    /// SMs with a TMA load outstanding at `at`, counting `sm` whether or not it has one: more
    /// than one, and a miss of `sm`'s issued then takes the loaded latency.
    pub fn loading(&self, sm: usize, at: f64) -> f64 {
        Self::sharing(&self.landing, sm, at)
    }

    /// The rate at which an SM streams a load issued while `loading` SMs have one outstanding
    /// ([`MemorySystem::loading`]): an equal share of the L2's bandwidth among them, at most
    /// `own` (the SM's rate).
    pub fn stream_rate(&self, loading: f64, own: f64) -> f64 {
        own.min(self.l2.rate * self.coalescing_gain() / loading)
    }

    /// Bytes delivered to the SMs per byte the L2's slices served, so far: the slices serve
    /// the loads the coalescer passes on, and every SM still receives its load's data.
    fn coalescing_gain(&self) -> f64 {
        if self.coalesced_bytes == 0 || self.l2.bytes == 0 {
            return 1.0;
        }
        (self.l2.bytes + self.coalesced_bytes) as f64 / self.l2.bytes as f64
    }

    /// SMs whose TMA data is streaming in at `at`, counting `sm` whether or not its is.
    pub fn streaming(&self, sm: usize, at: f64) -> f64 {
        let others = self.streaming.iter().enumerate().filter(|&(j, &(from, to))| j != sm && from <= at && at < to);
        (others.count() + 1) as f64
    }

    /// Records that SM `sm`'s data streams in from `from` to `to`.
    pub fn streams(&mut self, sm: usize, from: f64, to: f64) {
        if let Some(w) = self.streaming.get_mut(sm) {
            *w = if from <= w.1 { (w.0, w.1.max(to)) } else { (from, to) };
        }
    }

    /// Records that SM `sm` has a TMA load outstanding until `until`.
    pub fn outstanding_until(&mut self, sm: usize, until: f64) {
        Self::extend(&mut self.landing, sm, until);
    }

    /// The rate at which SM `sm` writes a store issued at `at`: an equal share of the
    /// GPU's store bandwidth into L2 among the SMs with a store outstanding then, this one
    /// included, at most `own`.
    pub fn write_rate(&self, sm: usize, at: f64, own: f64) -> f64 {
        own.min(self.write_rate / Self::sharing(&self.writing, sm, at))
    }

    /// The rate at which SM `sm`'s warp stores issued at `at`, writing `fill` of each
    /// sector, leave it: an equal share of what the GPU's warp stores of that kind write into
    /// L2 among the SMs with a store outstanding then, this one included, at most `own`.
    pub fn sector_write_rate(&self, sm: usize, at: f64, fill: SectorFill, own: f64) -> f64 {
        own.min(self.sector_write_rate.of(fill) / Self::sharing(&self.writing, sm, at))
    }

    /// Records that SM `sm` has a store outstanding until `until`.
    pub fn writing_until(&mut self, sm: usize, until: f64) {
        Self::extend(&mut self.writing, sm, until);
    }

    /// SMs with a transfer outstanding at `at` by `until` (the cycle each one's last ends),
    /// counting `sm` whether or not it has one.
    fn sharing(until: &[f64], sm: usize, at: f64) -> f64 {
        (until.iter().enumerate().filter(|&(j, &u)| j != sm && u > at).count() + 1) as f64
    }

    /// Moves SM `sm`'s last transfer end in `until` to `to` if that is later.
    fn extend(until: &mut [f64], sm: usize, to: f64) {
        if let Some(s) = until.get_mut(sm) {
            *s = s.max(to);
        }
    }

    /// A load of `bytes` by SM `sm` arriving at the L2 at `t`; returns the cycle its data
    /// reaches the SM and whether it hit in L2 (in the SM's partition or across the fabric).
    /// `key` names the tile for the hit/miss decision (`None`: a hit in the SM's partition);
    /// `force_miss` sends the load to HBM regardless.
    pub fn load(
        &mut self,
        sm: usize,
        t: f64,
        bytes: u32,
        key: Option<GlobalTile>,
        force_miss: bool,
        access: Access,
    ) -> (f64, bool) {
        let coalescing = self.window > 0.0 && access == Access::Bulk && !force_miss;
        if let Some(k) = key.filter(|_| coalescing)
            && let Some(&(asked, back)) = self.last_asked.get(&k)
            && (t - asked).abs() <= self.window
        {
            self.content.copy_in(sm, k, bytes);
            self.coalesced += 1;
            self.coalesced_bytes += u64::from(bytes);
            return (back, true);
        }
        let (source, from_hbm) = match key {
            _ if force_miss => (Source::Hbm, bytes),
            None => (Source::Near, 0),
            Some(k) => self.content.load(sm, k, bytes),
        };
        let l2_done = self.l2.serve(t, bytes);
        let back = match source {
            Source::Near | Source::Far => {
                self.hits += 1;
                let latency = match (source, access) {
                    (Source::Far, _) => self.l2_far_latency,
                    (_, Access::Bulk) => self.l2_latency,
                    (_, Access::Lines) => self.draw(self.l2_latency, self.l2_spread),
                };
                if source == Source::Far {
                    self.far_hits += 1;
                }
                let filled = key.zip(self.filling.as_ref()).and_then(|(k, f)| f.get(&k)).copied().unwrap_or(0.0);
                (l2_done + latency).max(filled)
            }
            Source::Hbm => {
                self.misses += 1;
                let hbm_done = self.hbm.serve(t, from_hbm);
                let back = l2_done.max(hbm_done) + self.draw(self.hbm_latency, self.hbm_spread);
                if let (Some(k), Some(filling)) = (key, self.filling.as_mut()) {
                    filling.insert(k, back);
                }
                back
            }
        };
        if let Some(k) = key.filter(|_| coalescing) {
            self.last_asked.insert(k, (t, back));
        }
        (back, source != Source::Hbm)
    }

    /// The miss of `key` just loaded takes `extra` cycles more before its SM's waiter resumes
    /// (`tma.miss_extra_latency_cycles` or its loaded form): with
    /// `l2.fill_takes_miss_extra` its lines are filled that much later too, for the hits
    /// that wait for the fill and the loads the coalescer answers with its data.
    pub fn miss_extra(&mut self, key: Option<GlobalTile>, extra: f64) {
        let Some(k) = key.filter(|_| self.fill_takes_miss_extra) else {
            return;
        };
        if let Some(back) = self.filling.as_mut().and_then(|f| f.get_mut(&k)) {
            *back += extra;
        }
        if let Some((_, back)) = self.last_asked.get_mut(&k) {
            *back += extra;
        }
    }

    /// A latency of median `median` and spread `spread`, drawn.
    fn draw(&mut self, median: f64, spread: Spread) -> f64 {
        spread.quantile(median, self.rng.unit())
    }

    /// A store of `bytes` arriving at the L2 at `t`; returns the cycle it is written to L2.
    pub fn store(&mut self, t: f64, bytes: u32, key: Option<GlobalTile>) -> f64 {
        if let Some(k) = key {
            self.content.store(k, bytes);
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
    fn streams_share_the_l2_bandwidth() {
        let timing = Timing::new(&crate::sim::Machine::h200(), 1.0);
        let sms = 200;
        let mut mem = MemorySystem::new(&timing, sms, 0);
        let own = timing.tma_bytes_per_clk;
        let l2 = timing.l2_bytes_per_clk;
        assert!(l2 / (sms as f64) < own && own < l2, "the test needs the share below the SM's rate");
        // Alone, an SM streams at its own rate; with every other SM streaming, at the L2's
        // rate over the SM count.
        assert_eq!(mem.stream_rate(mem.loading(0, 0.0), own), own);
        for sm in 1..sms {
            mem.outstanding_until(sm, 100.0);
        }
        assert_eq!(mem.stream_rate(mem.loading(0, 50.0), own), l2 / sms as f64);
        assert_eq!(mem.stream_rate(mem.loading(0, 100.0), own), own, "loads that have landed do not count");
        assert!(mem.loading(0, 50.0) > 1.0 && mem.loading(0, 100.0) == 1.0);
        assert!(MemorySystem::new(&timing, sms, 0).landing.iter().all(|&u| u == 0.0));
        assert_eq!(MemorySystem::new(&timing, sms, 0).loading(0, 0.0), 1.0, "alone");
        mem.outstanding_until(7, 10.0);
        assert_eq!(mem.landing[7], 100.0, "the last landing only moves later");
        let w = timing.l2_write_bytes_per_clk;
        assert_eq!(mem.write_rate(0, 0.0, 1e9), w, "alone, the whole write bandwidth");
        mem.writing_until(3, 100.0);
        assert_eq!(mem.write_rate(0, 50.0, 1e9), w / 2.0);
        assert_eq!(mem.write_rate(3, 50.0, 1e9), w, "an SM does not share with itself");
        assert_eq!(mem.write_rate(0, 50.0, 1.0), 1.0, "at most its own rate");
        let s = timing.l2_sector_write_bytes_per_clk;
        assert!(s.whole < w, "stores of 32 bytes per line write less than bulk stores");
        assert!(s.part < s.whole, "stores of part of each sector write less than whole ones");
        assert_eq!(
            mem.sector_write_rate(0, 50.0, SectorFill::Whole, 1e9),
            s.whole / 2.0,
            "warp stores share with bulk stores"
        );
        assert_eq!(mem.sector_write_rate(0, 50.0, SectorFill::Part, 1e9), s.part / 2.0);
        assert_eq!(mem.sector_write_rate(0, 50.0, SectorFill::Whole, 1.0), 1.0, "at most its own rate");
        assert_eq!(SectorFill::of(8 * 32, 8), SectorFill::Whole, "an f32 fragment's column pairs");
        assert_eq!(SectorFill::of(8 * 16, 8), SectorFill::Part, "a bf16 fragment's");
        let mut s = Server::new(100.0);
        assert_eq!(s.serve_at(0.0, 1000, 50.0), 20.0);
        assert_eq!(s.serve_at(0.0, 1000, 500.0), 30.0, "at most the server's own rate");
    }

    #[test]
    fn a_load_of_a_tile_asked_for_within_the_window_is_answered_with_its_data() {
        let mut machine = crate::sim::Machine::h200();
        machine.l2.coalescing_window_cycles.value = 20;
        let timing = Timing::new(&machine, 1.0);
        let mut mem = MemorySystem::new(&timing, 4, 0);
        let tile = |origin| Some(GlobalTile { tensor: 1, origin });
        // A backlog of 100 other tiles in front of the slices.
        for origin in 1..=100 {
            mem.load(0, 0.0, 8192, tile(origin), false, Access::Bulk);
        }
        let (back, hit) = mem.load(0, 0.0, 8192, tile(0), false, Access::Bulk);
        assert!(!hit, "the first load misses");
        let served = mem.l2.bytes;
        // Another SM asks for the tile within the window: the same data, no L2 bandwidth,
        // and the SMs' shares of the L2 grow.
        let share = mem.stream_rate(mem.loading(0, 0.0), 1e9);
        assert_eq!(mem.load(0, 20.0, 8192, tile(0), false, Access::Bulk), (back, true));
        assert_eq!((mem.l2.bytes, mem.coalesced, mem.misses), (served, 1, 101));
        assert!(mem.stream_rate(mem.loading(0, 0.0), 1e9) > share);
        // Past the window a load goes to the slices again, however long the first still
        // waits for them (and hits).
        assert!(mem.l2.free - 8192.0 / mem.l2.rate > 21.0, "the first is still queued");
        let (_, hit) = mem.load(0, 21.0, 8192, tile(0), false, Access::Bulk);
        assert!(hit);
        assert_eq!(mem.l2.bytes, served + 8192);
        // Without a coalescer every load reaches the slices.
        machine.l2.coalescing_window_cycles.value = 0;
        let mut plain = MemorySystem::new(&Timing::new(&machine, 1.0), 4, 0);
        for origin in [1, 2, 1] {
            plain.load(0, 0.0, 8192, tile(origin), false, Access::Bulk);
        }
        assert_eq!((plain.l2.bytes, plain.coalesced), (3 * 8192, 0));
    }

    #[test]
    fn with_the_fill_wait_a_hit_on_a_tile_still_filling_comes_back_with_its_fill() {
        let back_of_second = |wait: bool| {
            let mut machine = crate::sim::Machine::h200();
            machine.l2.coalescing_window_cycles.value = 0;
            machine.l2.hit_waits_for_fill.value = wait;
            let mut mem = MemorySystem::new(&Timing::new(&machine, 1.0), 4, 0);
            let tile = Some(GlobalTile { tensor: 1, origin: 7 });
            let (first, hit) = mem.load(0, 0.0, 8192, tile, false, Access::Bulk);
            assert!(!hit, "the first load misses");
            // SM 2 shares SM 0's partition: its load of the same tile hits there.
            let (second, hit) = mem.load(2, 100.0, 8192, tile, false, Access::Bulk);
            assert!(hit);
            (first, second)
        };
        let (first, early) = back_of_second(false);
        assert!(early < first, "without the wait the hit returns before the miss: {early} / {first}");
        let (first, waited) = back_of_second(true);
        assert_eq!(waited, first, "with it the hit returns with the fill");
        // Once the fill is back, a hit takes the L2's latency again.
        let mut machine = crate::sim::Machine::h200();
        machine.l2.hit_waits_for_fill.value = true;
        let mut mem = MemorySystem::new(&Timing::new(&machine, 1.0), 4, 0);
        let tile = Some(GlobalTile { tensor: 1, origin: 7 });
        let (first, _) = mem.load(0, 0.0, 8192, tile, false, Access::Bulk);
        let (later, hit) = mem.load(2, first + 1.0, 8192, tile, false, Access::Bulk);
        assert!(hit && later - (first + 1.0) < 1000.0, "{later} / {first}");
    }

    #[test]
    fn the_sms_streaming_are_those_whose_data_arrives_then() {
        let timing = Timing::new(&crate::sim::Machine::h200(), 1.0);
        let mut mem = MemorySystem::new(&timing, 8, 0);
        assert_eq!(mem.streaming(0, 0.0), 1.0, "alone");
        // SMs 1-3 have loads outstanding from cycle 0; only SM 1's data streams by 500.
        for sm in 1..4 {
            mem.outstanding_until(sm, 2000.0);
        }
        mem.streams(1, 400.0, 900.0);
        mem.streams(2, 1200.0, 1700.0);
        assert_eq!(mem.loading(0, 500.0), 4.0, "every SM with a load outstanding");
        assert_eq!(mem.streaming(0, 500.0), 2.0, "only SM 1 streams then");
        assert_eq!(mem.streaming(0, 900.0), 1.0, "a window ends with its last byte");
        assert_eq!(mem.streaming(1, 500.0), 1.0, "an SM does not share with itself");
        // An SM's next copy, streaming on from its last, widens its window.
        mem.streams(1, 900.0, 1400.0);
        assert_eq!(mem.streaming(0, 1300.0), 3.0);
        mem.streams(1, 3000.0, 3100.0);
        assert_eq!(mem.streaming(0, 1300.0), 2.0, "a later, separate copy starts a new window");
    }

    #[test]
    fn with_the_fill_taking_the_miss_extra_a_waiting_hit_and_a_coalesced_load_wait_for_it_too() {
        let backs = |takes: bool| {
            let mut machine = crate::sim::Machine::h200();
            machine.l2.coalescing_window_cycles.value = 20;
            machine.l2.hit_waits_for_fill.value = true;
            machine.l2.fill_takes_miss_extra.value = takes;
            let mut mem = MemorySystem::new(&Timing::new(&machine, 1.0), 4, 0);
            let tile = Some(GlobalTile { tensor: 1, origin: 7 });
            let (first, hit) = mem.load(0, 0.0, 8192, tile, false, Access::Bulk);
            assert!(!hit, "the first load misses");
            mem.miss_extra(tile, 300.0);
            let (coalesced, hit) = mem.load(1, 10.0, 8192, tile, false, Access::Bulk);
            assert!(hit && mem.coalesced == 1, "answered by the coalescer");
            let (waited, hit) = mem.load(2, 100.0, 8192, tile, false, Access::Bulk);
            assert!(hit && mem.coalesced == 1, "a hit waiting for the fill");
            // Another tile's fill is not moved.
            let other = Some(GlobalTile { tensor: 1, origin: 8 });
            let (other_first, _) = mem.load(0, 0.0, 8192, other, false, Access::Bulk);
            let (other_waited, _) = mem.load(2, 100.0, 8192, other, false, Access::Bulk);
            assert_eq!(other_waited, other_first);
            (first, coalesced, waited)
        };
        let (first, coalesced, waited) = backs(false);
        assert_eq!((coalesced, waited), (first, first), "off: back with the miss's data at the L2");
        let (first, coalesced, waited) = backs(true);
        assert_eq!((coalesced, waited), (first + 300.0, first + 300.0), "on: the extra too");
    }
}
