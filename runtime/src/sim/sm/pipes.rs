//! The sub-partitions' pipes and ports: issuing one warp-instruction holds its pipe for the
//! pipe's interval (longer while the tensor cores are busy: interference), a shared-memory
//! access holds the SM's shared-memory port, a tensor-memory access its sub-partition's
//! port; the results feed the warp's scoreboard.

use crate::report::StallReason;

use super::super::error::SimError;
use super::super::lower::{Dep, Instr};
use super::super::memory::{Access, MemorySystem, SectorFill};
use super::super::mix::MIX_PARTS;
use super::super::sites::Queued;
use super::super::timing::{ExecPipe, Timing};
use super::sync::WaitTest;
use super::warp::{Block, result_reason, wait_reason};
use super::{Driver, Env, Sm, ceil};

/// One sub-partition: its scheduler's warps and its pipes.
#[derive(Debug)]
pub(super) struct SubPartition {
    /// Resident live warps, oldest first.
    pub warps: Vec<u32>,
    /// Per pipe ([`ExecPipe::index`]), the cycle it is free from.
    pub pipe_free: [u64; ExecPipe::ALL.len()],
    /// Fractional pipe cycles owed to tensor-core interference, per pipe.
    pipe_debt: [f64; ExecPipe::ALL.len()],
    /// The tensor-memory port is free from this cycle.
    pub tmem_free: f64,
    /// The warp the scheduler issued from last.
    pub last_issued: Option<u32>,
}

impl SubPartition {
    /// An idle sub-partition.
    pub fn new() -> Self {
        SubPartition {
            warps: Vec::new(),
            pipe_free: [0; ExecPipe::ALL.len()],
            pipe_debt: [0.0; ExecPipe::ALL.len()],
            tmem_free: 0.0,
            last_issued: None,
        }
    }
}

impl Sm {
    /// Issues one warp-instruction of warp `w` at cycle `t`.
    pub(super) fn issue(
        &mut self,
        w: usize,
        t: u64,
        env: &Env<'_>,
        mem: &mut MemorySystem,
        driver: &mut dyn Driver,
    ) -> Result<(), SimError> {
        let Some(&Queued { instr: head, site }) = self.warps[w].queue.front() else { return Ok(()) };
        if let Instr::Wait(wait) = head {
            // Testing a wait takes one issue cycle.
            if !self.warps[w].wait_started {
                self.warps[w].head_start = t;
            }
            match self.test_wait(w, wait, t, env) {
                WaitTest::Pass => return self.pass_wait(w, wait, t, env, driver),
                WaitTest::Until(at) => self.warps[w].block = Block::Until(at, wait_reason(&wait)),
                WaitTest::Blocked => self.warps[w].block = Block::Forever(wait_reason(&wait)),
            }
            return Ok(());
        }
        let timing = env.timing;
        let smsp = self.warps[w].smsp as usize;
        let starting = self.warps[w].head_left == 0;
        if starting {
            let warp = &mut self.warps[w];
            warp.head_left = head.issues().max(1);
            warp.head_start = t;
        }
        // One warp-instruction of the head.
        match head {
            Instr::Exec { pipe, dep, elements, .. } => {
                let start = self.start_on_for(smsp, pipe, elements, t, 0, timing);
                self.interfere(smsp, pipe, t, start, timing);
                let latency = if dep == Dep::Bookkeeping {
                    self.bookkeeping_latency(w, start, pipe, timing)
                } else {
                    timing.pipe(pipe).latency
                };
                let warp = &mut self.warps[w];
                if dep.is_chain() {
                    warp.chain_ready = start + latency;
                }
                if starting {
                    warp.head_first_result = start + latency;
                }
            }
            Instr::Mix(mix) => {
                let k = mix.next(&self.warps[w].mix_issued);
                let part = mix.part(k);
                let start = self.start_on_for(smsp, part.pipe, u32::from(part.elements), t, 0, timing);
                self.interfere(smsp, part.pipe, t, start, timing);
                let result = start + timing.pipe(part.pipe).latency;
                let warp = &mut self.warps[w];
                if warp.mix_issued[k] == 0 {
                    if k + 1 < mix.parts().len() {
                        warp.mix_ready[k + 1] = result;
                    } else {
                        warp.head_first_result = result;
                    }
                }
                warp.mix_issued[k] += 1;
            }
            Instr::Shared { bytes, load, .. } => {
                let start = self.start_on(smsp, ExecPipe::Lsu, t, ceil(self.smem_free), timing);
                self.smem_free = self.smem_free.max(start as f64) + f64::from(bytes) / timing.smem_bytes_per_clk;
                self.stats.smem_bytes += u64::from(bytes);
                if starting && load {
                    self.warps[w].head_first_result = start + timing.smem_latency;
                }
            }
            Instr::GlobalLoad { bytes, from_hbm, .. } => {
                let start = self.start_on(smsp, ExecPipe::Lsu, t, 0, timing);
                let done = ceil(mem.load(self.id, start as f64, bytes, None, from_hbm, Access::Lines).0);
                if starting {
                    self.warps[w].head_first_result = done;
                }
            }
            Instr::GlobalStore { bytes, lines, .. } => {
                // The L1 data path takes one wavefront per cache line the store touches, on
                // the port shared memory uses; the data then leaves the SM at its share of what
                // the GPU's warp stores of its kind write (at most one SM's rate alone), and the
                // next store waits for the SM's write path.
                let free = self.smem_free.max(self.write_free);
                let start = self.start_on(smsp, ExecPipe::Lsu, t, ceil(free), timing);
                self.smem_free = self.smem_free.max(start as f64) + f64::from(lines);
                let fill = SectorFill::of(bytes, lines);
                let rate =
                    mem.sector_write_rate(self.id, start as f64, fill, timing.global_store_bytes_per_clk.of(fill));
                self.write_free = self.write_free.max(start as f64) + f64::from(bytes) / rate;
                let done = mem.store(start as f64, bytes, None).max(self.write_free);
                mem.writing_until(self.id, done);
                let s = &mut self.residents[self.warps[w].resident as usize];
                s.outstanding = s.outstanding.max(done);
            }
            Instr::Tmem { bytes, load, .. } => {
                let Some(tmem) = timing.tmem else { return Ok(()) };
                self.stats.tmem_bytes += u64::from(bytes);
                let port = &mut self.smsps[smsp].tmem_free;
                *port = port.max(t as f64) + f64::from(bytes) / tmem.bytes_per_clk_per_smsp;
                if starting && load {
                    self.warps[w].head_first_result = t + tmem.load_latency;
                }
            }
            Instr::TryWait { form } => self.warps[w].try_wait = Some((t, form)),
            // Collective and synchronising instructions take only their issue cycle here.
            _ => {}
        }
        match head {
            Instr::Exec { dep: Dep::Descriptor { a_in_registers }, .. } => {
                // The first descriptor instruction since the warp's last collective follows
                // the fence of the group whose MMA comes next (kept only where the start
                // runs from the fence).
                let warp = &mut self.warps[w];
                if timing.mma_group_start_from_fence && warp.fence.is_none_or(|(k, _)| k != warp.collectives) {
                    warp.fence = Some((warp.collectives, t));
                }
                // The descriptors' own stall where the machine has one, else the mean's;
                // stretched while the warp's own warpgroup has a group in flight, where the
                // lowering places the arithmetic before its MMAs as the compiled code does (the
                // group at once stands for that code with a start fitted without the stretch).
                let own = timing.mma_descriptor_stall[usize::from(a_in_registers)];
                let stall = if own > 1.0 { own } else { timing.fixed_stall };
                let stretched = timing.descriptors_lead(a_in_registers) && self.own_group_in_flight(w, t);
                let factor = if stretched { timing.descriptor_latency_own } else { 1.0 };
                self.fixed_stall(w, t, stall * factor)
            }
            Instr::Exec { .. } | Instr::Mix(_) => self.fixed_stall(w, t, timing.fixed_stall),
            _ => {}
        }
        let warp = &mut self.warps[w];
        warp.head_left -= 1;
        if warp.head_left > 0 {
            return Ok(());
        }
        // The head instruction has issued completely.
        warp.queue.pop_front();
        match head {
            Instr::Exec { pipe, dep, .. } => {
                warp.dep_ready = if dep.is_chain() { warp.chain_ready } else { warp.head_first_result };
                warp.dep_reason = result_reason(pipe);
            }
            Instr::Mix(mix) => {
                // Counts start from zero for the next mix, whose gate is computed before it starts.
                warp.mix_issued = [0; MIX_PARTS];
                warp.dep_ready = warp.head_first_result;
                warp.dep_reason = result_reason(mix.part(mix.parts().len() - 1).pipe);
            }
            Instr::Shared { load: true, .. } | Instr::Tmem { load: true, .. } => {
                warp.dep_ready = warp.head_first_result;
                warp.dep_reason = StallReason::ShortScoreboard;
            }
            Instr::GlobalLoad { .. } => {
                warp.dep_ready = warp.head_first_result;
                warp.dep_reason = StallReason::LongScoreboard;
            }
            _ => {}
        }
        if head.is_collective() {
            warp.collectives += 1;
        }
        if let Instr::Mma { commits: true, .. } = head {
            warp.mma_groups += 1;
        }
        if let Instr::TmaStore { .. } = head {
            warp.stores += 1;
        }
        let fired = head.is_collective() && self.last_to_issue(w, env);
        if fired {
            self.fire(w, head, t, env, mem);
        }
        if let Instr::NamedArrive { barrier } = head {
            self.named_arrive(w, barrier, t, env);
        }
        if self.warps[w].traced {
            let start = self.warps[w].head_start;
            let span = self.trace_issued(w, &head, site, start, t + 1, env);
            if let (true, Instr::Arrive { barrier, .. } | Instr::MmaCommit { barrier }) = (fired, head) {
                self.note_arrival(self.warps[w].resident as usize, barrier, span);
            }
        }
        self.maybe_exit(w, t)
    }

    /// Queues one instruction issued at `t` on `pipe` of sub-partition `smsp`, to start no
    /// earlier than `not_before`; returns the cycle it starts executing.
    fn start_on(&mut self, smsp: usize, pipe: ExecPipe, t: u64, not_before: u64, timing: &Timing) -> u64 {
        self.start_on_for(smsp, pipe, 1, t, not_before, timing)
    }

    /// As [`Sm::start_on`], for an instruction of `elements` elements per thread (a packed
    /// `f32x2` instruction holds its pipe for 2 intervals).
    fn start_on_for(
        &mut self,
        smsp: usize,
        pipe: ExecPipe,
        elements: u32,
        t: u64,
        not_before: u64,
        timing: &Timing,
    ) -> u64 {
        let interval = timing.pipe(pipe).interval * u64::from(elements.max(1));
        let free = &mut self.smsps[smsp].pipe_free[pipe.index()];
        let start = t.max(*free).max(not_before);
        *free = start + interval;
        self.stats.pipe_busy[pipe.index()] += interval;
        start
    }

    /// Holds warp `w`, which issued an arithmetic instruction at `t`, for the compiler's
    /// fixed stall `cycles` (a mean: fractions carried to the next): `issue.fixed_stall_cycles`,
    /// or a descriptor instruction's share of `tensor.issue.wgmma.descriptor_cycles_*`.
    fn fixed_stall(&mut self, w: usize, t: u64, cycles: f64) {
        if cycles <= 1.0 {
            return;
        }
        let warp = &mut self.warps[w];
        warp.issue_free = t + carry(cycles, &mut warp.stall_debt);
    }

    /// Whether warp `w`'s own warpgroup has an MMA group executing at cycle `t`.
    fn own_group_in_flight(&self, w: usize, t: u64) -> bool {
        let warp = &self.warps[w];
        self.residents[warp.resident as usize].instances[warp.instance as usize].mma_tail > t as f64
    }

    /// The latency of warp `w`'s next instruction of a per-thread bookkeeping chain
    /// ([`Dep::Bookkeeping`]) on `pipe`, started at `start`: stretched while its own
    /// warpgroup has an MMA group in flight, and while only other warpgroups' MMAs run
    /// (`tensor.interference.chain_latency_factor_own`, `_other`); fractions carried to the
    /// chain's next instruction.
    fn bookkeeping_latency(&mut self, w: usize, start: u64, pipe: ExecPipe, timing: &Timing) -> u64 {
        let factor = if self.own_group_in_flight(w, start) {
            timing.chain_latency_own
        } else if self.tensor.busy_at(start) {
            timing.chain_latency_other
        } else {
            1.0
        };
        let latency = timing.pipe(pipe).latency as f64 * factor;
        carry(latency, &mut self.warps[w].chain_debt)
    }

    /// Tensor-core interference with a counted instruction on `pipe` of sub-partition `smsp`,
    /// issued at `t` and started at `start` (`tensor.interference` of the machine): while the
    /// tensor cores are busy the pipe is held longer, and an FMA-pipe instruction delays a
    /// running MMA whose A operand is in registers.
    fn interfere(&mut self, smsp: usize, pipe: ExecPipe, t: u64, start: u64, timing: &Timing) {
        if !self.tensor.busy_at(t) {
            return;
        }
        let factor = timing.tensor_busy_factor[pipe.index()];
        if factor > 1.0 {
            let sub = &mut self.smsps[smsp];
            let whole = carry(timing.pipe(pipe).interval as f64 * (factor - 1.0), &mut sub.pipe_debt[pipe.index()]);
            sub.pipe_free[pipe.index()] += whole;
            self.stats.pipe_busy[pipe.index()] += whole;
        }
        if pipe == ExecPipe::Fma && timing.rs_delay_per_fma_instr > 0.0 && self.tensor.rs_running(start as f64) {
            self.delay_tensor(start, timing.rs_delay_per_fma_instr);
        }
    }
}

/// The whole cycles of `cycles` plus the fractions carried in `debt`; the fraction left over
/// stays in `debt` for the next charge.
fn carry(cycles: f64, debt: &mut f64) -> u64 {
    let exact = cycles + *debt;
    let whole = exact.floor();
    *debt = exact - whole;
    whole as u64
}
