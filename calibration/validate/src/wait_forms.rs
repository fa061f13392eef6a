//! The compiled kernels' wait forms: the table `calibration/sass/wait_forms.py` reads from
//! their SASS (`validate run --wait-forms`), one [`WaitForms`] a kernel.

use std::collections::BTreeMap;

use warpspec::sim::wait_forms::WaitForms;

/// Per kernel name, the source lines of its waits that its compiled code addresses per
/// thread.
pub type Forms = BTreeMap<String, WaitForms>;

/// Parses the table: `kernel,line,form,trywaits`, one row a kernel and wait line, `form`
/// `uniform`, `per_thread` or `mixed` (read as uniform: only lines all of whose `TRYWAIT`s are
/// per-thread count as such).
pub fn parse(text: &str) -> Result<Forms, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some((_, header)) if header.trim() == "kernel,line,form,trywaits" => {}
        other => return Err(format!("the header is `kernel,line,form,trywaits`, got {:?}", other.map(|(_, l)| l))),
    }
    let mut per_thread: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (i, line) in lines {
        let at = || format!("line {}: `{line}`", i + 1);
        let [kernel, source_line, form, trywaits] = line.split(',').map(str::trim).collect::<Vec<_>>()[..] else {
            return Err(format!("{}: four fields, kernel,line,form,trywaits", at()));
        };
        let source_line: u32 =
            source_line.parse().map_err(|e| format!("{}: `{source_line}` is not a source line: {e}", at()))?;
        trywaits.parse::<u32>().map_err(|e| format!("{}: `{trywaits}` is not a count of instructions: {e}", at()))?;
        let lines = per_thread.entry(kernel.to_string()).or_default();
        match form {
            "per_thread" => lines.push(source_line),
            "uniform" | "mixed" => {}
            _ => return Err(format!("{}: the form is uniform, per_thread or mixed, got `{form}`", at())),
        }
    }
    Ok(per_thread.into_iter().map(|(kernel, lines)| (kernel, WaitForms::per_thread(lines))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpspec::sim::wait_forms::WaitForm;

    #[test]
    fn reads_each_kernels_per_thread_lines_and_rejects_what_it_cannot_read() {
        let forms =
            parse("# comment\nkernel,line,form,trywaits\nfa3,171,uniform,2\nfa3,269,per_thread,2\nws,111,uniform,2\n")
                .unwrap();
        assert_eq!(forms["fa3"].of(269), WaitForm::PerThread);
        assert_eq!(forms["fa3"].of(171), WaitForm::Uniform);
        assert!(forms["ws"].is_empty(), "a kernel with only uniform waits has a row, and none per-thread");
        assert!(parse("kernel,form,counts\n").unwrap_err().contains("header"));
        assert!(parse("kernel,line,form,trywaits\nfa3,x,uniform,2\n").unwrap_err().contains("not a source line"));
        assert!(
            parse("kernel,line,form,trywaits\nfa3,3,shared,2\n").unwrap_err().contains("uniform, per_thread or mixed")
        );
        assert!(parse("kernel,line,form,trywaits\nfa3,3,uniform\n").unwrap_err().contains("four fields"));
    }
}

#[cfg(test)]
mod committed {
    use std::collections::{BTreeMap, BTreeSet};

    use warpspec::Grid;
    use warpspec::dsl::Kernel;
    use warpspec::gpu::codegen::{self, TimestampSpec};

    use crate::kernels::{Launch, launch_shape_only};

    /// Per kernel, the source lines its IR waits on an mbarrier at (a consumer's `wait`, a
    /// producer's `acquire`), as the CUDA generator names them.
    struct WaitLines(BTreeMap<String, BTreeSet<u32>>);

    impl Launch for WaitLines {
        type Output = ();

        fn launch<K: Kernel>(&mut self, _: Grid, _: &K::Params) {
            let ir = K::ir_of().expect("an IR");
            let generated = codegen::generate_timestamped(ir, TimestampSpec { ctas: 1, capacity: 29, lines: None })
                .expect("renders");
            let sites = generated.timestamps.expect("timestamps").sites;
            let lines = sites.iter().filter(|s| matches!(s.op, "wait" | "acquire")).map(|s| s.line).collect();
            self.0.insert(ir.name.clone(), lines);
        }

        fn clusters<K: Kernel>(&self) -> Result<usize, String> {
            Ok(1)
        }
    }

    /// The committed table names every mbarrier wait of every kernel of the split and
    /// nothing else: a table read before a kernel's source moved fails (read it again:
    /// `calibration/sass/wait_forms.py`).
    #[test]
    fn the_committed_table_names_every_wait_of_every_kernel_of_the_split() {
        let configs = crate::split::parse(include_str!("../split.csv")).unwrap();
        let mut waits = WaitLines(BTreeMap::new());
        for config in &configs {
            launch_shape_only(config, &mut waits).unwrap();
        }
        let mut rows: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for line in include_str!("../wait_forms.csv").lines().filter(|l| !l.starts_with('#')).skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            rows.entry(f[0].to_string()).or_default().insert(f[1].parse().unwrap());
        }
        assert_eq!(rows, waits.0, "the table's wait lines against the kernels' (left: the table)");
        super::parse(include_str!("../wait_forms.csv")).unwrap();
    }
}
