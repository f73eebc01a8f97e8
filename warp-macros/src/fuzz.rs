//! A fuzz target for the macro: token-level mutations of every `#[warp_kernel]` function and
//! `#[derive(WarpValue)]` struct in the examples, the expansion snapshots' inputs and the UI
//! cases, run through the real expansion functions. Any panic fails: a wrong kernel must get a
//! compile error, never a macro crash (issue 13).
//!
//! `cargo test -p warp-macros --lib fuzz` runs it for `WARPKIT_FUZZ_SECS` seconds (default 10;
//! CI's `cargo test --workspace` uses the default) from seed `WARPKIT_FUZZ_SEED` (default 0); a
//! failure prints the seed, the mutation and the mutated tokens.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// A uniform pick in `lo..hi` (the modulo bias does not matter for fuzzing).
fn pick(rng: &mut ChaCha8Rng, lo: usize, hi: usize) -> usize {
    lo + (rng.next_u64() % (hi - lo) as u64) as usize
}
use rand_chacha::ChaCha8Rng;
use syn::Item;

use crate::ast::is_warp_kernel_attr;

/// One corpus entry: what to expand, and how.
#[derive(Clone)]
enum Entry {
    /// A `#[warp_kernel(args)]` function without the attribute.
    Kernel { args: TokenStream, item: TokenStream },
    /// A struct deriving `WarpValue`.
    Derive { item: TokenStream },
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.to_string_lossy().ends_with(".expanded.rs") {
            out.push(p);
        }
    }
}

fn collect(items: Vec<Item>, out: &mut Vec<Entry>) {
    for item in items {
        match item {
            Item::Fn(mut f) => {
                if let Some(at) = f.attrs.iter().position(is_warp_kernel_attr) {
                    let attr = f.attrs.remove(at);
                    let args = match attr.meta {
                        syn::Meta::List(l) => l.tokens,
                        _ => TokenStream::new(),
                    };
                    out.push(Entry::Kernel { args, item: f.to_token_stream() });
                }
            }
            Item::Struct(s) if s.attrs.iter().any(|a| a.path().is_ident("derive") && a.to_token_stream().to_string().contains("WarpValue")) => {
                out.push(Entry::Derive { item: s.to_token_stream() })
            }
            Item::Mod(m) => {
                if let Some((_, items)) = m.content {
                    collect(items, out);
                }
            }
            _ => {}
        }
    }
}

/// Every kernel and derived struct of the repository's examples, snapshot inputs and UI cases.
fn corpus() -> Vec<Entry> {
    corpus_of(&["examples", "tests/expand", "testsuite/tests/ui", "ptx/src", "benches/gpu"])
}

/// Every kernel and derived struct in the files under `dirs` (relative to the repository root).
fn corpus_of(dirs: &[&str]) -> Vec<Entry> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        // UI cases are meant to fail somewhere; those that do not even parse are skipped.
        if let Ok(file) = syn::parse_file(&text) {
            collect(file.items, &mut out);
        }
    }
    out
}

/// Leaf tokens (and groups), for replacements.
fn harvest(ts: &TokenStream, pool: &mut Vec<TokenTree>) {
    for tt in ts.clone() {
        if let TokenTree::Group(g) = &tt {
            harvest(&g.stream(), pool);
        }
        pool.push(tt);
    }
}

fn count(ts: &TokenStream) -> usize {
    ts.clone().into_iter().map(|tt| 1 + if let TokenTree::Group(g) = &tt { count(&g.stream()) } else { 0 }).sum()
}

/// Applies mutation `kind` at the `at`-th token (depth-first), returning what it did.
fn mutate(ts: TokenStream, at: &mut usize, kind: u32, pool: &[TokenTree], rng: &mut ChaCha8Rng, did: &mut String) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let trees: Vec<TokenTree> = ts.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        let tt = trees[i].clone();
        if *at == 0 {
            *at = usize::MAX;
            match kind {
                0 => *did = format!("delete `{tt}`"),
                1 => {
                    *did = format!("duplicate `{tt}`");
                    out.push(tt.clone());
                    out.push(tt);
                }
                2 => {
                    let r = pool[pick(rng, 0, pool.len())].clone();
                    *did = format!("replace `{tt}` with `{r}`");
                    out.push(r);
                }
                3 if i + 1 < trees.len() => {
                    *did = format!("swap `{tt}` and `{}`", trees[i + 1]);
                    out.push(trees[i + 1].clone());
                    out.push(tt);
                    i += 1;
                }
                _ => {
                    let r = pool[pick(rng, 0, pool.len())].clone();
                    *did = format!("insert `{r}` before `{tt}`");
                    out.push(r);
                    out.push(tt);
                }
            }
            i += 1;
            continue;
        }
        *at = at.saturating_sub(1);
        match tt {
            TokenTree::Group(g) if *at != usize::MAX => {
                let inner = mutate(g.stream(), at, kind, pool, rng, did);
                let mut ng = Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The rules reject no kernel the repository compiles: the examples, the snapshot inputs, the
/// end-to-end tests, the PTX crate's kernels and the GPU benchmarks (the nvptx64 ones are built
/// only by `cargo xtask ptx`, so a rule that rejected one would otherwise go unseen here).
#[test]
fn every_kernel_of_the_repository_is_accepted() {
    // `tests/deep_nesting.rs` nests 400 `if`s: parse and expand on the stack the macro's entry
    // point gives itself.
    stacker::grow(256 << 20, || {
        let corpus = corpus_of(&["examples", "tests", "ptx/src", "benches/gpu", "src"]);
        assert!(corpus.len() > 50, "found {} kernels", corpus.len());
        for entry in corpus {
            if let Entry::Kernel { args, item } = entry {
                let out = crate::expand::warp_kernel(args, item.clone()).to_string();
                assert!(!out.contains("compile_error"), "rejected:\n{item}\n{out}");
            }
        }
    });
}

#[test]
fn mutated_kernels_never_crash_the_macro() {
    let secs: u64 = std::env::var("WARPKIT_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let seed: u64 = std::env::var("WARPKIT_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let corpus = corpus();
    assert!(corpus.len() > 50, "the corpus should hold every example kernel; found {}", corpus.len());
    let mut pool = Vec::new();
    for e in &corpus {
        match e {
            Entry::Kernel { item, .. } | Entry::Derive { item } => harvest(item, &mut pool),
        }
    }
    pool.push(TokenTree::Group(Group::new(Delimiter::Parenthesis, TokenStream::new())));
    // Silence the panics we catch; the failure message says what happened.
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut runs, mut rejected) = (0u64, 0u64);
    while Instant::now() < deadline {
        let entry = corpus[pick(&mut rng, 0, corpus.len())].clone();
        let mutations = pick(&mut rng, 1, 4);
        let (args, mut item) = match &entry {
            Entry::Kernel { args, item } => (Some(args.clone()), item.clone()),
            Entry::Derive { item } => (None, item.clone()),
        };
        let mut log = Vec::new();
        for _ in 0..mutations {
            let n = count(&item).max(1);
            let mut at = pick(&mut rng, 0, n);
            let kind = pick(&mut rng, 0, 5) as u32;
            let mut did = String::new();
            item = mutate(item, &mut at, kind, &pool, &mut rng, &mut did);
            log.push(did);
        }
        let input = item.clone();
        let result = std::panic::catch_unwind(move || match args {
            Some(args) => crate::expand::warp_kernel(args, input),
            None => crate::derive::derive_warp_value(input),
        });
        match result {
            Err(_) => panic!("the macro panicked (seed {seed}, run {runs}) after mutations {log:?} on:\n{item}"),
            Ok(out) => rejected += out.to_string().contains("compile_error") as u64,
        }
        runs += 1;
    }
    eprintln!(
        "macro fuzz: {runs} mutated inputs from {} kernels and structs in {secs} s, {rejected} rejected with a compile error, no panic",
        corpus.len()
    );
    // The mutations reach the checks: some inputs are rejected, some still expand.
    assert!(rejected > 0 && rejected < runs, "{rejected} of {runs} rejected");
}
