//! The CUDA occupancy calculator: how many CTAs of a kernel fit on one SM at once.
//!
//! This follows NVIDIA's `cuda_occupancy.h` (the header shipped with the CUDA toolkit) for
//! compute capability 9.0, function by function, with every architectural number taken from a
//! [`Machine`] rather than written here:
//!
//! - registers: `cudaOccMaxBlocksPerSMRegsLimit`: registers are allocated per warp, rounded up
//!   to the allocation unit, and the warps that fit are counted **per sub-partition** and
//!   floored there before being multiplied by the number of sub-partitions;
//! - warps: `cudaOccMaxBlocksPerSMWarpsLimit`;
//! - CTA slots: `cudaOccMaxBlocksPerMultiprocessor`;
//! - shared memory: `cudaOccMaxBlocksPerSMSmemLimit`, `cudaOccSMemPreferenceVoltaPlus` and
//!   `cudaOccAlignUpShmemSizeVoltaPlus` (how the carve-out is chosen);
//! - the result and its limiting factors: `cudaOccMaxActiveBlocksPerMultiprocessor`.
//!
//! The control flow was checked against the header's published text (the CUDA 11.x
//! revision vendored in public repositories; CUDA 12 adds compute capability 9.0 to the
//! header's per-architecture switch tables without changing the functions above). The
//! per-architecture constants those tables hold come from the [`Machine`]: 256-register
//! allocation unit, 4 sub-partitions, 32 CTA slots, 128-byte shared-memory granularity,
//! 1 KB reserved per CTA and the carve-out list up to 228 KB.
//!
//! Configurations the header would answer with "0 CTAs" are reported here as an
//! [`OccupancyError`] that says what to change.
//!
//! Warp-specialized kernels that rebalance registers between roles with `setmaxnreg` can give
//! a register count per warp ([`BlockResources::warp_regs`]); the CTA's register allocation is
//! then the sum over its warps, counted per sub-partition.

use std::fmt;

use super::machine::Machine;

/// What one CTA of a kernel needs from an SM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockResources {
    /// Threads per CTA (the block size).
    pub threads_per_cta: u32,
    /// Registers per thread the kernel is launched with (what `ptxas -v` reports).
    pub regs_per_thread: u32,
    /// Static shared memory per CTA, in bytes.
    pub smem_static_bytes: u64,
    /// Dynamic shared memory per CTA, in bytes (the launch's `sharedMem` argument).
    pub smem_dynamic_bytes: u64,
    /// Optional per-warp register budgets (registers per thread of warp 0, 1, ...), for
    /// warp-specialized kernels whose roles change their budget with `setmaxnreg`. When given,
    /// it must have one entry per warp of the CTA; each entry is either `regs_per_thread`
    /// (a warp that keeps its launch budget) or a legal `setmaxnreg` value. The register
    /// limit then uses these budgets: the CTA's allocation is the sum over its warps, with
    /// warp `w` on sub-partition `w % sub_partitions`.
    pub warp_regs: Option<Vec<u32>>,
}

impl BlockResources {
    /// A CTA with uniform registers and no per-warp budgets.
    pub fn new(threads_per_cta: u32, regs_per_thread: u32, smem_static_bytes: u64, smem_dynamic_bytes: u64) -> Self {
        BlockResources { threads_per_cta, regs_per_thread, smem_static_bytes, smem_dynamic_bytes, warp_regs: None }
    }

    /// Sets one register budget per warp (see [`BlockResources::warp_regs`]).
    pub fn with_warp_regs(mut self, warp_regs: Vec<u32>) -> Self {
        self.warp_regs = Some(warp_regs);
        self
    }

    /// Sets per-warp register budgets from roles given in warp order as
    /// `(warps, regs_per_thread)` pairs, e.g. `&[(4, 24), (8, 240)]` for a producer warpgroup
    /// at 24 registers followed by two consumer warpgroups at 240.
    pub fn with_role_regs(self, roles: &[(u32, u32)]) -> Self {
        // A CTA never has more warps than threads: listing one more entry than that is
        // enough for the length check to reject an oversized role list without building it.
        let cap = usize::try_from(self.threads_per_cta).map_or(usize::MAX, |t| t.saturating_add(1));
        let warp_regs = roles
            .iter()
            .flat_map(|&(warps, regs)| std::iter::repeat_n(regs, usize::try_from(warps).unwrap_or(usize::MAX)))
            .take(cap)
            .collect();
        self.with_warp_regs(warp_regs)
    }
}

/// The shared-memory carve-out preference of a kernel
/// (`cudaFuncAttributePreferredSharedMemoryCarveout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CarveoutPreference {
    /// No preference (`SHAREDMEM_CARVEOUT_DEFAULT`): the calculator assumes the largest
    /// carve-out, as `cudaOccSMemPreferenceVoltaPlus` does.
    #[default]
    Default,
    /// Prefer this percentage (0..=100) of the maximum shared memory per SM; the value is
    /// rounded up to the next supported carve-out.
    Percent(u32),
}

/// What limits the number of resident CTAs (the header's `cudaOccLimitingFactor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limiter {
    /// Resident warps per SM (`OCC_LIMIT_WARPS`).
    Warps,
    /// Register file (`OCC_LIMIT_REGISTERS`).
    Registers,
    /// Shared memory (`OCC_LIMIT_SHARED_MEMORY`).
    SharedMemory,
    /// Resident CTAs per SM (`OCC_LIMIT_BLOCKS`).
    CtaSlots,
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Warps => "warps per SM",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::CtaSlots => "CTA slots per SM",
        })
    }
}

/// The occupancy of a kernel on one SM.
#[derive(Clone, Debug, PartialEq)]
pub struct Occupancy {
    /// Resident CTAs per SM: the minimum of the four limits below.
    pub ctas_per_sm: u32,
    /// Resident warps per SM (`ctas_per_sm * warps_per_cta`).
    pub warps_per_sm: u32,
    /// `warps_per_sm` divided by the SM's maximum resident warps, in `0.0..=1.0`.
    pub occupancy: f64,
    /// The limiting factor; when several tie, the first of warps, registers, shared memory,
    /// CTA slots (the header's bit order).
    pub limiter: Limiter,
    /// Every factor whose limit equals `ctas_per_sm`, in the same order.
    pub limiters: Vec<Limiter>,
    /// CTAs that fit by registers (`u32::MAX` if the kernel uses no registers).
    pub ctas_by_registers: u32,
    /// CTAs that fit by shared memory.
    pub ctas_by_shared_memory: u32,
    /// CTAs that fit by resident warps.
    pub ctas_by_warps: u32,
    /// CTAs that fit by CTA slots.
    pub ctas_by_cta_slots: u32,
    /// Warps per CTA.
    pub warps_per_cta: u32,
    /// Registers allocated to one CTA (sum over its warps, each rounded up to the unit).
    pub regs_per_cta: u32,
    /// Shared memory allocated to one CTA, in bytes: static + dynamic + the driver's
    /// reservation, rounded up to the allocation granularity.
    pub smem_per_cta_bytes: u32,
    /// The shared-memory carve-out the calculator assumes for the SM, in KB.
    pub smem_carveout_kb: u32,
}

/// Why a configuration cannot run; each message says what to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OccupancyError {
    /// The CTA has no threads.
    NoThreads,
    /// More threads per CTA than the machine allows.
    TooManyThreads {
        /// Requested threads per CTA.
        threads: u32,
        /// The machine's limit.
        max: u32,
    },
    /// More registers per thread than the machine allows.
    TooManyRegisters {
        /// Requested registers per thread.
        regs: u32,
        /// The machine's limit.
        max: u32,
    },
    /// More shared memory per CTA than the machine allows.
    TooMuchSharedMemory {
        /// Requested static + dynamic bytes.
        requested_bytes: u64,
        /// The machine's per-CTA limit in bytes.
        max_bytes: u64,
    },
    /// The launch fails the hardware register check: registers per warp times warps per CTA
    /// rounded up to a multiple of the sub-partition count exceeds the per-CTA register limit.
    RegisterFileExceeded {
        /// Registers per thread that were checked.
        regs_per_thread: u32,
        /// Registers allocated per warp.
        regs_per_warp: u32,
        /// Warps per CTA rounded up to a multiple of the sub-partition count.
        warps_checked: u32,
        /// Registers the check needs (`regs_per_warp * warps_checked`).
        needed: u64,
        /// Registers available to one CTA.
        available: u32,
    },
    /// The per-warp register list does not have one entry per warp.
    WarpRegsLength {
        /// Entries given.
        given: usize,
        /// Warps per CTA.
        warps: u32,
    },
    /// A per-warp register budget is neither the launch count nor a legal `setmaxnreg` value.
    InvalidWarpRegs {
        /// Index of the warp in the CTA.
        warp: usize,
        /// Its budget.
        regs: u32,
        /// The launch registers per thread.
        launch_regs: u32,
        /// Smallest legal `setmaxnreg` value.
        min: u32,
        /// Largest legal `setmaxnreg` value.
        max: u32,
        /// `setmaxnreg` values are multiples of this.
        step: u32,
    },
    /// Budgets differ between warps but the CTA is not a whole number of warpgroups, so its
    /// warps do not map onto sub-partitions the same way in every CTA.
    WarpRegsNeedWarpgroups {
        /// Warps per CTA.
        warps: u32,
        /// Sub-partitions per SM.
        sub_partitions: u32,
    },
    /// The per-warp budgets of one CTA need more registers on one sub-partition than it has.
    WarpRegsExceedSubPartition {
        /// The sub-partition that overflows.
        sub_partition: u32,
        /// Registers the CTA's warps on it need.
        needed: u64,
        /// Registers a sub-partition has.
        available: u32,
    },
    /// The carve-out percentage is above 100.
    InvalidCarveoutPercent(u32),
    /// The machine description has a zero or missing value the calculator divides by.
    InvalidMachine {
        /// The offending parameter.
        parameter: &'static str,
    },
}

impl fmt::Display for OccupancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OccupancyError::NoThreads => {
                write!(f, "a CTA needs at least 1 thread: set threads_per_cta to 1 or more")
            }
            OccupancyError::TooManyThreads { threads, max } => write!(
                f,
                "{threads} threads per CTA exceeds the limit of {max}: use at most {max} threads \
                 per CTA (split the work over more CTAs)"
            ),
            OccupancyError::TooManyRegisters { regs, max } => write!(
                f,
                "{regs} registers per thread exceeds the limit of {max}: cap it with \
                 -maxrregcount or __launch_bounds__, or split the accumulator over more warps"
            ),
            OccupancyError::TooMuchSharedMemory { requested_bytes, max_bytes } => write!(
                f,
                "{requested_bytes} bytes of shared memory per CTA exceeds the limit of \
                 {max_bytes} bytes ({} KB): use smaller tiles or fewer pipeline stages",
                max_bytes / 1024
            ),
            OccupancyError::RegisterFileExceeded {
                regs_per_thread,
                regs_per_warp,
                warps_checked,
                needed,
                available,
            } => write!(
                f,
                "the launch fails the hardware register check: {regs_per_thread} registers per \
                 thread allocate {regs_per_warp} per warp, and {regs_per_warp} x {warps_checked} \
                 warps (rounded up to whole sub-partition groups) = {needed} > {available} \
                 registers per CTA: lower registers per thread or use fewer threads per CTA"
            ),
            OccupancyError::WarpRegsLength { given, warps } => write!(
                f,
                "warp_regs has {given} entries but the CTA has {warps} warps: give exactly one \
                 register budget per warp"
            ),
            OccupancyError::InvalidWarpRegs { warp, regs, launch_regs, min, max, step } => write!(
                f,
                "warp {warp} has a budget of {regs} registers, which is neither the launch count \
                 ({launch_regs}) nor a legal setmaxnreg value ({min}..={max}, multiple of \
                 {step}): round it to a multiple of {step} in range"
            ),
            OccupancyError::WarpRegsNeedWarpgroups { warps, sub_partitions } => write!(
                f,
                "per-warp register budgets differ but the CTA has {warps} warps, not a multiple \
                 of {sub_partitions}: give every warpgroup of {sub_partitions} warps the same \
                 budget, or pad the CTA to whole warpgroups"
            ),
            OccupancyError::WarpRegsExceedSubPartition { sub_partition, needed, available } => {
                write!(
                    f,
                    "the per-warp register budgets need {needed} registers on sub-partition \
                     {sub_partition}, which has {available}: lower the setmaxnreg budgets of \
                     the warps on it (warp w runs on sub-partition w % 4)"
                )
            }
            OccupancyError::InvalidCarveoutPercent(p) => {
                write!(f, "shared-memory carve-out preference {p}% is above 100%: use 0..=100")
            }
            OccupancyError::InvalidMachine { parameter } => write!(
                f,
                "the machine description has an invalid {parameter} (zero or empty): fix the \
                 machine description"
            ),
        }
    }
}

impl std::error::Error for OccupancyError {}

/// Occupancy of `block` on `machine` with no carve-out preference
/// ([`CarveoutPreference::Default`]), as `cudaOccMaxActiveBlocksPerMultiprocessor` computes
/// it with a default `cudaOccDeviceState`.
pub fn occupancy(machine: &Machine, block: &BlockResources) -> Result<Occupancy, OccupancyError> {
    occupancy_with_carveout(machine, block, CarveoutPreference::Default)
}

/// Occupancy of `block` on `machine` with the given shared-memory carve-out preference.
pub fn occupancy_with_carveout(
    machine: &Machine,
    block: &BlockResources,
    carveout: CarveoutPreference,
) -> Result<Occupancy, OccupancyError> {
    let warp_size = nonzero(machine.issue.warp_size.value, "issue.warp_size")?;
    let sub_partitions = nonzero(machine.issue.sub_partitions.value, "issue.sub_partitions")?;

    // Input checks (the header's cudaOccInputCheck, plus the cases where it would return
    // 0 CTAs, which are errors here).
    let threads = block.threads_per_cta;
    if threads == 0 {
        return Err(OccupancyError::NoThreads);
    }
    let max_threads = machine.limits.threads_per_cta.value;
    if threads > max_threads {
        return Err(OccupancyError::TooManyThreads { threads, max: max_threads });
    }
    let max_regs = machine.registers.max_regs_per_thread.value;
    if block.regs_per_thread > max_regs {
        // cuda_occupancy.h (cudaOccRegAllocationMaxPerThread) checks against 256 on cc >= 7;
        // ptxas never emits more than 255, the limit the Machine carries.
        return Err(OccupancyError::TooManyRegisters { regs: block.regs_per_thread, max: max_regs });
    }
    let smem_requested = block.smem_static_bytes.saturating_add(block.smem_dynamic_bytes);
    let smem_max_per_cta = u64::from(machine.smem.max_per_cta_bytes.value);
    if smem_requested > smem_max_per_cta {
        return Err(OccupancyError::TooMuchSharedMemory {
            requested_bytes: smem_requested,
            max_bytes: smem_max_per_cta,
        });
    }

    // __occDivideRoundUp(blockSize, warpSize)
    let warps_per_cta = threads.div_ceil(warp_size);

    let regs = registers_limit(machine, block, warps_per_cta, warp_size, sub_partitions)?;
    let ctas_by_warps = warps_limit(machine, warps_per_cta, warp_size);
    // cudaOccMaxBlocksPerMultiprocessor
    let ctas_by_cta_slots = machine.limits.ctas_per_sm.value;
    let smem = smem_limit(machine, smem_requested, carveout)?;

    // cudaOccMaxActiveBlocksPerMultiprocessor: the minimum of the four limits, and every
    // factor equal to it, in the order of the cudaOccLimitingFactor bits.
    let ctas_per_sm = regs.ctas.min(smem.ctas).min(ctas_by_warps).min(ctas_by_cta_slots);
    let limiters: Vec<Limiter> = [
        (Limiter::Warps, ctas_by_warps),
        (Limiter::Registers, regs.ctas),
        (Limiter::SharedMemory, smem.ctas),
        (Limiter::CtaSlots, ctas_by_cta_slots),
    ]
    .into_iter()
    .filter(|&(_, limit)| limit == ctas_per_sm)
    .map(|(limiter, _)| limiter)
    .collect();
    let limiter = limiters.first().copied().unwrap_or(Limiter::Warps);

    let warps_per_sm = ctas_per_sm.saturating_mul(warps_per_cta);
    let max_warps = machine.limits.warps_per_sm.value;
    let occupancy = if max_warps == 0 { 0.0 } else { f64::from(warps_per_sm) / f64::from(max_warps) };

    Ok(Occupancy {
        ctas_per_sm,
        warps_per_sm,
        occupancy,
        limiter,
        limiters,
        ctas_by_registers: regs.ctas,
        ctas_by_shared_memory: smem.ctas,
        ctas_by_warps,
        ctas_by_cta_slots,
        warps_per_cta,
        regs_per_cta: regs.allocated_per_cta,
        smem_per_cta_bytes: smem.allocated_per_cta,
        smem_carveout_kb: smem.carveout_bytes / 1024,
    })
}

/// Returns `value`, or an [`OccupancyError::InvalidMachine`] naming `parameter` if it is zero.
fn nonzero(value: u32, parameter: &'static str) -> Result<u32, OccupancyError> {
    if value == 0 { Err(OccupancyError::InvalidMachine { parameter }) } else { Ok(value) }
}

/// `__occRoundUp`: `x` rounded up to a multiple of `unit` (non-zero).
fn round_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit) * unit
}

/// Saturating conversion for values that fit in `u32` on any real machine.
fn to_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// The register limit and the CTA's register allocation.
struct RegisterLimit {
    ctas: u32,
    allocated_per_cta: u32,
}

/// `cudaOccMaxBlocksPerSMRegsLimit`, generalised to per-warp budgets.
fn registers_limit(
    machine: &Machine,
    block: &BlockResources,
    warps_per_cta: u32,
    warp_size: u32,
    sub_partitions: u32,
) -> Result<RegisterLimit, OccupancyError> {
    let unit =
        u64::from(nonzero(machine.registers.alloc_unit_regs_per_warp.value, "registers.alloc_unit_regs_per_warp")?);
    let regs_per_sm = machine.registers.regs_per_sm.value;
    let regs_per_smsp = u64::from(regs_per_sm / sub_partitions);
    let max_regs_per_cta = machine.registers.max_regs_per_cta.value;
    // regsAllocatedPerWarp = __occRoundUp(numRegs * warpSize, allocationGranularity)
    let per_warp = |regs: u32| round_up(u64::from(regs) * u64::from(warp_size), unit);

    // Hardware check: "the verification logic assumes register allocations are made to all
    // partitions simultaneously", so warps are rounded up to a multiple of the sub-partition
    // count. It also covers the software check (regsAllocatedPerCTA <= regsPerBlock).
    let hardware_check = |regs: u32| {
        let regs_per_warp = per_warp(regs);
        let warps_checked = warps_per_cta.div_ceil(sub_partitions) * sub_partitions;
        let needed = regs_per_warp * u64::from(warps_checked);
        if needed > u64::from(max_regs_per_cta) {
            Err(OccupancyError::RegisterFileExceeded {
                regs_per_thread: regs,
                regs_per_warp: to_u32(regs_per_warp),
                warps_checked,
                needed,
                available: max_regs_per_cta,
            })
        } else {
            Ok(regs_per_warp)
        }
    };
    // numWarpsPerSubPartition = numRegsPerSubPartition / regsAllocatedPerWarp (floored per
    // sub-partition), then maxBlocks = numWarpsPerSubPartition * numSubPartitions /
    // warpsAllocatedPerCTA; INT_MAX when the kernel uses no registers.
    let uniform_limit = |regs_per_warp: u64| {
        regs_per_smsp.checked_div(regs_per_warp).map_or(u32::MAX, |warps_per_smsp| {
            to_u32(warps_per_smsp * u64::from(sub_partitions) / u64::from(warps_per_cta))
        })
    };

    // The launch itself is checked with the compiled register count.
    let launch_per_warp = hardware_check(block.regs_per_thread)?;

    let Some(budgets) = &block.warp_regs else {
        return Ok(RegisterLimit {
            ctas: uniform_limit(launch_per_warp),
            allocated_per_cta: to_u32(launch_per_warp * u64::from(warps_per_cta)),
        });
    };

    if budgets.len() != warps_per_cta as usize {
        return Err(OccupancyError::WarpRegsLength { given: budgets.len(), warps: warps_per_cta });
    }
    let setmaxnreg = &machine.registers.setmaxnreg;
    for (warp, &regs) in budgets.iter().enumerate() {
        if regs != block.regs_per_thread && !setmaxnreg.is_valid(regs) {
            return Err(OccupancyError::InvalidWarpRegs {
                warp,
                regs,
                launch_regs: block.regs_per_thread,
                min: setmaxnreg.min.value,
                max: setmaxnreg.max.value,
                step: setmaxnreg.step.value,
            });
        }
    }
    let allocated_per_cta = to_u32(budgets.iter().map(|&r| per_warp(r)).sum());

    // Every warp has the same budget: exactly the header's formula with that budget.
    if let Some(&first) = budgets.first()
        && budgets.iter().all(|&r| r == first)
    {
        let regs_per_warp = hardware_check(first)?;
        return Ok(RegisterLimit { ctas: uniform_limit(regs_per_warp), allocated_per_cta });
    }

    // Budgets differ: count each sub-partition's share of one CTA (warp w on sub-partition
    // w % sub_partitions, so the CTA must be whole warpgroups for every CTA to map the same
    // way) and floor per sub-partition, as the header does for uniform warps. With equal
    // budgets this reduces to the header's formula.
    if !warps_per_cta.is_multiple_of(sub_partitions) {
        return Err(OccupancyError::WarpRegsNeedWarpgroups { warps: warps_per_cta, sub_partitions });
    }
    let mut ctas = u32::MAX;
    for sub_partition in 0..sub_partitions {
        let needed: u64 =
            budgets.iter().skip(sub_partition as usize).step_by(sub_partitions as usize).map(|&r| per_warp(r)).sum();
        if needed > regs_per_smsp {
            return Err(OccupancyError::WarpRegsExceedSubPartition {
                sub_partition,
                needed,
                available: to_u32(regs_per_smsp),
            });
        }
        if let Some(fit) = regs_per_smsp.checked_div(needed) {
            ctas = ctas.min(to_u32(fit));
        }
    }
    Ok(RegisterLimit { ctas, allocated_per_cta })
}

/// `cudaOccMaxBlocksPerSMWarpsLimit` (partitioned global caching is off on cc 9.0):
/// `(maxThreadsPerMultiprocessor / warpSize) / warpsAllocatedPerCTA`.
fn warps_limit(machine: &Machine, warps_per_cta: u32, warp_size: u32) -> u32 {
    let max_warps_per_sm = machine.limits.threads_per_sm.value / warp_size;
    max_warps_per_sm / warps_per_cta
}

/// The shared-memory limit, the CTA's allocation and the carve-out assumed.
struct SmemLimit {
    ctas: u32,
    allocated_per_cta: u32,
    carveout_bytes: u32,
}

/// `cudaOccAlignUpShmemSizeVoltaPlus`: the smallest supported carve-out of at least `bytes`
/// (0 stays 0), or `None` above the largest.
fn align_up_carveout(machine: &Machine, bytes: u64) -> Option<u64> {
    machine.smem.carveouts_kb.value.iter().map(|&kb| u64::from(kb) * 1024).find(|&carveout| carveout >= bytes)
}

/// `cudaOccMaxBlocksPerSMSmemLimit` with `cudaOccSMemPreferenceVoltaPlus`.
fn smem_limit(machine: &Machine, requested: u64, carveout: CarveoutPreference) -> Result<SmemLimit, OccupancyError> {
    let smem = &machine.smem;
    let granularity = u64::from(nonzero(smem.alloc_granularity_bytes.value, "smem.alloc_granularity_bytes")?);
    let reserved = u64::from(smem.reserved_per_cta_bytes.value);
    let max_per_sm = u64::from(smem.max_per_sm_bytes.value);
    let too_much = || OccupancyError::TooMuchSharedMemory {
        requested_bytes: requested,
        max_bytes: u64::from(smem.max_per_cta_bytes.value),
    };

    // staticSmemSize = sharedSizeBytes + reservedSharedMemPerBlock;
    // smemAllocatedPerCTA = __occRoundUp(staticSmemSize + dynamicSmemSize, granularity)
    let allocated = round_up(requested + reserved, granularity);
    // cudaOccSMemPerBlock: the opt-in limit plus the reservation (cc >= 8).
    if allocated > u64::from(smem.max_per_cta_bytes.value) + reserved {
        return Err(too_much());
    }

    // cudaOccSMemPreferenceVoltaPlus: the default preference is the SM's whole shared memory;
    // a percentage is taken of it; either is aligned up to a supported carve-out.
    let preference = match carveout {
        CarveoutPreference::Default => max_per_sm,
        CarveoutPreference::Percent(p) if p <= 100 => u64::from(p) * max_per_sm / 100,
        CarveoutPreference::Percent(p) => return Err(OccupancyError::InvalidCarveoutPercent(p)),
    };
    let preference = align_up_carveout(machine, preference)
        .ok_or(OccupancyError::InvalidMachine { parameter: "smem.carveouts_kb" })?;

    // "User requested shared memory limit is used as long as it is greater than the total
    // shared memory used per CTA"; otherwise (Volta+) the CTA's own need is aligned up to a
    // carve-out.
    let carveout_bytes = if preference >= allocated {
        preference
    } else {
        align_up_carveout(machine, allocated).ok_or_else(too_much)?
    };
    let ctas = carveout_bytes.checked_div(allocated).map_or(u32::MAX, to_u32);
    Ok(SmemLimit { ctas, allocated_per_cta: to_u32(allocated), carveout_bytes: to_u32(carveout_bytes) })
}

#[cfg(test)]
mod tests;
