//! Tests of the occupancy calculator: the register, shared-memory, CTA-slot and warp limits
//! as `cuda_occupancy.h` computes them, carve-out preferences, per-warp register budgets, the
//! error cases and their messages, and other machines' numbers.

use super::*;

fn h100() -> Machine {
    Machine::h100_sxm()
}

fn occ(block: &BlockResources) -> Occupancy {
    match occupancy(&h100(), block) {
        Ok(o) => o,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn err(block: &BlockResources) -> OccupancyError {
    match occupancy(&h100(), block) {
        Ok(o) => panic!("expected an error, got {o:?}"),
        Err(e) => e,
    }
}

#[test]
fn seeds_register_table() {
    // reference/seeds.md: registers/thread -> resident warps, with 128-thread CTAs.
    for (regs, warps, fraction) in [(32, 64, 1.0), (40, 48, 0.75), (64, 32, 0.5), (128, 16, 0.25), (255, 8, 0.125)] {
        let o = occ(&BlockResources::new(128, regs, 0, 0));
        assert_eq!(o.warps_per_sm, warps, "{regs} registers");
        assert_eq!(o.ctas_per_sm, warps / 4, "{regs} registers");
        assert!((o.occupancy - fraction).abs() < 1e-12, "{regs} registers");
        if regs == 32 {
            assert_eq!(o.limiter, Limiter::Warps);
            assert_eq!(o.limiters, vec![Limiter::Warps, Limiter::Registers]);
        } else {
            assert_eq!(o.limiter, Limiter::Registers, "{regs} registers");
        }
    }
}

#[test]
fn forty_registers_floor_per_sub_partition() {
    let o = occ(&BlockResources::new(128, 40, 0, 0));
    // 1280 registers per warp; floor(16384 / 1280) = 12 per SMSP -> 48 warps,
    // not floor(65536 / 1280) = 51 from a single SM-wide pool.
    assert_eq!(o.warps_per_sm, 48);
    assert_ne!(o.warps_per_sm, 65536 / 1280);
    assert_eq!(o.ctas_by_registers, 12);
    assert_eq!(o.regs_per_cta, 4 * 1280);
    // With one-warp CTAs the same 48 warp slots appear as 48 CTAs, capped by 32 slots.
    let o = occ(&BlockResources::new(32, 40, 0, 0));
    assert_eq!(o.ctas_by_registers, 48);
    assert_eq!(o.ctas_per_sm, 32);
    assert_eq!(o.limiter, Limiter::CtaSlots);
}

#[test]
fn shared_memory_limited() {
    // 100 KB per CTA: 101 KB allocated with the reservation; the default carve-out is the
    // full 228 KB, so 2 CTAs fit.
    let o = occ(&BlockResources::new(128, 32, 0, 100 * 1024));
    assert_eq!(o.smem_per_cta_bytes, 101 * 1024);
    assert_eq!(o.smem_carveout_kb, 228);
    assert_eq!(o.ctas_per_sm, 2);
    assert_eq!(o.limiter, Limiter::SharedMemory);
    assert_eq!(o.warps_per_sm, 8);

    // The largest single CTA: 227 KB + 1 KB reserved = the whole 228 KB carve-out.
    let o = occ(&BlockResources::new(384, 168, 0, 227 * 1024));
    assert_eq!(o.ctas_per_sm, 1);
    assert_eq!(o.smem_per_cta_bytes, 228 * 1024);

    // Static and dynamic add up and round up to 128 bytes.
    let o = occ(&BlockResources::new(128, 32, 1000, 1000));
    assert_eq!(o.smem_per_cta_bytes, 2048 + 1024);
    assert_eq!(o.ctas_by_shared_memory, 228 * 1024 / 3072);
}

#[test]
fn carveout_preferences_follow_the_header() {
    let m = h100();
    let block = BlockResources::new(128, 32, 0, 100 * 1024);
    // 50% of 228 KB = 114 KB, aligned up to 132 KB, which holds one 101 KB CTA.
    let o = occupancy_with_carveout(&m, &block, CarveoutPreference::Percent(50));
    assert_eq!(o.as_ref().map(|o| (o.smem_carveout_kb, o.ctas_per_sm)), Ok((132, 1)));
    // 0% is smaller than one CTA: the CTA's need is aligned up to a carve-out instead.
    let o = occupancy_with_carveout(&m, &block, CarveoutPreference::Percent(0));
    assert_eq!(o.as_ref().map(|o| (o.smem_carveout_kb, o.ctas_per_sm)), Ok((132, 1)));
    let o = occupancy_with_carveout(&m, &block, CarveoutPreference::Percent(100));
    assert_eq!(o.as_ref().map(|o| (o.smem_carveout_kb, o.ctas_per_sm)), Ok((228, 2)));
    // A small kernel under a small preference: 1 KB reserved per CTA, 8 KB carve-out.
    let small = BlockResources::new(64, 32, 0, 0);
    let o = occupancy_with_carveout(&m, &small, CarveoutPreference::Percent(3));
    assert_eq!(o.as_ref().map(|o| (o.smem_carveout_kb, o.ctas_by_shared_memory)), Ok((8, 8)));
    assert_eq!(
        occupancy_with_carveout(&m, &block, CarveoutPreference::Percent(101)),
        Err(OccupancyError::InvalidCarveoutPercent(101))
    );
}

#[test]
fn cta_slot_limited() {
    let o = occ(&BlockResources::new(32, 32, 0, 0));
    assert_eq!(o.ctas_per_sm, 32);
    assert_eq!(o.limiter, Limiter::CtaSlots);
    assert_eq!(o.limiters, vec![Limiter::CtaSlots]);
    assert_eq!(o.ctas_by_warps, 64);
    assert_eq!(o.ctas_by_registers, 64);
    assert_eq!(o.ctas_by_shared_memory, 228);
    assert_eq!(o.warps_per_sm, 32);
    assert!((o.occupancy - 0.5).abs() < 1e-12);
}

#[test]
fn warp_limited_and_partial_warps() {
    // 1024 threads at 32 registers: 2 CTAs by warps and by registers.
    let o = occ(&BlockResources::new(1024, 32, 0, 0));
    assert_eq!((o.ctas_per_sm, o.limiter), (2, Limiter::Warps));
    // 33 threads still take 2 warps.
    let o = occ(&BlockResources::new(33, 16, 0, 0));
    assert_eq!(o.warps_per_cta, 2);
    assert_eq!(o.ctas_by_warps, 32);
    // No registers at all: the register limit is unbounded (the header's INT_MAX).
    let o = occ(&BlockResources::new(256, 0, 0, 0));
    assert_eq!(o.ctas_by_registers, u32::MAX);
    assert_eq!(o.ctas_per_sm, 8);
}

#[test]
fn error_cases() {
    assert_eq!(err(&BlockResources::new(0, 32, 0, 0)), OccupancyError::NoThreads);
    assert_eq!(err(&BlockResources::new(1025, 32, 0, 0)), OccupancyError::TooManyThreads { threads: 1025, max: 1024 });
    assert_eq!(err(&BlockResources::new(128, 256, 0, 0)), OccupancyError::TooManyRegisters { regs: 256, max: 255 });
    assert_eq!(
        err(&BlockResources::new(128, 32, 200 * 1024, 27 * 1024 + 1)),
        OccupancyError::TooMuchSharedMemory { requested_bytes: 227 * 1024 + 1, max_bytes: 227 * 1024 }
    );
    // 1024 threads at 72 registers: 2304 x 32 = 73728 > 65536.
    assert!(matches!(
        err(&BlockResources::new(1024, 72, 0, 0)),
        OccupancyError::RegisterFileExceeded { needed: 73728, available: 65536, .. }
    ));
    // 25 warps at 80 registers pass a plain 25 x 2560 = 64000 check but fail the hardware
    // check, which rounds the warps up to 28: 28 x 2560 = 71680.
    assert_eq!(
        err(&BlockResources::new(800, 80, 0, 0)),
        OccupancyError::RegisterFileExceeded {
            regs_per_thread: 80,
            regs_per_warp: 2560,
            warps_checked: 28,
            needed: 71680,
            available: 65536
        }
    );
    // Overflowing inputs do not panic.
    assert!(matches!(
        err(&BlockResources::new(128, 32, u64::MAX, u64::MAX)),
        OccupancyError::TooMuchSharedMemory { .. }
    ));
}

#[test]
fn error_messages_say_what_to_change() {
    let messages = [
        OccupancyError::NoThreads,
        err(&BlockResources::new(2048, 32, 0, 0)),
        err(&BlockResources::new(128, 300, 0, 0)),
        err(&BlockResources::new(128, 32, 0, 300 * 1024)),
        err(&BlockResources::new(800, 80, 0, 0)),
    ]
    .map(|e| e.to_string());
    assert!(messages[0].contains("at least 1 thread"));
    assert!(messages[1].contains("use at most 1024 threads"));
    assert!(messages[2].contains("-maxrregcount"));
    assert!(messages[3].contains("227 KB"));
    assert!(messages[4].contains("lower registers per thread"));
}

#[test]
fn warp_specialized_register_budgets() {
    // FlashAttention-3 style: 3 warpgroups launched at 168 registers; the producer drops
    // to 24, the two consumers rise to 240. Per sub-partition: 768 + 2 x 7680 = 16128.
    let block = BlockResources::new(384, 168, 0, 0).with_role_regs(&[(4, 24), (8, 240)]);
    let o = occ(&block);
    assert_eq!(o.ctas_per_sm, 1);
    assert_eq!(o.regs_per_cta, 4 * 768 + 8 * 7680);
    assert_eq!(o.limiter, Limiter::Registers);

    // Two CTAs of a lighter kernel fit once budgets are counted per sub-partition.
    let block = BlockResources::new(256, 96, 0, 0).with_role_regs(&[(4, 40), (4, 152)]);
    let o = occ(&block);
    // per SMSP: 1280 + 4864 = 6144 -> floor(16384 / 6144) = 2 CTAs.
    assert_eq!(o.ctas_by_registers, 2);

    // Budgets that overflow a sub-partition are rejected.
    let block = BlockResources::new(384, 168, 0, 0).with_role_regs(&[(4, 24), (8, 256)]);
    assert_eq!(
        err(&block),
        OccupancyError::WarpRegsExceedSubPartition { sub_partition: 0, needed: 768 + 2 * 8192, available: 16384 }
    );

    // Wrong length, an illegal setmaxnreg value, and mixed budgets in a partial warpgroup.
    let block = BlockResources::new(384, 168, 0, 0).with_warp_regs(vec![168; 11]);
    assert_eq!(err(&block), OccupancyError::WarpRegsLength { given: 11, warps: 12 });
    let block = BlockResources::new(128, 168, 0, 0).with_warp_regs(vec![168, 168, 170, 168]);
    assert!(matches!(err(&block), OccupancyError::InvalidWarpRegs { warp: 2, regs: 170, .. }));
    let block = BlockResources::new(128, 32, 0, 0).with_role_regs(&[(u32::MAX, 32)]);
    assert_eq!(err(&block), OccupancyError::WarpRegsLength { given: 129, warps: 4 });
    let block = BlockResources::new(192, 64, 0, 0).with_role_regs(&[(4, 64), (2, 32)]);
    assert_eq!(err(&block), OccupancyError::WarpRegsNeedWarpgroups { warps: 6, sub_partitions: 4 });
}

#[test]
fn equal_budgets_match_the_uniform_formula() {
    for (threads, regs) in [(128, 40), (96, 64), (256, 128), (32, 255), (1024, 64)] {
        let warps = (threads / 32) as usize;
        let uniform = occ(&BlockResources::new(threads, regs, 0, 0));
        let listed = occ(&BlockResources::new(threads, regs, 0, 0).with_warp_regs(vec![regs; warps]));
        assert_eq!(uniform, listed, "{threads} threads at {regs} registers");
    }
    // Every warp raised by setmaxnreg above the launch count is checked like a launch.
    let block = BlockResources::new(1024, 64, 0, 0).with_warp_regs(vec![72; 32]);
    assert!(matches!(err(&block), OccupancyError::RegisterFileExceeded { .. }));
}

#[test]
fn other_machines_use_their_own_numbers() {
    for m in [Machine::h200(), Machine::b200()] {
        let o = occupancy(&m, &BlockResources::new(128, 40, 0, 100 * 1024));
        assert_eq!(o.map(|o| (o.ctas_per_sm, o.limiter)), Ok((2, Limiter::SharedMemory)));
    }
    // A machine with half the registers per sub-partition halves the register limit.
    let mut small = h100();
    small.registers.regs_per_sm.value = 32768;
    let o = occupancy(&small, &BlockResources::new(128, 64, 0, 0));
    assert_eq!(o.map(|o| o.ctas_by_registers), Ok(4));
    // A broken machine description is an error, not a panic.
    let mut broken = h100();
    broken.issue.sub_partitions.value = 0;
    assert_eq!(
        occupancy(&broken, &BlockResources::new(128, 32, 0, 0)),
        Err(OccupancyError::InvalidMachine { parameter: "issue.sub_partitions" })
    );
    let mut broken = h100();
    broken.smem.carveouts_kb.value = &[];
    assert_eq!(
        occupancy(&broken, &BlockResources::new(128, 32, 0, 0)),
        Err(OccupancyError::InvalidMachine { parameter: "smem.carveouts_kb" })
    );
}
