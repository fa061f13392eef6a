//! The timing model's source view names the lines kernels are written on, the lines the IR
//! and the CUDA code (and its op timestamps) give their operations, also for kernels stamped
//! by `macro_rules!` macros, whose operations all report the macro's invocation as their
//! location; and register arithmetic is counted at its own line, not at the operation before.

use std::collections::BTreeSet;

use warpspec::bf16;
use warpspec::dsl::{Global, Kernel};
use warpspec::gpu::codegen::{self, TimestampSpec};
use warpspec::report::{SiteOp, SourceSite};
use warpspec::sim::{Machine, SimOptions, simulate};
use warpspec_examples::attention::hopper::{self, Variant, fa3_bf16_d128};
use warpspec_examples::attention::{Problem, Tensors};
use warpspec_examples::gemm_tradeoff as t;

/// `(op, line)` of every operation of `K`'s IR that issues work or waits.
fn written<K: Kernel>() -> BTreeSet<(&'static str, u32)> {
    let ir = K::ir_of().expect("an IR");
    let g = codegen::generate_timestamped(ir, TimestampSpec { ctas: 1, capacity: 29, lines: None }).expect("renders");
    g.timestamps.expect("timestamps").sites.iter().map(|s| (s.op, s.line)).collect()
}

fn lines(written: &BTreeSet<(&'static str, u32)>) -> BTreeSet<u32> {
    written.iter().map(|&(_, l)| l).collect()
}

fn sites_in(sources: &[SourceSite], file: &str) -> Vec<SourceSite> {
    sources.iter().filter(|s| file.ends_with(s.file) || s.file.ends_with(file)).cloned().collect()
}

#[test]
fn a_stamped_gemms_sites_are_its_written_lines_not_the_stamping_line() {
    let (m, n, k) = (512, 512, 256);
    let args = t::flat_128x256_p4::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
        keep_one_in_flight: false,
        lockstep: true,
    };
    let grid = t::grid(t::TileShape { m: 128, n: 256 }, m, n);
    let r = simulate::<t::flat_128x256_p4::Kernel>(&Machine::h200(), grid, &args, &SimOptions::default()).unwrap();
    let ir_lines = lines(&written::<t::flat_128x256_p4::Kernel>());
    let sites = sites_in(&r.sources, "examples/gemm_tradeoff_kernels.rs");
    let seen: BTreeSet<u32> = sites.iter().map(|s| s.line).collect();
    assert!(seen.len() >= 6, "the loader's, the MMA's and the barrier's lines apart: {seen:?}");
    assert!(seen.is_subset(&ir_lines), "model lines {seen:?}, written {ir_lines:?}");
}

#[test]
fn fa3s_softmax_arithmetic_is_counted_at_its_own_lines() {
    let problem =
        Problem { batch: 1, heads: 1, seq: 256, head_dim: 128, causal: false, dtype: warpspec::dsl::DType::Bf16 };
    let args = fa3_bf16_d128::args(&problem, Tensors::<bf16>::shape_only(&problem), Variant::FULL);
    let r = simulate::<fa3_bf16_d128::Kernel>(&Machine::h200(), hopper::grid(&problem), &args, &SimOptions::default())
        .unwrap();
    // The model names arithmetic by its kind (`rows_exp2` is an `exp2`): each site of a
    // kind must lie on a line where the IR has an op of that kind, and none on a barrier's.
    let written = written::<fa3_bf16_d128::Kernel>();
    let sites = sites_in(&r.sources, "examples/attention/hopper.rs");
    for (kind, ops) in [("exp2", &["exp2", "rows_exp2"][..]), ("row_max", &["row_max"]), ("row_sum", &["row_sum"])] {
        let at: Vec<u32> = sites.iter().filter(|s| s.op == SiteOp::Op(kind)).map(|s| s.line).collect();
        assert!(!at.is_empty(), "no `{kind}` site in {sites:?}");
        for line in at {
            assert!(
                ops.iter().any(|op| written.contains(&(*op, line))),
                "`{kind}` counted at line {line}; written at {written:?}"
            );
        }
    }
}
