//! Tests of the machine descriptions: sources, audit, limits and the calibrated values.

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
        let mut names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), params.len(), "{}: duplicate parameter names", m.name);
    }
}

#[test]
fn the_audit_covers_every_parameter() {
    for m in all() {
        // Every `Param` of the description, found without the audit: in its `Debug` text.
        let declared = format!("{m:?}").matches("Param { value:").count();
        let params = m.parameters();
        assert_eq!(params.len(), declared, "{}: a parameter is missing from the audit", m.name);
    }
    let names: Vec<String> = Machine::h100_sxm().parameters().into_iter().map(|p| p.name).collect();
    for name in ["compute_capability", "registers.setmaxnreg.step", "tensor.issue.wgmma.warps_per_warpgroup"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let b200: Vec<String> = Machine::b200().parameters().into_iter().map(|p| p.name).collect();
    assert!(b200.iter().any(|n| n == "tensor.issue.tcgen05.tmem.load_latency_cycles"));
    assert!(b200.iter().any(|n| n == "tensor.issue.tcgen05.max_cta_group"));
}

#[test]
fn latency_spreads_bracket_their_medians() {
    for m in all() {
        assert!(m.l2.hit_latency_spread.value.brackets(m.l2.hit_latency_cycles.value), "{}: L2", m.name);
        assert!(m.hbm.latency_spread.value.brackets(m.hbm.latency_cycles.value), "{}: HBM", m.name);
    }
}

#[test]
fn cta_limits_come_from_the_machine() {
    assert_eq!(Machine::h100_sxm().cta_limits(), CtaLimits::HOPPER);
    assert_eq!(Machine::h200().cta_limits(), CtaLimits::HOPPER);
    assert_eq!(Machine::b200().cta_limits(), CtaLimits::BLACKWELL);
    let mut small = Machine::h200();
    small.smem.max_per_cta_bytes.value = 1024;
    assert_eq!(small.cta_limits().smem_per_cta_bytes, 1024);
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
    assert_eq!(h200.hbm.bandwidth_tb_s.value, 4.55);
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
    // Measured end to end (SemiAnalysis umma_latency): SS M=128 N=256 264 cycles, the
    // model's MMA latency plus its mbarrier wake.
    assert_eq!(b200.mma_latency(256), Some(96 + 128));
    assert_eq!(b200.mma_latency(256).map(|l| l + b200.sync.mbarrier_wake_cycles.value), Some(264));
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
        assert_eq!(m.smem.max_per_cta_bytes.value + m.smem.reserved_per_cta_bytes.value, m.smem.max_per_sm_bytes.value);
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
