//! The SM's asynchronous units: the tensor cores (`tensor.rs`) and the TMA unit (bulk copies
//! through the memory system). Both run collective instructions, which fire once the last
//! warp of the instance issues them.

use crate::report::TmaCopy;

use super::super::lower::Instr;
use super::super::memory::{Access, MemorySystem};
use super::super::timing::Timing;
use super::sync::OpenGroup;
use super::tensor::{GroupArrival, GroupOwner};
use super::{Env, EventKind, Sm, ceil};

/// Which way a bulk copy moves data through shared memory, for its interference with
/// running MMAs ([`Sm::copy_interferes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CopyKind {
    /// A TMA tile load writing into shared memory.
    TileLoad,
    /// A TMA store reading out of it.
    StoreRead,
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

    /// An earlier `wgmma` group of `owner` now completes at `done`, behind instructions of a
    /// group issued after it: its waits see the later time (a warp blocked until the earlier
    /// one tests again then).
    fn group_pushed_back(&mut self, owner: GroupOwner, done: f64) {
        let Some(resident) = self.residents.get_mut(owner.resident as usize) else { return };
        if resident.generation != owner.generation {
            return;
        }
        let state = &mut resident.instances[owner.instance as usize];
        if let Some(at) = owner.index.and_then(|i| state.mma_done.get_mut(i as usize)) {
            *at = (*at).max(ceil(done));
        } else if let Some(open) = state.mma_open.as_mut().filter(|_| owner.index == Some(state.mma_done.len() as u32))
        {
            open.done = open.done.max(done);
        }
        state.mma_tail = state.mma_tail.max(done);
    }

    /// A bulk copy moved `bytes` through shared memory at `t`: MMAs running then lose the
    /// copy's cycles per byte, `tensor.interference.tile_load_delay_per_kib` for a TMA tile
    /// load landing (nothing where copies are free: no data lands) and `copy_delay_per_kib`
    /// for a store's read.
    pub(super) fn copy_interferes(&mut self, t: u64, bytes: u32, copy: CopyKind, timing: &Timing) {
        let per_byte = match copy {
            CopyKind::TileLoad if timing.copies_free => 0.0,
            CopyKind::TileLoad => timing.tensor_tile_load_delay_per_byte,
            CopyKind::StoreRead => timing.tensor_copy_delay_per_byte,
        };
        if per_byte > 0.0 && self.tensor.busy_at(t) {
            self.delay_tensor(t, f64::from(bytes) * per_byte);
        }
    }

    /// Streams a load of `bytes`, issued while `loading` SMs had a TMA load outstanding and
    /// whose first data arrives at `first_data`, into shared memory after the copies before
    /// it, at this SM's share of the L2 among them (`MemorySystem::stream_rate`), or with
    /// `l2.share_among_streaming` among the SMs whose data streams in at `first_data`;
    /// returns the cycle its last byte lands.
    pub(super) fn stream_in(
        &mut self,
        loading: f64,
        first_data: f64,
        bytes: u32,
        timing: &Timing,
        mem: &mut MemorySystem,
    ) -> f64 {
        let by_stream = timing.l2_share_among_streaming;
        let sharing = if by_stream { mem.streaming(self.id, first_data) } else { loading };
        let rate = mem.stream_rate(sharing, timing.tma_bytes_per_clk);
        let landed = self.tma.serve_at(first_data, bytes, rate);
        mem.outstanding_until(self.id, landed);
        if by_stream {
            mem.streams(self.id, landed - f64::from(bytes) / rate, landed);
        }
        landed
    }

    /// The cycle a TMA load of `bytes` from `src` issued at `t` lands: its first data after
    /// the memory latency, streamed in ([`Sm::stream_in`]), then the extra up to the waiter
    /// resuming (calibrated end to end: a hit's, or a miss's alone or while another SM has a
    /// TMA load outstanding); at `t` where copies are free ([`Timing::copies_free`]).
    pub(super) fn load_lands(
        &mut self,
        t: u64,
        bytes: u32,
        src: Option<crate::dsl::GlobalTile>,
        env: &Env<'_>,
        mem: &mut MemorySystem,
    ) -> u64 {
        let timing = env.timing;
        if timing.copies_free {
            return t;
        }
        let loading = mem.loading(self.id, t as f64);
        let (first_data, hit) = mem.load(self.id, t as f64, bytes, src, false, Access::Bulk);
        let streamed = self.stream_in(loading, first_data, bytes, timing, mem);
        let extra = match (hit, loading > 1.0) {
            (true, _) => timing.tma_extra_latency,
            (false, false) => timing.tma_miss_extra_latency,
            (false, true) => timing.tma_miss_extra_latency_loaded,
        };
        if !hit {
            mem.miss_extra(src, extra as f64);
        }
        ceil(streamed) + extra
    }

    /// Whether warp `w` is the last of its instance to issue its latest collective.
    pub(super) fn last_to_issue(&self, w: usize, env: &Env<'_>) -> bool {
        let warp = &self.warps[w];
        let inst = &env.shape.instances[warp.instance as usize];
        let k = warp.collectives;
        self.instance_warps(warp.resident as usize, inst, env).all(|x| self.warps[x].collectives >= k)
    }

    /// The latest fence of the instance's warps before the collective warp `w` has just
    /// issued, if the warps issued descriptor arithmetic after one.
    fn latest_fence(&self, w: usize, env: &Env<'_>) -> Option<u64> {
        let warp = &self.warps[w];
        let inst = &env.shape.instances[warp.instance as usize];
        let k = warp.collectives - 1;
        self.instance_warps(warp.resident as usize, inst, env)
            .filter_map(|x| self.warps[x].fence.filter(|&(at, _)| at == k).map(|(_, t)| t))
            .max()
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
                // A group's first `wgmma` reaches the tensor cores its start (`Timing::group_start`) after its
                // issue (or, with `mma_group_start_from_fence` where its descriptors are built
                // between the two, after the instance's latest fence, and not before its
                // issue); the later ones of the group (issued one by one where the lowering
                // places descriptor arithmetic between them) as they issue, and each at least
                // `mma_instr_interval_per_column` N cycles after the one before.
                let wgmma = matches!(instr, Instr::Mma { .. });
                let commits = matches!(instr, Instr::Umma { .. } | Instr::Mma { commits: true, .. });
                let state = &self.residents[resident].instances[instance];
                let interval = if wgmma { timing.mma_instr_interval_per_column * f64::from(n) } else { 0.0 };
                let open = state.mma_open.filter(|_| wgmma);
                let from = if wgmma && timing.mma_group_start_from_fence && timing.descriptors_lead(a_in_registers) {
                    self.latest_fence(w, env).unwrap_or(t)
                } else {
                    t
                };
                let start = if wgmma && open.is_none() { timing.group_start(a_in_registers) } else { 0 };
                let mut reach = (from + start).max(t) as f64;
                if let Some(open) = open {
                    reach = reach.max(open.reach + interval);
                }
                let owner = GroupOwner {
                    resident: resident as u32,
                    generation: self.residents[resident].generation,
                    instance: instance as u32,
                    index: wgmma.then_some(state.mma_done.len() as u32),
                };
                let group = GroupArrival {
                    reach,
                    interval,
                    instrs,
                    occupancy,
                    latency,
                    a_in_registers,
                    owner,
                    n,
                    dtype,
                    traced,
                };
                let (run, pushed) = self.tensor.run(t as f64, group);
                for (o, later) in pushed {
                    self.group_pushed_back(o, later.done);
                }
                self.stats.tensor_busy += occupancy * f64::from(instrs);
                self.stats.mma_fma += fma * u64::from(instrs);
                let state = &mut self.residents[resident].instances[instance];
                state.mma_tail = state.mma_tail.max(run.done);
                // The group's MMAs so far complete by `done`.
                let done = state.mma_open.map_or(run.done, |open| open.done.max(run.done));
                if wgmma && !commits {
                    let last = reach + interval * f64::from(instrs - 1);
                    state.mma_open = Some(OpenGroup { reach: last, done });
                } else if wgmma {
                    state.mma_open = None;
                    let done = ceil(done);
                    state.mma_done.push(done);
                    for x in std::mem::take(&mut state.mma_waiters) {
                        self.wake(x as usize, done.max(t));
                    }
                }
                if traced {
                    self.trace_tensor_runs(false, env);
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
                // Streamed into shared memory at the TMA unit's share of the L2, one copy at
                // a time.
                let land = self.load_lands(t, bytes, src, env, mem);
                if !timing.copies_free {
                    self.stats.tma_bytes += u64::from(bytes);
                }
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
                self.copy_interferes(t, bytes, CopyKind::StoreRead, timing);
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
