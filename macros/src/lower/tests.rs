//! Every kernel of the workspace lowers without error.

use crate::errors::Errors;
use crate::test_support::{kernels_in_file, root, sources, workspace_kernels};
use crate::{model, parse};

#[test]
fn every_workspace_kernel_lowers() {
    let root = root();
    let mut kernels = workspace_kernels();
    for dir in ["tests/tests", "tests/ui/fail"] {
        kernels.extend(sources(&root.join(dir)).iter().flat_map(|f| kernels_in_file(f)));
    }
    assert!(kernels.len() >= 60, "found only {} kernels", kernels.len());
    for found in &kernels {
        let module = syn::parse2(found.item.clone()).expect("a kernel module parses");
        let errors = Errors::default();
        let kernel = parse::parse(module, &errors);
        let model = model::Model::build(&kernel, &errors);
        let lowered = super::lower(&model, &errors);
        let messages: Vec<String> = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        let lowering: Vec<&String> = messages.iter().filter(|m| m.contains("is not supported in")).collect();
        assert!(lowering.is_empty(), "{}: {lowering:#?}", found.name);
        if messages.is_empty() {
            let lowered = lowered.expect("a kernel without errors lowers");
            assert_eq!(lowered.kernel.roles.len(), kernel.roles.len(), "{}", found.name);
        }
    }
}
