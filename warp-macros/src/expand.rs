//! Code generation: the host `async fn`, the nvptx64 function, or a stub when there are errors.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, ItemFn, Signature, Token, Type};

use crate::ast::{handle_passing, Kernel};
use crate::check;
use crate::ctxt::Ctxt;

/// The whole attribute: parse, check, expand.
pub fn warp_kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    let input = unwrap_lifetimes(input);
    let mut item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new_spanned(
                &input,
                "`#[warp_kernel]` applies to a `fn` with a body: a free function or a method in an `impl` block",
            );
            let mut out = err.to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let cx = Ctxt::new();
    let mut entry_ident = None;
    let kernel = Kernel::from_ast(&cx, args, &item, &mut entry_ident);
    check::check(&cx, &kernel);
    let entry = kernel.entry.is_some();
    let points: HashSet<usize> = kernel.suspension_points().into_iter().map(|p| p as usize).collect();
    let wide = crate::wide::supported(&kernel);
    drop(kernel);
    match cx.check() {
        Ok(()) => {
            let mut device_item = item.clone();
            declare_shared_arrays(&mut device_item);
            let device = if entry { device_entry(&device_item) } else { device(&device_item) };
            let entry_type = if entry { crate::entry::host_type(&item) } else { TokenStream::new() };
            // `item` has not moved since the analysis: the addresses in `points` are its nodes.
            let prologue = wide.and_then(|w| crate::wide::prologue(&item, &points, &w, entry));
            let host = host(&mut item, &points, prologue);
            quote!(#host #device #entry_type)
        }
        Err(err) => {
            let mut out = stub(&item);
            out.extend(err.to_compile_error());
            out
        }
    }
}

/// `input` with every invisible group that holds just a lifetime replaced by the lifetime: a
/// `macro_rules!` macro passes a `$l:lifetime` argument (a loop's label) in such a group, which
/// syn does not parse as a label or a lifetime. A lifetime has no precedence for the group to
/// keep, and its tokens keep their spans.
fn unwrap_lifetimes(input: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, Group, Spacing, TokenTree};
    let mut out = TokenStream::new();
    for tt in input {
        match tt {
            TokenTree::Group(g) => {
                let inner = unwrap_lifetimes(g.stream());
                let lifetime = || {
                    let tokens: Vec<TokenTree> = inner.clone().into_iter().take(3).collect();
                    matches!(tokens.as_slice(), [TokenTree::Punct(p), TokenTree::Ident(_)] if p.as_char() == '\'' && p.spacing() == Spacing::Joint)
                };
                if g.delimiter() == Delimiter::None && lifetime() {
                    out.extend(inner);
                } else {
                    let mut group = Group::new(g.delimiter(), inner);
                    group.set_span(g.span());
                    out.extend([TokenTree::Group(group)]);
                }
            }
            tt => out.extend([tt]),
        }
    }
    out
}

// Input:  fn warp_sum(w: &Warp, x: u32) -> u32 { let mut v = x; v += w.shfl_down(v, 16); helper(w, v) }
// Output: #[cfg(not(target_arch = "nvptx64"))]
//         async fn warp_sum(w: &Warp<'_>, x: u32) -> u32 {
//             let mut v = x; v += w.shfl_down(v, 16).await; helper(w, v).await
//         }
//         With a warp-wide form (`wide.rs`), the body starts with its offer, and the parameters
//         after the handle are bound again (with their `mut`) for the per-lane body.
fn host(item: &mut ItemFn, points: &HashSet<usize>, prologue: Option<crate::wide::Prologue>) -> TokenStream {
    // A kernel with a warp-wide form has no load or atomic that could spin (`wide::spins`): its
    // loads and atomics do not pause on sm_70+, in either form.
    let calls = prologue.as_ref().map_or(&[][..], |p| &p.calls[..]);
    AwaitSuspensions { points, lockstep_loads: prologue.is_some(), calls }.visit_block_mut(&mut item.block);
    let ItemFn { attrs, vis, sig, block } = &*item;
    let mut sig = host_signature(sig);
    if prologue.is_some() {
        // The prologue binds the parameters again, with their `mut` and their lint attributes
        // (where the lints fire: an `expect` left here would go unfulfilled).
        for arg in sig.inputs.iter_mut().skip(1) {
            if let FnArg::Typed(pt) = arg {
                if let syn::Pat::Ident(p) = &mut *pt.pat {
                    p.mutability = None;
                }
                pt.attrs.retain(|a| !crate::wide::is_lint_attr(a));
            }
        }
    }
    let prologue = prologue.map(|p| p.tokens);
    let (outer, inner) = split_attrs(attrs);
    let stmts = &block.stmts;
    // A kernel's future holds the lane's handle, which is not `Sync`: that it is not `Send` is
    // by design, and clippy's `future_not_send` (nursery) would say so of every kernel. (Before
    // the user's attributes, which may ask for it again.)
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::future_not_send)]
        #(#outer)*
        #vis #sig { #(#inner)* #prologue #(#stmts)* }
    }
}

/// The function's outer attributes, and the inner ones (`#![allow(..)]` at the top of the body,
/// which syn keeps with the others): these go back inside the body, where they were written.
fn split_attrs(attrs: &[syn::Attribute]) -> (Vec<&syn::Attribute>, Vec<&syn::Attribute>) {
    attrs.iter().partition(|a| matches!(a.style, syn::AttrStyle::Outer))
}

// Input:  fn warp_sum(w: &Warp, x: u32) -> u32 { .. }
// Output: #[cfg(target_arch = "nvptx64")] fn warp_sum(w: &Warp, x: u32) -> u32 { .. }  (unchanged:
//         there, the handle's instructions are synchronous inline asm)
fn device(item: &ItemFn) -> TokenStream {
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #item
    }
}

// Input:  #[warp_kernel(entry)] pub fn hist(w: &Warp, input: GlobalSlice<'_, u32>, bins: GlobalSlice<'_, u32>) { .. }
// Output: #[cfg(target_arch = "nvptx64")] #[unsafe(no_mangle)]
//         pub unsafe extern "ptx-kernel" fn hist(input: GlobalSlice<'_, u32>, bins: GlobalSlice<'_, u32>) {
//             #[inline(always)] fn __warp_body(w: &Warp, input: .., bins: ..) { .. }
//             __warp_body(&::warpkit::__private::Warp::current(), input, bins)
//         }
//         The handle is made from the special registers; the other parameters are the kernel's.
//         `unsafe(no_mangle)`: edition 2024 requires the `unsafe(..)`, and 2021 accepts it (Rust 1.82+).
fn device_entry(item: &ItemFn) -> TokenStream {
    let krate = crate::krate::facade_at(item.sig.ident.span());
    let ItemFn { attrs, vis, sig, block } = item;
    let name = &sig.ident;
    let body_name = syn::Ident::new("__warp_body", Span::mixed_site());
    let mut params = Vec::new();
    let mut names = Vec::new();
    let mut all = Vec::new();
    for (i, arg) in sig.inputs.iter().enumerate() {
        all.push(arg.clone());
        if let FnArg::Typed(pt) = arg {
            if i > 0 {
                params.push(arg.clone());
                if let syn::Pat::Ident(p) = &*pt.pat {
                    let ident = &p.ident;
                    names.push(quote!(#ident));
                }
            }
        }
    }
    let span = name.span();
    let (outer, inner) = split_attrs(attrs);
    let stmts = &block.stmts;
    quote_spanned! {span=>
        #[cfg(target_arch = "nvptx64")]
        #(#outer)*
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#(#params),*) {
            #[inline(always)]
            fn #body_name(#(#all),*) { #(#inner)* #(#stmts)* }
            #body_name(&#krate::__private::Warp::current(), #(#names),*)
        }
    }
}

// Input:  a function with errors: fn kernel(w: &Warp) -> u32 { w.shfl_down(x, 40) }
// Output: async fn kernel(_: &Warp<'_>) -> u32 { unimplemented!() }
//         so that callers see the intended signature and no secondary errors (the parameters
//         unnamed, where an `allow(unused_variables)` would be one more error in a crate that
//         forbids that lint).
fn stub(item: &ItemFn) -> TokenStream {
    let ItemFn { attrs, vis, sig, .. } = item;
    let mut sig = host_signature(sig);
    sig.constness = None;
    sig.abi = None;
    sig.variadic = None;
    for arg in sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            let span = pt.pat.span();
            *pt.pat = syn::Pat::Wild(syn::PatWild { attrs: Vec::new(), underscore_token: Token![_](span) });
        }
    }
    let span = sig.ident.span();
    let message = format!("`{}` did not compile: see the errors from `#[warp_kernel]`", sig.ident);
    let (mut outer, _) = split_attrs(attrs);
    // A repeated `#[warp_kernel]` (an error) would expand the stub again.
    outer.retain(|a| !crate::ast::is_warp_kernel_attr(a));
    quote_spanned! {span=>
        #(#outer)*
        #vis #sig { ::core::unimplemented!(#message) }
    }
}

// Input:  fn f<'a>(w: &Warp, data: &'a [u32]) -> u32
// Output: async fn f<'a>(w: &Warp<'_>, data: &'a [u32]) -> u32
//         (an `async fn` may not elide the lifetime of a path type, E0726)
fn host_signature(sig: &Signature) -> Signature {
    let mut sig = sig.clone();
    sig.asyncness = Some(Token![async](sig.fn_token.span));
    for arg in sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            if handle_passing(&pt.ty).is_some() {
                add_elided_lifetime(&mut pt.ty);
            }
        }
    }
    sig
}

fn add_elided_lifetime(ty: &mut Type) {
    match ty {
        Type::Reference(r) => add_elided_lifetime(&mut r.elem),
        Type::Paren(p) => add_elided_lifetime(&mut p.elem),
        Type::Group(g) => add_elided_lifetime(&mut g.elem),
        Type::Path(p) => {
            if let Some(last) = p.path.segments.last_mut() {
                if last.arguments.is_none() {
                    let span = last.ident.span();
                    last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote_spanned!(span=> <'_>));
                }
            }
        }
        _ => {}
    }
}

/// Appends `.await` to the expressions at `points`, keeping the call's own tokens (and so the
/// span that `#[track_caller]` reports) untouched.
struct AwaitSuspensions<'p> {
    points: &'p HashSet<usize>,
    /// Loads suspend below sm_70 only (`pauses_lockstep`), not every so many (`pauses_load`), and so
    /// do atomics (`lockstep_atomic`), not at every one.
    lockstep_loads: bool,
    /// The warp-function calls of a kernel with a warp-wide form (`wide::Prologue::calls`):
    /// each learns for its call site whether the callee offered its form.
    calls: &'p [usize],
}

impl VisitMut for AwaitSuspensions<'_> {
    // Input:  w.shfl_down(v, 16)        helper(w, v)
    // Output: w.shfl_down(v, 16).await  match helper(w, v) { __warpkit_call => ::warpkit::__private::WarpCall::into_future(__warpkit_call) }.await
    //         (`.await` spanned as the note above `awaited` says)
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let hit = self.points.contains(&(e as *const Expr as usize));
        let call = self.calls.iter().position(|&c| c == e as *const Expr as usize);
        // Children first, while `e` is still at the address the analysis saw.
        visit_mut::visit_expr_mut(self, e);
        if hit {
            let span = callee_span(e);
            let mut base = core::mem::replace(e, Expr::Verbatim(TokenStream::new()));
            // Attributes written on the call (`#[allow(..)] w.syncwarp();`, `#[cfg(..)]`) go on
            // the whole awaited expression: on the inner call they would be attributes on an
            // expression, which Rust does not accept outside statement position.
            let attrs = match &mut base {
                Expr::MethodCall(m) => core::mem::take(&mut m.attrs),
                Expr::Call(c) => core::mem::take(&mut c.attrs),
                _ => Vec::new(),
            };
            let method = match &base {
                Expr::MethodCall(m) => m.method.to_string(),
                _ => String::new(),
            };
            *e = if crate::intrinsics::is_load(&method) {
                // A plain load: every so many, a scheduling point (spin-waits complete); in a
                // kernel with a warp-wide form, only below sm_70.
                // Output: ::warpkit::__private::at(match data.load(i) { __warpkit_v => if ::warpkit::__private::pauses_load() { ::warpkit::__private::pause(__warpkit_v).await } else { __warpkit_v } })
                let asks = if self.lockstep_loads { quote!(pauses_lockstep) } else { quote!(pauses_load) };
                paused(attrs, base, asks, quote!(pause), span)
            } else if crate::intrinsics::is_store(&method) {
                // A store: below sm_70, a scheduling point (lockstep warps).
                paused(attrs, base, quote!(pauses_lockstep), quote!(pause_store), span)
            } else if crate::intrinsics::is_atomic(&method) && self.lockstep_loads {
                // An atomic of a kernel with a warp-wide form (none can spin): a scheduling point
                // below sm_70 only, as its loads are.
                // Output: ::warpkit::__private::at(match c.atomic_add(0, v) { __warpkit_call => ::warpkit::__private::lockstep_atomic(::warpkit::__private::MemCall::into_future(__warpkit_call)) }.await)
                let krate = crate::krate::facade_at(span);
                let call = syn::Ident::new("__warpkit_call", span);
                let inner: Expr = syn::parse_quote_spanned!(span=> #krate::__private::lockstep_atomic(#krate::__private::MemCall::into_future(#call)));
                let whole = base.span();
                at_user(attrs, awaited(Vec::new(), binding(base, &call, inner), span), whole)
            } else if crate::intrinsics::is_memory(&method) {
                // An atomic or volatile load: a scheduling point. The trait says so when the
                // receiver's method is not one of warpkit's memory operations.
                let krate = crate::krate::facade_at(span);
                wrapped(attrs, base, quote_spanned!(span=> #krate::__private::MemCall::into_future), span)
            } else if crate::intrinsics::is_suspending(&method) {
                match base {
                    Expr::MethodCall(call) => intrinsic(attrs, call, span),
                    other => awaited(attrs, other, span),
                }
            } else if let Some(index) = call {
                // Input:  helper(w, v)   (in a kernel with a warp-wide form)
                // Output: ::warpkit::__private::at(match helper(w, v) { __warpkit_call => ::warpkit::__private::WarpCall::into_future(__warpkit_call).learning(&__WARPKIT_CALLS_0, __warpkit_key) }.await)
                let krate = crate::krate::facade_at(span);
                let call = syn::Ident::new("__warpkit_call", span);
                let (calls, key) = (crate::wide::calls_static(index), crate::wide::calls_key());
                let inner: Expr = syn::parse_quote_spanned!(span=> #krate::__private::WarpCall::into_future(#call).learning(&#calls, #key));
                let whole = base.span();
                at_user(attrs, awaited(Vec::new(), binding(base, &call, inner), span), whole)
            } else {
                // A call that passes the handle on must call a warp function; the trait says so
                // when it does not (instead of "`u32` is not a future").
                let krate = crate::krate::facade_at(span);
                wrapped(attrs, base, quote_spanned!(span=> #krate::__private::WarpCall::into_future), span)
            };
        }
    }

    // Nested items are expanded (or not) by themselves.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// How a suspension point's `.await` is spanned, so that a failed bound is reported once. rustc
// drops a second report of an unmet bound when it is on the same span as the first, and a bound
// that fails on a call's argument fails again on the `.await` (the future's `Future` impl needs
// it too): so the `.await` goes on the argument's span, and an argument of several tokens is
// bound to one identifier on that span first.

// Input:  data.load(i)      (`asks`: `pauses_load`, `pause`: `pause`)
// Output: ::warpkit::__private::at(match data.load(i) { __warpkit_v => if ::warpkit::__private::pauses_load() { ::warpkit::__private::pause(__warpkit_v).await } else { __warpkit_v } })
//         The access's value goes on at once unless the run says the lane pauses here; the pause
//         is spanned on the access, whose site it records.
fn paused(attrs: Vec<syn::Attribute>, base: Expr, asks: TokenStream, pause: TokenStream, span: Span) -> Expr {
    let whole = base.span();
    let krate = crate::krate::facade_at(whole);
    let v = syn::Ident::new("__warpkit_v", Span::mixed_site().located_at(whole));
    let waits = awaited(Vec::new(), syn::parse_quote_spanned!(whole=> #krate::__private::#pause(#v)), span);
    let body: Expr = syn::parse_quote_spanned!(Span::mixed_site().located_at(whole)=> if #krate::__private::#asks() { #waits } else { #v });
    at_user(attrs, binding(base, &v, body), whole)
}

/// `::warpkit::__private::at(e)`, spanned at `whole` (the user's expression that `e` expands),
/// with the call's attributes. `e` begins with a `match` in the macro's context (`binding`),
/// and an operation on it (`data.load(i) / d`) would span both contexts, which rustc reports at
/// the macro's call site: a panic in it would name the `#[warp_kernel]` line. The call in the
/// user's context keeps the operation's span the user's.
pub(crate) fn at_user(attrs: Vec<syn::Attribute>, e: Expr, whole: Span) -> Expr {
    let krate = crate::krate::facade_at(whole);
    let mut out: Expr = syn::parse_quote_spanned!(whole=> #krate::__private::at(#e));
    if let Expr::Call(c) = &mut out {
        c.attrs = attrs;
    }
    out
}

/// `base.await`, spanned at `span`, with the call's attributes.
fn awaited(attrs: Vec<syn::Attribute>, base: Expr, span: Span) -> Expr {
    Expr::Await(syn::ExprAwait { attrs, base: Box::new(base), dot_token: Token![.](span), await_token: Token![await](span) })
}

// Input:  c.atomic_add(0, v)       (`wrap`: `::warpkit::__private::MemCall::into_future`)
// Output: ::warpkit::__private::at(match c.atomic_add(0, v) { __warpkit_call => ::warpkit::__private::MemCall::into_future(__warpkit_call) }.await)
//         all spanned on the callee: a call that returns something else is one error there.
fn wrapped(attrs: Vec<syn::Attribute>, base: Expr, wrap: TokenStream, span: Span) -> Expr {
    let call = syn::Ident::new("__warpkit_call", span);
    let inner: Expr = syn::parse_quote_spanned!(span=> #wrap(#call));
    let whole = base.span();
    at_user(attrs, awaited(Vec::new(), binding(base, &call, inner), span), whole)
}

/// `match value { name => body }`: binds `value` for `body`, keeping its temporaries alive
/// across the `.await` as the unbound call did. The `match` itself is spanned as the macro's
/// (mixed site, at the value), so that lints such as clippy's `match_single_binding` see
/// generated code; `name` keeps the user's span, for the error.
pub(crate) fn binding(value: Expr, name: &syn::Ident, body: Expr) -> Expr {
    let at = Span::mixed_site().located_at(name.span());
    // A scrutinee holding a struct literal (`f { } (x)`) does not parse bare: parenthesize it
    // then, and only then (rustc would call parentheses around the usual scrutinee unnecessary).
    match syn::parse2::<syn::ExprMatch>(quote_spanned!(at=> match #value { #name => #body })) {
        Ok(m) => Expr::Match(m),
        Err(_) => Expr::Match(syn::parse_quote_spanned!(at=> match (#value) { #name => #body })),
    }
}

// Input:  w.shfl_down(x, 1)         w.shfl_down(v.0 + 1, 1)
// Output: w.shfl_down(x, 1).await   ::warpkit::__private::at(match v.0 + 1 { __warpkit_value => w.shfl_down(__warpkit_value, 1).await })
//         The `.await` on the value's span (`x`, or the identifier on `v`'s span), where a value
//         type the instruction does not take (`u8` for a shuffle) is reported once.
fn intrinsic(attrs: Vec<syn::Attribute>, mut call: syn::ExprMethodCall, span: Span) -> Expr {
    let Some(arg) = crate::intrinsics::value_arg(&call.method.to_string()).and_then(|i| call.args.iter_mut().nth(i)) else {
        return awaited(attrs, Expr::MethodCall(call), span);
    };
    let at = arg.span();
    let single = match &*arg {
        Expr::Path(p) => p.attrs.is_empty() && p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Lit(l) => l.attrs.is_empty(),
        _ => false,
    };
    if single {
        return awaited(attrs, Expr::MethodCall(call), at);
    }
    let value = syn::Ident::new("__warpkit_value", at);
    let scrutinee = core::mem::replace(arg, syn::parse_quote!(#value));
    let whole = call.span();
    let body = awaited(Vec::new(), Expr::MethodCall(call), at);
    at_user(attrs, binding(scrutinee, &value, body), whole)
}

fn callee_span(e: &Expr) -> Span {
    match e {
        Expr::MethodCall(m) => m.method.span(),
        Expr::Call(c) => c.func.span(),
        other => other.span(),
    }
}

// Input:  let tile = w.shared_array::<u32, 256>();            (the nvptx64 copy of the body)
// Output: let tile = ::warpkit::__private::__shared_static!(w, "__warpkit_smem_<crate>_<fn>_<n>", u32, 256);
//         a `.shared` variable of the PTX module, named uniquely per call site, and the slice over
//         it. (The host version keeps the call: there the array is found by its call site.)
fn declare_shared_arrays(item: &mut ItemFn) {
    /// `{ 32 * N }` (the braces a computed length needs in a generic argument) as its
    /// expression: in the declaration's length the braces would be the user's unneeded ones
    /// (`unused_braces`, in the nvptx64 build).
    fn unbraced(e: &Expr) -> &Expr {
        match e {
            Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => match &b.block.stmts[..] {
                [syn::Stmt::Expr(inner, None)] => inner,
                _ => e,
            },
            _ => e,
        }
    }
    struct Declare {
        prefix: String,
    }
    impl VisitMut for Declare {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            visit_mut::visit_expr_mut(self, e);
            let Expr::MethodCall(m) = e else { return };
            if m.method != crate::intrinsics::SHARED_DECL || !m.args.is_empty() {
                return;
            }
            let Some(turbofish) = &m.turbofish else { return };
            let mut args = turbofish.args.iter();
            let (Some(syn::GenericArgument::Type(ty)), Some(n), None) = (args.next(), args.next(), args.next()) else { return };
            let n = match n {
                syn::GenericArgument::Const(c) => {
                    let c = unbraced(c);
                    quote!(#c)
                }
                syn::GenericArgument::Type(t) => quote!(#t),
                other => quote!(#other),
            };
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let symbol = format!("{}_{}", self.prefix, NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
            let receiver = &m.receiver;
            let span = m.method.span();
            let facade = crate::krate::facade_at(span);
            *e = syn::parse_quote_spanned!(span=> #facade::__private::__shared_static!(#receiver, #symbol, #ty, #n));
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let krate = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
    let prefix = format!("__warpkit_smem_{}_{}", krate.replace(|c: char| !c.is_ascii_alphanumeric(), "_"), item.sig.ident);
    Declare { prefix }.visit_block_mut(&mut item.block);
}
