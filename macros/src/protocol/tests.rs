//! Unit tests of the protocol checker: every kernel of the workspace checks cleanly and is
//! simulated whole, and the messages of the compile-fail cases.

use crate::errors::Errors;
use crate::test_support::{Found, kernels_in_file, root, sources, workspace_kernels};
use crate::{model, parse};

/// Runs the checks on a found kernel: the errors' messages (with lines) and the coverage.
fn check(found: &Found) -> (Vec<String>, super::Coverage) {
    let errors = Errors::default();
    let Ok(module) = syn::parse2(found.item.clone()) else { return (vec!["not a module".into()], Default::default()) };
    let kernel = parse::parse(module, &errors);
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
    for found in kernels.iter().filter(|k| k.attr.is_empty()) {
        let (messages, coverage) = check(found);
        assert!(messages.is_empty(), "{}: {messages:#?}", found.name);
        assert!(coverage.partial.is_empty(), "{}: runs left partial: {:?}", found.name, coverage.partial);
        assert!(coverage.simulated >= 3, "{}: {coverage:?}", found.name);
    }
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
