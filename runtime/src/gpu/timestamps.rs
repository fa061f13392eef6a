//! Reading back op timestamps (a kernel rendered by
//! [`codegen::generate_timestamped`](super::codegen::generate_timestamped)): the device buffer
//! decoded into each recording warp's marks, with its SM and role, for
//! [`OpTimes`](crate::report::OpTimes).

use super::codegen::{RoleLayout, TimestampLayout};
use crate::report::WarpMarks;

/// One recording warp's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpRecord {
    /// Linear index of its CTA in the grid.
    pub cta: u32,
    /// Its warp number within the CTA.
    pub warp: u32,
    /// The SM it ran on.
    pub sm: u32,
    /// Whether its row filled up (it stopped recording, possibly before its role's end).
    pub full: bool,
    /// Its role, warp within the instance, `(line, cycle)` marks and the cycle its role
    /// returned.
    pub marks: WarpMarks,
    /// The GPU's global timer (`%globaltimer`, ns) read right after the end cycle: one time
    /// base for every SM, whose cycle counters differ by offsets.
    pub end_ns: u64,
    /// The site number of each mark (an index into [`TimestampLayout::sites`]).
    pub sites: Vec<u32>,
}

/// Why a timestamp buffer could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimestampError {
    /// The buffer is not the layout's size.
    Size {
        /// Words read.
        got: usize,
        /// Words the layout has.
        want: usize,
    },
    /// A mark names a site the rendering does not have.
    Site {
        /// The CTA.
        cta: u32,
        /// The warp.
        warp: u32,
        /// The site recorded.
        site: u32,
        /// Sites of the rendering.
        sites: usize,
    },
}

impl std::fmt::Display for TimestampError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimestampError::Size { got, want } => {
                write!(f, "the timestamp buffer has {got} words; the layout needs {want}")
            }
            TimestampError::Site { cta, warp, site, sites } => {
                write!(f, "warp {warp} of CTA {cta} recorded site {site}; the kernel has {sites} sites")
            }
        }
    }
}

impl std::error::Error for TimestampError {}

/// The records of every warp that ran a role in the recording CTAs. A warp that wrote no
/// header (no role, or a CTA past the grid) is left out. Each mark's 32-bit clock is
/// unwrapped back from the warp's 64-bit end clock (a role shorter than 2^32 cycles).
pub fn decode(
    layout: &TimestampLayout,
    roles: &[RoleLayout],
    words: &[u64],
) -> Result<Vec<WarpRecord>, TimestampError> {
    let spec = layout.spec;
    let want = spec.words(layout.warps);
    if words.len() != want {
        return Err(TimestampError::Size { got: words.len(), want });
    }
    let mut out = Vec::new();
    for (index, row) in words.chunks_exact(spec.row() as usize).enumerate() {
        let (cta, warp) = ((index / layout.warps as usize) as u32, (index % layout.warps as usize) as u32);
        let (header, end, end_ns) = (row[0], row[1], row[2]);
        let Some(role) = roles.iter().find(|r| warp >= r.base_warp && warp < r.base_warp + r.warps) else { continue };
        if header == 0 && end == 0 {
            continue;
        }
        let kept = ((header & 0xFFFF_FFFF) as u32).min(spec.capacity) as usize;
        let (mut marks, mut sites) = (Vec::with_capacity(kept), Vec::with_capacity(kept));
        for &word in &row[3..3 + kept] {
            let (site, clock) = ((word >> 32) as u32, word as u32);
            let Some(s) = layout.sites.get(site as usize) else {
                return Err(TimestampError::Site { cta, warp, site, sites: layout.sites.len() });
            };
            marks.push((s.line, end - u64::from((end as u32).wrapping_sub(clock))));
            sites.push(site);
        }
        let of_instance = (warp - role.base_warp) % role.warps_per_instance.max(1);
        out.push(WarpRecord {
            cta,
            warp,
            sm: (header >> 32) as u32,
            full: kept == spec.capacity as usize,
            end_ns,
            marks: WarpMarks { role: role.name.clone(), of_instance, marks, end: Some(end) },
            sites,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::codegen::{TimestampSite, TimestampSpec};

    fn layout() -> (TimestampLayout, Vec<RoleLayout>) {
        let site = |line, op| TimestampSite { role: "consumer".into(), line, op };
        let layout = TimestampLayout {
            spec: TimestampSpec { ctas: 1, capacity: 2, lines: None },
            warps: 2,
            sites: vec![site(40, "acquire"), site(41, "mma")],
        };
        let roles =
            vec![RoleLayout { name: "consumer".into(), base_warp: 1, warps: 1, warps_per_instance: 1, regs: None }];
        (layout, roles)
    }

    fn mark(site: u64, clock: u32) -> u64 {
        (site << 32) | u64::from(clock)
    }

    #[test]
    fn a_warps_row_decodes_to_its_sm_sites_and_cycles_unwrapped_from_its_end() {
        let (layout, roles) = layout();
        // Warp 0 runs no role; warp 1 filled its row of 2 marks on SM 7, its 32-bit clock
        // wrapping between the second mark and the end at 2^32 + 100, the global timer then
        // at 123456 ns.
        let end = (1u64 << 32) + 100;
        let words = [0, 0, 0, 0, 0, (7 << 32) | 2, end, 123_456, mark(0, u32::MAX - 999), mark(1, u32::MAX - 99)];
        let records = decode(&layout, &roles, &words).unwrap();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert_eq!((r.cta, r.warp, r.sm, r.full, r.end_ns), (0, 1, 7, true, 123_456));
        assert_eq!(r.marks.marks, vec![(40, end - 1100), (41, end - 200)]);
        assert_eq!((r.sites.clone(), r.marks.end, r.marks.role.as_str()), (vec![0, 1], Some(end), "consumer"));
        let words = [0, 0, 0, 0, 0, (7 << 32) | 1, 5000, 9, mark(1, 4000), 0];
        let r = &decode(&layout, &roles, &words).unwrap()[0];
        assert_eq!((r.marks.marks.clone(), r.full), (vec![(41, 4000)], false));
    }

    #[test]
    fn a_wrong_size_or_an_unknown_site_is_an_error() {
        let (layout, roles) = layout();
        assert!(matches!(decode(&layout, &roles, &[0; 8]), Err(TimestampError::Size { got: 8, want: 10 })));
        let words = [0, 0, 0, 0, 0, 1, 10, 0, mark(9, 0), 0];
        let e = decode(&layout, &roles, &words).unwrap_err();
        assert!(e.to_string().contains("site 9"), "{e}");
    }
}
