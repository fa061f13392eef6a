//! How the compiled code addresses the mbarrier of each wait, and what that costs a wait
//! that finds its phase completed.
//!
//! ptxas addresses a wait's barrier through a uniform register (`TRYWAIT P0, [UR8]`, the
//! branch right after it) where it can prove the address the same across the warp, and
//! otherwise through a per-thread register (`TRYWAIT P1, [R123+URZ]`) inside convergence
//! bookkeeping (`BSSY` before, `BSYNC` after, a `YIELD` in its retry loop). Nothing the
//! kernel's spec states decides which: in the generated code both `ws_gemm` roles and the
//! FA3 producer wait through uniform addresses, the FA3 consumers and every role of the
//! non-specialized kernels through per-thread ones (`calibration/sass/wait_forms.py` reads
//! them from each kernel's SASS into `calibration/validate/wait_forms.csv`). A passing wait
//! costs `sync.mbarrier_passed_wait_cycles` in the uniform form and
//! `sync.mbarrier_passed_wait_cycles_per_thread` in the per-thread one (calibration items 20
//! and 33). A wait whose lines the kernel's table does not name takes the uniform form, the
//! model's reading before the table.

/// How a wait addresses its mbarrier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaitForm {
    /// Through a uniform register: the `try_wait`'s branch follows it at once.
    #[default]
    Uniform,
    /// Through a per-thread register, inside convergence bookkeeping.
    PerThread,
}

/// The kernel source lines whose waits the compiled code addresses per thread; every other
/// wait is [`WaitForm::Uniform`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitForms {
    per_thread: Vec<u32>,
}

impl WaitForms {
    /// The table of a kernel whose waits on `lines` are per-thread.
    pub fn per_thread(lines: impl IntoIterator<Item = u32>) -> Self {
        let mut per_thread: Vec<u32> = lines.into_iter().collect();
        per_thread.sort_unstable();
        per_thread.dedup();
        WaitForms { per_thread }
    }

    /// The form of a wait written on kernel source line `line`.
    pub fn of(&self, line: u32) -> WaitForm {
        if self.per_thread.binary_search(&line).is_ok() { WaitForm::PerThread } else { WaitForm::Uniform }
    }

    /// Whether no wait is per-thread.
    pub fn is_empty(&self) -> bool {
        self.per_thread.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_lines_are_per_thread() {
        let forms = WaitForms::per_thread([272, 269, 272]);
        assert_eq!(forms.of(269), WaitForm::PerThread);
        assert_eq!(forms.of(272), WaitForm::PerThread);
        assert_eq!(forms.of(270), WaitForm::Uniform);
        assert!(WaitForms::default().is_empty());
        assert_eq!(WaitForms::default().of(269), WaitForm::Uniform);
    }
}
