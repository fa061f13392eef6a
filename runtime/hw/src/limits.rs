//! What one CTA may use on a machine: the limits a launch is checked against before any work.
//!
//! The `#[kernel]` macro checks a kernel against [`CtaLimits::ANY`], what at least one known
//! machine allows (it cannot know the target); a launch checks against the limits of the
//! machine it targets ([`CtaLimits::HOPPER`], [`CtaLimits::BLACKWELL`]).

/// Where each figure comes from.
pub mod source {
    /// Shared memory per CTA on compute capability 9.0 and 10.0.
    pub const SMEM_PER_CTA: &str = "NVIDIA Hopper and Blackwell Tuning Guides: up to 227 KB of shared memory per thread block (228 KB per SM, 1 KB reserved per block)";
    /// Threads per CTA.
    pub const THREADS_PER_CTA: &str =
        "CUDA C++ Programming Guide, technical specifications per compute capability: 1024 threads per block";
    /// The register file.
    pub const REGISTERS_PER_SM: &str =
        "CUDA C++ Programming Guide, technical specifications: 64K 32-bit registers per SM (cc 9.0, 10.0)";
    /// Tensor memory.
    pub const TMEM_COLUMNS: &str = "PTX ISA, tcgen05 tensor memory: 128 lanes x 512 columns of 32-bit cells per CTA (sm_100a); none before Blackwell";
}

/// Per-CTA resource limits of one machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaLimits {
    /// Shared memory one CTA may use, bytes.
    pub smem_per_cta_bytes: u32,
    /// Threads one CTA may have.
    pub threads_per_cta: u32,
    /// 32-bit registers of one SM, all of which one CTA may take.
    pub registers_per_sm: u32,
    /// Tensor-memory columns one CTA may allocate (0: the machine has none).
    pub tmem_columns: u32,
}

impl CtaLimits {
    /// Hopper (H100, H200; compute capability 9.0).
    pub const HOPPER: CtaLimits =
        CtaLimits { smem_per_cta_bytes: 227 * 1024, threads_per_cta: 1024, registers_per_sm: 65_536, tmem_columns: 0 };

    /// Blackwell (B200; compute capability 10.0).
    pub const BLACKWELL: CtaLimits = CtaLimits {
        smem_per_cta_bytes: 227 * 1024,
        threads_per_cta: 1024,
        registers_per_sm: 65_536,
        tmem_columns: 512,
    };

    /// What at least one known machine allows: the bound a kernel is checked against when
    /// its target is not known yet (at compile time).
    pub const ANY: CtaLimits = CtaLimits::HOPPER.widest(CtaLimits::BLACKWELL);

    /// The larger of each limit of `self` and `other`.
    pub const fn widest(self, other: CtaLimits) -> CtaLimits {
        const fn max(a: u32, b: u32) -> u32 {
            if a > b { a } else { b }
        }
        CtaLimits {
            smem_per_cta_bytes: max(self.smem_per_cta_bytes, other.smem_per_cta_bytes),
            threads_per_cta: max(self.threads_per_cta, other.threads_per_cta),
            registers_per_sm: max(self.registers_per_sm, other.registers_per_sm),
            tmem_columns: max(self.tmem_columns, other.tmem_columns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_is_the_widest_known_machine() {
        assert_eq!(CtaLimits::ANY.tmem_columns, 512);
        assert_eq!(CtaLimits::ANY.smem_per_cta_bytes, 227 * 1024);
        assert_eq!(CtaLimits::HOPPER.widest(CtaLimits::HOPPER), CtaLimits::HOPPER);
    }
}
