//! What an emulated launch costs in host memory, checked before any CTA runs.
//!
//! The launch's global tensors belong to the caller (allocated before the launch); what the
//! emulator adds is per worker thread: one CTA's shared memory, its fragments, and the race
//! detector's state. [`estimate`] adds these up and [`check`] refuses a launch that would
//! need more than the machine has available ([`available_bytes`]).

use crate::dsl::KernelSpec;
use crate::launch::LaunchError;

/// Bytes of race-detector shadow state assumed per CTA: access records of the tiles in
/// flight and the vector clocks of instances and barrier phases (the clocks are counted
/// separately in [`estimate`]; this bounds the records).
const RACE_RECORDS_PER_CTA: u64 = 256 * 1024;

/// Host bytes the emulator needs, beyond the caller's tensors, to run `spec` on `workers`
/// CTAs at once: each worker holds one CTA's shared memory, its fragments (bounded by the
/// register budget of every thread, 4 bytes a register, as the emulator keeps fragments in
/// `f32`) and, with `race_detection`, the race detector's clocks and records.
pub fn estimate(spec: &KernelSpec, workers: usize, race_detection: bool) -> u64 {
    let smem = spec.smem_bytes as u64;
    let fragments: u64 = spec
        .roles
        .iter()
        .map(|r| u64::from(r.regs) * 4 * u64::from(r.threads_per_instance()) * u64::from(r.instances))
        .sum();
    let race = if race_detection {
        let instances: u64 = spec.roles.iter().map(|r| u64::from(r.instances)).sum();
        let phases: u64 =
            spec.barriers.iter().map(|b| u64::from(b.len)).sum::<u64>() + spec.named_barriers.len() as u64;
        // One vector clock (a u32 per instance) per instance, and two per barrier phase.
        let clocks = (instances + 2 * phases) * instances * 4;
        clocks + RACE_RECORDS_PER_CTA
    } else {
        0
    };
    (smem + fragments + race).saturating_mul(workers as u64)
}

/// Refuses a launch of `spec` whose [`estimate`] is above [`available_bytes`]; passes where
/// the available memory cannot be read.
pub fn check(spec: &KernelSpec, workers: usize, race_detection: bool) -> Result<(), LaunchError> {
    check_against(spec, workers, race_detection, available_bytes())
}

/// [`check`] against `available` bytes.
fn check_against(
    spec: &KernelSpec,
    workers: usize,
    race_detection: bool,
    available: Option<u64>,
) -> Result<(), LaunchError> {
    let needed = estimate(spec, workers, race_detection);
    match available {
        Some(available) if needed > available => Err(LaunchError::HostMemory {
            what: format!("emulating kernel `{}` on {workers} threads", spec.name),
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

/// Host memory available to a new allocation: `MemAvailable` of `/proc/meminfo` on Linux;
/// `None` elsewhere or when it cannot be read (callers then skip their check).
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&meminfo)
}

/// The `MemAvailable:` line of `/proc/meminfo`, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::RoleSpec;

    const ROLES: [RoleSpec; 2] = [
        RoleSpec { name: "producer", instances: 1, warps_per_instance: 1, regs: 40 },
        RoleSpec { name: "consumer", instances: 2, warps_per_instance: 4, regs: 232 },
    ];

    fn spec() -> KernelSpec {
        KernelSpec {
            name: "k",
            roles: &ROLES,
            barriers: &[],
            pipelines: &[],
            named_barriers: &[],
            smem_bytes: 200 * 1024,
            cluster: [1, 1, 1],
        }
    }

    #[test]
    fn reads_mem_available() {
        let meminfo = "MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:    8000000 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(8_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn counts_shared_memory_and_fragments_per_worker() {
        let per_cta = 200 * 1024 + 40 * 4 * 32 + 232 * 4 * 128 * 2;
        assert_eq!(estimate(&spec(), 1, false), per_cta);
        assert_eq!(estimate(&spec(), 8, false), 8 * per_cta);
        assert!(estimate(&spec(), 1, true) > per_cta);
    }

    #[test]
    fn refuses_above_what_is_available() {
        let err = check_against(&spec(), 4, false, Some(1024 * 1024)).unwrap_err();
        assert!(matches!(err, LaunchError::HostMemory { available: 1_048_576, .. }), "{err:?}");
        assert!(err.to_string().contains("host memory"), "{err}");
        assert!(check_against(&spec(), 4, false, Some(u64::MAX)).is_ok());
        assert!(check_against(&spec(), 4, false, None).is_ok());
    }
}
