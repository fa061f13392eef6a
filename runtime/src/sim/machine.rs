//! Machine descriptions: every number the timing model and the occupancy calculator use,
//! written down as data, each with the source it came from.
//!
//! A [`Machine`] describes one GPU (H100 SXM, H200, B200). Architectures differ only in the
//! values stored here (and in the [`MmaIssue`] variant that says how tensor-core work is
//! issued); no code elsewhere should branch on which GPU it is modelling.
//!
//! Every numeric field is a [`Param`], which carries its value together with a citation: a
//! paper with its table or section, a vendor document, or the placeholder
//! [`TO_BE_CALIBRATED`] where no public number exists and the value is a guess awaiting a
//! measurement on real hardware.

use std::fmt;

use warpspec_hw::CtaLimits;

/// Marker carried in the source of every value that is a guess awaiting measurement.
///
/// A [`Param`] whose source contains this text has no public number behind it; its value is
/// a placeholder until the procedure in `calibration/README.md` measures it.
pub const TO_BE_CALIBRATED: &str = "to be calibrated: calibration/README.md";

/// A machine parameter: a value and the source that justifies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param<T> {
    /// The value used by the model.
    pub value: T,
    /// Where the value comes from (paper and table/section, spec sheet, or a calibration note).
    pub source: &'static str,
}

impl<T: Copy> Param<T> {
    /// Creates a parameter from its value and its source citation.
    pub const fn new(value: T, source: &'static str) -> Self {
        Param { value, source }
    }

    /// Returns the value.
    pub const fn get(&self) -> T {
        self.value
    }

    /// Whether the value is a placeholder still waiting for a measurement
    /// (its source contains [`TO_BE_CALIBRATED`]).
    pub fn needs_calibration(&self) -> bool {
        self.source.contains(TO_BE_CALIBRATED)
    }
}

/// One row of [`Machine::parameters`]: a parameter's dotted name, its value rendered as text,
/// and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamEntry {
    /// Dotted path of the field, e.g. `"tensor.dense_fma_per_clk_bf16"`.
    pub name: &'static str,
    /// The value, formatted with `Debug`.
    pub value: String,
    /// The parameter's source citation.
    pub source: &'static str,
}

/// Clock frequencies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clocks {
    /// Maximum boost clock of the SMs, in GHz.
    pub boost_ghz: Param<f64>,
    /// The clock at which the vendor's dense-BF16 tensor peak is quoted, in GHz.
    pub spec_ghz: Param<f64>,
}

/// Instruction issue structure of one SM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Issue {
    /// Threads per warp.
    pub warp_size: Param<u32>,
    /// Sub-partitions (SMSPs) per SM, each with its own warp scheduler and register file slice.
    pub sub_partitions: Param<u32>,
    /// Warp-instructions one SMSP scheduler issues per clock (no dual issue).
    pub warp_instructions_per_smsp_per_clk: Param<u32>,
    /// Instructions each sub-partition's MIO instruction queues (MUFU, LSU) hold waiting for
    /// their shared unit, so a warp can issue past a busy MUFU or LSU pipe.
    pub mio_queue_instructions: Param<u32>,
}

/// Limits on what may be resident on one SM, and the CTA size limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResidencyLimits {
    /// Maximum resident warps per SM.
    pub warps_per_sm: Param<u32>,
    /// Maximum resident threads per SM.
    pub threads_per_sm: Param<u32>,
    /// Maximum resident CTAs (thread blocks) per SM.
    pub ctas_per_sm: Param<u32>,
    /// Maximum threads in one CTA.
    pub threads_per_cta: Param<u32>,
}

/// The `setmaxnreg` instruction's legal register counts: `min..=max` in steps of `step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetMaxNReg {
    /// Smallest legal per-thread register count.
    pub min: Param<u32>,
    /// Largest legal per-thread register count.
    pub max: Param<u32>,
    /// Legal counts are multiples of this.
    pub step: Param<u32>,
}

impl SetMaxNReg {
    /// Whether `regs` is a register count `setmaxnreg` accepts.
    pub fn is_valid(&self, regs: u32) -> bool {
        let step = self.step.value;
        regs >= self.min.value && regs <= self.max.value && step != 0 && regs.is_multiple_of(step)
    }
}

/// The register file and its allocation rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegisterFile {
    /// 32-bit registers per SM (split evenly over the sub-partitions).
    pub regs_per_sm: Param<u32>,
    /// Maximum 32-bit registers one CTA may hold.
    pub max_regs_per_cta: Param<u32>,
    /// Registers are allocated to a warp in multiples of this many registers.
    pub alloc_unit_regs_per_warp: Param<u32>,
    /// Maximum registers per thread a kernel may be compiled with.
    pub max_regs_per_thread: Param<u32>,
    /// Legal `setmaxnreg` values.
    pub setmaxnreg: SetMaxNReg,
}

/// Shared memory capacity, allocation rules, bandwidth and latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharedMemory {
    /// Largest shared-memory carve-out of one SM, in bytes.
    pub max_per_sm_bytes: Param<u32>,
    /// Largest shared memory one CTA may use (static + dynamic, opt-in), in bytes.
    pub max_per_cta_bytes: Param<u32>,
    /// Carve-out sizes the SM's unified L1/shared memory can be configured to, in KB, ascending.
    pub carveouts_kb: Param<&'static [u32]>,
    /// Shared memory is allocated to a CTA in multiples of this many bytes.
    pub alloc_granularity_bytes: Param<u32>,
    /// Bytes the driver reserves per CTA on top of what the kernel asks for.
    pub reserved_per_cta_bytes: Param<u32>,
    /// Shared-memory bandwidth per SM, in bytes per clock.
    pub bandwidth_bytes_per_clk: Param<u32>,
    /// Latency of a shared-memory load, in cycles.
    pub load_latency_cycles: Param<u32>,
}

/// One execution pipe of the SM: its throughput and the latency a dependent instruction sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pipe {
    /// Thread-operations (lanes) the whole SM completes per clock on this pipe.
    pub lanes_per_clk_per_sm: Param<u32>,
    /// Cycles from issue until a dependent instruction may issue.
    pub latency_cycles: Param<u32>,
}

/// The SM's non-tensor execution pipes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pipes {
    /// FP32 fused multiply-add (FFMA, FADD, FMUL).
    pub fma: Pipe,
    /// Integer and logic (IMAD, IADD3, LOP3, shifts, ...).
    pub alu: Pipe,
    /// Multi-function unit: special functions (`ex2`, `rcp`, `rsqrt`, ...).
    pub mufu: Pipe,
    /// Load/store unit for shared-memory accesses.
    pub lsu: Pipe,
}

/// Tensor memory (TMEM): per-SM accumulator storage that Blackwell's `tcgen05.mma` writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorMemory {
    /// Rows ("lanes") of tensor memory.
    pub lanes: Param<u32>,
    /// Columns of tensor memory.
    pub columns: Param<u32>,
    /// Bits per (lane, column) cell.
    pub cell_bits: Param<u32>,
    /// `tcgen05.alloc` hands out columns in multiples of this.
    pub alloc_granularity_columns: Param<u32>,
    /// Bytes per clock per SM that `tcgen05.ld`/`tcgen05.st` move between tensor memory and
    /// registers.
    pub access_bytes_per_clk_per_sm: Param<u32>,
    /// Cycles from a `tcgen05.ld` until its registers may be used.
    pub load_latency_cycles: Param<u32>,
}

impl TensorMemory {
    /// Total tensor memory per SM, in bytes.
    pub fn bytes(&self) -> u64 {
        u64::from(self.lanes.value) * u64::from(self.columns.value) * u64::from(self.cell_bits.value) / 8
    }
}

/// How tensor-core matrix multiplies are issued and where their accumulators live.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MmaIssue {
    /// Hopper `wgmma.mma_async`: issued collectively by a warpgroup; the accumulator lives in
    /// the issuing warps' registers.
    WarpgroupWgmma {
        /// Warps in the warpgroup that issues one `wgmma`.
        warps_per_warpgroup: Param<u32>,
    },
    /// Blackwell `tcgen05.mma`: issued by a single thread on behalf of the CTA; the accumulator
    /// lives in tensor memory and completion is signalled by `tcgen05.commit` to an mbarrier.
    SingleThreadTcgen05 {
        /// The SM's tensor memory.
        tmem: TensorMemory,
        /// Largest number of CTAs (on paired SMs) that can cooperate on one MMA.
        max_cta_group: Param<u32>,
    },
}

/// Latency of the machine's native asynchronous MMA of shape `m x n x k` (BF16/F16 inputs):
/// `max(min_latency_cycles, fixed_cycles + ceil(n / columns_per_cycle))`, for legal `n` only.
/// `ceil(n / columns_per_cycle)` is also the issue interval of back-to-back MMAs (the tensor
/// cores' occupancy); `fixed_cycles` is the pipeline depth a single MMA adds on top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaLatencyRule {
    /// Rows of the native MMA tile (64 for `wgmma`, 128 for single-CTA `tcgen05.mma`).
    pub m: Param<u32>,
    /// Reduction depth of one BF16/F16 MMA instruction.
    pub k: Param<u32>,
    /// Smallest legal `n`.
    pub n_min: Param<u32>,
    /// Largest legal `n`.
    pub n_max: Param<u32>,
    /// Legal `n` are multiples of this.
    pub n_step: Param<u32>,
    /// Output columns completed per cycle (latency grows as `n / columns_per_cycle`).
    pub columns_per_cycle: Param<u32>,
    /// Latency floor for small `n`, in cycles.
    pub min_latency_cycles: Param<u32>,
    /// Cycles one MMA takes beyond its issue interval (pipeline fill and drain).
    pub fixed_cycles: Param<u32>,
}

impl MmaLatencyRule {
    /// Latency in cycles of one MMA with `n` output columns, or `None` if `n` is not a legal
    /// size for this instruction.
    pub fn latency(&self, n: u32) -> Option<u32> {
        let step = self.n_step.value;
        let per_cycle = self.columns_per_cycle.value;
        if n < self.n_min.value || n > self.n_max.value || step == 0 || !n.is_multiple_of(step) {
            return None;
        }
        let cycles = n.checked_div(per_cycle)? + u32::from(!n.is_multiple_of(per_cycle));
        Some((self.fixed_cycles.value + cycles).max(self.min_latency_cycles.value))
    }
}

/// Tensor cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorCore {
    /// Dense BF16/F16 fused multiply-adds per clock per SM (FP32 accumulate).
    pub dense_fma_per_clk_bf16: Param<u32>,
    /// Dense FP8 fused multiply-adds per clock per SM.
    pub dense_fma_per_clk_fp8: Param<u32>,
    /// Dense TF32 fused multiply-adds per clock per SM (`f32` operands).
    pub dense_fma_per_clk_tf32: Param<u32>,
    /// How MMAs are issued and where accumulators live.
    pub issue: MmaIssue,
    /// Latency of the native asynchronous MMA.
    pub latency: MmaLatencyRule,
    /// Latency of the legacy warp-level `mma.sync.m16n8k16` (F16), in cycles.
    pub mma_sync_latency_cycles: Param<u32>,
    /// How busy tensor cores slow the SM's other pipes, and how FMA-pipe traffic slows an
    /// MMA that reads its A operand from registers.
    pub interference: TensorInterference,
}

/// Measured interference between the tensor cores and the other pipes of one SM.
///
/// While the tensor cores execute, a warp-instruction on another pipe holds that pipe for
/// its interval times the pipe's factor (1.0: no interference). While an MMA with A in
/// registers (`wgmma` RS) executes, every FMA-pipe warp-instruction delays the tensor cores
/// by `rs_delay_per_fma_instr` cycles (register-file read-port contention).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorInterference {
    /// FMA-pipe (FFMA/FADD/FMUL) interval factor while the tensor cores are busy.
    pub fma_interval_factor: Param<f64>,
    /// ALU-pipe (FMNMX, F2FP conversions, logic) interval factor while the tensor cores are busy.
    pub alu_interval_factor: Param<f64>,
    /// MUFU interval factor while the tensor cores are busy.
    pub mufu_interval_factor: Param<f64>,
    /// Interval factor of counted LSU instructions (shuffles) while the tensor cores are busy.
    pub shuffle_interval_factor: Param<f64>,
    /// Tensor-core cycles lost per FMA-pipe warp-instruction issued while an RS MMA runs.
    pub rs_delay_per_fma_instr: Param<f64>,
}

impl TensorInterference {
    /// No interference (every factor 1, no delay), with the source `why`.
    pub const fn none(why: &'static str) -> Self {
        TensorInterference {
            fma_interval_factor: Param::new(1.0, why),
            alu_interval_factor: Param::new(1.0, why),
            mufu_interval_factor: Param::new(1.0, why),
            shuffle_interval_factor: Param::new(1.0, why),
            rs_delay_per_fma_instr: Param::new(0.0, why),
        }
    }
}

/// The Tensor Memory Accelerator (bulk asynchronous copies).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tma {
    /// Cycles a TMA load that hits in L2 takes, from issue until a thread waiting on its
    /// mbarrier resumes, beyond the L2 latency and its streaming time
    /// (`bytes / bytes_per_clk_per_sm`).
    pub extra_latency_cycles: Param<u32>,
    /// The same for a TMA load that misses in L2, beyond the HBM latency and streaming time.
    pub miss_extra_latency_cycles: Param<u32>,
    /// Bytes per clock one SM's TMA unit can move into shared memory.
    pub bytes_per_clk_per_sm: Param<u32>,
}

/// L1 data cache.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L1 {
    /// Latency of an L1 hit, in cycles.
    pub hit_latency_cycles: Param<u32>,
}

/// The L2 cache shared by all SMs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2 {
    /// Capacity in bytes.
    pub size_bytes: Param<u64>,
    /// Typical hit latency (near partition), in cycles.
    pub hit_latency_cycles: Param<u32>,
    /// Hit latency when the line lives in the far partition, in cycles.
    pub far_hit_latency_cycles: Param<u32>,
    /// Aggregate bandwidth over all SMs, in TB/s.
    pub bandwidth_tb_s: Param<f64>,
}

/// Device memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hbm {
    /// Capacity in bytes.
    pub capacity_bytes: Param<u64>,
    /// Peak bandwidth, in TB/s (10^12 bytes per second).
    pub bandwidth_tb_s: Param<f64>,
    /// Load latency of an L2 miss, in cycles.
    pub latency_cycles: Param<u32>,
}

/// Synchronisation latencies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sync {
    /// Cycles from the arrival (or transaction) completing an mbarrier phase until a waiting
    /// warp can issue again.
    pub mbarrier_wake_cycles: Param<u32>,
    /// Cycles from the last warp arriving at a named barrier (`bar.sync`) until waiters resume.
    pub named_barrier_cycles: Param<u32>,
}

/// A GPU, described entirely by data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Canonical short name, accepted by [`Machine::by_name`] (e.g. `"h100-sxm"`).
    pub name: &'static str,
    /// Marketing name (e.g. `"NVIDIA H100 SXM5 80GB"`).
    pub full_name: &'static str,
    /// CUDA compute capability `(major, minor)`.
    pub compute_capability: Param<(u32, u32)>,
    /// Number of SMs.
    pub sm_count: Param<u32>,
    /// Clocks.
    pub clocks: Clocks,
    /// Issue structure of an SM.
    pub issue: Issue,
    /// Residency limits.
    pub limits: ResidencyLimits,
    /// Register file.
    pub registers: RegisterFile,
    /// Shared memory.
    pub smem: SharedMemory,
    /// Non-tensor pipes.
    pub pipes: Pipes,
    /// Tensor cores.
    pub tensor: TensorCore,
    /// Tensor Memory Accelerator.
    pub tma: Tma,
    /// L1 cache.
    pub l1: L1,
    /// L2 cache.
    pub l2: L2,
    /// Device memory.
    pub hbm: Hbm,
    /// Synchronisation latencies.
    pub sync: Sync,
}

/// Canonical names of the built-in machines, in the order [`Machine::names`] returns them.
const NAMES: [&str; 3] = ["h100-sxm", "h200", "b200"];

/// Source strings shared by several Hopper parameters.
mod src {
    pub const OCC_H: &str = "CUDA cuda_occupancy.h (CUDA 12.x), cc 9.0 device properties";
    pub const HOPPER_TUNING: &str = "NVIDIA Hopper Tuning Guide, 'Increased Shared Memory Capacity': carve-outs 0,8,16,32,64,100,132,164,196,228 KB per SM, 1 KB reserved per CTA, 227 KB per CTA; cuda_occupancy.h cudaOccAlignUpShmemSizeVoltaPlus";
    pub const BW_TUNING: &str = "NVIDIA Blackwell Tuning Guide: 'Both the H100 and the B200 support shared memory capacities of 0, 8, 16, 32, 64, 100, 132, 164, 196 and 228 KB per SM ... CUDA reserves 1 KB of shared memory per thread block ... up to 227 KB'";
    pub const B200_QUERY: &str = "cudaGetDeviceProperties on a B200, quoted in pytorch/ao PR #4002 (148 SMs, 2048 threads/SM, 1024 threads/block, 65536 regs/SM and /block, 228 KB smem/SM, 126.50 MB L2, cc 10.0)";
    pub const ASSUMED_HOPPER: &str =
        "no public B200 number: assumed equal to Hopper; to be calibrated: calibration/README.md";
}

impl Machine {
    /// NVIDIA H100 SXM5 (80 GB HBM3, 132 SMs).
    pub fn h100_sxm() -> Machine {
        Machine {
            name: "h100-sxm",
            full_name: "NVIDIA H100 SXM5 80GB",
            compute_capability: Param::new((9, 0), "CUDA C++ Programming Guide, compute capabilities (H100 = 9.0)"),
            sm_count: Param::new(132, "NVIDIA H100 datasheet / Hopper whitepaper: 132 SMs on H100 SXM5"),
            clocks: Clocks {
                boost_ghz: Param::new(
                    1.98,
                    "NVIDIA H100 SXM5 max boost clock 1980 MHz (nvidia-smi max SM clock; spec)",
                ),
                spec_ghz: Param::new(
                    1.83,
                    "spec arithmetic: 989.4 TFLOP/s dense BF16 = 132 SMs x 2048 FMA/clk x 2 x 1.83 GHz (H100 datasheet)",
                ),
            },
            issue: Issue {
                warp_size: Param::new(32, "CUDA C++ Programming Guide: warp size 32"),
                sub_partitions: Param::new(
                    4,
                    "cuda_occupancy.h cudaOccSubPartitionsPerMultiprocessor = 4; Hopper whitepaper SM diagram",
                ),
                warp_instructions_per_smsp_per_clk: Param::new(
                    1,
                    "Hopper whitepaper: one warp scheduler dispatching 1 warp-instruction/clk per SMSP; Accel-Sim configs (no dual issue)",
                ),
                mio_queue_instructions: Param::new(
                    8,
                    "no public depth: NVIDIA developer forum 'What's the difference between MIO and LSU instruction queue' (Volta-Ampere): MUFU/LSU instructions wait in per-sub-partition MIO queues, a full queue stalls the warp (mio_throttle); depth assumed, to be calibrated: calibration/README.md",
                ),
            },
            limits: ResidencyLimits {
                warps_per_sm: Param::new(
                    64,
                    "CUDA C++ Programming Guide, technical specifications (cc 9.0): 64 resident warps per SM",
                ),
                threads_per_sm: Param::new(
                    2048,
                    "CUDA C++ Programming Guide, technical specifications (cc 9.0): 2048 threads per SM",
                ),
                ctas_per_sm: Param::new(
                    32,
                    "CUDA C++ Programming Guide, technical specifications (cc 9.0): 32 resident blocks per SM; cuda_occupancy.h cudaOccMaxBlocksPerMultiprocessor",
                ),
                threads_per_cta: Param::new(
                    1024,
                    "CUDA C++ Programming Guide, technical specifications: 1024 threads per block",
                ),
            },
            registers: RegisterFile {
                regs_per_sm: Param::new(65536, src::OCC_H),
                max_regs_per_cta: Param::new(
                    65536,
                    "CUDA C++ Programming Guide, technical specifications (cc 9.0): 64K registers per block",
                ),
                alloc_unit_regs_per_warp: Param::new(
                    256,
                    "cuda_occupancy.h cudaOccRegAllocationGranularity = 256 (per warp)",
                ),
                max_regs_per_thread: Param::new(
                    255,
                    "CUDA C++ Programming Guide, technical specifications: 255 registers per thread (ptxas -maxrregcount limit)",
                ),
                setmaxnreg: SetMaxNReg {
                    min: Param::new(24, "PTX ISA, setmaxnreg: imm-reg-count in range 24..=256"),
                    max: Param::new(256, "PTX ISA, setmaxnreg: imm-reg-count in range 24..=256"),
                    step: Param::new(8, "PTX ISA, setmaxnreg: imm-reg-count must be a multiple of 8"),
                },
            },
            smem: SharedMemory {
                max_per_sm_bytes: Param::new(228 * 1024, src::HOPPER_TUNING),
                max_per_cta_bytes: Param::new(227 * 1024, src::HOPPER_TUNING),
                carveouts_kb: Param::new(&[0, 8, 16, 32, 64, 100, 132, 164, 196, 228], src::HOPPER_TUNING),
                alloc_granularity_bytes: Param::new(
                    128,
                    "cuda_occupancy.h cudaOccSMemAllocationGranularity = 128 (cc 8.x/9.x)",
                ),
                reserved_per_cta_bytes: Param::new(
                    1024,
                    "cudaDevAttrReservedSharedMemoryPerBlock = 1024 on cc 9.0; Hopper Tuning Guide",
                ),
                bandwidth_bytes_per_clk: Param::new(
                    128,
                    "Luo et al., Benchmarking and Dissecting the Nvidia Hopper GPU Architecture (arXiv 2402.13499), shared-memory bandwidth 128 B/clk/SM",
                ),
                load_latency_cycles: Param::new(
                    23,
                    "measured: ld.shared pointer chase 23 cycles, calibration/README.md (H200, same GH100 SM); Luo et al. (arXiv 2402.13499) report ~29",
                ),
            },
            pipes: Pipes {
                fma: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        128,
                        "CUDA C++ Programming Guide, arithmetic instruction throughput (cc 9.0): 128 FP32 FMA/clk/SM",
                    ),
                    latency_cycles: Param::new(
                        4,
                        "Jia et al., Dissecting Volta via Microbenchmarking (arXiv 1804.06826): FFMA dependent latency 4 cycles; measured 4.03 cycles, calibration/README.md (H200, same GH100 SM)",
                    ),
                },
                alu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        64,
                        "CUDA C++ Programming Guide, arithmetic instruction throughput (cc 9.0): 64 32-bit integer multiply-add/clk/SM; Hopper whitepaper: 16 INT32 lanes per SMSP",
                    ),
                    latency_cycles: Param::new(
                        4,
                        "Jia et al. (arXiv 1804.06826): IADD3/IMAD dependent latency ~4-5 cycles; to be calibrated: calibration/README.md",
                    ),
                },
                mufu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        16,
                        "FlashAttention-3 (arXiv 2407.08608) Sec. 3: H100 SXM5 has 3.9 TFLOP/s of special functions = 16/clk/SM x 132 SMs x 1.83 GHz; CUDA guide throughput table",
                    ),
                    latency_cycles: Param::new(
                        17,
                        "measured: dependent MUFU.EX2 (ex2.approx.ftz) chain 17 cycles, calibration/README.md (H200, same GH100 SM); Accel-Sim 'sfu' ~20",
                    ),
                },
                lsu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        32,
                        "Hopper whitepaper SM diagram: 8 LD/ST units per SMSP x 4; consistent with 128 B/clk shared memory (Luo et al., arXiv 2402.13499)",
                    ),
                    latency_cycles: Param::new(
                        23,
                        "measured: shared-memory load latency 23 cycles, calibration/README.md (H200, same GH100 SM); Luo et al. (arXiv 2402.13499) report ~29",
                    ),
                },
            },
            tensor: TensorCore {
                dense_fma_per_clk_bf16: Param::new(
                    2048,
                    "spec arithmetic: 989.4 TFLOP/s / (2 x 132 SMs x 1.83 GHz) = 2048 FMA/clk/SM (512 per tensor core); cudnn-frontend",
                ),
                dense_fma_per_clk_fp8: Param::new(
                    4096,
                    "H100 datasheet: dense FP8 1979 TFLOP/s = 2x BF16 -> 4096 FMA/clk/SM",
                ),
                dense_fma_per_clk_tf32: Param::new(
                    1024,
                    "H100 datasheet: dense TF32 494.7 TFLOP/s = BF16 / 2 -> 1024 FMA/clk/SM",
                ),
                issue: MmaIssue::WarpgroupWgmma {
                    warps_per_warpgroup: Param::new(4, "PTX ISA, wgmma.mma_async: a warpgroup is 4 contiguous warps"),
                },
                latency: MmaLatencyRule {
                    m: Param::new(64, "PTX ISA, wgmma.mma_async shapes m64nNk16 (f16/bf16)"),
                    k: Param::new(16, "PTX ISA, wgmma.mma_async shapes m64nNk16 (f16/bf16)"),
                    n_min: Param::new(8, "PTX ISA, wgmma.mma_async: N in 8..=256, multiples of 8"),
                    n_max: Param::new(256, "PTX ISA, wgmma.mma_async: N in 8..=256, multiples of 8"),
                    n_step: Param::new(8, "PTX ISA, wgmma.mma_async: N in 8..=256, multiples of 8"),
                    columns_per_cycle: Param::new(
                        2,
                        "Luo et al. (arXiv 2402.13499) Table VIII: N/2 cycles for m64nNk16; measured as the back-to-back interval 32.1/64/128 cycles at N = 64/128/256, calibration/README.md (H200)",
                    ),
                    min_latency_cycles: Param::new(
                        32,
                        "assumed: N < 64 keeps the N = 64 interval (the N/2 rule is measured for N >= 64 only); to be calibrated: calibration/README.md",
                    ),
                    fixed_cycles: Param::new(
                        54,
                        "measured: one wgmma m64nNk16 SS takes 86/118/182 cycles at N = 64/128/256 = 54 + N/2 (least-squares fit), calibration/README.md (H200)",
                    ),
                },
                mma_sync_latency_cycles: Param::new(
                    24,
                    "Luo et al. (arXiv 2402.13499): legacy mma.sync m16n8k16 ~24 cycles on Hopper",
                ),
                interference: TensorInterference {
                    fma_interval_factor: Param::new(
                        1.30,
                        "measured: 2 WGs of FFMA streams 110.6 lanes/clk/SM alone, 80.6 / 90.4 while a WG runs wgmma m64n128k16 SS / RS back to back (x1.37 / x1.22, mean 1.30), calibration/results/interfere/interfere.log (H200, item 11)",
                    ),
                    alu_interval_factor: Param::new(
                        2.0,
                        "measured: F2FP.BF16.F32.PACK_AB 61.5 -> 30.9/31.1 and FMNMX 60.9 -> 30.9/30.3 lanes/clk/SM alone -> with wgmma SS/RS running, calibration/results/interfere/interfere.log (H200, item 11)",
                    ),
                    mufu_interval_factor: Param::new(
                        1.38,
                        "measured: MUFU.EX2 16.0 lanes/clk/SM alone, 11.87 / 11.38 with wgmma SS / RS running (x1.35 / x1.41), calibration/results/interfere/interfere.log (H200, item 11)",
                    ),
                    shuffle_interval_factor: Param::new(
                        3.85,
                        "measured: SHFL.BFLY 32.0 lanes/clk/SM alone, 8.62 / 7.96 with wgmma SS / RS running (x3.7 / x4.0), calibration/results/interfere/interfere.log (H200, item 11)",
                    ),
                    rs_delay_per_fma_instr: Param::new(
                        0.0,
                        "measured, and set to 0 for compiled code: back-to-back FFMA/FADD streams cost a running wgmma RS 0.17-0.27 tensor cycles per FMA-pipe warp-instruction (2045 -> 1296/498 FMA/clk/SM with 1/2 WGs of FFMA; 9-17% with an FA3-softmax mix issued in bursts of 8), but in the FA3-consumer synthetic, where ptxas interleaves the softmax, P V as RS or as SS reach the same tensor utilisation (91.5% vs 91.1%), and the model lowers fragment ops as bursts, calibration/results/interfere/interfere.log (H200, item 11)",
                    ),
                },
            },
            tma: Tma {
                extra_latency_cycles: Param::new(
                    24,
                    "fit to calibration/README.md (H200): TMA 2D 8 KB L2 hit 397 cycles issue-to-waiter = 285 (L2) + 8192/95 (streaming) + 24; the same rule gives 353/485/1009 for the measured 345/462/982 cycles of 4/16/64 KB copies",
                ),
                miss_extra_latency_cycles: Param::new(
                    486,
                    "fit to calibration/README.md (H200): TMA 2D 8 KB from HBM 1269 cycles issue-to-waiter = 695 (HBM) + 8192/95 (streaming) + 486",
                ),
                bytes_per_clk_per_sm: Param::new(
                    95,
                    "measured: one cp.async.bulk copy streams at ~95 B/clk (calibration/README.md) and one SM reads L2 at 95 B/clk with ld.global.cg (calibration/results/l2_bandwidth.txt), H200",
                ),
            },
            l1: L1 { hit_latency_cycles: Param::new(33, "Luo et al. (arXiv 2402.13499): L1 hit ~33-41 cycles") },
            l2: L2 {
                size_bytes: Param::new(
                    50 * 1024 * 1024,
                    "NVIDIA H100 datasheet / Hopper whitepaper: 50 MB L2 (cudaDevAttrL2CacheSize = 52428800)",
                ),
                hit_latency_cycles: Param::new(
                    285,
                    "measured: L2 hit 285 cycles median per hop (p10 265, p90 311, unimodal), calibration/README.md (H200); Luo et al. extension (arXiv 2501.12084) ~258 near",
                ),
                far_hit_latency_cycles: Param::new(
                    414,
                    "Luo et al. extension (arXiv 2501.12084): L2 hit ~414 cycles (far partition)",
                ),
                bandwidth_tb_s: Param::new(
                    8.5,
                    "measured: L2 read bandwidth 7.6-8.5 TB/s (ld.global.cg.v4 over a 24-40 MB L2-resident buffer, 2048 threads/SM on all 132 SMs; 8.48 TB/s best), calibration/src/bench_l2_bandwidth.cu, calibration/results/l2_bandwidth.txt (H200, same GH100 L2); jax-ml 'How to Scale Your Model' quotes ~5.5",
                ),
            },
            hbm: Hbm {
                capacity_bytes: Param::new(80_000_000_000, "NVIDIA H100 datasheet: 80 GB HBM3 (SXM5)"),
                bandwidth_tb_s: Param::new(3.35, "NVIDIA H100 datasheet: 3.35 TB/s (SXM5)"),
                latency_cycles: Param::new(
                    520,
                    "midpoint of ~480-570 cycles for an L2 miss (Luo et al., arXiv 2402.13499; H100 microbenchmarks); to be calibrated: calibration/README.md",
                ),
            },
            sync: Sync {
                mbarrier_wake_cycles: Param::new(
                    89,
                    "measured: mbarrier.arrive -> waiter in try_wait.parity resumes 89 cycles one-way, calibration/README.md (H200, same GH100 SM)",
                ),
                named_barrier_cycles: Param::new(
                    39,
                    "measured: bar.arrive -> bar.sync waiter resumes 39.4 cycles (half a ping-pong round trip), calibration/README.md (H200, same GH100 SM)",
                ),
            },
        }
    }

    /// NVIDIA H200 SXM (141 GB HBM3e at 4.8 TB/s; same GH100 SMs and clocks as the H100 SXM).
    pub fn h200() -> Machine {
        let h100 = Machine::h100_sxm();
        Machine {
            name: "h200",
            full_name: "NVIDIA H200 SXM 141GB",
            sm_count: Param::new(132, "NVIDIA H200 datasheet: GH100 with 132 SMs, same as H100 SXM5"),
            hbm: Hbm {
                capacity_bytes: Param::new(141_000_000_000, "NVIDIA H200 datasheet: 141 GB HBM3e"),
                bandwidth_tb_s: Param::new(4.8, "NVIDIA H200 datasheet: 4.8 TB/s"),
                latency_cycles: Param::new(
                    695,
                    "measured: L2-miss pointer chase 695 cycles median (p10 537, p90 815) after a 512 MB flush, calibration/README.md (H200)",
                ),
            },
            ..h100
        }
    }

    /// NVIDIA B200 (HGX, 1000 W; 148 SMs, 180 GB HBM3e at 8 TB/s, tensor memory).
    pub fn b200() -> Machine {
        Machine {
            name: "b200",
            full_name: "NVIDIA B200 SXM 180GB",
            compute_capability: Param::new((10, 0), src::B200_QUERY),
            sm_count: Param::new(
                148,
                "cudaGetDeviceProperties: 148 SMs (pytorch/ao PR #4002); Chips and Cheese 'Nvidia's B200: Keeping the CUDA Juggernaut Rolling': 74 enabled SMs per die x 2",
            ),
            clocks: Clocks {
                boost_ghz: Param::new(
                    1.98,
                    "third-party spec database (hmc-tech.com/gpus/nvidia-b200-vs-nvidia-b100: boost 1.98 GHz), not an NVIDIA document; to be calibrated: calibration/README.md",
                ),
                spec_ghz: Param::new(
                    1.856,
                    "derived: 2.25 PFLOP/s dense BF16 (HGX B200 at 1000 W, NVIDIA via glennklockwood.com/garden/processors/B200; together.ai FlashAttention-4 blog) / (2 x 4096 FMA/clk/SM x 148 SMs) = 1.856 GHz; hmc-tech lists tensor clock 1.86 GHz",
                ),
            },
            issue: Issue {
                warp_size: Param::new(32, src::B200_QUERY),
                sub_partitions: Param::new(
                    4,
                    "Blackwell SM keeps 4 sub-partitions with 1 tensor core each (4 per SM, 592 tensor cores / 148 SMs; hmc-tech.com B200 spec); cuda_occupancy.h (CUDA 12.8) sub-partitions = 4",
                ),
                warp_instructions_per_smsp_per_clk: Param::new(1, src::ASSUMED_HOPPER),
                mio_queue_instructions: Param::new(8, src::ASSUMED_HOPPER),
            },
            limits: ResidencyLimits {
                warps_per_sm: Param::new(
                    64,
                    "derived from 2048 threads/SM / 32 (cudaGetDeviceProperties, pytorch/ao PR #4002); CUDA C++ Programming Guide cc 10.0",
                ),
                threads_per_sm: Param::new(2048, src::B200_QUERY),
                ctas_per_sm: Param::new(
                    32,
                    "CUDA C++ Programming Guide, technical specifications (cc 10.0): 32 resident blocks per SM",
                ),
                threads_per_cta: Param::new(1024, src::B200_QUERY),
            },
            registers: RegisterFile {
                regs_per_sm: Param::new(65536, src::B200_QUERY),
                max_regs_per_cta: Param::new(65536, src::B200_QUERY),
                alloc_unit_regs_per_warp: Param::new(
                    256,
                    "cuda_occupancy.h (CUDA 12.8+) cudaOccRegAllocationGranularity = 256 for cc 10.x; assumed equal to Hopper",
                ),
                max_regs_per_thread: Param::new(
                    255,
                    "CUDA C++ Programming Guide, technical specifications (cc 10.0): 255 registers per thread",
                ),
                setmaxnreg: SetMaxNReg {
                    min: Param::new(24, "PTX ISA, setmaxnreg (sm_100a): imm-reg-count in range 24..=256"),
                    max: Param::new(256, "PTX ISA, setmaxnreg (sm_100a): imm-reg-count in range 24..=256"),
                    step: Param::new(8, "PTX ISA, setmaxnreg (sm_100a): multiple of 8"),
                },
            },
            smem: SharedMemory {
                max_per_sm_bytes: Param::new(228 * 1024, src::BW_TUNING),
                max_per_cta_bytes: Param::new(227 * 1024, src::BW_TUNING),
                carveouts_kb: Param::new(&[0, 8, 16, 32, 64, 100, 132, 164, 196, 228], src::BW_TUNING),
                alloc_granularity_bytes: Param::new(
                    128,
                    "cuda_occupancy.h (CUDA 12.8+) cudaOccSMemAllocationGranularity = 128 for cc 10.x; assumed equal to Hopper",
                ),
                reserved_per_cta_bytes: Param::new(1024, src::BW_TUNING),
                bandwidth_bytes_per_clk: Param::new(
                    128,
                    "together.ai FlashAttention-4 blog: from H100 to B200 'both the SFU count and shared memory bandwidth remain unchanged' (128 B/clk/SM)",
                ),
                load_latency_cycles: Param::new(29, src::ASSUMED_HOPPER),
            },
            pipes: Pipes {
                fma: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        128,
                        "assumed equal to Hopper (32 FP32 lanes per SMSP; 18,944 FP32 cores / 148 SMs = 128, hmc-tech.com B200 spec)",
                    ),
                    latency_cycles: Param::new(4, src::ASSUMED_HOPPER),
                },
                alu: Pipe {
                    lanes_per_clk_per_sm: Param::new(64, src::ASSUMED_HOPPER),
                    latency_cycles: Param::new(4, src::ASSUMED_HOPPER),
                },
                mufu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        16,
                        "together.ai FlashAttention-4 blog: SFU count unchanged from H100 to B200 (16 ex2/clk/SM); exponential is the forward-pass bottleneck",
                    ),
                    latency_cycles: Param::new(20, src::ASSUMED_HOPPER),
                },
                lsu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        32,
                        "assumed equal to Hopper; consistent with unchanged 128 B/clk shared-memory bandwidth (together.ai FlashAttention-4 blog)",
                    ),
                    latency_cycles: Param::new(29, src::ASSUMED_HOPPER),
                },
            },
            tensor: TensorCore {
                dense_fma_per_clk_bf16: Param::new(
                    4096,
                    "CUTLASS tcgen05 MMA Programming Guide: tcgen05 has '2x-4x the throughput of Hopper's WGMMA, depending on data type' (2x for BF16: 4096 FMA/clk/SM); consistent with 2.25 PFLOP/s at 148 SMs x ~1.86 GHz",
                ),
                dense_fma_per_clk_fp8: Param::new(
                    8192,
                    "HGX B200 spec: dense FP8 4.5 PFLOP/s = 2x BF16 (glennklockwood.com/garden/processors/B200) -> 8192 FMA/clk/SM",
                ),
                dense_fma_per_clk_tf32: Param::new(
                    2048,
                    "HGX B200 spec: dense TF32 1.1 PFLOP/s = BF16 / 2 (glennklockwood.com/garden/processors/B200) -> 2048 FMA/clk/SM",
                ),
                issue: MmaIssue::SingleThreadTcgen05 {
                    tmem: TensorMemory {
                        lanes: Param::new(
                            128,
                            "PTX ISA, Tensor Memory (tcgen05): 128 lanes x 512 columns of 32-bit cells per CTA; NVIDIA Tilus docs 'Tensor Memory Tensor'",
                        ),
                        columns: Param::new(
                            512,
                            "PTX ISA, Tensor Memory (tcgen05): 128 lanes x 512 columns of 32-bit cells per CTA; NVIDIA Tilus docs 'Tensor Memory Tensor'",
                        ),
                        cell_bits: Param::new(32, "PTX ISA, Tensor Memory (tcgen05): 32-bit cells (256 KB per SM)"),
                        alloc_granularity_columns: Param::new(
                            32,
                            "PTX ISA, tcgen05.alloc: nCols a power of 2, at least 32; NVIDIA Tilus docs: 'allocated in units of 32 columns'",
                        ),
                        access_bytes_per_clk_per_sm: Param::new(
                            512,
                            "no public number: assumed one 32-bit column per lane per clock on each sub-partition's 32 lanes (4 x 32 x 4 B); to be calibrated: calibration/README.md",
                        ),
                        load_latency_cycles: Param::new(
                            29,
                            "no public number: assumed equal to a shared-memory load; to be calibrated: calibration/README.md",
                        ),
                    },
                    max_cta_group: Param::new(
                        2,
                        "PTX ISA, tcgen05.mma .cta_group::2 (CTA pair on two SMs of a TPC); CUTLASS tcgen05 MMA Programming Guide",
                    ),
                },
                latency: MmaLatencyRule {
                    m: Param::new(
                        128,
                        "PTX ISA, tcgen05.mma kind::f16 with cta_group::1: M = 64 or 128 (128 uses all 128 TMEM lanes)",
                    ),
                    k: Param::new(16, "PTX ISA, tcgen05.mma kind::f16: K = 16"),
                    n_min: Param::new(16, "PTX ISA, tcgen05.mma kind::f16, M = 128: N in 16..=256, multiples of 16"),
                    n_max: Param::new(256, "PTX ISA, tcgen05.mma kind::f16, M = 128: N in 16..=256, multiples of 16"),
                    n_step: Param::new(16, "PTX ISA, tcgen05.mma kind::f16, M = 128: N in 16..=256, multiples of 16"),
                    columns_per_cycle: Param::new(
                        2,
                        "derived from throughput: m128nNk16 = 2048*N FMA at 4096 FMA/clk/SM -> N/2 cycles; no published latency, to be calibrated: calibration/README.md",
                    ),
                    min_latency_cycles: Param::new(32, src::ASSUMED_HOPPER),
                    fixed_cycles: Param::new(54, src::ASSUMED_HOPPER),
                },
                mma_sync_latency_cycles: Param::new(24, src::ASSUMED_HOPPER),
                interference: TensorInterference::none(
                    "not measured on Blackwell (tcgen05 accumulators live in tensor memory, not registers): assumed none; to be calibrated: calibration/README.md",
                ),
            },
            tma: Tma {
                extra_latency_cycles: Param::new(24, src::ASSUMED_HOPPER),
                miss_extra_latency_cycles: Param::new(486, src::ASSUMED_HOPPER),
                bytes_per_clk_per_sm: Param::new(
                    128,
                    "no public per-SM TMA number; upper bound = shared-memory write bandwidth 128 B/clk/SM; to be calibrated: calibration/README.md",
                ),
            },
            l1: L1 { hit_latency_cycles: Param::new(33, src::ASSUMED_HOPPER) },
            l2: L2 {
                size_bytes: Param::new(
                    132_644_864,
                    "cudaGetDeviceProperties: L2 126.50 MB (pytorch/ao PR #4002); Blackwell Tuning Guide: 126 MB",
                ),
                hit_latency_cycles: Param::new(
                    258,
                    "no public B200 number (two dies; Chips and Cheese B200 article measures a slower cross-die L2): assumed equal to Hopper; to be calibrated: calibration/README.md",
                ),
                far_hit_latency_cycles: Param::new(414, src::ASSUMED_HOPPER),
                bandwidth_tb_s: Param::new(8.5, src::ASSUMED_HOPPER),
            },
            hbm: Hbm {
                capacity_bytes: Param::new(
                    180_000_000_000,
                    "HGX B200 / MLPerf system description 'NVIDIA B200-SXM-180GB' (192 GB physical HBM3e; device reports 178.35 GB, pytorch/ao PR #4002)",
                ),
                bandwidth_tb_s: Param::new(
                    8.0,
                    "NVIDIA B200 datasheet: 8 TB/s HBM3e (pytorch/ao PR #4002 computes 7.67 TB/s from the 7680-bit bus at 3996 MHz)",
                ),
                latency_cycles: Param::new(
                    520,
                    "no public cycle count (Jarmusch & Chandrasekaran, arXiv 2512.02189, report lower cache-miss latency than H200): assumed equal to Hopper; to be calibrated: calibration/README.md",
                ),
            },
            sync: Sync {
                mbarrier_wake_cycles: Param::new(
                    40,
                    "no published number; placeholder value, to be calibrated: calibration/README.md",
                ),
                named_barrier_cycles: Param::new(
                    20,
                    "no published number; placeholder value, to be calibrated: calibration/README.md",
                ),
            },
        }
    }

    /// Canonical names of the built-in machines (`"h100-sxm"`, `"h200"`, `"b200"`).
    pub fn names() -> &'static [&'static str] {
        &NAMES
    }

    /// Looks a machine up by name, case-insensitively. Accepts `"h100"`, `"h100-sxm"` (also
    /// written with `_` or a space), `"h200"` and `"b200"`; returns `None` for anything else.
    pub fn by_name(name: &str) -> Option<Machine> {
        let key: String =
            name.trim().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c.to_ascii_lowercase() }).collect();
        match key.as_str() {
            "h100" | "h100-sxm" | "h100-sxm5" => Some(Machine::h100_sxm()),
            "h200" | "h200-sxm" => Some(Machine::h200()),
            "b200" | "b200-sxm" => Some(Machine::b200()),
            _ => None,
        }
    }

    /// Peak dense BF16 tensor throughput of the whole GPU at `clock_ghz`, in TFLOP/s
    /// (one FMA counts as two FLOPs).
    pub fn peak_dense_bf16_tflops(&self, clock_ghz: f64) -> f64 {
        2.0 * f64::from(self.sm_count.value) * f64::from(self.tensor.dense_fma_per_clk_bf16.value) * clock_ghz * 1e-3
    }

    /// Peak dense BF16 throughput at the clock the vendor quotes it at ([`Clocks::spec_ghz`]),
    /// in TFLOP/s.
    pub fn spec_peak_dense_bf16_tflops(&self) -> f64 {
        self.peak_dense_bf16_tflops(self.clocks.spec_ghz.value)
    }

    /// Converts a cycle count to seconds at `clock_ghz`.
    pub fn cycles_to_seconds(&self, cycles: f64, clock_ghz: f64) -> f64 {
        cycles / (clock_ghz * 1e9)
    }

    /// Converts seconds to a cycle count at `clock_ghz`.
    pub fn seconds_to_cycles(&self, seconds: f64, clock_ghz: f64) -> f64 {
        seconds * clock_ghz * 1e9
    }

    /// Latency in cycles of this machine's native asynchronous MMA (`wgmma` m64nNk16 on
    /// Hopper, `tcgen05.mma` m128nNk16 on Blackwell) with `n` output columns; `None` if `n` is
    /// not a legal size.
    pub fn mma_latency(&self, n: u32) -> Option<u32> {
        self.tensor.latency.latency(n)
    }

    /// Latency in cycles of `wgmma.mma_async` m64nNk16 (BF16/F16): `N/2` cycles for
    /// `N >= 64` (Luo et al. Table VIII). `None` if this machine has no `wgmma` (Blackwell
    /// issues `tcgen05.mma` instead) or `n` is not a legal `wgmma` size.
    pub fn wgmma_latency(&self, n: u32) -> Option<u32> {
        match self.tensor.issue {
            MmaIssue::WarpgroupWgmma { .. } => self.mma_latency(n),
            MmaIssue::SingleThreadTcgen05 { .. } => None,
        }
    }

    /// The machine's tensor memory, if its MMAs accumulate into one.
    pub fn tensor_memory(&self) -> Option<&TensorMemory> {
        match &self.tensor.issue {
            MmaIssue::WarpgroupWgmma { .. } => None,
            MmaIssue::SingleThreadTcgen05 { tmem, .. } => Some(tmem),
        }
    }

    /// What one CTA may use on this machine, for launch checks.
    pub fn cta_limits(&self) -> CtaLimits {
        CtaLimits {
            smem_per_cta_bytes: self.smem.max_per_cta_bytes.value,
            threads_per_cta: self.limits.threads_per_cta.value,
            registers_per_sm: self.registers.max_regs_per_cta.value,
            tmem_columns: self.tensor_memory().map_or(0, |t| t.columns.value),
        }
    }

    /// Every parameter of the machine with its dotted name, value and source, for reports
    /// and audits.
    pub fn parameters(&self) -> Vec<ParamEntry> {
        let mut out = Vec::new();
        let mut add = |name: &'static str, value: String, source: &'static str| {
            out.push(ParamEntry { name, value, source });
        };
        macro_rules! p {
            ($name:literal, $param:expr) => {
                add($name, format!("{:?}", $param.value), $param.source)
            };
        }
        p!("compute_capability", self.compute_capability);
        p!("sm_count", self.sm_count);
        p!("clocks.boost_ghz", self.clocks.boost_ghz);
        p!("clocks.spec_ghz", self.clocks.spec_ghz);
        p!("issue.warp_size", self.issue.warp_size);
        p!("issue.sub_partitions", self.issue.sub_partitions);
        p!("issue.warp_instructions_per_smsp_per_clk", self.issue.warp_instructions_per_smsp_per_clk);
        p!("issue.mio_queue_instructions", self.issue.mio_queue_instructions);
        p!("limits.warps_per_sm", self.limits.warps_per_sm);
        p!("limits.threads_per_sm", self.limits.threads_per_sm);
        p!("limits.ctas_per_sm", self.limits.ctas_per_sm);
        p!("limits.threads_per_cta", self.limits.threads_per_cta);
        p!("registers.regs_per_sm", self.registers.regs_per_sm);
        p!("registers.max_regs_per_cta", self.registers.max_regs_per_cta);
        p!("registers.alloc_unit_regs_per_warp", self.registers.alloc_unit_regs_per_warp);
        p!("registers.max_regs_per_thread", self.registers.max_regs_per_thread);
        p!("registers.setmaxnreg.min", self.registers.setmaxnreg.min);
        p!("registers.setmaxnreg.max", self.registers.setmaxnreg.max);
        p!("registers.setmaxnreg.step", self.registers.setmaxnreg.step);
        p!("smem.max_per_sm_bytes", self.smem.max_per_sm_bytes);
        p!("smem.max_per_cta_bytes", self.smem.max_per_cta_bytes);
        p!("smem.carveouts_kb", self.smem.carveouts_kb);
        p!("smem.alloc_granularity_bytes", self.smem.alloc_granularity_bytes);
        p!("smem.reserved_per_cta_bytes", self.smem.reserved_per_cta_bytes);
        p!("smem.bandwidth_bytes_per_clk", self.smem.bandwidth_bytes_per_clk);
        p!("smem.load_latency_cycles", self.smem.load_latency_cycles);
        p!("pipes.fma.lanes_per_clk_per_sm", self.pipes.fma.lanes_per_clk_per_sm);
        p!("pipes.fma.latency_cycles", self.pipes.fma.latency_cycles);
        p!("pipes.alu.lanes_per_clk_per_sm", self.pipes.alu.lanes_per_clk_per_sm);
        p!("pipes.alu.latency_cycles", self.pipes.alu.latency_cycles);
        p!("pipes.mufu.lanes_per_clk_per_sm", self.pipes.mufu.lanes_per_clk_per_sm);
        p!("pipes.mufu.latency_cycles", self.pipes.mufu.latency_cycles);
        p!("pipes.lsu.lanes_per_clk_per_sm", self.pipes.lsu.lanes_per_clk_per_sm);
        p!("pipes.lsu.latency_cycles", self.pipes.lsu.latency_cycles);
        p!("tensor.dense_fma_per_clk_bf16", self.tensor.dense_fma_per_clk_bf16);
        p!("tensor.dense_fma_per_clk_fp8", self.tensor.dense_fma_per_clk_fp8);
        p!("tensor.dense_fma_per_clk_tf32", self.tensor.dense_fma_per_clk_tf32);
        match &self.tensor.issue {
            MmaIssue::WarpgroupWgmma { warps_per_warpgroup } => {
                p!("tensor.issue.wgmma.warps_per_warpgroup", warps_per_warpgroup);
            }
            MmaIssue::SingleThreadTcgen05 { tmem, max_cta_group } => {
                p!("tensor.issue.tcgen05.tmem.lanes", tmem.lanes);
                p!("tensor.issue.tcgen05.tmem.columns", tmem.columns);
                p!("tensor.issue.tcgen05.tmem.cell_bits", tmem.cell_bits);
                p!("tensor.issue.tcgen05.tmem.alloc_granularity_columns", tmem.alloc_granularity_columns);
                p!("tensor.issue.tcgen05.tmem.access_bytes_per_clk_per_sm", tmem.access_bytes_per_clk_per_sm);
                p!("tensor.issue.tcgen05.tmem.load_latency_cycles", tmem.load_latency_cycles);
                p!("tensor.issue.tcgen05.max_cta_group", max_cta_group);
            }
        }
        p!("tensor.latency.m", self.tensor.latency.m);
        p!("tensor.latency.k", self.tensor.latency.k);
        p!("tensor.latency.n_min", self.tensor.latency.n_min);
        p!("tensor.latency.n_max", self.tensor.latency.n_max);
        p!("tensor.latency.n_step", self.tensor.latency.n_step);
        p!("tensor.latency.columns_per_cycle", self.tensor.latency.columns_per_cycle);
        p!("tensor.latency.min_latency_cycles", self.tensor.latency.min_latency_cycles);
        p!("tensor.latency.fixed_cycles", self.tensor.latency.fixed_cycles);
        p!("tensor.mma_sync_latency_cycles", self.tensor.mma_sync_latency_cycles);
        let i = &self.tensor.interference;
        p!("tensor.interference.fma_interval_factor", i.fma_interval_factor);
        p!("tensor.interference.alu_interval_factor", i.alu_interval_factor);
        p!("tensor.interference.mufu_interval_factor", i.mufu_interval_factor);
        p!("tensor.interference.shuffle_interval_factor", i.shuffle_interval_factor);
        p!("tensor.interference.rs_delay_per_fma_instr", i.rs_delay_per_fma_instr);
        p!("tma.extra_latency_cycles", self.tma.extra_latency_cycles);
        p!("tma.miss_extra_latency_cycles", self.tma.miss_extra_latency_cycles);
        p!("tma.bytes_per_clk_per_sm", self.tma.bytes_per_clk_per_sm);
        p!("l1.hit_latency_cycles", self.l1.hit_latency_cycles);
        p!("l2.size_bytes", self.l2.size_bytes);
        p!("l2.hit_latency_cycles", self.l2.hit_latency_cycles);
        p!("l2.far_hit_latency_cycles", self.l2.far_hit_latency_cycles);
        p!("l2.bandwidth_tb_s", self.l2.bandwidth_tb_s);
        p!("hbm.capacity_bytes", self.hbm.capacity_bytes);
        p!("hbm.bandwidth_tb_s", self.hbm.bandwidth_tb_s);
        p!("hbm.latency_cycles", self.hbm.latency_cycles);
        p!("sync.mbarrier_wake_cycles", self.sync.mbarrier_wake_cycles);
        p!("sync.named_barrier_cycles", self.sync.named_barrier_cycles);
        out
    }
}

impl fmt::Display for Machine {
    /// Writes one line per parameter: `name = value  [source]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.full_name, self.name)?;
        for entry in self.parameters() {
            writeln!(f, "  {} = {}  [{}]", entry.name, entry.value, entry.source)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Machine> {
        Machine::names().iter().filter_map(|n| Machine::by_name(n)).collect()
    }

    #[test]
    fn by_name_round_trips() {
        assert_eq!(all().len(), Machine::names().len());
        for m in all() {
            assert_eq!(Machine::by_name(m.name), Some(m));
            assert_eq!(Machine::by_name(&m.name.to_uppercase()), Some(m));
        }
        assert_eq!(Machine::by_name("h100"), Some(Machine::h100_sxm()));
        assert_eq!(Machine::by_name("H100-SXM"), Some(Machine::h100_sxm()));
        assert_eq!(Machine::by_name(" h100_sxm "), Some(Machine::h100_sxm()));
        assert_eq!(Machine::by_name("H200"), Some(Machine::h200()));
        assert_eq!(Machine::by_name("B200"), Some(Machine::b200()));
        assert_eq!(Machine::by_name("a100"), None);
        assert_eq!(Machine::by_name(""), None);
        assert_eq!(Machine::by_name("h100-sxm-extra"), None);
    }

    #[test]
    fn every_param_has_a_source() {
        for m in all() {
            let params = m.parameters();
            assert!(params.len() >= 50, "{}: only {} parameters listed", m.name, params.len());
            for p in &params {
                assert!(!p.source.trim().is_empty(), "{}: {} has no source", m.name, p.name);
                assert!(!p.value.is_empty(), "{}: {} has no value", m.name, p.name);
            }
            let mut names: Vec<_> = params.iter().map(|p| p.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), params.len(), "{}: duplicate parameter names", m.name);
        }
    }

    #[test]
    fn placeholders_are_marked() {
        for m in all() {
            assert!(!m.sm_count.needs_calibration());
        }
        assert!(Machine::b200().sync.mbarrier_wake_cycles.needs_calibration());
        assert!(Machine::b200().tensor_memory().is_some_and(|t| t.access_bytes_per_clk_per_sm.needs_calibration()));
        assert!(Machine::h200().sync.mbarrier_wake_cycles.source.contains("calibration/README.md"));
        assert!(Machine::b200().pipes.alu.latency_cycles.source.contains("assumed equal to Hopper"));
    }

    #[test]
    fn peak_bf16_matches_spec_sheets() {
        let h100 = Machine::h100_sxm();
        assert!((h100.spec_peak_dense_bf16_tflops() - 989.4).abs() < 1.0);
        let h200 = Machine::h200();
        assert!((h200.spec_peak_dense_bf16_tflops() - 989.4).abs() < 1.0);
        let b200 = Machine::b200();
        assert!((b200.spec_peak_dense_bf16_tflops() - 2250.0).abs() < 5.0);
        assert!(h100.peak_dense_bf16_tflops(h100.clocks.boost_ghz.value) > 989.4);
    }

    #[test]
    fn h200_differs_from_h100_only_in_memory_and_names() {
        let (h100, h200) = (Machine::h100_sxm(), Machine::h200());
        assert_eq!(h200.hbm.bandwidth_tb_s.value, 4.8);
        assert_eq!(h100.hbm.bandwidth_tb_s.value, 3.35);
        assert_eq!(h200.sm_count.value, h100.sm_count.value);
        assert_eq!(h200.clocks, h100.clocks);
        assert_eq!(h200.tensor, h100.tensor);
        assert_eq!(h200.smem, h100.smem);
    }

    #[test]
    fn cycles_and_seconds_round_trip() {
        let m = Machine::h100_sxm();
        let s = m.cycles_to_seconds(1.83e9, 1.83);
        assert!((s - 1.0).abs() < 1e-12);
        let c = m.seconds_to_cycles(2e-6, 2.0);
        assert!((c - 4000.0).abs() < 1e-9);
        let back = m.seconds_to_cycles(m.cycles_to_seconds(12345.0, 1.98), 1.98);
        assert!((back - 12345.0).abs() < 1e-6);
    }

    #[test]
    fn wgmma_latency_follows_the_h200_calibration() {
        // 54 + N/2: 86, 118, 182 cycles measured for N = 64, 128, 256 (calibration/README.md).
        let h100 = Machine::h100_sxm();
        assert_eq!(h100.wgmma_latency(64), Some(86));
        assert_eq!(h100.wgmma_latency(128), Some(118));
        assert_eq!(h100.wgmma_latency(256), Some(182));
        assert_eq!(h100.wgmma_latency(8), Some(58));
        assert_eq!(h100.wgmma_latency(0), None);
        assert_eq!(h100.wgmma_latency(12), None);
        assert_eq!(h100.wgmma_latency(264), None);
        assert!(h100.tensor_memory().is_none());
    }

    #[test]
    fn b200_uses_tcgen05_and_tensor_memory() {
        let b200 = Machine::b200();
        assert_eq!(b200.wgmma_latency(128), None);
        assert_eq!(b200.mma_latency(256), Some(54 + 128));
        assert_eq!(b200.mma_latency(8), None);
        let tmem = b200.tensor_memory().copied();
        assert_eq!(tmem.map(|t| t.bytes()), Some(256 * 1024));
        assert_eq!(b200.sm_count.value, 148);
        assert_eq!(b200.hbm.bandwidth_tb_s.value, 8.0);
        assert_eq!(b200.pipes.mufu.lanes_per_clk_per_sm.value, 16);
    }

    #[test]
    fn limits_are_consistent() {
        for m in all() {
            let warp = m.issue.warp_size.value;
            assert_eq!(m.limits.warps_per_sm.value * warp, m.limits.threads_per_sm.value);
            assert_eq!(m.smem.carveouts_kb.value.last().map(|kb| kb * 1024), Some(m.smem.max_per_sm_bytes.value));
            assert!(m.smem.carveouts_kb.value.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(
                m.smem.max_per_cta_bytes.value + m.smem.reserved_per_cta_bytes.value,
                m.smem.max_per_sm_bytes.value
            );
            assert!(m.registers.setmaxnreg.is_valid(24));
            assert!(m.registers.setmaxnreg.is_valid(256));
            assert!(!m.registers.setmaxnreg.is_valid(20));
            assert!(!m.registers.setmaxnreg.is_valid(170));
            assert!(!m.registers.setmaxnreg.is_valid(264));
        }
    }

    #[test]
    fn display_lists_every_parameter() {
        let m = Machine::b200();
        let text = m.to_string();
        assert_eq!(text.lines().count(), m.parameters().len() + 1);
        assert!(text.contains("tensor.issue.tcgen05.tmem.columns = 512"));
    }
}
