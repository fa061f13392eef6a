//! The SM's asynchronous units: the tensor cores (MMA groups, back to back, one server for
//! the four sub-partitions) and the TMA unit (bulk copies through the memory system). Both
//! run collective instructions, which fire once the last warp of the instance issues them.

use std::collections::VecDeque;

use crate::report::{SpanKind, TmaCopy};

use super::super::lower::Instr;
use super::super::memory::{Access, MemorySystem};
use super::super::timing::Timing;
use super::{Env, EventKind, Sm, ceil};

/// The SM's tensor cores.
#[derive(Debug, Default)]
pub(super) struct TensorCores {
    /// Free from this cycle.
    free: f64,
    /// Fractional cycles owed to FMA-pipe interference with RS MMAs.
    debt: f64,
    /// `(start, end)` of queued MMAs that read A from registers, oldest first.
    rs_windows: VecDeque<(f64, f64)>,
}

impl TensorCores {
    /// Whether work is queued on the tensor cores at cycle `t`.
    pub fn busy_at(&self, t: u64) -> bool {
        (t as f64) < self.free
    }

    /// Whether an MMA with A in registers occupies the tensor cores at `at`.
    pub fn rs_running(&mut self, at: f64) -> bool {
        while self.rs_windows.front().is_some_and(|&(_, end)| end <= at) {
            self.rs_windows.pop_front();
        }
        self.rs_windows.iter().any(|&(start, end)| start <= at && at < end)
    }

    /// Queues `instrs` MMAs, each occupying the cores `occupancy` cycles and done `latency`
    /// cycles after it starts, arriving at `t`. Returns when the first starts and when the
    /// last is done.
    fn run(&mut self, t: u64, instrs: u32, occupancy: f64, latency: f64, a_in_registers: bool) -> (f64, f64) {
        let first_start = self.free.max(t as f64);
        let mut done = first_start;
        for _ in 0..instrs {
            let start = self.free.max(t as f64);
            self.free = start + occupancy;
            done = start + latency;
        }
        if a_in_registers {
            self.rs_windows.push_back((first_start, self.free));
        }
        (first_start, done)
    }

    /// Adds `cycles` of delay to the work not finished by `at`; returns the whole cycles the
    /// work shifts now (the fraction is kept for later).
    fn delay(&mut self, at: u64, cycles: f64) -> Option<f64> {
        self.debt += cycles;
        let shift = self.debt.floor();
        if shift < 1.0 {
            return None;
        }
        self.debt -= shift;
        self.free += shift;
        let at_f = at as f64;
        for w in &mut self.rs_windows {
            if w.1 > at_f {
                w.1 += shift;
                if w.0 > at_f {
                    w.0 += shift;
                }
            }
        }
        Some(shift)
    }
}

impl Sm {
    /// Delays all tensor-core work not finished by `at` by `cycles` (accumulated until whole).
    pub(super) fn delay_tensor(&mut self, at: u64, cycles: f64) {
        let Some(shift) = self.tensor.delay(at, cycles) else { return };
        let at_f = at as f64;
        for resident in &mut self.residents {
            for inst in &mut resident.instances {
                for done in inst.mma_done.iter_mut().rev() {
                    if *done <= at {
                        break;
                    }
                    *done += shift as u64;
                }
                if inst.mma_tail > at_f {
                    inst.mma_tail += shift;
                }
            }
        }
    }

    /// A bulk copy moved `bytes` through shared memory at `t`: MMAs running then lose
    /// `tensor_copy_delay_per_byte` cycles per byte (`tensor.interference.copy_delay_per_kib`).
    pub(super) fn copy_interferes(&mut self, t: u64, bytes: u32, timing: &Timing) {
        if timing.tensor_copy_delay_per_byte > 0.0 && self.tensor.busy_at(t) {
            self.delay_tensor(t, f64::from(bytes) * timing.tensor_copy_delay_per_byte);
        }
    }

    /// Streams a load of `bytes` issued at `issued`, whose first data arrives at `first_data`,
    /// into shared memory after the copies before it, at this SM's share of the L2 among the
    /// SMs with a TMA load outstanding when it was issued (`MemorySystem::stream_rate`);
    /// returns the cycle its last byte lands.
    pub(super) fn stream_in(
        &mut self,
        issued: f64,
        first_data: f64,
        bytes: u32,
        timing: &Timing,
        mem: &mut MemorySystem,
    ) -> f64 {
        let rate = mem.stream_rate(self.id, issued, timing.tma_bytes_per_clk);
        let landed = self.tma.serve_at(first_data, bytes, rate);
        mem.outstanding_until(self.id, landed);
        landed
    }

    /// Whether warp `w` is the last of its instance to issue its latest collective.
    pub(super) fn last_to_issue(&self, w: usize, env: &Env<'_>) -> bool {
        let warp = &self.warps[w];
        let inst = &env.shape.instances[warp.instance as usize];
        let k = warp.collectives;
        self.instance_warps(warp.resident as usize, inst, env).all(|x| self.warps[x].collectives >= k)
    }

    /// The instance of warp `w` performs collective `instr` at `t`.
    pub(super) fn fire(&mut self, w: usize, instr: Instr, t: u64, env: &Env<'_>, mem: &mut MemorySystem) {
        let timing = env.timing;
        let (resident, instance) = (self.warps[w].resident as usize, self.warps[w].instance as usize);
        self.residents[resident].instances[instance].fired += 1;
        let traced = self.residents[resident].traced;
        match instr {
            Instr::Mma { instrs, fma, n, dtype, .. } | Instr::Umma { instrs, fma, n, dtype, .. } => {
                let a_in_registers = matches!(instr, Instr::Mma { a_in_registers: true, .. });
                let occupancy = fma as f64 / timing.tensor_rate(dtype);
                let latency = match instr {
                    Instr::Umma { a_in_tmem: true, .. } => timing.mma_latency_tmem_a(n),
                    _ => timing.mma_latency(n),
                };
                let latency = (latency as f64).max(occupancy);
                // A `wgmma` group reaches the tensor cores `mma_group_start` after its issue.
                let arrival = if let Instr::Mma { .. } = instr { t + timing.mma_group_start } else { t };
                let (first_start, done) = self.tensor.run(arrival, instrs, occupancy, latency, a_in_registers);
                self.stats.tensor_busy += occupancy * f64::from(instrs);
                self.stats.mma_fma += fma * u64::from(instrs);
                let state = &mut self.residents[resident].instances[instance];
                state.mma_tail = state.mma_tail.max(done);
                if let Instr::Mma { .. } = instr {
                    let done = ceil(done);
                    state.mma_done.push(done);
                    for x in std::mem::take(&mut state.mma_waiters) {
                        self.wake(x as usize, done.max(t));
                    }
                }
                if traced {
                    let kind = SpanKind::MmaGroup { instrs, n, dtype };
                    self.trace_tensor(kind, ceil(first_start), ceil(self.tensor.free), env);
                }
            }
            Instr::MmaCommit { barrier } => {
                let s = &mut self.residents[resident];
                let at = ceil(s.instances[instance].mma_tail).max(t);
                s.outstanding = s.outstanding.max(at as f64);
                let generation = s.generation;
                self.push_event(at, EventKind::MmaArrive { resident: resident as u32, generation, barrier });
            }
            Instr::TmaLoad { barrier, bytes, src } => {
                // First data after the memory latency, then streamed into shared memory at
                // the TMA unit's share of the L2 (one copy at a time); the extra covers the
                // rest up to the waiter resuming (calibrated end to end).
                let (first_data, hit) = mem.load(t as f64, bytes, src, false, Access::Bulk);
                self.stats.tma_bytes += u64::from(bytes);
                let streamed = self.stream_in(t as f64, first_data, bytes, timing, mem);
                let extra = if hit { timing.tma_extra_latency } else { timing.tma_miss_extra_latency };
                let land = ceil(streamed) + extra;
                let s = &mut self.residents[resident];
                s.outstanding = s.outstanding.max(land as f64);
                let generation = s.generation;
                self.push_event(land, EventKind::TxLand { resident: resident as u32, generation, barrier, bytes });
                if traced {
                    let copy = TmaCopy::Load { bytes, barrier: env.shape.stage(barrier) };
                    let span = self.trace_copy(copy, t, land, env);
                    self.note_arrival(resident, barrier, span);
                }
            }
            Instr::TmaStore { bytes, dst } => {
                // Read out of shared memory at the SM's share of the store bandwidth, at most
                // the one-SM store rate (measured: the read completes with the write, so the
                // read paces the copy), then written through L2.
                let rate = mem.write_rate(self.id, t as f64, timing.tma_store_bytes_per_clk);
                let read = self.tma_store.serve_at(t as f64, bytes, rate);
                self.copy_interferes(t, bytes, timing);
                self.stats.tma_bytes += u64::from(bytes);
                let written = mem.store(t as f64, bytes, dst).max(read);
                mem.writing_until(self.id, written);
                let s = &mut self.residents[resident];
                s.outstanding = s.outstanding.max(written);
                let read = ceil(read);
                let state = &mut s.instances[instance];
                state.store_read.push(read);
                for x in std::mem::take(&mut state.store_waiters) {
                    self.wake(x as usize, read.max(t));
                }
                if traced {
                    self.trace_copy(TmaCopy::Store { bytes }, t, ceil(written), env);
                }
            }
            Instr::TmaLoadMulticast { barrier, bytes, src, mask } => {
                self.fire_multicast(resident, (barrier, bytes, src, mask), t, env, mem);
            }
            Instr::ClusterArrive { barrier, mask } => self.fire_cluster_arrive(resident, barrier, mask, t, env),
            Instr::Arrive { barrier, tx_bytes } if self.residents[resident].mbar(barrier).bar.arrive(tx_bytes) => {
                self.phase_completed(resident, barrier, t, timing.mbarrier_wake);
            }
            // An arrival that completes no phase; the others are not collective.
            _ => {}
        }
    }
}
