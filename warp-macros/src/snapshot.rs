//! Expansion snapshots: each `tests/expand/<name>.rs` of the workspace is expanded by this crate's
//! own `expand` function (and `derive` for `#[derive(WarpValue)]` structs) and compared with `tests/expand/<name>.expanded.rs`, so that changes to
//! the generated code show up in review. Self-contained (no `cargo expand`): run with
//! `UPDATE_EXPECT=1` to rewrite the snapshots, then read the diff.

use std::path::Path;

use quote::ToTokens;
use syn::{ImplItem, Item};

use crate::ast::is_warp_kernel_attr;
use crate::expand::warp_kernel;

/// Removes `#[warp_kernel(..)]` from `attrs` and returns its arguments.
fn take_attr(attrs: &mut Vec<syn::Attribute>) -> Option<proc_macro2::TokenStream> {
    let at = attrs.iter().position(is_warp_kernel_attr)?;
    let attr = attrs.remove(at);
    Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => proc_macro2::TokenStream::new(),
    })
}

/// Whether `#[derive(..)]` among `attrs` names `WarpValue`.
fn derives_warp_value(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| a.to_token_stream().to_string().contains("WarpValue"))
}

fn expand_file(source: &str) -> String {
    let file: syn::File = syn::parse_str(source).expect("a snapshot input parses");
    let mut items = Vec::new();
    for mut item in file.items {
        match &mut item {
            Item::Fn(f) => {
                if let Some(args) = take_attr(&mut f.attrs) {
                    let out: syn::File = syn::parse2(warp_kernel(args, f.to_token_stream())).expect("expansion parses");
                    items.extend(out.items);
                    continue;
                }
            }
            Item::Struct(st) if derives_warp_value(&st.attrs) => {
                let out: syn::File = syn::parse2(crate::derive::derive_warp_value(st.to_token_stream())).expect("derive output parses");
                items.push(item);
                items.extend(out.items);
                continue;
            }
            Item::Impl(imp) => {
                let mut expanded = Vec::new();
                for mut ii in core::mem::take(&mut imp.items) {
                    if let ImplItem::Fn(f) = &mut ii {
                        if let Some(args) = take_attr(&mut f.attrs) {
                            let out = warp_kernel(args, f.to_token_stream());
                            let wrapped: syn::ItemImpl = syn::parse_quote!(impl X { #out });
                            expanded.extend(wrapped.items);
                            continue;
                        }
                    }
                    expanded.push(ii);
                }
                imp.items = expanded;
            }
            _ => {}
        }
        items.push(item);
    }
    prettyplease::unparse(&syn::File { shebang: None, attrs: file.attrs, items })
}

/// The expansion with each static shared array's symbol numbered from 0 in order of appearance:
/// the macro numbers them with a process-wide counter (unique within a crate's build), which the
/// other tests of this crate advance when they expand kernels in parallel.
fn renumber_shared_symbols(text: &str) -> String {
    const PREFIX: &str = "__warpkit_smem_";
    let mut out = String::new();
    let mut seen: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(PREFIX) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let end = from.find('"').unwrap_or(from.len());
        let symbol = &from[..end];
        let stem = symbol.trim_end_matches(|c: char| c.is_ascii_digit());
        let index = seen.iter().position(|s| s == symbol).unwrap_or_else(|| {
            seen.push(symbol.to_string());
            seen.len() - 1
        });
        out.push_str(&format!("{stem}{index}"));
        rest = &from[end..];
    }
    out.push_str(rest);
    out
}

/// Each `tests/expand/<name>.rs` against `tests/expand/<name>.expanded.rs` (expect-test: a mismatch
/// prints the diff; `UPDATE_EXPECT=1` rewrites the snapshot).
#[test]
fn expansions_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/expand");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && !p.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    for input in inputs {
        let expanded = renumber_shared_symbols(&expand_file(&std::fs::read_to_string(&input).expect("read input")));
        expect_test::expect_file![input.with_extension("expanded.rs")].assert_eq(&expanded);
    }
}
