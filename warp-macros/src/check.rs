//! Every rule about a warp function, checked in one place on the IR. Each error goes on the
//! tokens at fault and says what to do instead.

use syn::spanned::Spanned;
use syn::{Expr, Lit};

use crate::ast::{Context, Kernel, Passing, Use, UseKind};
use crate::ctxt::Ctxt;
use crate::intrinsics::const_args;

pub fn check(cx: &Ctxt, kernel: &Kernel<'_>) {
    if let Some(attr) = kernel.repeated_attr {
        cx.error_spanned_by(
            attr,
            format!("`#[warp_kernel]` is written twice on `{}`; remove one (`#[warp_kernel(entry)]` alone makes an entry kernel)", kernel.item.sig.ident),
        );
    }
    check_args(cx, kernel);
    check_entry(cx, kernel);
    check_signature(cx, kernel);
    check_handle(cx, kernel);
    for u in &kernel.uses {
        check_use(cx, u);
    }
}

fn check_args(cx: &Ctxt, kernel: &Kernel<'_>) {
    for meta in &kernel.bad_entries {
        match meta {
            syn::Meta::Path(_) => cx.error_spanned_by(meta, "`entry` is given twice; write it once: `#[warp_kernel(entry)]`"),
            _ => cx.error_spanned_by(meta, "`entry` takes no value: write `#[warp_kernel(entry)]` for an entry kernel, or `#[warp_kernel]` for a warp function"),
        }
    }
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
    for extra in &kernel.extra_handles {
        let name = match &*extra.pat {
            syn::Pat::Ident(p) => format!("`{}`", p.ident),
            _ => "a second one".to_string(),
        };
        cx.error_spanned_by(
            extra,
            format!(
                "a `#[warp_kernel]` function takes one warp handle, its first parameter, but {name} is another: derive tiles and groups from the first inside (`let t = w.tile(8);`), or pass the values this function needs"
            ),
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
            check_mbarrier_literals(cx, call);
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
        UseKind::Assigned { expr } => {
            let name = match &*expr.left {
                Expr::Path(p) => p.path.get_ident().map_or("t".to_string(), |i| i.to_string()),
                _ => "t".to_string(),
            };
            cx.error_spanned_by(
                expr,
                format!(
                    "a warp handle cannot be assigned after its `let`: `#[warp_kernel]` follows a handle variable from the `let` that makes it; write `let {name} = {};` where the handle is made",
                    handle_text(&expr.right)
                ),
            )
        }
        UseKind::Chosen { at, construct } => cx.error_spanned_by(
            at,
            format!(
                "a warp handle cannot be chosen by `{construct}`: `#[warp_kernel]` follows a handle from a `let` that makes it directly; choose the width or membermask instead (`let t = w.tile(if c {{ 8 }} else {{ 16 }});`), or call the instruction in each branch"
            ),
        ),
        UseKind::Cloned { call } => {
            let receiver = handle_text(&call.receiver);
            cx.error_spanned_by(
                call,
                format!(
                    "`{receiver}.{}()` copies the warp handle where `#[warp_kernel]` cannot follow it, so its instructions would not be awaited; use `{receiver}` itself",
                    call.method
                ),
            )
        }
        UseKind::Recursion { callee, name } => cx.error_spanned_by(
            callee,
            format!(
                "`{name}` calls itself: a warp function cannot be recursive, because on the host it is a state machine that would contain itself; rewrite the recursion as a loop"
            ),
        ),
        UseKind::HandleInMacro { handle, text } => cx.syn_error(syn::Error::new(
            handle.span(),
            format!(
                "the warp handle `{text}` cannot be handed to a macro: `#[warp_kernel]` does not see into macro calls, so a warp instruction or warp function called there would not be awaited; make the call before the macro and pass its result (`let x = helper({text}, ..);`)"
            ),
        )),
        UseKind::InMacro { handle, method, definition: false } => cx.syn_error(syn::Error::new(
            method.span(),
            format!(
                "`{handle}.{method}(..)` cannot be used inside a macro call; bind the result first: `let x = {handle}.{method}(..);`"
            ),
        )),
        UseKind::InMacro { handle, method, definition: true } => cx.syn_error(syn::Error::new(
            method.span(),
            format!(
                "`{handle}.{method}(..)` cannot be used inside a `macro_rules!` definition: `#[warp_kernel]` does not see where the macro expands, so it would not be awaited; call it in the body and pass the result to the macro"
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

/// An mbarrier's literal operands (9.7.13.15): an `init` count in `1 ..= 2^20 - 1`, an arrival
/// count (`_with`, `.noComplete`) and a tx-count at most `2^20 - 1`, a phase parity 0 or 1.
fn check_mbarrier_literals(cx: &Ctxt, call: &syn::ExprMethodCall) {
    const MAX: u128 = (1 << 20) - 1;
    let name = call.method.to_string();
    let arg = |i: usize| call.args.iter().nth(i).and_then(literal);
    match name.as_str() {
        "mbarrier_init" => {
            if let Some((lit, v)) = arg(1).filter(|(_, v)| !(1..=MAX).contains(v)) {
                cx.error_spanned_by(lit, format!("`mbarrier_init` count `{v}` is out of range: the expected arrival count of an mbarrier is in 1..=1048575 (2^20 - 1)"));
            }
        }
        "mbarrier_arrive_with" | "mbarrier_arrive_no_complete" | "mbarrier_arrive_drop_no_complete" | "mbarrier_arrive_expect_tx" | "mbarrier_expect_tx" | "mbarrier_complete_tx" => {
            if let Some((lit, v)) = arg(1).filter(|(_, v)| *v > MAX) {
                let what = if name.contains("tx") { "tx-count" } else { "arrival count" };
                cx.error_spanned_by(lit, format!("`{name}` {what} `{v}` is out of range: an mbarrier's {what} is at most 1048575 (2^20 - 1)"));
            }
        }
        "mbarrier_test_wait_parity" | "mbarrier_try_wait_parity" | "mbarrier_try_wait_parity_with" | "mbarrier_try_wait_parity_hint" => {
            if let Some((lit, v)) = arg(1).filter(|(_, v)| *v > 1) {
                cx.error_spanned_by(lit, format!("`{name}` parity `{v}` is not a phase parity: an even phase has parity 0 and an odd phase parity 1"));
            }
        }
        _ => {}
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

/// A handle expression as the user would write it, arguments elided: `w`, `&t`, `w.tile(..)`.
fn handle_text(e: &Expr) -> String {
    match e {
        Expr::Path(p) => p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::"),
        Expr::Paren(p) => handle_text(&p.expr),
        Expr::Group(g) => handle_text(&g.expr),
        Expr::Reference(r) => format!("&{}", handle_text(&r.expr)),
        Expr::MethodCall(m) => format!("{}.{}(..)", handle_text(&m.receiver), m.method),
        _ => "w".to_string(),
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
