//! The IR `#[kernel]` gives each kernel at run time, for the backends to render: the GEMM
//! example's declarations, roles and the DSL operations of its loops.

use warpspec::ir::visit::{Visit, walk_expr};
use warpspec::ir::{Expr, ExprKind, Op, PatKind, Role};
use warpspec_examples::gemm::ws_gemm::Kernel;

/// The DSL operations of an expression, in source order.
#[derive(Default)]
struct Ops(Vec<Op>);

impl<'a> Visit<'a> for Ops {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let ExprKind::Op { op, .. } = &e.kind {
            self.0.push(*op);
        }
        walk_expr(self, e);
    }
}

/// The operations of the first `for` loop of a role's body.
fn loop_ops(role: &Role) -> Vec<Op> {
    let body = role.func.body.stmts.iter().find_map(|s| match &s.kind {
        warpspec::ir::StmtKind::Expr { expr: Expr { kind: ExprKind::For { body, .. }, .. }, .. } => Some(body),
        _ => None,
    });
    let mut ops = Ops::default();
    ops.visit_block(body.expect("the role has a `for` loop"));
    ops.0
}

#[test]
fn gemm_ir_has_its_declarations_and_roles() {
    let ir = Kernel::ir();
    assert!(std::ptr::eq(ir, Kernel::ir()), "the IR is built once");
    assert_eq!(ir.name, "ws_gemm");
    let consts: Vec<(&str, Option<i128>)> = ir.consts.iter().map(|c| (c.name.as_str(), c.evaluated)).collect();
    assert!(consts.contains(&("STAGES", Some(4))) && consts.contains(&("WG_ROWS", Some(64))), "{consts:?}");
    let params: Vec<&str> = ir.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["a", "b", "c"]);
    assert_eq!(ir.pipelines.len(), 1);
    assert!(ir.pipelines[0].tma);
    assert_eq!(ir.pipelines[0].guards, ["a", "b"]);
    let roles: Vec<(&str, u32)> = ir.roles.iter().map(|r| (r.func.name.as_str(), r.warps_per_instance)).collect();
    assert_eq!(roles, [("producer", 1), ("consumer", 4)]);
    let producer = ir.role("producer").expect("a producer role");
    let params: Vec<String> = producer
        .func
        .params
        .iter()
        .map(|p| match &p.pat.kind {
            PatKind::Ident { name, .. } => name.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(params, ["cx", "ops"]);
    assert!(producer.func.body.pos.line > 0, "nodes carry their source lines");
}

#[test]
fn gemm_ir_loops_are_dsl_operations() {
    let ir = Kernel::ir();
    let producer = ir.role("producer").expect("a producer role");
    assert_eq!(loop_ops(producer), [Op::Acquire, Op::TmaLoad, Op::TmaLoad, Op::Commit]);
    let consumer = ir.role("consumer").expect("a consumer role");
    assert_eq!(loop_ops(consumer), [Op::ConsumerWait, Op::Wgmma, Op::TileRows, Op::MmaWait, Op::Release]);
    // Operands are read by their names in the catalogue: the TMA load completes on `&slot`.
    let mut loads = Vec::new();
    struct Loads<'x, 'a>(&'x mut Vec<&'a Expr>);
    impl<'a> Visit<'a> for Loads<'_, 'a> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if matches!(e.kind, ExprKind::Op { op: Op::TmaLoad, .. }) {
                self.0.push(e);
            }
            walk_expr(self, e);
        }
    }
    Loads(&mut loads).visit_block(&producer.func.body);
    let on = loads[0].kind.operand("on").expect("`tma_load` has an operand `on`");
    let ExprKind::Ref { expr, .. } = &on.kind else { panic!("`on` is `&slot`: {on:?}") };
    assert!(matches!(&expr.kind, ExprKind::Path(p) if p.ident() == Some("slot")), "{expr:?}");
}
