//! NVIDIA H200 SXM: an H100 SXM with more and faster memory.

use super::{Hbm, Machine, Param, Power};

/// Where the fitted power coefficients come from.
const FIT: &str = "initial value before the fit; to be calibrated: calibration/README.md (calibration/validate)";

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
                bandwidth_tb_s: Param::new(4.8, "NVIDIA H200 datasheet: 4.8 TB/s"),
                latency_cycles: Param::new(
                    695,
                    "measured: L2-miss pointer chase 695 cycles median (p10 537, p90 815) after a 512 MB flush, calibration/README.md (H200)",
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
            idle_w: Param::new(90.0, FIT),
            clock_w: Param::new(100.0, FIT),
            tensor_pj_per_flop: Param::new(0.5, FIT),
            issue_pj_per_instruction: Param::new(0.0, FIT),
            l2_pj_per_byte: Param::new(5.0, FIT),
            hbm_pj_per_byte: Param::new(20.0, FIT),
            voltage_exponent: Param::new(2.0, FIT),
            min_clock_ghz: Param::new(
                1.0,
                "assumed floor of the clock solve; the lowest SM clock measured under load is 1275 MHz (the undershoot right after the drop, cuBLAS 8192^3), calibration/gpu/README.md (H200)",
            ),
            drop_tau_s: Param::new(0.12, FIT),
            memory_clock_mhz,
        }
    }
}
