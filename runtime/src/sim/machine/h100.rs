//! NVIDIA H100 SXM5: the Hopper machine description, with the sources of its numbers.

use super::{
    Clocks, Clusters, Dispatch, Hbm, Issue, L1, L2, Machine, MmaIssue, MmaLatencyRule, Param, Pipe, Pipes,
    RegisterFile, ResidencyLimits, SchedulerPolicy, SetMaxNReg, SharedMemory, Spread, Sync, TensorCore,
    TensorInterference, Tma,
};

/// The H200's measured L2-hit spread (`l2_hit_latency` in calibration/results/h200.json).
pub(super) const L2_HIT_SPREAD: Spread = Spread { p10: 265, p90: 311 };
/// The H200's measured L2-hit median, cycles.
pub(super) const L2_HIT_MEDIAN: u32 = 285;
/// The H200's measured L2-miss spread (`hbm_latency` in calibration/results/h200.json).
pub(super) const HBM_SPREAD: Spread = Spread { p10: 537, p90: 815 };
/// The H200's measured L2-miss median, cycles.
pub(super) const HBM_MEDIAN: u32 = 695;

/// Source strings shared by several Hopper parameters.
pub(super) mod src {
    pub const OCC_H: &str = "CUDA cuda_occupancy.h (CUDA 12.x), cc 9.0 device properties";
    pub const HOPPER_TUNING: &str = "NVIDIA Hopper Tuning Guide, 'Increased Shared Memory Capacity': carve-outs 0,8,16,32,64,100,132,164,196,228 KB per SM, 1 KB reserved per CTA, 227 KB per CTA; cuda_occupancy.h cudaOccAlignUpShmemSizeVoltaPlus";
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
                scheduler_policy: Param::new(
                    SchedulerPolicy::LooseRoundRobin,
                    "measured: two warps of one sub-partition running the same throughput-bound stream (8 FFMA, MUFU.EX2 or softmax-mix chains) finish together, the other warp 90-99% through its stream when the first finishes (1.71-1.84x one warp's time alone, 3.17-3.59x with four), not one warp first as a greedy scheduler would give; calibration/results/sched/sched_summary.txt (H200, item 23)",
                ),
                interleave_element_wise: Param::new(
                    false,
                    "SASS of the generated FA3 consumer (sm_90a): ptxas alternates the FFMA, MUFU.EX2 and FADD of the softmax pair by pair (calibration/sass/README.md, docs/validation.md 'The FA3 consumer's step without memory'); H200 stall sampling of #70 puts 75% of the MUFU.EX2 samples on wait and 3% on mio_throttle (calibration/results/validate_stalls/70_sass.csv.gz)",
                ),
                fixed_stall_cycles: Param::new(
                    2.2,
                    "measured in the SASS of the generated FA3 consumer (sm_90a, the stall counts of nvdisasm -hex): 1,562 cycles over 705 instructions a warp and iteration at d 64 (2.22), 1,784 over 804 at d 128 (2.22), and 904-1,024 over 422-438 (2.14-2.34) in calibration item 11's FA3-consumer synthetic, calibration/results/fixed_stalls/ (item 39); adopted with issue.fold_zero_fill by the rule of calibration/validate/h200/predict/fold/ (all 174 validation rows predicted): docs/validation.md 'The zero fill folded into the MMA'",
                ),
                fold_zero_fill: Param::new(
                    true,
                    "measured in the SASS of the generated FA3-family kernels (sm_90a, NVRTC 13.0): every S = Q K^T group's first HGMMA reads no accumulator (RZ, !UPT) and no move is left for the fragment's zero fill, which the model had charged as 64 moves a warp and iteration: calibration/sass/README.md 'The zero fill folded into the MMA' (calibration item 42); adopted with the fixed stall by the rule of calibration/validate/h200/predict/fold/",
                ),
                release_convergence: Param::new(
                    false,
                    "SASS of the generated non-specialized GEMM (flat_128x256_p4, sm_90a): 7 instructions on every warp between a release and the acquire (BSYNC, VIADD, ISETP, BSSY, BRA), 35.1 and 43.8 cycles a pass in H200 stall sampling of #56 and #57 (calibration/results/validate_stalls, flat_regions.py 'to the acquire'); off: tried by the rule of calibration/validate/h200/predict/convergence/ and stopped at its calibration stage (the trade-off's calibration burst MAE 3.34% -> 3.71%): docs/validation.md 'The convergence after a release'",
                ),
                ring_advance_at_loop_tail: Param::new(
                    false,
                    "SASS of the generated warp-specialized GEMMs (sm_90a, NVRTC 13.0; validate cubins): in ws_gemm 128x128 and 128x256 with 2 and 4 stages and the trade-off's ws_128x256_p4, the consumers' stage and phase advance (UIADD3, UISETP, USEL, USEL, LOP3) follows their release's SYNCS.ARRIVE at the loop's tail and the producer's follows its expect_tx SYNCS.ARRIVE, where each role's try_wait is followed at once by the HGMMA issue or the copies' address chain (calibration/sass/README.md, 'The ring's advance at the loop's tail'); off: explored, not tried by rule, calibration/validate/h200/predict/stream_share/",
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
                imad_intervals: Param::new(
                    2,
                    "CUDA C++ Programming Guide, arithmetic instruction throughput (cc 9.0): 64 32-bit integer multiply-add vs 128 FP32 FMA per clk per SM",
                ),
                fma_elements_per_instr: Param::new(
                    1,
                    "PTX ISA 8.6: add/sub/mul/fma on .f32x2 require sm_100 or higher; sm_90 has scalar FP32 instructions only",
                ),
                alu: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        64,
                        "CUDA C++ Programming Guide, arithmetic instruction throughput (cc 9.0): 64 32-bit integer multiply-add/clk/SM; Hopper whitepaper: 16 INT32 lanes per SMSP",
                    ),
                    latency_cycles: Param::new(
                        4,
                        "measured: dependent chains of one warp take 4.06 cycles per LOP3.LUT, SHF or IMAD, 4.03 per FMNMX, 4.19 per F2FP, 4.29 per FSEL; a VIADD, LOP3 pair 10.0; calibration/README.md Item 26 (H200, same GH100 SM); Jia et al. (arXiv 1804.06826): IADD3/IMAD ~4-5",
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
                uniform: Pipe {
                    lanes_per_clk_per_sm: Param::new(
                        128,
                        "Jia et al., Dissecting the NVidia Turing T4 GPU via Microbenchmarking (arXiv 1903.07486), uniform datapath: one scalar operation per warp-instruction, one per sub-partition; counted as one warp-instruction per cycle per sub-partition (32 x 4 lanes)",
                    ),
                    latency_cycles: Param::new(
                        4,
                        "not measured alone: the chains that run on it (the TMA issue and ring bookkeeping of roles with uniform operands, runtime/src/sim/lower.rs and ring.rs) are counted from stall sampling as cycles over 4 (calibration/sass/README.md), so the ALU's latency",
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
                    group_start_cycles: Param::new(
                        49,
                        "measured: one warpgroup looping {wgmma.fence; g wgmma m64nNk16 SS; commit; wait_group 0} takes g N/2 + 101-112 cycles per group (N = 64/128/256, g = 2-8), where the model without a start delay takes g N/2 + 58-64: the mean difference, calibration/results/wgmma_pair/wgmma_pair.csv (H200, item 18)",
                    ),
                    group_start_cycles_placed: Param::new(
                        0,
                        "measured: with a group's descriptors built in the loop as the generated code builds them (ptxas front-loads them: 23 and 17 instructions before the first two of 4 HGMMA), the group takes 7.5 cycles more than with them built once where the other warpgroup is idle and 12 fewer beside its SS groups, calibration/results/issue/ (H200, item 45); the model with the arithmetic placed so (23 17 4 4) and the fitted 49-cycle start on top of it takes 62 more idle and 2 more beside them, with no start 13 more and 2 more: the 49 cycles, fitted where the lowering does not count the code before each wgmma (item 18), count it twice where it does. Item 46 (results/fence/) puts the start at the first wgmma, not the fence; from the first HGMMA to the group's end the H200 takes 293-320 cycles for 4 MMAs of 64 (items 45, 46), the model 310 with no start",
                    ),
                    instr_interval_per_column: Param::new(
                        0.11,
                        "measured: from the first wgmma of a group to its commit takes 14 cycles for one instruction and 7 / 12.5 / 28.5 more per further instruction at N = 64 / 128 / 256 (least squares through 0: 0.11 N); with the instructions reaching the tensor cores that far apart, two warpgroups' groups of 4 at N = 256 issued 44 cycles apart run a a b a b a b b (the first group's last MMA behind two of the second's: done 885 cycles after the barrier, 629 when 95 cycles apart), and at N = 64 / 128 or G = 2 not at all, as measured; calibration/results/wgmma_pair/wgmma_pair.csv (H200, item 18, pair table)",
                    ),
                    descriptors_before_each: Param::new(
                        false,
                        "SASS of the generated kernels (calibration/sass/README.md, 'Descriptor arithmetic between the MMAs of a group'): no HGMMA issues before the arithmetic of its own descriptors (ws_gemm 128x128: 25 instructions before the first of 4, 42 before the second, 5 and 0 before the others). Kept false: group_start_cycles above was fitted with the arithmetic after the group, and with true (and that start on top of the arithmetic, before group_start_cycles_placed) item 18's and 21's loops came out 2-7% long (tests/tests/sim_tensor.rs: N = 256 G = 4 alone 650 cycles against 613, the pair with a bar.sync 810 against 765; the group start on each group's first MMA only); what true gives: docs/validation.md, 'Two measured costs the model does not charge yet'; a kernel's own placement (SimOptions::descriptor_placement) comes before this rule",
                    ),
                    group_start_from_fence: Param::new(
                        false,
                        "measured: the start runs from the first wgmma, not from the fence (WARPGROUP.ARRIVE, which the generated kernels' SASS issues before the arithmetic of the first HGMMA's descriptors): with 16 or 32 dependent IMAD between the fence and the first wgmma, the group ends as long after its commit as with them before the fence (tails 254.6 / 254.6, 246.5 / 248.5 cycles; from the fence the chain would hide the start, 38-45 cycles shorter), calibration/results/fence/fence.log (H200, item 46); takes effect only where the arithmetic is placed before the MMAs (descriptors_before_each, a kernel's placement)",
                    ),
                    descriptor_cycles_ss: Param::new(
                        33.2,
                        "measured in the SASS of the generated kernels (sm_90a, the stall counts of nvdisasm -hex): between two MMAs of a group with both operands in shared memory, 33.2 cycles of fixed stalls over 16.2 instructions (40 gaps: FA3 d 64/128, attention without specialization, ws_gemm, ws/flat 128x256, cluster_gemm; 27.0-36.7 by kernel), calibration/results/fixed_stalls/mma_gaps.txt (item 41); adopted by the rule written before the held-out rows were run (all 174 rows predicted with it: held-out FA3 burst MAE 6.9% -> 6.5%, deltas within 3 points 11 -> 15 of 32; GEMM rows within 1.1 points): calibration/validate/h200/predict/descriptors/, docs/validation.md 'The descriptors' fixed stalls'",
                    ),
                    descriptor_cycles_rs: Param::new(
                        28.4,
                        "measured as descriptor_cycles_ss, with A in registers: 28.4 cycles over 9.7 instructions (56 gaps of FA3 and attention without specialization, d 64 and 128; 27.9-29.3 by kernel), calibration/results/fixed_stalls/mma_gaps.txt (item 41); adopted with it",
                    ),
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
                    copy_delay_per_kib: Param::new(
                        0.93,
                        "measured: two warpgroups alternating wgmma m64nNk16 SS groups at 99.9% of the tensor rate lose 3.0-3.1% of it while one thread streams 16 KB bulk copies into shared memory at 32-34 B/clk, and 1.5-1.9% while it streams 16-21 B/clk out (N = 128/256; 0.91-0.95 cycles per KiB either way; both streams at once cost half that), calibration/results/tensor_stream/tensor_stream.csv (H200, item 19)",
                    ),
                    tile_load_delay_per_kib: Param::new(
                        0.0,
                        "measured: ws_gemm 128x256 with 4 stages at 8192^3 (#35, calibration set) takes 2,260,165 cycles as generated and 2,244,963 built without its loads, 0.7% in all, latency included: over the critical SM's 16 CTAs x 128 k-steps x 48 KiB of tile loads, at most 0.15 tensor cycles per KiB (calibration/validate/h200/copies_free/, H200, item 25; item 19's 0.93 is for 1D bulk copies, copy_delay_per_kib); 0 adopted by the rule of calibration/validate/h200/predict/tile_loads/ (held-out GEMM burst MAE 4.61% -> 3.76%, held-out ablation deltas within 3 points 21 -> 21 of 36)",
                    ),
                    chain_latency_factor_own: Param::new(
                        1.60,
                        "measured: a dependent chain of VIADD/LOP3 (the per-thread bookkeeping's instructions) takes 4.97 cycles an instruction alone (its fixed stall, 5) and 7.94 while its own warpgroup's group of 8 wgmma m64n256k16 SS is in flight, the extra cycles sampled as dispatch stalls (37% of the chain's samples; 26% beside another warpgroup's groups only); the stage release x1.96 (16.8 -> 32.9 cycles), calibration/results/in_flight/ (H200, item 38)",
                    ),
                    descriptor_latency_factor_own: Param::new(
                        1.60,
                        "measured: a dependent chain of the generated code's integer instructions takes 7.94 cycles an instruction while its own warpgroup's group is in flight against 4.97 alone (x1.60), calibration/results/in_flight/ (H200, item 38); the H200's stall samples of the FA3 consumer's MMA issue give the pieces issued with the warp's own group in flight 1.2-3.1 times ptxas's stall counts (item 44, calibration/results/fixed_stalls/fa3_issue_pieces.txt). Applied where the lowering places the descriptors as the compiled code does (the harness's calibration/validate/mma_placement.csv): adopted with that placement by the rule of calibration/validate/h200/predict/placed_start/ (held-out FA3 burst MAE 5.2% -> 4.1%, held-out ablation deltas within 3 points 16 -> 21 of 36, every family under its target); alone, without the placement, item 38's x1.60 had lowered the FA3 calibration MAE but not the deltas (calibration/validate/h200/predict/descriptor_stretch/)",
                    ),
                    chain_latency_factor_other: Param::new(
                        1.0,
                        "calibration runs of the non-specialized GEMM: with the bar.sync, the loading warpgroup acquires the next stage while the other warpgroup's MMA of the next k-step runs, and the acquire's chain takes 62 cycles a pass at 8192^3 (#58) against 67 without it (#56), where its own group in flight costs v2's 95 (calibration/results/validate_stalls/regions.txt): the generated bookkeeping does not slow beside another warpgroup's MMAs. The microbenchmark's chain, beside another warpgroup's groups run back to back, slows x1.39 (6.93 against 4.97 cycles an instruction, calibration/results/in_flight/, H200, item 38; item 35: x1.67); not applied",
                    ),
                },
            },
            tma: Tma {
                extra_latency_cycles: Param::new(
                    24,
                    "fit to calibration/README.md (H200): TMA 2D 8 KB L2 hit 397 cycles issue-to-waiter = 285 (L2) + 8192/95 (streaming) + 24; the same rule gives 353/485/1009 for the measured 345/462/982 cycles of 4/16/64 KB copies",
                ),
                miss_extra_latency_cycles: Param::new(
                    120,
                    "fitted (H200) on calibration item 16's ring with one CTA, every load a miss (calibration/README.md Item 16, 'Alone and under load'; results/tma_load/tma_load.csv, one 48 KB stage, holds 0 and 2048): the last box to the consumer past its wait 1055 and 1067 cycles median, the model with boxes issued one by one 942 + x (`validate tma-ring --ctas 1 --tma-miss-extra-latency x`, calibration/validate/h200/predict/tma_latency/tma_ring_fit.txt); one isolated 8 KB copy took 1269 (695 + 8192/95 + 486)",
                ),
                miss_extra_latency_loaded_cycles: Param::new(
                    740,
                    "fitted (H200) on calibration item 16's ring with 132 CTAs, every load a miss, below the HBM's rate (hold 2048: 1683 cycles median from the last box to the consumer past its wait, 2.87 TB/s; the model 1432 + (x - 486), calibration/validate/h200/predict/tma_latency/tma_ring_fit.txt); the same ring's miss latency rises from 1068 cycles alone to 1351 and 1394 with 8 and 16 CTAs (4 stages, hold 0, far below the HBM's rate: not bandwidth), calibration/README.md Item 16, 'Alone and under load'",
                ),
                bytes_per_clk_per_sm: Param::new(
                    95,
                    "measured: one cp.async.bulk copy streams at ~95 B/clk (calibration/README.md) and one SM reads L2 at 95 B/clk with ld.global.cg (calibration/results/l2_bandwidth.txt), H200",
                ),
                store_bytes_per_clk_per_sm: Param::new(
                    27,
                    "measured: a 64 KB tile stored by cp.async.bulk shared -> global on one SM alone reads out in 2390-2413 cycles to wait_group.read (27.2-27.4 B/clk; the same to completion), 31.9 B/clk streaming 16 KB copies four in flight; 18.7 B/clk per SM with all 132 SMs storing (4.72 TB/s in all), calibration/README.md Item 14 (H200, same GH100 SM)",
                ),
            },
            l1: L1 {
                hit_latency_cycles: Param::new(33, "Luo et al. (arXiv 2402.13499): L1 hit ~33-41 cycles"),
                store_bytes_per_clk_per_sm: Param::new(
                    23.1,
                    "measured: one CTA of 8 warps alone storing 128 x 256 f32 tiles as wgmma fragments (64 8-byte stores per thread, 8 lines per warp instruction) back to back, 131072 bytes in 5672 cycles per tile (median; 4 warps: 22.1 B/clk), calibration/README.md Item 17 (H200, same GH100 SM)",
                ),
                partial_store_bytes_per_clk_per_sm: Param::new(
                    5.52,
                    "measured: one CTA of 8 warps alone storing 128 x 256 tiles of wgmma fragments rounded to bf16 (64 4-byte stores per thread, 16 bytes in each of 8 lines per warp instruction) back to back, 65536 bytes in 11880 cycles per tile (median; 4 warps: 6.82 B/clk): as long per instruction as the f32 stores take twice over (23.2 against 11.9 cycles), calibration/README.md Item 22 (H200, same GH100 SM)",
                ),
            },
            l2: L2 {
                size_bytes: Param::new(
                    50 * 1024 * 1024,
                    "NVIDIA H100 datasheet / Hopper whitepaper: 50 MB L2 (cudaDevAttrL2CacheSize = 52428800)",
                ),
                partitions: Param::new(
                    2,
                    "NVIDIA A100 whitepaper (carried over to GH100, H100 whitepaper): the L2 is divided into two partitions, each caching data for the SMs of the GPCs directly connected to it, coherent in hardware; measured on the H200: 12-25% of the L2's read sectors from the SMs reach a slice over the fabric between the partitions, and only 56-79% of the SMs' sectors hit in the slice they reach, calibration/results/l2_partitions/ (Nsight Compute lts__t_sectors_srcunit_ltcfabric)",
                ),
                hit_latency_cycles: Param::new(
                    285,
                    "measured: L2 hit 285 cycles median per hop (p10 265, p90 311, unimodal), calibration/README.md (H200); Luo et al. extension (arXiv 2501.12084) ~258 near",
                ),
                hit_latency_spread: Param::new(
                    L2_HIT_SPREAD,
                    "measured: L2-hit pointer chase p10 265, p90 311 cycles around the median 285 (12240 hops, unimodal), calibration/results/h200.json l2_hit_latency (H200, same GH100 L2)",
                ),
                far_hit_latency_cycles: Param::new(
                    414,
                    "Luo et al. extension (arXiv 2501.12084): L2 hit ~414 cycles (far partition); the model's latency of a TMA copy some of whose lines come over the fabric",
                ),
                bandwidth_tb_s: Param::new(
                    9.85,
                    "measured: the highest L2 throughput of a calibration-set kernel as TMA loads it at one CTA per SM, Nsight Compute lts__t_bytes over gpu__time_duration (ws_gemm 128x128, 6 stages, 8192^3: 19.0 GB in 1.93 ms = 9.85 TB/s; L2 at 1.70 GHz whatever the SM clock), calibration/validate/h200/ncu (H200, same GH100 L2); a lower bound on the L2's rate. ld.global.cg.v4 reaches 7.6-8.5 TB/s (calibration/results/l2_bandwidth.txt); jax-ml 'How to Scale Your Model' quotes ~5.5",
                ),
                write_bandwidth_tb_s: Param::new(
                    4.72,
                    "measured: all 132 SMs storing 64 KB tiles with TMA bulk stores into an L2-resident 24 MB buffer, 4.72 TB/s (18.7 B/clk per SM, against 27.3 for one SM alone; 16 KB streams 4.75 TB/s, to a 2 GB destination 4.41), calibration/README.md Item 14 (H200, same GH100 L2)",
                ),
                sector_write_bandwidth_tb_s: Param::new(
                    2.83,
                    "measured: all 132 SMs storing 128 x 256 f32 tiles as wgmma fragments (8-byte stores, 32 bytes per line) back to back, 10.9 B/clk per SM at 1.975 GHz, 2.83 TB/s (by the events 2.81 into an 8192 x 8192 f32 output, 2.85 into an 8 MB L2-resident one), calibration/README.md Item 17 (H200, same GH100 L2)",
                ),
                partial_sector_write_bandwidth_tb_s: Param::new(
                    1.0,
                    "measured: all 132 SMs storing 128 x 256 tiles of wgmma fragments rounded to bf16 (4-byte stores, 16 bytes per line) back to back, 3.64 B/clk per SM at 1.976 GHz, 0.999 TB/s by the events into an 8192 x 8192 bf16 output (0.990 into an 8 MB L2-resident one), calibration/README.md Item 22 (H200, same GH100 L2)",
                ),
                coalescing_window_cycles: Param::new(
                    11,
                    "fitted on the calibration set's coalescer counters (H200, same GH100 L2): Nsight Compute's L2 request coalescer merged 13.9 / 16.1 / 21.6 / 15.3% of the TMA loads' read sectors in ws_gemm 128x128 with 2 / 3 / 4 / 6 stages, 15.4 / 14.2 / 10.4% at 128x256 with 2 / 3 / 4 and 12.7 / 19.9% at 256x128 with 2 / 4 (8192^3; calibration/results/l2_coalescer/); the model's windows of 4 / 8 / 16 / 32 / 64 cycles merge 6.9 / 11.6 / 18.3 / 27.6 / 36.0% on average (the H200 15.5%), and 11 cycles is the least-squares window (4.8 points RMS; the sweep: calibration/results/l2_coalescer/window_sweep.txt). A window, not a queue: the share does not grow with the ring's depth, as merging only loads queued behind the slices did (3% at 2 stages, 29% at 6)",
                ),
                hit_waits_for_fill: Param::new(
                    true,
                    "measured (H200): in calibration item 16's ring in a GEMM's tile order, where a tile's later readers hit in L2, a stage is full as late as where every load misses once other SMs load (4 stages, hold 0: 1326 / 1350 / 1407 cycles from the last box with 8 / 16 / 33 CTAs against 1351 / 1394 / 2161 for unique tiles; one stage, 132 CTAs: 1292-1336 at every hold), and far sooner than a hit alone (449): the hits wait for the fills (calibration/README.md Item 16, 'Alone and under load'). Kept false before the boxes were issued one by one and the miss latency grew with the load (docs/validation.md, 'A hit waits for its lines to fill')",
                ),
                fill_takes_miss_extra: Param::new(
                    false,
                    "off: tried by the rule of calibration/validate/h200/predict/fill_extra/ (with tma.miss_extra_latency_loaded_cycles at 430) and stopped at its calibration stage (ws_gemm's calibration burst MAE 4.07% -> 5.56%, docs/validation.md 'A miss's extra latency in its tile's fill'). Measured: in calibration item 16's ring in a GEMM's tile order under load (H200) every stage is as late as a loaded miss (1292-1336 cycles from the last box with 132 CTAs, p10 1119; 1326 / 1350 / 1407 with 8 / 16 / 33 CTAs against 1351 / 1394 for unique tiles), where the model with the extra the missing SM's alone has the tile's later readers back 330-740 cycles sooner (961, p10 618, at hold 2048)",
                ),
                share_among_streaming: Param::new(
                    false,
                    "off: explored, not tried by rule (calibration/validate/h200/predict/stream_share/). Measured: from the expect_tx arrive to the consumers past their wait ws_gemm with 2 stages at 8192^3 takes 1195 cycles with 32 KB stages and 1101 with 48 KB on the GPU, the model with the share among SMs with a load outstanding 980 and 1257 (calibration/README.md Item 51, H100 SXM); item 16's ring at 132 CTAs in GEMM order 1259 and 1336 (H200)",
                ),
            },
            hbm: Hbm {
                capacity_bytes: Param::new(80_000_000_000, "NVIDIA H100 datasheet: 80 GB HBM3 (SXM5)"),
                bandwidth_tb_s: Param::new(3.35, "NVIDIA H100 datasheet: 3.35 TB/s (SXM5)"),
                latency_cycles: Param::new(
                    520,
                    "midpoint of ~480-570 cycles for an L2 miss (Luo et al., arXiv 2402.13499; H100 microbenchmarks); to be calibrated: calibration/README.md",
                ),
                latency_spread: Param::new(
                    Spread::scaled(HBM_SPREAD, HBM_MEDIAN, 520),
                    "the H200's measured spread (L2-miss pointer chase p10 537, p90 815 around 695 cycles, calibration/results/h200.json hbm_latency) scaled to this median; to be calibrated: calibration/README.md",
                ),
            },
            sync: Sync {
                mbarrier_wake_cycles: Param::new(
                    89,
                    "measured: mbarrier.arrive -> waiter in try_wait.parity resumes 89 cycles one-way, calibration/README.md (H200, same GH100 SM)",
                ),
                mbarrier_passed_wait_cycles: Param::new(
                    55,
                    "measured: a warp's try_wait.parity on a phase completed before it returns after 55 cycles in the generated kernels' code shape (uniform address, TRYWAIT then @!P0 BRA: 69.1 cycles a wait in a loop of it less the loop's 3 instructions, the same for 1-12 warps; the stall sampling of the flat GEMM's acquire puts 47-58 cycles on it), calibration/README.md Item 20 (H200, same GH100 SM)",
                ),
                mbarrier_passed_wait_cycles_per_thread: Param::new(
                    133,
                    "measured: the same wait through a per-thread address (TRYWAIT P1, [R+URZ] inside BSSY/BSYNC, as ptxas compiles the FA3 consumers' and the non-specialized kernels' waits: calibration/validate/wait_forms.csv) returns after 131-134 cycles: 145.0 a wait in a loop of it (1-4 warps; 151 with 12) less the 14 the uniform loop spends beyond its wait, calibration/README.md Item 20; 134 right after a group of 4 wgmma (the FA3 consumer's V wait: 196 cycles of issue and wait against 62 without the wait, where the uniform form takes 93), Item 33 (H200, same GH100 SM); charged only where a kernel's wait-form table names the wait (SimOptions::wait_forms), which the committed predictions do not use: tried and stopped, calibration/validate/h200/predict/wait_forms/README.md",
                ),
                named_barrier_cycles: Param::new(
                    39,
                    "measured: bar.arrive -> bar.sync waiter resumes 39.4 cycles (half a ping-pong round trip), calibration/README.md (H200, same GH100 SM)",
                ),
                named_barrier_last_arrival_cycles: Param::new(
                    22,
                    "measured: a loop with bar.sync 1, 256 takes the warps that arrive last, W x 4 cycles after the other six or four, 22.2-22.5 cycles more a pass than without it when two independent instructions and a branch follow the barrier (four late warps, the trade-off GEMM's loading warpgroup; 16.1-16.4 with one late warp), 18.7-29.5 when an mbarrier try_wait follows it four instructions later (FA3's shape; one late warp 21.4-30.7), 0.7-2.5 when a shared load does; its waiters resume after 39 (named_barrier_cycles); calibration/README.md Item 29, results/bar_last/ (H200, same GH100 SM)",
                ),
            },
            dispatch: Dispatch {
                cta_start_cycles: Param::new(
                    480,
                    "measured: between a CTA's last warp's end and the next CTA's first op on the same SM the H200 waits 882 / 847 / 848 cycles (median over the SMs, after waves 0 / 1 / 2) in ws_gemm 128x128, 2 stages, 8192^3 (#0, calibration set), whose epilogue stores do not contend; the model without this cost waits 370 / 369 / 365 (its stores draining), so 480 (the deltas 512 / 478 / 483 rounded); calibration/README.md Item 27, results/epilogue_waves/ (H200, same GH100 SM)",
                ),
            },
            clusters: Clusters {
                gpc_sms: Param::new(
                    &[18, 18, 18, 18, 18, 18, 16, 8],
                    "measured: cudaOccupancyMaxActiveClusters at one CTA per SM holds 132 / 66 / 30 / 15 / 7 clusters of 1 / 2 / 4 / 8 / 16 CTAs, which 8 GPCs of 18, 18, 18, 18, 18, 18, 16, 8 SMs reproduce (so does 18 x 5, 16, 16, 10; other splits do not), calibration/README.md Item 12 (H200, same GH100 die; the split of a given part may differ with floor-sweeping). At two CTAs per SM the driver holds 62 clusters of 4 where slot counting on this split gives 66",
                ),
                remote_arrive_cycles: Param::new(
                    236,
                    "measured: mapa + mbarrier.arrive.shared::cluster on a peer CTA -> its try_wait resumes 236 cycles one way (p10-p90 228-244), calibration/README.md Item 12 (H200, same GH100 SM)",
                ),
                cluster_barrier_cycles: Param::new(
                    336,
                    "measured: barrier.cluster.arrive + wait, 336 cycles per round over 2 CTAs (344 over 4), calibration/README.md Item 12 (H200, same GH100 SM)",
                ),
            },
            power: Machine::gh100_power(Param::new(
                2617.0,
                "derived: 3.35 TB/s over a 5120-bit HBM3 bus = 5.23 GT/s, double data rate -> 2617 MHz (H100 datasheet; prohardver.hu on NVIDIA's final H100 SXM5 specifications: effective memory clock 5.2 GHz)",
            )),
        }
    }
}
