//! Every rule about a warp function, checked in one place on the IR. Each error goes on the
//! tokens at fault and says what to do instead.

use syn::spanned::Spanned;
use syn::{Expr, Lit};

use crate::ast::{Context, Kernel, Passing, Use, UseKind};
use crate::ctxt::Ctxt;
use crate::intrinsics::const_args;

pub fn check(cx: &Ctxt, kernel: &Kernel<'_>) {
    check_args(cx, kernel);
    check_entry(cx, kernel);
    check_signature(cx, kernel);
    check_handle(cx, kernel);
    for u in &kernel.uses {
        check_use(cx, u);
    }
}

fn check_args(cx: &Ctxt, kernel: &Kernel<'_>) {
    for meta in &kernel.args {
        let name = meta.path().segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
        cx.error_spanned_by(
            meta,
            format!("unknown argument `{name}` for `#[warp_kernel]`; it takes only `entry`, as in `#[warp_kernel(entry)]`"),
        );
    }
}

/// A GPU entry point (`extern "ptx-kernel"` on nvptx64) is launched with its parameters alone:
/// it cannot be generic, take `self`, return a value, or take parameters it cannot name.
fn check_entry(cx: &Ctxt, kernel: &Kernel<'_>) {
    if kernel.entry.is_none() {
        return;
    }
    let sig = &kernel.item.sig;
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a `#[warp_kernel(entry)]` function cannot be generic: a GPU kernel has one signature; make a non-generic entry that calls the generic warp function",
        );
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        cx.error_spanned_by(
            ty,
            "a `#[warp_kernel(entry)]` function cannot return a value: a GPU kernel writes its results to global buffers; remove the return type",
        );
    }
    for arg in &sig.inputs {
        match arg {
            syn::FnArg::Receiver(r) => cx.error_spanned_by(
                r,
                "a `#[warp_kernel(entry)]` function cannot take `self`: a GPU kernel is a free function; remove `entry` or make it a free fn",
            ),
            syn::FnArg::Typed(pt) if !matches!(&*pt.pat, syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none()) => {
                cx.error_spanned_by(&pt.pat, "bind each parameter of a `#[warp_kernel(entry)]` function to a plain name")
            }
            _ => {}
        }
    }
}

fn check_signature(cx: &Ctxt, kernel: &Kernel<'_>) {
    let sig = &kernel.item.sig;
    if let Some(t) = &sig.asyncness {
        cx.error_spanned_by(
            t,
            "a `#[warp_kernel]` function cannot be `async`: the macro makes its host version async itself; remove `async`",
        );
    }
    if let Some(t) = &sig.constness {
        cx.error_spanned_by(
            t,
            "a `#[warp_kernel]` function cannot be `const`: warp instructions run at run time; remove `const`",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            "a `#[warp_kernel]` function cannot have an `extern` ABI: on the host it becomes an `async fn`; remove the ABI and call it from your entry point",
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a `#[warp_kernel]` function cannot be variadic; remove `...`");
    }
}

fn check_handle(cx: &Ctxt, kernel: &Kernel<'_>) {
    let sig = &kernel.item.sig;
    let Some(handle) = &kernel.handle else {
        cx.syn_error(syn::Error::new(
            sig.paren_token.span.join(),
            format!(
                "`#[warp_kernel]` function `{}` has no warp handle parameter; add `w: &Warp` as its first parameter (after `self`)",
                sig.ident
            ),
        ));
        return;
    };
    match handle.passing {
        Passing::Shared => {}
        Passing::Mut => cx.error_spanned_by(
            &handle.param.ty,
            "take the warp handle by shared reference: `&Warp`, not `&mut Warp`",
        ),
        Passing::Value => cx.error_spanned_by(
            &handle.param.ty,
            "take the warp handle by reference: write `&Warp` (pass a tile or group on as `&tile`)",
        ),
    }
    if handle.ident.is_none() {
        cx.error_spanned_by(
            &handle.param.pat,
            "bind the warp handle to a name, such as `w: &Warp`, so that the macro can find its uses",
        );
    }
    if handle.position != 0 {
        cx.error_spanned_by(
            handle.param,
            "the warp handle must be the first parameter of a `#[warp_kernel]` function (after `self`); move it first",
        );
    }
}

fn check_use(cx: &Ctxt, u: &Use<'_>) {
    // The name of the construct that the rewrite cannot reach, and what to do instead.
    let outside = match u.context {
        Context::Body => None,
        Context::Closure => {
            Some(("a closure".to_string(), "move the call out of the closure, or make the closure a `#[warp_kernel]` fn"))
        }
        Context::AsyncBlock => Some((
            "an `async` block".to_string(),
            "move the call out of the `async` block, or make the block a `#[warp_kernel]` fn",
        )),
        Context::NestedFn(f) => Some((
            format!("the nested fn `{}`", f.sig.ident),
            "mark the nested fn `#[warp_kernel]`, or move the call out of it",
        )),
    };
    match &u.kind {
        UseKind::Intrinsic { call, .. } => {
            if let Some((place, todo)) = outside {
                cx.error_spanned_by(&call.method, format!("`{}` cannot be used inside {place}; {todo}", call.method));
            }
            check_const_args(cx, call);
        }
        UseKind::WarpCall { expr } => {
            if let Some((place, todo)) = outside {
                cx.error_spanned_by(
                    callee(expr),
                    format!("a warp function cannot be called inside {place}, because the call must be awaited; {todo}"),
                );
            }
        }
        UseKind::Derive { call } => check_const_args(cx, call),
        UseKind::MemoryOp { call, .. } => {
            if let Some((place, todo)) = outside {
                cx.error_spanned_by(
                    &call.method,
                    format!("`{}` is a scheduling point that must be awaited on the host, so it cannot be used inside {place}; {todo}", call.method),
                );
            }
        }
        UseKind::LoadOp { .. } => {}
        UseKind::SharedDecl { call } => {
            let args = call.turbofish.as_ref().map_or(0, |t| t.args.len());
            if args != 2 || !call.args.is_empty() {
                cx.error_spanned_by(
                    &call.method,
                    "write the element type and the length of a static shared array: `w.shared_array::<u32, 256>()`",
                );
            } else if let Some((place, todo)) = outside {
                cx.error_spanned_by(&call.method, format!("`shared_array` cannot be used inside {place}; {todo}"));
            }
        }
        UseKind::Awaited { expr, suspension: true } => cx.syn_error(syn::Error::new(
            expr.await_token.span,
            "remove this `.await`: `#[warp_kernel]` inserts it on the host, and the nvptx64 build has no `.await`",
        )),
        UseKind::Awaited { expr, suspension: false } => cx.syn_error(syn::Error::new(
            expr.await_token.span,
            "a `#[warp_kernel]` body cannot `.await`: on nvptx64 it is a plain fn (the macro awaits warp instructions, warp functions and memory operations itself on the host); call a plain fn, or a `#[warp_kernel]` fn, instead",
        )),
        UseKind::Escape { expr } => cx.error_spanned_by(
            expr,
            "this use of the warp handle is not supported: `#[warp_kernel]` only follows a handle used as a method receiver (`w.shfl_down(..)`), passed directly to a call (`helper(w, ..)`, `helper(&t, ..)`) or bound with `let` (`let t = w.tile(8);`); do not store, return or capture it",
        ),
        UseKind::InMacro { handle, method } => cx.syn_error(syn::Error::new(
            method.span(),
            format!(
                "`{handle}.{method}(..)` cannot be used inside a macro call; bind the result first: `let x = {handle}.{method}(..);`"
            ),
        )),
    }
}

/// Shuffle offsets in 0..32, widths that are powers of two in 1..=32, barrier ids in 0..=15 and
/// barrier thread counts that are multiples of 32 in 0..=1024 (not 0 for `arrive`), when they are
/// literals.
fn check_const_args(cx: &Ctxt, call: &syn::ExprMethodCall) {
    let name = call.method.to_string();
    let spec = const_args(&name);
    if let Some(value) = spec.offset.and_then(|i| call.args.iter().nth(i)) {
        if let Some((lit, v)) = literal(value) {
            if v >= 32 {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`{name}` operand `{v}` is out of range: a lane offset must be in 0..32; use a smaller offset, or the raw `shfl(mode, value, b, c)` form, which takes any `b`"
                    ),
                );
            }
        }
    }
    if let Some(value) = spec.barrier.and_then(|i| call.args.iter().nth(i)) {
        if let Some((lit, v)) = literal(value) {
            if v > 15 {
                cx.error_spanned_by(
                    lit,
                    format!("`{name}` barrier `{v}` is out of range: a block has sixteen barriers, numbered 0..=15"),
                );
            }
        }
    }
    if let Some(value) = spec.count.and_then(|i| call.args.iter().nth(i)) {
        if let Some((lit, v)) = literal(value) {
            let arrive = name.ends_with("arrive");
            if v % 32 != 0 || v > 1024 || (arrive && v == 0) {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`{name}` thread count `{v}` is not valid: it must be a multiple of the warp size (32){}, at most 1024",
                        if arrive { ", not 0" } else { "" }
                    ),
                );
            }
        }
    }
    if let Some(value) = spec.width.and_then(|i| call.args.iter().nth(i)) {
        if let Some((lit, v)) = literal(value) {
            if !(v.is_power_of_two() && v <= 32) {
                cx.error_spanned_by(
                    lit,
                    format!("`{name}` width `{v}` is not a power of two in 1..=32; use 1, 2, 4, 8, 16 or 32"),
                );
            }
        }
    }
}

/// An integer literal operand, through parentheses.
fn literal(e: &Expr) -> Option<(&syn::LitInt, u128)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<u128>().ok().map(|v| (i, v)),
            _ => None,
        },
        Expr::Paren(p) => literal(&p.expr),
        Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}

/// The callee of a call or method call, for spans.
fn callee(e: &Expr) -> proc_macro2::TokenStream {
    match e {
        Expr::Call(c) => quote::ToTokens::to_token_stream(&c.func),
        Expr::MethodCall(m) => quote::ToTokens::to_token_stream(&m.method),
        other => {
            let span = other.span();
            quote::quote_spanned!(span=> #other)
        }
    }
}
