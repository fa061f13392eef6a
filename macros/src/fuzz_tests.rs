//! Robustness: [`crate::expand::expand`] returns `Ok` or a `syn::Error` for every input and
//! never panics. The inputs are the workspace's kernels (examples, runtime tests, ui cases),
//! mutated at random with a seeded generator: token trees dropped, duplicated, swapped or
//! replaced at any depth, and statements of role and helper bodies dropped, duplicated or
//! swapped (so most mutants still parse and reach the protocol checker).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use proc_macro2::{Group, Literal, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::VisitMut;

use crate::expand::expand;
use crate::test_support::{kernels_in_file, root, sources, workspace_kernels};

/// Mutants to run.
const MUTANTS: usize = 12_000;
/// Threads the mutants are spread over.
const THREADS: usize = 2;

/// SplitMix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// Literals a mutant may put in place of another: edge values for every count and size.
const LITERALS: [&str; 9] = ["0", "1", "2", "3", "7", "64", "4096", "340282366920938463463374607431768211455", "true"];

/// Applies one token-level mutation somewhere in `tokens`.
fn mutate_tokens(tokens: &TokenStream, rng: &mut Rng) -> TokenStream {
    let mut trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    if trees.is_empty() {
        return tokens.clone();
    }
    // Descend into a group half of the time, so mutations reach every depth.
    let i = rng.below(trees.len());
    if let Some(TokenTree::Group(g)) = trees.get(i)
        && rng.below(3) > 0
    {
        let mut inner = Group::new(g.delimiter(), mutate_tokens(&g.stream(), rng));
        inner.set_span(g.span());
        trees[i] = TokenTree::Group(inner);
        return trees.into_iter().collect();
    }
    match rng.below(5) {
        0 => {
            trees.remove(i);
        }
        1 => {
            let t = trees[i].clone();
            trees.insert(i, t);
        }
        2 => {
            let j = rng.below(trees.len());
            trees.swap(i, j);
        }
        3 => {
            let j = rng.below(trees.len());
            trees[i] = trees[j].clone();
        }
        _ => {
            let text = LITERALS[rng.below(LITERALS.len())];
            if let Ok(lit) = text.parse::<Literal>() {
                trees[i] = TokenTree::Literal(lit);
            } else if let Ok(ts) = text.parse::<TokenStream>() {
                trees.splice(i..=i, ts);
            }
        }
    }
    trees.into_iter().collect()
}

/// Collects every block of a syntax tree, to pick one to mutate.
struct Blocks<'a> {
    count: usize,
    target: usize,
    rng: &'a mut Rng,
    done: bool,
}

impl VisitMut for Blocks<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        if !self.done && self.count == self.target && !block.stmts.is_empty() {
            let stmts = &mut block.stmts;
            let i = self.rng.below(stmts.len());
            match self.rng.below(3) {
                0 => {
                    stmts.remove(i);
                }
                1 => {
                    let s = stmts[i].clone();
                    stmts.insert(i, s);
                }
                _ => {
                    let j = self.rng.below(stmts.len());
                    stmts.swap(i, j);
                }
            }
            self.done = true;
        }
        self.count += 1;
        syn::visit_mut::visit_block_mut(self, block);
    }
}

/// Applies one statement-level mutation to a block of the module, if it parses.
fn mutate_statements(tokens: &TokenStream, rng: &mut Rng) -> TokenStream {
    let Ok(mut module) = syn::parse2::<syn::ItemMod>(tokens.clone()) else { return mutate_tokens(tokens, rng) };
    let mut count = Blocks { count: 0, target: usize::MAX, rng, done: true };
    count.visit_item_mod_mut(&mut module);
    let target = count.rng.below(count.count);
    let mut blocks = Blocks { count: 0, target, rng: count.rng, done: false };
    blocks.visit_item_mod_mut(&mut module);
    module.into_token_stream()
}

/// A mutant of `kernel`: one to three mutations, mostly of statements.
fn mutant(kernel: &TokenStream, rng: &mut Rng) -> TokenStream {
    let mut tokens = kernel.clone();
    for _ in 0..1 + rng.below(3) {
        tokens = if rng.below(3) == 0 { mutate_tokens(&tokens, rng) } else { mutate_statements(&tokens, rng) };
    }
    tokens
}

/// Runs `count` mutants from seed `seed`: (accepted, rejected), or the first input that
/// made `expand` panic.
fn run(kernels: &[TokenStream], seed: u64, count: usize) -> Result<(usize, usize), String> {
    let mut rng = Rng(seed);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..count {
        let base = &kernels[rng.below(kernels.len())];
        let input = mutant(base, &mut rng);
        let attr = if rng.below(50) == 0 { quote::quote!(unchecked) } else { TokenStream::new() };
        match catch_unwind(AssertUnwindSafe(|| expand(attr.clone(), input.clone()))) {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => err += 1,
            Err(_) => return Err(input.to_string()),
        }
    }
    Ok((ok, err))
}

/// The kernels to mutate: the workspace's, and the compile-fail cases, which drive the
/// error paths (token streams do not cross threads: each thread reads its own).
fn kernels() -> Vec<TokenStream> {
    let fail = sources(&root().join("tests/ui/fail")).into_iter().flat_map(|f| kernels_in_file(&f));
    workspace_kernels().into_iter().chain(fail).map(|k| k.item).collect()
}

#[test]
fn mutated_kernels_never_panic() {
    let found = kernels().len();
    assert!(found >= 3, "found only {found} kernels");
    let start = Instant::now();
    let results: Vec<Result<(usize, usize), String>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..THREADS).map(|t| s.spawn(move || run(&kernels(), 0x5EED_0000 + t as u64, MUTANTS / THREADS))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a fuzz thread died".into()))).collect()
    });
    let (mut ok, mut err) = (0, 0);
    for r in results {
        match r {
            Ok((o, e)) => {
                ok += o;
                err += e;
            }
            Err(input) => panic!("expand panicked on:\n{input}"),
        }
    }
    let elapsed = start.elapsed();
    println!("{} mutants of {found} kernels: {ok} accepted, {err} rejected, in {elapsed:.1?}", ok + err);
    assert_eq!(ok + err, MUTANTS / THREADS * THREADS);
    assert!(ok > 0 && err > 0, "the mutants should both pass and fail the checks");
    assert!(elapsed < Duration::from_secs(300), "the fuzz test took {elapsed:?}");
}
