//! The terminal summary of a [`SimReport`] (its `Display`): what the run achieved (tensor
//! throughput, or for a kernel without MMAs its busiest unit), how busy each unit was, the
//! bytes and bandwidth per memory level, each role's stall reasons with the objects it
//! waited on, and the kernel source lines with the most stall cycles.

use std::fmt;

use super::traffic::human_bytes;
use super::{SimReport, Unit};

/// Source sites the summary lists at most.
const SOURCE_LINES: usize = 8;
/// Waits listed per role at most.
const WAITS_PER_ROLE: usize = 6;

fn pct(x: f64) -> String {
    format!("{:5.1}%", 100.0 * x)
}

impl fmt::Display for SimReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = &self.waves;
        writeln!(f, "kernel `{}` on {} ({} SMs at {:.3} GHz)", self.kernel, self.machine, self.sms, self.clock_ghz)?;
        if self.mma_flops == 0 {
            let (unit, busy) = self.bottleneck();
            writeln!(
                f,
                "  bottleneck {} {} busy (no MMA: the busiest unit bounds the kernel)",
                unit.name(),
                pct(busy)
            )?;
        }
        writeln!(
            f,
            "  grid       {} CTAs of {} warps; {} per SM (limited by {}); {:.2} waves, last wave {} CTAs, tail {} cycles",
            self.ctas, self.warps_per_cta, w.ctas_per_sm, self.occupancy_limiter, w.waves, w.tail_ctas, w.tail_cycles
        )?;
        if w.cluster_ctas > 1 {
            let ctas = w.cluster_ctas as usize;
            writeln!(
                f,
                "  clusters   {} of {} CTAs; {} resident at once (whole clusters per GPC), {:.2} waves of clusters",
                self.ctas / ctas,
                ctas,
                w.capacity / ctas,
                w.waves
            )?;
        }
        writeln!(f, "  time       {} cycles = {:.3} us", self.cycles, self.seconds() * 1e6)?;
        if let Some(clocks) = &self.clocks {
            writeln!(f, "{clocks}")?;
        }
        if self.mma_flops > 0 {
            writeln!(
                f,
                "  tensor     {:.1} TFLOP/s = {:.1}% of the {:.1} TFLOP/s bf16 peak",
                self.tflops(),
                self.percent_of_peak(),
                self.peak_tflops
            )?;
        }
        let u = &self.utilisation;
        let core = [Unit::TensorCores, Unit::Tma, Unit::Issue, Unit::Fma, Unit::Alu, Unit::Mufu, Unit::Lsu, Unit::Smem];
        let busy: Vec<String> = core.iter().map(|&unit| format!("{} {}", unit.name(), pct(u[unit]))).collect();
        writeln!(f, "  busy       {}", busy.join("  "))?;
        let loads = self.l2_hits + self.l2_misses;
        let hit_rate = if loads > 0 { self.l2_hits as f64 / loads as f64 } else { 0.0 };
        let far = match self.l2_far_hits {
            0 => String::new(),
            n => format!(" ({n} from the far partition)"),
        };
        let coalesced = match self.l2_coalesced {
            0 => String::new(),
            n => format!(", {n} more coalesced with a load in flight"),
        };
        writeln!(
            f,
            "  memory     L2 {}  HBM {}  L2 hit rate {} of {loads} loads{far}{coalesced}",
            pct(u[Unit::L2]),
            pct(u[Unit::Hbm]),
            pct(hit_rate)
        )?;
        if self.l2_sources.far > 0 {
            let [near, far, hbm] = self.l2_sources.shares();
            writeln!(f, "  L2 bytes   near partition {}  far partition {}  HBM {}", pct(near), pct(far), pct(hbm))?;
        }
        let seconds = self.seconds();
        let traffic: Vec<String> = self
            .traffic
            .iter()
            .map(|t| format!("{} {} ({:.1} GB/s)", t.level, human_bytes(t.bytes), t.gb_per_s(seconds)))
            .collect();
        if !traffic.is_empty() {
            writeln!(f, "  traffic    {}", traffic.join("  "))?;
        }
        writeln!(f, "  stalls     share of each role's warp-cycles:")?;
        for role in &self.roles {
            let parts = role.ranked();
            if parts.is_empty() {
                continue;
            }
            let shown: Vec<String> = parts.iter().map(|(r, share)| format!("{r} {:.1}%", 100.0 * share)).collect();
            writeln!(f, "    {:<12} ({} warps/CTA) {}", role.role, role.warps_per_cta, shown.join(", "))?;
            let total = role.cycles.total().max(1) as f64;
            let waits: Vec<String> = role
                .waits
                .iter()
                .filter(|w| w.stall_cycles() > 0)
                .take(WAITS_PER_ROLE)
                .map(|w| format!("{} {:.1}%", w.target, 100.0 * w.stall_cycles() as f64 / total))
                .collect();
            if !waits.is_empty() {
                let more = role.waits.iter().filter(|w| w.stall_cycles() > 0).count().saturating_sub(WAITS_PER_ROLE);
                let more = if more > 0 { format!(", {more} more") } else { String::new() };
                writeln!(f, "    {:<12} waiting on {}{more}", "", waits.join(", "))?;
            }
        }
        let stalled: u64 = self.sources.iter().map(|s| s.stall_cycles()).sum();
        if stalled > 0 {
            writeln!(f, "  source     kernel lines with the most stall cycles (share of all stall warp-cycles):")?;
            for site in self.sources.iter().filter(|s| s.stall_cycles() > 0).take(SOURCE_LINES) {
                let reason = site.top_reason().map_or(String::new(), |r| format!(" (mostly {r})"));
                writeln!(
                    f,
                    "    {:5.1}%  {:<28} {:<12} {}{reason}",
                    100.0 * site.stall_cycles() as f64 / stalled as f64,
                    site.short_location(),
                    site.role,
                    site.op
                )?;
            }
        }
        if let Some(trace) = &self.trace {
            writeln!(f, "  trace      {} spans ({} dropped over the limit)", trace.events.len(), trace.dropped)?;
        }
        write!(
            f,
            "  host       {:.3} s, {:.3e} simulated SM-cycles/s",
            self.host.wall.as_secs_f64(),
            self.host.sm_cycles_per_second()
        )
    }
}
