//! NVIDIA H200 SXM: an H100 SXM with more and faster memory.

use super::{Hbm, Machine, Param, Power, h100};

/// Where the fitted power coefficients come from.
const FIT: &str = "fitted (H200): non-negative least squares over the 61 calibration-set sustained phases of calibration/validate that have measured cycles (GEMM: h200/phases.csv, h200/missing/phases.csv and the earlier calibration/gpu/h200_gemm_gpu.csv; FA3 attention at seq 1024: h200/fa3/phases.csv) plus the idle reading 78.3 W at 345 MHz (calibration/validate/h200/env.txt), counts from the timing model of the revision with the L2's two partitions (model_clock.csv), rates over the measured times, the clock of each phase the SM's own cycle count of one launch (Nsight Compute, h200/ncu/effective.csv) over its time per launch; voltage exponent chosen on a grid by calibration clock error; calibration/validate/fit_effective.txt (sustained clock MAE 1.72% calibration, 1.25% held-out, with measured times)";

impl Machine {
    /// NVIDIA H200 SXM (141 GB HBM3e at 4.8 TB/s; same GH100 SMs and clocks as the H100 SXM).
    pub fn h200() -> Machine {
        let h100 = Machine::h100_sxm();
        Machine {
            name: "h200",
            full_name: "NVIDIA H200 SXM 141GB",
            sm_count: Param::new(132, "NVIDIA H200 datasheet: GH100 with 132 SMs, same as H100 SXM5"),
            hbm: Hbm {
                capacity_bytes: Param::new(141_000_000_000, "NVIDIA H200 datasheet: 141 GB HBM3e"),
                bandwidth_tb_s: Param::new(
                    4.55,
                    "measured: 132 CTAs each streaming tiles of its own through TMA (every load an L2 miss) move 4.55 TB/s by the ring period, calibration/results/tma_load/tma_load.csv (H200, item 16); plain 16-byte loads read 4.60, calibration/README.md item 9; the datasheet says 4.8",
                ),
                latency_cycles: Param::new(
                    695,
                    "measured: L2-miss pointer chase 695 cycles median (p10 537, p90 815) after a 512 MB flush, calibration/README.md (H200)",
                ),
                latency_spread: Param::new(
                    h100::HBM_SPREAD,
                    "measured: L2-miss pointer chase p10 537, p90 815 cycles around the median 695 (12240 hops after a 512 MB flush; mean 680), calibration/results/h200.json hbm_latency (H200)",
                ),
            },
            power: Machine::gh100_power(Param::new(
                3201.0,
                "measured: memory clock 3201 MHz throughout every sustained run at the 700 W limit, never throttled, calibration/gpu/README.md (H200)",
            )),
            ..h100
        }
    }

    /// The power model of a GH100 board at 700 W, fitted on the H200 (the H100 SXM shares
    /// the SMs, the L2 and the limit; only the memory clock is its own).
    pub(super) fn gh100_power(memory_clock_mhz: Param<f64>) -> Power {
        Power {
            limit_w: Param::new(
                700.0,
                "NVIDIA H200 and H100 SXM datasheets: max TDP up to 700 W; nvidia-smi power.limit 700 W and every sustained run at 684-699 W with SW_POWER_CAP, calibration/gpu/README.md (H200)",
            ),
            idle_w: Param::new(132.67, FIT),
            clock_w: Param::new(172.07, FIT),
            tensor_pj_per_flop: Param::new(0.6658, FIT),
            issue_pj_per_instruction: Param::new(295.1, FIT),
            l2_pj_per_byte: Param::new(27.53, FIT),
            hbm_pj_per_byte: Param::new(41.52, FIT),
            voltage_exponent: Param::new(1.0, FIT),
            min_clock_ghz: Param::new(
                1.0,
                "assumed floor of the clock solve; the lowest SM clock measured under load is 1275 MHz (the undershoot right after the drop, cuBLAS 8192^3), calibration/gpu/README.md (H200)",
            ),
            loaded_max_ghz: Param::new(
                1.811,
                "fitted (H200): median of the SM's own clock (cycles of one launch from Nsight Compute over the time per launch) in the 10 calibration-set sustained phases under 97% of the power limit (FA3 d 64 at seq 1024), while NVML reads 1980 MHz; cycles over time are 0.92x NVML's clock in every family's sustained phases, calibration/validate/fit_effective.txt and h200/ncu/effective.txt",
            ),
            burst_limit_w: Param::new(
                873.6,
                "fitted (H200): median of the power model at the measured clock and time of the 34 calibration-set bursts (10 launches after warm-up) that run below 98% of loaded_max_ghz; burst clock MAE 2.18% calibration, 1.70% held-out with measured times, calibration/validate/fit_effective.txt",
            ),
            drop_tau_s: Param::new(
                0.154,
                "measured: median time constant of the SM clock's drop over the 51 calibration-set sustained phases that drop (GEMM and FA3 d 128; 0.83-0.88 s for v1, whose drop is small), calibration/validate/fit_effective.txt (H200)",
            ),
            memory_clock_mhz,
        }
    }
}
