//! Unit tests of the protocol checker: every kernel of the workspace checks cleanly and is
//! simulated whole, and the messages of the compile-fail cases.

use crate::errors::Errors;
use crate::test_support::{Found, kernels_in_file, root, sources, workspace_kernels};
use crate::{model, parse};

/// Runs the checks on a found kernel: the errors' messages (with lines) and the coverage.
fn check(found: &Found) -> (Vec<String>, super::Coverage) {
    let errors = Errors::default();
    let Ok(module) = syn::parse2(found.item.clone()) else { return (vec!["not a module".into()], Default::default()) };
    let attr = crate::attr::parse(found.attr.clone(), &errors);
    let mut kernel = parse::parse(module, &errors);
    kernel.cluster = attr.cluster;
    let model = model::Model::build(&kernel, &errors);
    let lowered = crate::lower::lower(&model, &errors);
    crate::check::check(&model, lowered.as_ref(), &errors, true);
    let coverage = lowered.map(|l| super::check(&model, &l, &Errors::default())).unwrap_or_default();
    let messages = match errors.finish() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| format!("line {}: {e}", e.span().start().line)).collect(),
    };
    (messages, coverage)
}

#[test]
fn workspace_kernels_check_cleanly_and_whole() {
    let kernels = workspace_kernels();
    assert!(kernels.len() >= 3, "found only {} kernels", kernels.len());
    let mut failures = Vec::new();
    // `#[kernel(unchecked)]` opts out of the protocol checks; every other attribute is honoured.
    let checked = |k: &&Found| !crate::attr::parse(k.attr.clone(), &Errors::default()).unchecked;
    for found in kernels.iter().filter(checked) {
        let (messages, coverage) = check(found);
        if !messages.is_empty() {
            failures.push(format!("{}: {messages:#?}", found.name));
        } else if !coverage.partial.is_empty() {
            failures.push(format!("{}: runs left partial: {:?}", found.name, coverage.partial));
        } else if coverage.simulated < 3 {
            failures.push(format!("{}: {coverage:?}", found.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_tensor_memory_load_before_an_arrive_is_an_obligation() {
    let file = root().join("tests/ui/pass/mma_completion_release.rs");
    let found = kernels_in_file(&file);
    let (messages, coverage) = check(found.first().expect("the pass case has a kernel"));
    assert!(messages.is_empty(), "{messages:#?}");
    let roles: Vec<&str> = coverage.wait_ld.iter().map(|w| w.role.as_str()).collect();
    assert_eq!(roles, ["softmax"], "{:?}", coverage.wait_ld);
    let gemm = root().join("tests/ui/pass/minimal_pipeline.rs");
    let (_, coverage) = check(kernels_in_file(&gemm).first().expect("a kernel"));
    assert!(coverage.wait_ld.is_empty());
}

#[test]
#[ignore = "prints the messages of the compile-fail cases, for review"]
fn print_fail_cases() {
    for file in sources(&root().join("tests/ui/fail")) {
        for found in kernels_in_file(&file) {
            let (messages, coverage) = check(&found);
            println!("== {} {coverage:?}", found.name);
            for m in messages {
                println!("  {m}");
            }
        }
    }
}

#[test]
fn corpus_fixed_twins_check_cleanly_and_buggy_twins_do_not() {
    let mut failures = Vec::new();
    for file in sources(&root().join("tests/corpus")) {
        let buggy_file = file.components().any(|c| c.as_os_str() == "fail");
        for found in kernels_in_file(&file) {
            let (messages, coverage) = check(&found);
            let buggy = buggy_file || found.name.ends_with("buggy");
            if buggy && messages.is_empty() {
                failures.push(format!("{}: the buggy twin passes the checker", found.name));
            } else if !buggy && !messages.is_empty() {
                failures.push(format!("{}: {messages:#?}", found.name));
            } else if !buggy && !coverage.partial.is_empty() {
                failures.push(format!("{}: runs left partial: {:?}", found.name, coverage.partial));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_size_compared_with_a_constant_takes_its_values_alone() {
    let file = root().join("tests/corpus/fail/vllm_26026.rs");
    let found = kernels_in_file(&file);
    let (messages, _) = check(found.first().expect("the buggy twin"));
    assert!(messages.iter().any(|m| m.contains("[WS0014]") && m.contains("`args.k_tiles` is 0")), "{messages:#?}");
}
