//! NVIDIA B200: the Blackwell machine description, with the sources of its numbers.

use super::{
    Clocks, Clusters, Dispatch, Hbm, Issue, L1, L2, Machine, MmaIssue, MmaLatencyRule, Param, Pipe, Pipes, Power,
    RegisterFile, ResidencyLimits, SetMaxNReg, SharedMemory, Spread, Sync, TensorCore, TensorInterference,
    TensorMemory, Tma, h100,
};

/// Source strings shared by several B200 parameters.
mod src {
    pub const BW_TUNING: &str = "NVIDIA Blackwell Tuning Guide: 'Both the H100 and the B200 support shared memory capacities of 0, 8, 16, 32, 64, 100, 132, 164, 196 and 228 KB per SM ... CUDA reserves 1 KB of shared memory per thread block ... up to 227 KB'";
    pub const B200_QUERY: &str = "cudaGetDeviceProperties on a B200, quoted in pytorch/ao PR #4002 (148 SMs, 2048 threads/SM, 1024 threads/block, 65536 regs/SM and /block, 228 KB smem/SM, 126.50 MB L2, cc 10.0)";
    pub const ASSUMED_GH100_POWER: &str =
        "no B200 measurement: the H200 (GH100) coefficient, assumed; to be calibrated: calibration/README.md";
    pub const ASSUMED_HOPPER: &str =
        "no public B200 number: assumed equal to Hopper; to be calibrated: calibration/README.md";
}

impl Machine {
    /// NVIDIA B200 (HGX, 1000 W; 148 SMs, 180 GB HBM3e at 8 TB/s, tensor memory).
    pub fn b200() -> Machine {
        let gh100 = Machine::h200().power;
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
                scheduler_policy: Machine::h100_sxm().issue.scheduler_policy.assumed(src::ASSUMED_HOPPER),
                interleave_element_wise: Machine::h100_sxm().issue.interleave_element_wise.assumed(src::ASSUMED_HOPPER),
                fixed_stall_cycles: Param::new(
                    1.0,
                    "not applied: the H200's 2.2 is the mean stall count ptxas writes into sm_90a code (calibration item 39); no sm_100a SASS of the generated kernels has been read",
                ),
                fold_zero_fill: Machine::h100_sxm().issue.fold_zero_fill.assumed(src::ASSUMED_HOPPER),
                release_convergence: Machine::h100_sxm().issue.release_convergence.assumed(src::ASSUMED_HOPPER),
                ring_advance_at_loop_tail: Machine::h100_sxm()
                    .issue
                    .ring_advance_at_loop_tail
                    .assumed(src::ASSUMED_HOPPER),
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
                        "NVIDIA HGX B200 specification (GB200 NVL72 / HGX B200 spec table): FP32 75 TFLOP/s = 128 FMA/clk/SM x 2 x 148 SMs x 1.98 GHz; 18,944 FP32 cores / 148 SMs = 128 (hmc-tech.com B200 spec)",
                    ),
                    latency_cycles: Param::new(4, src::ASSUMED_HOPPER),
                },
                imad_intervals: Param::new(
                    2,
                    "CUDA C++ Programming Guide, arithmetic instruction throughput (cc 10.0): 64 32-bit integer multiply-add vs 128 FP32 FMA per clk per SM",
                ),
                fma_elements_per_instr: Param::new(
                    2,
                    "PTX ISA 8.6: add/sub/mul/fma on .f32x2 (SASS FADD2/FMUL2/FFMA2) on sm_100; issue rate not published: one issue per packed instruction assumed, its FP32 work bounded by the 128 FMA/clk/SM of the FP32 peak (the vendor's 75 TFLOP/s FP32 figure is not doubled by packing, whereas its FP16 figure counts HFMA2 twice)",
                ),
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
                uniform: Pipe {
                    lanes_per_clk_per_sm: Param::new(128, src::ASSUMED_HOPPER),
                    latency_cycles: Param::new(4, src::ASSUMED_HOPPER),
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
                    tmem_a_fixed_cycles: Param::new(
                        64,
                        "measured end to end (issue, commit, mbarrier wait): BF16 TS 1-SM latency = N/2 + 104 cycles (SemiAnalysis microbench-blackwell umma_latency, CLAUDE.md 'Results'; lat_results_full.csv: N=128 168 cycles), less this model's mbarrier_wake_cycles (40)",
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
                        "measured: initiation interval of back-to-back BF16 tcgen05.mma converges to N/2 cycles for M >= 64 on one SM (SemiAnalysis microbench-blackwell umma_latency/fit_results.csv: M=128 N=128 64.02, N=256 128.0); = 4096 FMA/clk/SM for m128nNk16",
                    ),
                    min_latency_cycles: Param::new(
                        32,
                        "assumed equal to Hopper; never binds on B200 (fixed_cycles + N/2 >= 104 cycles for every legal N); to be calibrated: calibration/README.md",
                    ),
                    fixed_cycles: Param::new(
                        96,
                        "measured end to end (issue, commit, mbarrier wait): BF16 SS 1-SM M=128 latency = N/2 + 136 cycles (SemiAnalysis microbench-blackwell umma_latency, CLAUDE.md 'Results'; lat_results_full.csv: N=128 200, N=256 264 cycles), less this model's mbarrier_wake_cycles (40)",
                    ),
                },
                mma_sync_latency_cycles: Param::new(24, src::ASSUMED_HOPPER),
                interference: TensorInterference::none(
                    "not measured on Blackwell (tcgen05 accumulators live in tensor memory, not registers): assumed none; to be calibrated: calibration/README.md",
                ),
            },
            tma: Tma {
                extra_latency_cycles: Param::new(24, src::ASSUMED_HOPPER),
                miss_extra_latency_cycles: Param::new(120, src::ASSUMED_HOPPER),
                miss_extra_latency_loaded_cycles: Param::new(740, src::ASSUMED_HOPPER),
                bytes_per_clk_per_sm: Param::new(
                    128,
                    "no public per-SM TMA number; upper bound = shared-memory write bandwidth 128 B/clk/SM; to be calibrated: calibration/README.md",
                ),
                store_bytes_per_clk_per_sm: Param::new(
                    128,
                    "no B200 measurement: as bytes_per_clk_per_sm (the H200 stores at 27 B/clk per SM, calibration/README.md Item 14; not carried over to a different SM); to be calibrated",
                ),
            },
            l1: L1 {
                hit_latency_cycles: Param::new(33, src::ASSUMED_HOPPER),
                store_bytes_per_clk_per_sm: Param::new(23.1, src::ASSUMED_HOPPER),
                partial_store_bytes_per_clk_per_sm: Param::new(5.52, src::ASSUMED_HOPPER),
            },
            l2: L2 {
                size_bytes: Param::new(
                    132_644_864,
                    "cudaGetDeviceProperties: L2 126.50 MB (pytorch/ao PR #4002); Blackwell Tuning Guide: 126 MB",
                ),
                partitions: Param::new(
                    1,
                    "not modelled: one pool (each of the B200's two dies caches its own HBM behind the die-to-die link; no measurement of how a kernel's tiles spread over them)",
                ),
                hit_latency_cycles: Param::new(
                    258,
                    "no public B200 number (two dies; Chips and Cheese B200 article measures a slower cross-die L2): assumed equal to Hopper; to be calibrated: calibration/README.md",
                ),
                hit_latency_spread: Param::new(
                    Spread::scaled(h100::L2_HIT_SPREAD, h100::L2_HIT_MEDIAN, 258),
                    "no public B200 number: the H200's measured spread (p10 265, p90 311 around 285 cycles) scaled to this median, assumed; to be calibrated: calibration/README.md",
                ),
                far_hit_latency_cycles: Param::new(414, src::ASSUMED_HOPPER),
                bandwidth_tb_s: Param::new(8.5, src::ASSUMED_HOPPER),
                write_bandwidth_tb_s: Param::new(4.72, src::ASSUMED_HOPPER),
                sector_write_bandwidth_tb_s: Param::new(2.83, src::ASSUMED_HOPPER),
                partial_sector_write_bandwidth_tb_s: Param::new(1.0, src::ASSUMED_HOPPER),
                coalescing_window_cycles: Param::new(
                    0,
                    "not measured on a B200: no request merged, as before the H200's counters showed the coalescer",
                ),
                hit_waits_for_fill: Param::new(true, "as the H100/H200 description (measured on the H200)"),
                fill_takes_miss_extra: Machine::h100_sxm().l2.fill_takes_miss_extra.assumed(src::ASSUMED_HOPPER),
                share_among_streaming: Machine::h100_sxm().l2.share_among_streaming.assumed(src::ASSUMED_HOPPER),
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
                latency_spread: Param::new(
                    Spread::scaled(h100::HBM_SPREAD, h100::HBM_MEDIAN, 520),
                    "no public B200 number: the H200's measured spread (p10 537, p90 815 around 695 cycles) scaled to this median, assumed; to be calibrated: calibration/README.md",
                ),
            },
            sync: Sync {
                mbarrier_wake_cycles: Param::new(
                    40,
                    "no published number; placeholder value, to be calibrated: calibration/README.md",
                ),
                mbarrier_passed_wait_cycles: Param::new(
                    0,
                    "no published number; not charged (the H200's 55 cycles, calibration/README.md Item 20, is a Hopper measurement, and this description's other barrier latencies are placeholders too); to be calibrated: calibration/README.md",
                ),
                mbarrier_passed_wait_cycles_per_thread: Param::new(
                    0,
                    "no published number; not charged, as mbarrier_passed_wait_cycles (the H200's 131-134 cycles, calibration/README.md Items 20 and 33, are a Hopper measurement); to be calibrated: calibration/README.md",
                ),
                named_barrier_cycles: Param::new(
                    20,
                    "no published number; placeholder value, to be calibrated: calibration/README.md",
                ),
                named_barrier_last_arrival_cycles: Param::new(
                    20,
                    "no published number; the placeholder of named_barrier_cycles (the last arrival not told apart), to be calibrated: calibration/README.md",
                ),
            },
            dispatch: Dispatch {
                cta_start_cycles: Param::new(
                    0,
                    "no B200 figure; not charged, as this description's barrier latencies are placeholders too (the H200 measures 480 cycles, calibration/README.md Item 27); to be calibrated: calibration/README.md",
                ),
            },
            clusters: Clusters {
                gpc_sms: Param::new(
                    &[20, 18, 18, 18, 18, 18, 18, 20],
                    "assumed split of the 148 SMs over 8 GPCs in whole TPCs (the per-GPC split is not published); only clusters of more than 2 CTAs depend on it; to be calibrated: calibration/README.md",
                ),
                remote_arrive_cycles: Param::new(
                    236,
                    "assumed equal to the H100/H200 measurement (calibration/README.md Item 12); no B200 figure",
                ),
                cluster_barrier_cycles: Param::new(
                    336,
                    "assumed equal to the H100/H200 measurement (calibration/README.md Item 12); no B200 figure",
                ),
            },
            power: Power {
                limit_w: Param::new(
                    1000.0,
                    "HGX B200 at 1000 W per GPU (NVIDIA via glennklockwood.com/garden/processors/B200)",
                ),
                idle_w: gh100.idle_w.assumed(src::ASSUMED_GH100_POWER),
                clock_w: gh100.clock_w.assumed(src::ASSUMED_GH100_POWER),
                tensor_pj_per_flop: gh100.tensor_pj_per_flop.assumed(src::ASSUMED_GH100_POWER),
                issue_pj_per_instruction: gh100.issue_pj_per_instruction.assumed(src::ASSUMED_GH100_POWER),
                l2_pj_per_byte: gh100.l2_pj_per_byte.assumed(src::ASSUMED_GH100_POWER),
                hbm_pj_per_byte: gh100.hbm_pj_per_byte.assumed(src::ASSUMED_GH100_POWER),
                voltage_exponent: gh100.voltage_exponent.assumed(src::ASSUMED_GH100_POWER),
                min_clock_ghz: gh100.min_clock_ghz.assumed(src::ASSUMED_GH100_POWER),
                loaded_max_ghz: Param::new(
                    1.98,
                    "no B200 measurement: the boost clock (clocks.boost_ghz), no gap between the clock reported and the clock counted assumed",
                ),
                burst_limit_w: Param::new(
                    1000.0,
                    "no B200 measurement: the board limit (limit_w), no fast limiter assumed",
                ),
                drop_tau_s: gh100.drop_tau_s.assumed(src::ASSUMED_GH100_POWER),
                memory_clock_mhz: Param::new(
                    4000.0,
                    "derived: 8 TB/s over an 8192-bit HBM3e bus = 7.8 GT/s, double data rate -> ~3900-4000 MHz (B200 datasheet 8 TB/s); to be calibrated: calibration/README.md",
                ),
            },
        }
    }
}
