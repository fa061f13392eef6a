//! NVIDIA H200 SXM: an H100 SXM with more and faster memory.

use super::{Hbm, Machine, Param};

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
            ..h100
        }
    }
}
