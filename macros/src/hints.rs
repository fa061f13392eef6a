//! Line hints: each statement of a kernel function that calls a method is preceded by
//! `line_hint(L)`, `L` the line its first method call is written on (the line the IR gives
//! the operation: the call's first token). The timing model names that line for the
//! operations the statement runs, even where the kernel is stamped by a `macro_rules!`
//! macro and every call reports the macro's invocation as its location (see the runtime's
//! `dsl::source_line`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ExprClosure, ExprMethodCall, ItemFn, Stmt};

/// Adds line hints to the statements of `f`, calling `hint` (a path to the runtime's
/// `line_hint`).
pub fn add(f: &mut ItemFn, hint: &TokenStream) {
    Hints { hint }.visit_block_mut(&mut f.block);
}

struct Hints<'a> {
    hint: &'a TokenStream,
}

impl VisitMut for Hints<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len() * 2);
        for mut stmt in std::mem::take(&mut block.stmts) {
            // Nested blocks get their own hints first.
            self.visit_stmt_mut(&mut stmt);
            if let Some(line) = first_call_line(&stmt) {
                let hint = self.hint;
                stmts.push(syn::parse_quote!(#hint(#line);));
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    fn visit_expr_closure_mut(&mut self, _: &mut ExprClosure) {
        // A closure's body runs where it is called, not where it is written.
    }
}

/// The line of the first method call of `stmt` outside its nested blocks.
fn first_call_line(stmt: &Stmt) -> Option<u32> {
    if matches!(stmt, Stmt::Item(_) | Stmt::Macro(_)) {
        return None;
    }
    let mut first = FirstCall(None);
    first.visit_stmt(stmt);
    first.0
}

struct FirstCall(Option<u32>);

impl<'ast> Visit<'ast> for FirstCall {
    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        if self.0.is_none() {
            // The receiver is evaluated first: a call in it comes first.
            self.visit_expr(&call.receiver);
        }
        if self.0.is_none() {
            self.0 = u32::try_from(Expr::MethodCall(call.clone()).span().start().line).ok().filter(|&l| l > 0);
        }
    }

    fn visit_block(&mut self, _: &'ast Block) {}

    fn visit_expr_closure(&mut self, _: &'ast ExprClosure) {}
}

/// The path generated code calls.
pub fn path(private: &TokenStream) -> TokenStream {
    quote!(#private::line_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_statement_with_a_call_gets_the_line_of_its_first_call_and_nested_blocks_their_own() {
        let mut f: ItemFn = syn::parse_str(
            "async fn role(cx: &Ctx) {\n\
             let a = 1;\n\
             let s = cx.acquire().await;\n\
             for k in 0..cx.n() {\n\
                 cx.load(k);\n\
             }\n\
             }",
        )
        .unwrap();
        add(&mut f, &quote!(hint));
        let text = quote!(#f).to_string().replace(' ', "");
        // No call on line 2; the acquire on line 3; the loop's header on line 4; its body on 5.
        assert!(!text.contains("hint(2u32)") && !text.contains("hint(2)"), "{text}");
        for line in [3, 4, 5] {
            assert!(text.contains(&format!("hint({line}u32);")), "line {line}: {text}");
        }
        assert!(text.find("hint(4u32)").unwrap() < text.find("for").unwrap(), "{text}");
    }
}
