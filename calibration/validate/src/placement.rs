//! The compiled kernels' descriptor placement: CUBINs of the sweep's kernels (`validate
//! cubins`, no GPU: NVRTC), and the table `calibration/sass/mma_placement.py` reads from their
//! SASS, one [`DescriptorPlacement`] a kernel: the committed table ([`committed`]) is what the
//! harness predicts with unless told otherwise (`validate run --mma-placement FILE`,
//! `--unplaced`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use warpspec::Grid;
use warpspec::dsl::Kernel;
use warpspec::gpu::codegen;
use warpspec::gpu::{Program, compile};
use warpspec::sim::descriptors::DescriptorPlacement;

use crate::kernels::{self, Launch};
use crate::split::Config;

/// Per kernel name, where its compiled code builds its groups' descriptors.
pub type Placements = BTreeMap<String, DescriptorPlacement>;

/// The committed table, `calibration/validate/mma_placement.csv`, compiled in.
pub fn committed() -> Placements {
    parse(include_str!("../mma_placement.csv")).expect("the committed placement table parses")
}

/// Parses the table: `kernel,form,counts` with `form` `SS` or `RS` and `counts` the
/// instructions before each `HGMMA` of the group, space-separated; one row a kernel and form.
pub fn parse(text: &str) -> Result<Placements, String> {
    let mut out = Placements::new();
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some((_, header)) if header.trim() == "kernel,form,counts" => {}
        other => return Err(format!("the header is `kernel,form,counts`, got {:?}", other.map(|(_, l)| l))),
    }
    for (i, line) in lines {
        let at = || format!("line {}: `{line}`", i + 1);
        let [kernel, form, counts] = line.split(',').map(str::trim).collect::<Vec<_>>()[..] else {
            return Err(format!("{}: three fields, kernel,form,counts", at()));
        };
        let counts: Vec<u32> = counts
            .split_whitespace()
            .map(|c| c.parse().map_err(|e| format!("{}: `{c}` is not a count of instructions: {e}", at())))
            .collect::<Result<_, _>>()?;
        if counts.is_empty() {
            return Err(format!("{}: no counts (one per HGMMA of the group)", at()));
        }
        let entry = out.entry(kernel.to_string()).or_default();
        let slot = match form {
            "SS" => &mut entry.ss,
            "RS" => &mut entry.rs,
            _ => return Err(format!("{}: the form is SS or RS, got `{form}`", at())),
        };
        if slot.replace(counts).is_some() {
            return Err(format!("{}: {kernel} has a {form} row already", at()));
        }
    }
    Ok(out)
}

/// Compiles each distinct kernel of `configs` for its GPU (NVRTC; no GPU needed) and writes
/// `<kernel>.cu`, `.cubin` and ptxas' `.log` into `dir`; returns the kernels written.
pub fn cubins(configs: &[Config], dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut compiler = Compiler { dir, done: BTreeSet::new() };
    for config in configs {
        kernels::launch_shape_only(config, &mut compiler)??;
    }
    Ok(compiler.done.into_iter().collect())
}

struct Compiler<'a> {
    dir: &'a Path,
    done: BTreeSet<String>,
}

impl Launch for Compiler<'_> {
    type Output = Result<(), String>;

    fn launch<K: Kernel>(&mut self, _: Grid, _: &K::Params) -> Self::Output {
        let Some(ir) = K::ir_of() else {
            return Err(format!("kernel `{}` has no IR to compile", K::SPEC.name));
        };
        if !self.done.insert(ir.name.clone()) {
            return Ok(());
        }
        let generated = codegen::generate(ir).map_err(|e| format!("{}: {e}", ir.name))?;
        let program = Program::new(format!("{}.cu", generated.entry), generated.translation_unit(), generated.arch);
        let write = |ext: &str, bytes: &[u8]| {
            let path = self.dir.join(format!("{}.{ext}", ir.name));
            std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
        };
        write("cu", program.source.as_bytes())?;
        let compiled = compile(&program).map_err(|e| format!("{}: {e}", ir.name))?;
        write("cubin", &compiled.cubin)?;
        write("log", compiled.log.as_bytes())
    }

    /// The grid does not matter to the compiler: one cluster.
    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        Ok(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel of the split has its row in the committed table, and each row fits its
    /// kernel's groups (a stale table, of groups of another size, fails the lowering): one
    /// small launch of each kernel with its placement.
    #[test]
    fn the_committed_table_fits_every_kernel_of_the_split() {
        let table = committed();
        let split = include_str!("../split.csv");
        let header = split.lines().next().unwrap();
        let mut seen = BTreeSet::new();
        for line in split.lines().skip(1) {
            let mut f: Vec<String> = line.split(',').map(String::from).collect();
            if !seen.insert(f[2].clone()) {
                continue;
            }
            assert!(table.contains_key(&f[2]), "no placement row for {}", f[2]);
            if f[1] == "fa3" {
                (f[9], f[10], f[11]) = ("1".into(), "1".into(), "256".into());
            } else {
                let (bm, bn) = f[3].split_once('x').unwrap();
                let bk: usize = f[5].parse().unwrap();
                let two = |s: &str| (2 * s.parse::<usize>().unwrap()).to_string();
                (f[6], f[7], f[8]) = (two(bm), two(bn), (2 * bk).to_string());
            }
            let small = format!("{header}\n{}\n", f.join(","));
            let config = &crate::split::parse(&small).unwrap()[0];
            let how = crate::model::How { placements: Some(&table), ..Default::default() };
            let machine = warpspec::sim::Machine::h200();
            if let Err(e) = crate::model::predict(config, &machine, how, Some(1.8)) {
                panic!("{config}: {e}");
            }
        }
        assert_eq!(seen.len(), table.len(), "one row a kernel of the split");
    }

    #[test]
    fn the_table_reads_each_kernels_forms_and_refuses_what_it_cannot_read() {
        let t = parse("kernel,form,counts\nws_gemm_128x128_p2,SS,25 42 5 0\nfa3_bf16_d64,SS,9 25 10 12\nfa3_bf16_d64,RS,1 14 9 9 9 9 9 9\n")
            .unwrap();
        assert_eq!(t["ws_gemm_128x128_p2"], DescriptorPlacement { ss: Some(vec![25, 42, 5, 0]), rs: None });
        assert_eq!(t["fa3_bf16_d64"].of(true), Some(&[1, 14, 9, 9, 9, 9, 9, 9][..]));
        for (bad, says) in [
            ("kernel,counts\n", "header"),
            ("kernel,form,counts\nk,XS,1 2\n", "SS or RS"),
            ("kernel,form,counts\nk,SS,1 x\n", "`x` is not a count"),
            ("kernel,form,counts\nk,SS,\n", "no counts"),
            ("kernel,form,counts\nk,SS,1\nk,SS,2\n", "has a SS row already"),
            ("kernel,form,counts\nk,SS\n", "three fields"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
