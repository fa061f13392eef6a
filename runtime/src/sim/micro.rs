//! Micro-benchmarks: hand-built warp-instruction streams run on the SM model, without a
//! kernel. They exercise the model's units directly (a dependent FFMA chain, MUFU
//! throughput, back-to-back `wgmma`s, global-load latency hiding) with the same scheduler,
//! pipes, memory system and report as [`super::simulate`].

use crate::dsl::{DType, Wait};
use crate::report::SimReport;

use super::error::SimError;
use super::gpu::GpuRun;
use super::lower::Instr;
use super::machine::Machine;
use super::occupancy::{BlockResources, occupancy};
use super::options::SimOptions;
use super::sites::{Queued, SiteTable};
use super::sm::{BarrierShape, CtaShape, Driver, InstanceShape, NamedShape, Place};
use super::timing::Timing;

/// One instance of a micro-benchmark CTA: `warps` warps (1, or 4 for a warpgroup) that all
/// execute `program`.
#[derive(Clone, Debug, PartialEq)]
pub struct MicroInstance {
    /// Name in the report (its "role").
    pub name: &'static str,
    /// Warps of the instance.
    pub warps: u32,
    /// The instructions every warp of the instance executes.
    pub program: Vec<Instr>,
}

impl MicroInstance {
    /// A warpgroup issuing `groups` groups of 4 back-to-back `wgmma m64n128k16` bf16 (A from
    /// registers if `a_in_registers`), one group in flight, as calibration item 11's tensor
    /// warpgroup does.
    pub fn wgmma_stream(groups: u32, a_in_registers: bool) -> MicroInstance {
        let mma = wgmma_group(4, 128, a_in_registers);
        let mut program: Vec<Instr> = (0..groups).flat_map(|_| [mma, Instr::Wait(Wait::Mma { pending: 1 })]).collect();
        program.push(Instr::Wait(Wait::Mma { pending: 0 }));
        MicroInstance { name: "wgmma", warps: 4, program }
    }
}

/// One committed group of `instrs` bf16 `wgmma m64nNk16` (A from registers if
/// `a_in_registers`), issued over `instrs + 2` cycles.
pub fn wgmma_group(instrs: u32, n: u32, a_in_registers: bool) -> Instr {
    Instr::Mma {
        issue: instrs + 2,
        instrs,
        fma: 64 * u64::from(n) * 16,
        n,
        dtype: DType::Bf16,
        a_in_registers,
        commits: true,
    }
}

/// A CTA made of hand-built instances, launched `ctas` times.
#[derive(Clone, Debug, PartialEq)]
pub struct MicroKernel {
    /// The kernel's name in reports.
    pub name: &'static str,
    /// Instances in warp order.
    pub instances: Vec<MicroInstance>,
    /// mbarriers (index `i` is barrier `i`, stage 0): arrivals per phase.
    pub barriers: Vec<u32>,
    /// Named barriers: threads per use (barrier `i` has hardware id `i + 1`).
    pub named_barriers: Vec<u32>,
    /// Registers per thread (for the occupancy limit).
    pub regs_per_thread: u32,
    /// CTAs of the grid.
    pub ctas: usize,
    /// Use only the first this many SMs (all of the machine's if `None`); the memory system
    /// keeps the whole GPU's bandwidth.
    pub sms: Option<u32>,
}

impl MicroKernel {
    /// One CTA of `instances`, with no barriers, at 32 registers per thread.
    pub fn new(instances: Vec<MicroInstance>) -> Self {
        MicroKernel {
            name: "micro",
            instances,
            barriers: Vec::new(),
            named_barriers: Vec::new(),
            regs_per_thread: 32,
            ctas: 1,
            sms: None,
        }
    }

    fn shape(&self) -> CtaShape {
        let mut first_warp = 0;
        let instances = self
            .instances
            .iter()
            .enumerate()
            .map(|(i, inst)| {
                let shape = InstanceShape { role: i as u16, index: 0, first_warp, warps: inst.warps.max(1) };
                first_warp += inst.warps.max(1);
                shape
            })
            .collect();
        CtaShape {
            kernel: self.name,
            roles: self.instances.iter().map(|i| i.name).collect(),
            instances,
            warps: first_warp,
            barriers: self
                .barriers
                .iter()
                .enumerate()
                .map(|(i, &arrivals)| BarrierShape {
                    name: format!("bar{i}").into(),
                    stages: 1,
                    arrivals,
                    arrivers: "any instance".to_string(),
                })
                .collect(),
            named: self
                .named_barriers
                .iter()
                .enumerate()
                .map(|(i, &threads)| NamedShape {
                    name: format!("named{i}").into(),
                    id: i as u32 + 1,
                    threads,
                    roles: "any instance".to_string(),
                })
                .collect(),
        }
    }
}

struct MicroDriver<'k> {
    kernel: &'k MicroKernel,
    next: usize,
}

impl Driver for MicroDriver<'_> {
    fn launch(&mut self, _place: Place) -> Option<usize> {
        (self.next < self.kernel.ctas).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    fn resume(&mut self, _: Place, instance: usize, release: bool, out: &mut Vec<Queued>) -> Result<bool, SimError> {
        if !release && let Some(inst) = self.kernel.instances.get(instance) {
            out.extend(inst.program.iter().copied().map(Queued::unsited));
        }
        Ok(true)
    }

    fn retire(&mut self, _place: Place) {}

    fn block(&self, cta: usize) -> [u32; 3] {
        [cta as u32, 0, 0]
    }

    fn seek(&mut self, cta: usize) {
        self.next = cta;
    }
}

/// Runs `kernel` on `machine`: its CTAs are placed as a kernel's would be (round-robin over
/// the SMs, as many per SM as the occupancy calculator allows).
pub fn simulate_micro(machine: &Machine, kernel: &MicroKernel, opts: &SimOptions) -> Result<SimReport, SimError> {
    let clock = opts.clock(machine)?;
    // Micro-benchmarks are timed from their first instruction, as the measured ones are
    // (`clock64` inside the kernel): no CTA start-up.
    let timing =
        Timing { cta_start: 0, descriptor_placement: opts.descriptor_placement.clone(), ..Timing::new(machine, clock) };
    let shape = kernel.shape();
    let threads = shape.warps * machine.issue.warp_size.value;
    let block = BlockResources::new(threads, kernel.regs_per_thread, 0, 0);
    let occupancy = occupancy(machine, &block).map_err(|error| SimError::Occupancy { kernel: kernel.name, error })?;
    let sms = kernel.sms.map_or(machine.sm_count.value, |s| s.clamp(1, machine.sm_count.value)) as usize;
    let sites = SiteTable::default();
    let run = GpuRun {
        machine,
        timing: &timing,
        shape: &shape,
        occupancy: &occupancy,
        ctas: kernel.ctas,
        clock,
        sms,
        sites: &sites,
        grid: [kernel.ctas as u32, 1, 1],
        cluster: None,
    };
    run.run(opts, &mut MicroDriver { kernel, next: 0 })
}

#[cfg(test)]
mod tests;
