//! The IR: a warp function's handle parameter and every use of a warp handle in its body, each
//! with the expression it comes from (for spans and for the rewrite) and the context it appears
//! in. Only simple checks happen here; the rules are in `check.rs`.

use proc_macro2::{TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprAwait, ExprClosure, ExprMethodCall, FnArg, Ident, ItemFn, Meta, Pat, PatType, Token, Type};

use crate::ctxt::Ctxt;
use crate::intrinsics::{is_copying, is_deriving, is_load, is_memory, is_store, is_suspending, SHARED_DECL};

/// A `#[warp_kernel]` function.
pub struct Kernel<'a> {
    /// The function as written.
    pub item: &'a ItemFn,
    /// `#[warp_kernel(entry)]`: also a GPU entry point. The `entry` token, for spans.
    pub entry: Option<&'a Ident>,
    /// The attribute's other arguments (each is an error).
    pub args: Vec<Meta>,
    /// The parameter whose type is a warp handle, if any.
    pub handle: Option<Handle<'a>>,
    /// Further parameters whose type is a warp handle (each is an error: the macro follows one).
    pub extra_handles: Vec<&'a PatType>,
    /// `entry` arguments after the first, and `entry` written with a value (`entry = true`,
    /// `entry(..)`): each is an error.
    pub bad_entries: Vec<Meta>,
    /// A second `#[warp_kernel]` among the function's own attributes.
    pub repeated_attr: Option<&'a syn::Attribute>,
    /// Every use of a handle in the body, in source order.
    pub uses: Vec<Use<'a>>,
}

/// The handle parameter.
pub struct Handle<'a> {
    /// `w: &Warp`.
    pub param: &'a PatType,
    /// Its name; `None` when the pattern is not a plain identifier.
    pub ident: Option<&'a Ident>,
    /// Its index among the typed (non-`self`) parameters.
    pub position: usize,
    /// How the handle is passed.
    pub passing: Passing,
}

/// How a handle parameter's type receives the handle.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Passing {
    /// `&Warp`: the only accepted form.
    Shared,
    /// `&mut Warp`.
    Mut,
    /// `Warp`.
    Value,
}

/// One use of a warp handle.
pub struct Use<'a> {
    pub kind: UseKind<'a>,
    pub context: Context<'a>,
}

/// What a use of a handle does.
pub enum UseKind<'a> {
    /// `h.shfl_down(..)` and the other warp instructions: a suspension point.
    Intrinsic { expr: &'a Expr, call: &'a ExprMethodCall },
    /// A call that passes a handle to another warp function: a suspension point.
    WarpCall { expr: &'a Expr },
    /// `h.tile(..)` / `h.group(..)`: derives a handle; not a suspension point.
    Derive { call: &'a ExprMethodCall },
    /// `x.atomic_add(..)`, `x.load_volatile(..)`: a memory operation that is a scheduling point
    /// on the host, whatever its receiver.
    MemoryOp { expr: &'a Expr, call: &'a ExprMethodCall },
    /// `x.load(..)`: a plain load, an occasional scheduling point on the host (only in the body
    /// itself: elsewhere, such as in a closure, it stays a plain call).
    LoadOp { expr: &'a Expr },
    /// `h.shared_array::<T, N>()`: a static shared array, a `.shared` variable on nvptx64.
    SharedDecl { call: &'a ExprMethodCall },
    /// `.await` written by the user on a suspension point, or anywhere in the body itself.
    Awaited { expr: &'a ExprAwait, suspension: bool },
    /// A handle used where the rewrite cannot follow it (stored, returned, ...).
    Escape { expr: &'a Expr },
    /// `t = w.tile(8)`: a handle assigned after the `let` (deferred initialisation, or a handle
    /// variable given another handle), which the rewrite cannot follow.
    Assigned { expr: &'a syn::ExprAssign },
    /// `if c { w.tile(8) } else { w.tile(16) }`: a handle chosen by control flow. `at` is the
    /// first branch's handle; `construct` is `if` or `match`.
    Chosen { at: &'a Expr, construct: &'static str },
    /// `w.clone()`: a copy of the handle, whose instructions the rewrite would not see.
    Cloned { call: &'a ExprMethodCall },
    /// A call of the warp function itself (direct recursion): `f(w, ..)`, `Self::f(w, ..)`,
    /// `self.f(w, ..)`.
    Recursion { callee: proc_macro2::TokenStream, name: &'a Ident },
    /// `h.<intrinsic>` inside the tokens of a macro call, which the rewrite cannot reach.
    /// `handle` is the receiver as written, with derived handles (`w.tile(..)`); `definition`:
    /// in the body of a `macro_rules!` defined in the function.
    InMacro { handle: String, method: Ident, definition: bool },
    /// A handle (`w`, `&w`, `w.tile(8)`) handed to a macro as a whole: what the macro does with
    /// it is invisible to the rewrite.
    HandleInMacro { handle: Ident, text: String },
}

/// Where a use appears.
#[derive(Clone, Copy)]
pub enum Context<'a> {
    /// Directly in the warp function's body (also inside blocks, loops, `match`, ...).
    Body,
    /// Inside a closure.
    Closure,
    /// Inside an `async` block.
    AsyncBlock,
    /// Inside a nested `fn` item without `#[warp_kernel]`.
    NestedFn(&'a ItemFn),
}

impl<'a> Kernel<'a> {
    /// Parses the attribute arguments and analyses `item`. Syntax errors in the arguments are
    /// reported to `cx`.
    pub fn from_ast(cx: &Ctxt, args: TokenStream, item: &'a ItemFn, entry_ident: &'a mut Option<Ident>) -> Kernel<'a> {
        let args: Vec<Meta> = match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, args.clone()) {
            Ok(metas) => metas.into_iter().collect(),
            Err(_) => {
                cx.error_spanned_by(args, "`#[warp_kernel]` takes no arguments but `entry`; write `#[warp_kernel]` or `#[warp_kernel(entry)]`");
                Vec::new()
            }
        };
        let (entry, args): (Vec<Meta>, Vec<Meta>) = args.into_iter().partition(|m| m.path().is_ident("entry"));
        let mut bad_entries = Vec::new();
        for meta in entry {
            match &meta {
                Meta::Path(p) if entry_ident.is_none() => *entry_ident = p.get_ident().cloned(),
                _ => bad_entries.push(meta),
            }
        }
        let repeated_attr = item.attrs.iter().find(|a| is_warp_kernel_attr(a));
        let mut handles = find_handles(item).into_iter();
        let handle = handles.next();
        let extra_handles = handles.map(|h| h.param).collect();
        let mut analyzer = Analyzer::new(Context::Body);
        analyzer.name = Some(&item.sig.ident);
        analyzer.method = item.sig.receiver().is_some();
        if let Some(ident) = handle.as_ref().and_then(|h| h.ident) {
            analyzer.bind(ident, true);
        }
        analyzer.visit_block(&item.block);
        Kernel {
            item,
            entry: entry_ident.as_ref(),
            args,
            handle,
            extra_handles,
            bad_entries,
            repeated_attr,
            uses: analyzer.uses,
        }
    }

    /// The addresses of the expressions to await on the host: the suspension points directly in
    /// the body. (The rewrite runs on the same, unmoved syntax tree.)
    pub fn suspension_points(&self) -> Vec<*const Expr> {
        self.uses
            .iter()
            .filter(|u| matches!(u.context, Context::Body))
            .filter_map(|u| match u.kind {
                UseKind::Intrinsic { expr, .. }
                | UseKind::WarpCall { expr }
                | UseKind::MemoryOp { expr, .. }
                | UseKind::LoadOp { expr } => {
                    Some(expr as *const Expr)
                }
                _ => None,
            })
            .collect()
    }
}

/// The hygiene context of `span`, as the compiler prints it (`#3 bytes(10..12)`: `#3`); `None`
/// outside the compiler or in another format. (Stable Rust has no other way to compare two
/// tokens' contexts.)
pub(crate) fn context(span: proc_macro2::Span) -> Option<String> {
    let debug = format!("{span:?}");
    let (ctx, _) = debug.split_once(" bytes(")?;
    ctx.starts_with('#').then(|| ctx.to_string())
}

/// The typed parameters whose type is a warp handle (a path ending in `Warp`, possibly behind a
/// reference), in order: the first is the function's handle.
fn find_handles(item: &ItemFn) -> Vec<Handle<'_>> {
    item.sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(pt) => Some(pt),
            FnArg::Receiver(_) => None,
        })
        .enumerate()
        .filter_map(|(position, param)| {
            let passing = handle_passing(&param.ty)?;
            let ident = match &*param.pat {
                Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
                _ => None,
            };
            Some(Handle { param, ident, position, passing })
        })
        .collect()
}

/// How `ty` passes a warp handle, or `None` if it is not a handle type.
pub fn handle_passing(ty: &Type) -> Option<Passing> {
    match ty {
        Type::Reference(r) if is_warp_path(&r.elem) => {
            Some(if r.mutability.is_some() { Passing::Mut } else { Passing::Shared })
        }
        Type::Paren(p) => handle_passing(&p.elem),
        Type::Group(g) => handle_passing(&g.elem),
        ty if is_warp_path(ty) => Some(Passing::Value),
        _ => None,
    }
}

fn is_warp_path(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Warp"),
        Type::Paren(p) => is_warp_path(&p.elem),
        Type::Group(g) => is_warp_path(&g.elem),
        _ => false,
    }
}

/// Whether `attr` is `#[warp_kernel]` (by any path ending in `warp_kernel`).
pub fn is_warp_kernel_attr(attr: &syn::Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == "warp_kernel")
}

/// Whether a callee is a tuple struct or variant (by the naming convention: `Some`, `Self`,
/// `Wrapper`), not a function.
fn is_constructor(func: &Expr) -> bool {
    match func {
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with(char::is_uppercase)),
        _ => false,
    }
}

/// The standard macros whose arguments are formatted (`{:?}` of a handle prints its lane, mask
/// and width), or checked and formatted: a handle among their own arguments is not handed over.
const FORMATTING: &[&str] = &[
    "print", "println", "eprint", "eprintln", "format", "format_args", "write", "writeln", "panic", "assert", "assert_eq",
    "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "unreachable", "todo", "unimplemented",
];

/// Walks a body, tracking which names are handle variables, and records every use of one.
struct Analyzer<'a> {
    /// Lexical scopes, innermost last: each binding, its hygiene context (`context`) and
    /// whether it is a handle variable.
    scopes: Vec<Vec<(String, Option<String>, bool)>>,
    context: Context<'a>,
    uses: Vec<Use<'a>>,
    /// The warp function's name, for direct recursion (`None` in a nested fn).
    name: Option<&'a Ident>,
    /// Whether the warp function takes `self` (then a bare `name(..)` is another function).
    method: bool,
    /// Whether the tokens being scanned are a `macro_rules!` definition's.
    in_definition: bool,
    /// Branch values of an `if`/`match` already reported as [`UseKind::Chosen`]: visited as
    /// handle expressions, so that they are not reported again as escapes.
    chosen: Vec<*const Expr>,
}

impl<'a> Analyzer<'a> {
    fn new(context: Context<'a>) -> Analyzer<'a> {
        Analyzer { scopes: vec![Vec::new()], context, uses: Vec::new(), name: None, method: false, in_definition: false, chosen: Vec::new() }
    }

    /// Whether a call's callee is the warp function itself: `name(..)` (unless `name` is bound
    /// to a local, such as a closure, or the function is a method), `Self::name(..)`.
    fn is_self_call(&self, func: &Expr) -> bool {
        let (Some(name), Expr::Path(p)) = (self.name, func) else { return false };
        if p.qself.is_some() {
            return false;
        }
        let segs: Vec<&Ident> = p.path.segments.iter().map(|s| &s.ident).collect();
        match segs.as_slice() {
            [f] => !self.method && *f == name && !self.scopes.iter().flatten().any(|(n, _, _)| *f == n),
            [s, f] => *s == "Self" && *f == name,
            _ => false,
        }
    }

    /// The handle values an `if`/`match` evaluates to, if any of its branches ends in one:
    /// `if c { w.tile(8) } else { w.tile(16) }`.
    fn branch_handles(&self, e: &'a Expr, out: &mut Vec<&'a Expr>) {
        let tail = |b: &'a syn::Block| match b.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => Some(tail),
            _ => None,
        };
        let value = |this: &Self, v: &'a Expr, out: &mut Vec<&'a Expr>| match v {
            Expr::If(_) | Expr::Match(_) => this.branch_handles(v, out),
            Expr::Block(b) if b.label.is_none() => {
                if let Some(t) = tail(&b.block) {
                    if this.is_handle_expr(t) {
                        out.push(t);
                    }
                }
            }
            v if this.is_handle_expr(v) => out.push(v),
            _ => {}
        };
        match e {
            Expr::If(i) => {
                if let Some(t) = tail(&i.then_branch) {
                    if self.is_handle_expr(t) {
                        out.push(t);
                    }
                }
                if let Some((_, els)) = &i.else_branch {
                    value(self, els, out);
                }
            }
            Expr::Match(m) => m.arms.iter().for_each(|arm| value(self, &arm.body, out)),
            _ => {}
        }
    }

    fn push(&mut self, kind: UseKind<'a>) {
        self.uses.push(Use { kind, context: self.context });
    }

    fn bind(&mut self, ident: &Ident, handle: bool) {
        self.scopes.last_mut().expect("a scope").push((ident.to_string(), context(ident.span()), handle));
    }

    /// Binds every identifier of `pat` as a non-handle (shadowing handles of the same name).
    fn bind_pat(&mut self, pat: &Pat) {
        struct Bindings(Vec<Ident>);
        impl Visit<'_> for Bindings {
            fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
                self.0.push(p.ident.clone());
                visit::visit_pat_ident(self, p);
            }
            fn visit_expr(&mut self, _: &Expr) {}
        }
        let mut b = Bindings(Vec::new());
        b.visit_pat(pat);
        for ident in b.0 {
            self.bind(&ident, false);
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
    }

    fn in_context(&mut self, context: Context<'a>, f: impl FnOnce(&mut Self)) {
        let outer = core::mem::replace(&mut self.context, context);
        f(self);
        self.context = outer;
    }

    /// Whether `ident` names a handle: the innermost binding of its name in its hygiene context
    /// is one. (In a `macro_rules!` macro, a handle named by the macro's arguments and a `let`
    /// of that name in its body are two variables; where the contexts cannot be read, names
    /// alone decide.)
    fn is_handle_name(&self, ident: &Ident) -> bool {
        let at = context(ident.span());
        let same = |c: &Option<String>| c.is_none() || at.is_none() || *c == at;
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|(name, c, _)| ident == name && same(c)).is_some_and(|&(_, _, h)| h)
    }

    /// `h` where `h` is a handle variable.
    fn is_handle_path(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                p.path.get_ident().is_some_and(|i| self.is_handle_name(i))
            }
            _ => false,
        }
    }

    /// An expression that evaluates to a handle (or a reference to one) the rewrite can see:
    /// `h`, `&h`, `(h)`, `h.tile(..)`, `h.group(..)`.
    fn is_handle_expr(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(_) => self.is_handle_path(e),
            Expr::Paren(p) => self.is_handle_expr(&p.expr),
            Expr::Group(g) => self.is_handle_expr(&g.expr),
            Expr::Reference(r) => r.mutability.is_none() && self.is_handle_expr(&r.expr),
            Expr::MethodCall(m) => is_deriving(&m.method.to_string()) && self.is_handle_expr(&m.receiver),
            _ => false,
        }
    }

    /// Visits an expression for which `is_handle_expr` holds.
    fn visit_handle_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Paren(p) => self.visit_handle_expr(&p.expr),
            Expr::Group(g) => self.visit_handle_expr(&g.expr),
            Expr::Reference(r) => self.visit_handle_expr(&r.expr),
            Expr::MethodCall(m) => {
                self.visit_handle_expr(&m.receiver);
                m.args.iter().for_each(|a| self.visit_arg(a));
                self.push(UseKind::Derive { call: m });
            }
            _ => {}
        }
    }

    /// Visits a call argument: a handle passed directly is a visible use.
    fn visit_arg(&mut self, arg: &'a Expr) {
        if self.is_handle_expr(arg) {
            self.visit_handle_expr(arg);
        } else {
            self.visit_expr(arg);
        }
    }

    /// Whether `e` is a suspension point (used to recognise a user's own `.await` on one).
    fn is_suspension(&self, e: &Expr) -> bool {
        match e {
            Expr::MethodCall(m) => {
                (self.is_handle_expr(&m.receiver) && is_suspending(&m.method.to_string()))
                    || is_memory(&m.method.to_string())
                    || m.args.iter().any(|a| self.is_handle_expr(a))
            }
            Expr::Call(c) => !is_constructor(&c.func) && c.args.iter().any(|a| self.is_handle_expr(a)),
            Expr::Paren(p) => self.is_suspension(&p.expr),
            _ => false,
        }
    }

    // Input:  the tokens after a handle name `h` in a macro call: `.tile(8).all(p)`, `, x`, ``
    // Output: `InMacro` for `h.tile(..).all(..)` (an instruction, on `h` or a handle derived
    //         from it), `HandleInMacro` for a handle handed over whole (`h`, `h.tile(8)`,
    //         `h.clone()`); nothing for `h.lane_id()` and the other plain methods.
    fn scan_handle_chain(&mut self, h: &Ident, rest: &[TokenTree], formatted: bool) {
        let mut text = h.to_string();
        let mut at = 0;
        loop {
            let dot = matches!(rest.get(at), Some(TokenTree::Punct(p)) if p.as_char() == '.');
            let (true, Some(TokenTree::Ident(method))) = (dot, rest.get(at + 1)) else { break };
            let name = method.to_string();
            let called = matches!(rest.get(at + 2), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
            if is_suspending(&name) && called {
                self.push(UseKind::InMacro { handle: text, method: method.clone(), definition: self.in_definition });
                return;
            }
            if (is_deriving(&name) || is_copying(&name)) && called {
                text = format!("{text}.{name}(..)");
                at += 3;
                continue;
            }
            // A plain method (`lane_id`), a field or `.await`: not a handle any more.
            return;
        }
        // Nothing follows but an operator, a comma or the end: the handle itself goes into the
        // macro (an operator on a handle is an error of its own once expanded).
        let next_is_operand = matches!(rest.get(at), Some(TokenTree::Punct(p)) if !matches!(p.as_char(), ',' | ';'));
        if !next_is_operand && !formatted {
            self.push(UseKind::HandleInMacro { handle: h.clone(), text });
        }
    }

    /// Finds `h.<intrinsic>` in macro tokens, which the rewrite cannot reach.
    ///
    /// `formatting`: the tokens are a formatting macro's own arguments (`println!("{:?}", w)`),
    /// where a handle by itself is only formatted.
    fn scan_tokens(&mut self, tokens: TokenStream, formatting: bool) {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => self.scan_tokens(g.stream(), false),
                TokenTree::Ident(method) if is_memory(&method.to_string()) => {
                    let after_dot = i > 0 && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    let called = matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    if after_dot && called {
                        let receiver = match tts.get(i.wrapping_sub(2)) {
                            Some(TokenTree::Ident(r)) => r.to_string(),
                            _ => "x".to_string(),
                        };
                        self.push(UseKind::InMacro { handle: receiver, method: method.clone(), definition: self.in_definition });
                    }
                }
                TokenTree::Ident(h) if self.is_handle_name(h) => {
                    // `x.w` is a field, `$w` a macro variable, `w:`/`w =` a name or argument.
                    let after = |p: &TokenTree, c: &[char]| matches!(p, TokenTree::Punct(p) if c.contains(&p.as_char()));
                    if i > 0 && after(&tts[i - 1], &['.', '$']) {
                        continue;
                    }
                    if tts.get(i + 1).is_some_and(|t| after(t, &[':', '='])) {
                        continue;
                    }
                    self.scan_handle_chain(h, &tts[i + 1..], formatting);
                }
                _ => {}
            }
        }
    }
}

impl<'a> Visit<'a> for Analyzer<'a> {
    fn visit_block(&mut self, b: &'a syn::Block) {
        self.scoped(|this| visit::visit_block(this, b));
    }

    // Input:  `let t = w.tile(8);`, `let h = w;`
    // Output: `t`, `h` are handle variables from here to the end of the block; any other `let`
    //         shadows the names it binds.
    fn visit_local(&mut self, local: &'a syn::Local) {
        for attr in &local.attrs {
            self.visit_attribute(attr);
        }
        let ident = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
                _ => None,
            },
            _ => None,
        };
        match (&local.init, ident) {
            (Some(init), Some(ident)) if init.diverge.is_none() && self.is_handle_expr(&init.expr) => {
                self.visit_handle_expr(&init.expr);
                self.bind(ident, true);
            }
            _ => {
                if let Some(init) = &local.init {
                    self.visit_expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        self.visit_expr(diverge);
                    }
                }
                self.bind_pat(&local.pat);
            }
        }
    }

    fn visit_arm(&mut self, arm: &'a syn::Arm) {
        self.scoped(|this| {
            this.bind_pat(&arm.pat);
            if let Some((_, guard)) = &arm.guard {
                this.visit_expr(guard);
            }
            this.visit_expr(&arm.body);
        });
    }

    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.scoped(|this| {
            this.bind_pat(&f.pat);
            this.visit_block(&f.body);
        });
    }

    fn visit_expr_if(&mut self, e: &'a syn::ExprIf) {
        self.scoped(|this| {
            this.visit_expr(&e.cond);
            this.visit_block(&e.then_branch);
        });
        if let Some((_, els)) = &e.else_branch {
            self.visit_expr(els);
        }
    }

    fn visit_expr_while(&mut self, e: &'a syn::ExprWhile) {
        self.scoped(|this| {
            this.visit_expr(&e.cond);
            this.visit_block(&e.body);
        });
    }

    // `if let` / `while let`: the bindings are visible in the enclosing scope opened above.
    fn visit_expr_let(&mut self, e: &'a syn::ExprLet) {
        self.visit_expr(&e.expr);
        self.bind_pat(&e.pat);
    }

    fn visit_expr_closure(&mut self, c: &'a ExprClosure) {
        self.in_context(Context::Closure, |this| {
            this.scoped(|this| {
                c.inputs.iter().for_each(|p| this.bind_pat(p));
                this.visit_expr(&c.body);
            })
        });
    }

    fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
        self.in_context(Context::AsyncBlock, |this| this.visit_block(&a.block));
    }

    // Nested items do not see the function's locals. A nested `fn` with a handle parameter is
    // analysed on its own so that warp instructions in it are reported; one that carries
    // `#[warp_kernel]` itself is expanded by its own attribute.
    fn visit_item(&mut self, item: &'a syn::Item) {
        // A `macro_rules!` defined in the body sees the handle by name.
        if let syn::Item::Macro(m) = item {
            self.in_definition = true;
            self.scan_tokens(m.mac.tokens.clone(), false);
            self.in_definition = false;
        }
        if let syn::Item::Fn(f) = item {
            if f.attrs.iter().any(is_warp_kernel_attr) {
                return;
            }
            let mut nested = Analyzer::new(Context::NestedFn(f));
            for arg in &f.sig.inputs {
                if let FnArg::Typed(pt) = arg {
                    if let (Some(_), Pat::Ident(p)) = (handle_passing(&pt.ty), &*pt.pat) {
                        nested.bind(&p.ident, true);
                    }
                }
            }
            nested.visit_block(&f.block);
            self.uses.extend(nested.uses);
        }
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        let formatting = m.path.segments.last().is_some_and(|s| FORMATTING.contains(&s.ident.to_string().as_str()));
        self.scan_tokens(m.tokens.clone(), formatting);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if self.chosen.contains(&(e as *const Expr)) {
            self.visit_handle_expr(e);
            return;
        }
        match e {
            Expr::MethodCall(m) if self.is_handle_expr(&m.receiver) => {
                self.visit_handle_expr(&m.receiver);
                m.args.iter().for_each(|a| self.visit_arg(a));
                let name = m.method.to_string();
                if is_suspending(&name) {
                    self.push(UseKind::Intrinsic { expr: e, call: m });
                } else if is_memory(&name) {
                    // The handle's scheduling points that are not warp instructions
                    // (`barrier.cluster`): awaited like the memory operations.
                    self.push(UseKind::MemoryOp { expr: e, call: m });
                } else if name == SHARED_DECL {
                    self.push(UseKind::SharedDecl { call: m });
                } else if is_deriving(&name) {
                    // A derived handle where no handle is followed (a `let` initializer, a
                    // receiver and a call argument are visited as handle expressions).
                    self.push(UseKind::Derive { call: m });
                    self.push(UseKind::Escape { expr: e });
                } else if is_copying(&name) && m.args.is_empty() {
                    self.push(UseKind::Cloned { call: m });
                } else if m.args.iter().any(|a| self.is_handle_expr(a)) {
                    self.push(UseKind::WarpCall { expr: e });
                }
            }
            Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                m.args.iter().for_each(|a| self.visit_arg(a));
                if m.args.iter().any(|a| self.is_handle_expr(a)) {
                    if self.name.is_some_and(|n| m.method == *n) && matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self")) {
                        let (receiver, method) = (&m.receiver, &m.method);
                        self.push(UseKind::Recursion { callee: quote::quote!(#receiver.#method), name: &m.method });
                    }
                    self.push(UseKind::WarpCall { expr: e });
                } else if is_memory(&m.method.to_string()) {
                    self.push(UseKind::MemoryOp { expr: e, call: m });
                } else if (is_load(&m.method.to_string()) || is_store(&m.method.to_string())) && matches!(self.context, Context::Body) {
                    self.push(UseKind::LoadOp { expr: e });
                }
            }
            // `Some(w)`, `Wrapper(w)`: a constructor stores the handle; its arguments are
            // ordinary expressions (so a handle there is an escape).
            Expr::Call(c) if is_constructor(&c.func) => visit::visit_expr(self, e),
            Expr::Call(c) => {
                self.visit_expr(&c.func);
                c.args.iter().for_each(|a| self.visit_arg(a));
                if c.args.iter().any(|a| self.is_handle_expr(a)) {
                    if let (true, Some(name)) = (self.is_self_call(&c.func), self.name) {
                        let func = &c.func;
                        self.push(UseKind::Recursion { callee: quote::quote!(#func), name });
                    }
                    self.push(UseKind::WarpCall { expr: e });
                }
            }
            // Input:  `t = w.tile(8)` (after `let t;`, or to a handle variable)
            // Output: `Assigned`: the rewrite follows handle variables from their `let` only.
            Expr::Assign(a) if self.is_handle_expr(&a.right) => {
                for attr in &a.attrs {
                    self.visit_attribute(attr);
                }
                if !matches!(&*a.left, Expr::Path(_)) {
                    self.visit_expr(&a.left);
                }
                self.visit_handle_expr(&a.right);
                self.push(UseKind::Assigned { expr: a });
            }
            // Input:  `if c { w.tile(8) } else { w.tile(16) }`, `match k { 0 => w, _ => &t }`
            // Output: `Chosen`, once for the whole construct, on its first handle value.
            Expr::If(_) | Expr::Match(_) => {
                let mut handles = Vec::new();
                self.branch_handles(e, &mut handles);
                if let Some(&at) = handles.first() {
                    let construct = if matches!(e, Expr::If(_)) { "if" } else { "match" };
                    self.push(UseKind::Chosen { at, construct });
                    self.chosen.extend(handles.iter().map(|h| *h as *const Expr));
                }
                visit::visit_expr(self, e);
            }
            // Any `.await` in the body itself: the nvptx64 build is a plain fn, where it is
            // E0728, so it is rejected on both targets (inside an `async` block or closure of
            // the body it is the user's own future, and fine).
            Expr::Await(a) if self.is_suspension(&a.base) || matches!(self.context, Context::Body) => {
                let suspension = self.is_suspension(&a.base);
                self.push(UseKind::Awaited { expr: a, suspension });
                self.visit_expr(&a.base);
            }
            Expr::Path(_) if self.is_handle_path(e) => self.push(UseKind::Escape { expr: e }),
            _ => visit::visit_expr(self, e),
        }
    }
}
