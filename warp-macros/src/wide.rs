//! The second code generator: a kernel's warp-wide form (see `warp_runtime::wide`).
//!
//! A kernel gets one when every suspension point in its body is a warp instruction (no CTA
//! barrier, memory scheduling point or warp-function call) that sits in control flow this
//! module proves warp-uniform: straight-line code, and `for`/`while`/`if` whose iterable or
//! condition is built from uniform values only (literals, constants, and `let`s of such that
//! per-lane code never changes). Everything else keeps only the per-lane form.
//!
//! The form is a closure over the warp (`WideBody`): the kernel's parameters and every `let`
//! of the body's uniform level become `Lanes` (one value per lane), uniform `let`s stay scalars,
//! and each stretch of statements between two warp instructions becomes one loop over the live
//! lanes in the run's lane order (a plain `0..32` loop while every lane is live), in which the
//! statements run as written for that lane, with its own handle. The stretch ends with each lane
//! evaluating the next instruction's operands; a shuffle, vote or reduction on the kernel's
//! handle is then completed for the warp at once (`WideCtx::issue`), any other instruction is
//! issued through each lane's handle and completed by the engine (`WideCtx::settle`); the next
//! stretch reads each lane's result.
//!
//! ```text
//! Input:  fn warp_sum(w: &Warp, x: u32) -> u32 {
//!             let mut v = x;
//!             for offset in [16, 8, 4, 2, 1] { v += w.shfl_down(v, offset); }
//!             v
//!         }
//! Output (the body of the closure, simplified):
//!         let mut x = Lanes::new();            // each lane's argument
//!         let mut v = Lanes::new();
//!         for l in lanes { v.set(l, x[l]); }
//!         for offset in [16, 8, 4, 2, 1] {
//!             let (mut a, mut b) = (Lanes::new(), Lanes::new());
//!             for l in lanes { a.set(l, v[l]); b.set(l, offset); }
//!             let r = issue(ShflOwn(Down), site, &a, Some(&b))?;
//!             for l in lanes { v[l] += r[l]; }
//!         }
//!         for l in lanes { ret(l, v[l]); }
//! ```

use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, FnArg, ItemFn, Pat, ReturnType, Stmt, Type};

/// What the analysis says of a kernel that may have a warp-wide form.
pub struct Support {
    /// The handle's name.
    pub handle: syn::Ident,
    /// The plain loads and stores and the atomics of the body (addresses): plain calls in the
    /// form, each lane's in its stretch (they are scheduling points of the per-lane form only to
    /// let spinning lanes make way, and a form has no loop that spins on a load or an atomic: see
    /// [`spins`]).
    pub accesses: HashSet<usize>,
    /// The CTA barriers of the body (addresses): the form suspends at each.
    pub barriers: HashSet<usize>,
    /// The calls of other warp functions (addresses, in source order), each `f(w, ..)` with the
    /// kernel's own handle first: the form runs the callee's form (`WideCtx::call`), and each
    /// call site learns, in per-lane runs, whether the callee offers one (`wide::Calls`).
    pub calls: Vec<usize>,
}

/// What the kernel's uses of handles allow: a form when they are all ones it supports: warp
/// instructions (CTA barriers included, at which the form suspends in its block's scheduler),
/// handles derived with `tile`/`group`, static shared arrays, plain loads and stores, and calls
/// of warp functions `f(w, ..)` that pass the kernel's own handle first (at most six arguments
/// after it), and atomics (`atom`/`red`); no other warp-function calls, volatile or ordered
/// loads, mbarrier or asynchronous operations (scheduling points), cluster barriers or
/// `tensormap.cp_fenceproxy` (which suspend at memory operations).
pub fn supported(kernel: &crate::ast::Kernel<'_>) -> Option<Support> {
    use crate::ast::{Context, Passing, UseKind};
    let handle = kernel.handle.as_ref()?;
    if handle.position != 0 || handle.passing != Passing::Shared || !kernel.extra_handles.is_empty() {
        return None;
    }
    let (mut accesses, mut barriers, mut calls) = (HashSet::new(), HashSet::new(), Vec::new());
    let own = handle.ident?;
    for u in &kernel.uses {
        if !matches!(u.context, Context::Body) {
            return None;
        }
        match &u.kind {
            UseKind::Intrinsic { expr, call } => {
                let method = call.method.to_string();
                if method.starts_with("barrier_cluster") || method == "tensormap_cp_fenceproxy" {
                    return None;
                }
                if cta_barrier(&method) {
                    barriers.insert(*expr as *const Expr as usize);
                }
            }
            UseKind::LoadOp { expr } => {
                accesses.insert(*expr as *const Expr as usize);
            }
            // An atomic is lane code too, performed where the lane's code calls it (see `spins`).
            UseKind::MemoryOp { expr, call } if crate::intrinsics::is_atomic(&call.method.to_string()) => {
                accesses.insert(*expr as *const Expr as usize);
            }
            UseKind::WarpCall { expr } => {
                let Expr::Call(c) = expr else { return None };
                let path = matches!(&*c.func, Expr::Path(p) if p.qself.is_none());
                // The handle, or a tile of it (`&t` of `let t = w.tile(8);`, or `&w.tile(8)`:
                // which names a tile, the generator checks).
                let first = c.args.first().is_some_and(|a| matches!(a, Expr::Path(p) if p.path.is_ident(own)) || tile_arg(a, own).is_some());
                // The handle once (a second is a callee with two handles, which has no form).
                let again = c.args.iter().skip(1).any(|a| a.to_token_stream().into_iter().any(|t| matches!(&t, TokenTree::Ident(i) if i == own)));
                if !path || !first || again || c.args.len() > 7 || !c.attrs.is_empty() {
                    return None;
                }
                calls.push(*expr as *const Expr as usize);
            }
            UseKind::Derive { .. } | UseKind::SharedDecl { .. } => {}
            _ => return None,
        }
    }
    Some(Support { handle: own.clone(), accesses, barriers, calls })
}

/// The CTA barriers: `bar`/`barrier` (`.sync`, `.arrive`, `.red`) and `__syncthreads` and its
/// reductions.
fn cta_barrier(method: &str) -> bool {
    (method.starts_with("bar_") || method.starts_with("barrier_") || method.starts_with("sync_threads")) && !method.starts_with("barrier_cluster")
}

/// Whether a plain load or an atomic of `block` (an address of `accesses` that is a call of
/// `load` or an atomic: a spin on a lock or a ticket is an atomic in a loop) could spin: whether
/// it sits in a loop that is not a `for` over a short literal sequence (an array
/// literal, or a range between integer literals, of at most [`SHORT_LOOP`] turns). Any other
/// loop may run for as long as it waits for another warp's (or block's) write: the per-lane form
/// lets the writer run at every 32nd plain load of a lane (`pauses_load`), and a CTA barrier in
/// the loop is no help (a barrier of one warp, `bar.arrive`, or a writer in another block, do
/// not let it run). A kernel with a load that could spin keeps the per-lane form; in a kernel
/// with a warp-wide form, no load pauses on sm_70 and later in either form (`pauses_lockstep`),
/// so both interleave the lanes' accesses alike, and every loop around a load ends soon. The same
/// holds for atomics (`lockstep_atomic`).
fn spins(block: &Block, accesses: &HashSet<usize>, points: &HashSet<usize>, fixed: &HashSet<String>) -> bool {
    struct Loops<'s> {
        accesses: &'s HashSet<usize>,
        points: &'s HashSet<usize>,
        fixed: &'s HashSet<String>,
        /// For each loop the visit is in: whether it is short.
        loops: Vec<bool>,
        spins: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Loops<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if self.accesses.contains(&(e as *const Expr as usize)) {
                let load = matches!(e, Expr::MethodCall(m) if crate::intrinsics::is_load(&m.method.to_string()) || crate::intrinsics::is_atomic(&m.method.to_string()));
                if load && self.loops.contains(&false) {
                    self.spins = true;
                }
            }
            let short = match e {
                Expr::ForLoop(f) => Some(short_sequence(&f.expr)),
                Expr::While(w) => {
                    // A loop whose every turn reaches a warp instruction or barrier (in a
                    // statement of its own that no branch skips) goes through the engine each
                    // turn, in both forms: its time limit is checked, and every lane has run its
                    // turn before the next.
                    let turns_in_engine = w.body.stmts.iter().any(|s| reaches_stmt(s, self.points));
                    let accesses = self.accesses;
                    let atomic = finds(e, true, |x| accesses.contains(&(x as *const Expr as usize)) && matches!(x, Expr::MethodCall(m) if crate::intrinsics::is_atomic(&m.method.to_string())));
                    Some(counted(w, self.fixed, turns_in_engine, turns_in_engine && !atomic))
                }
                Expr::Loop(_) => Some(false),
                _ => None,
            };
            match short {
                Some(short) => {
                    self.loops.push(short);
                    syn::visit::visit_expr(self, e);
                    self.loops.pop();
                }
                None => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut l = Loops { accesses, points, fixed, loops: Vec::new(), spins: false };
    syn::visit::Visit::visit_block(&mut l, block);
    l.spins
}

/// What a name an item puts in scope may be: a value (a const, static or function, a unit or
/// tuple struct), only a type, module or macro, or either (a `use`, whose target the macro
/// cannot see).
#[derive(Clone, Copy, PartialEq)]
enum Namespace {
    Value,
    Other,
    Either,
}

/// Pushes the names item `item` (a statement of a block) puts in scope there; `false` when it
/// may put others, unknown (a glob `use`, an item the list does not know).
fn item_names(item: &syn::Item, out: &mut Vec<(String, Namespace)>) -> bool {
    use Namespace::*;
    fn tree(t: &syn::UseTree, out: &mut Vec<(String, Namespace)>) -> bool {
        match t {
            syn::UseTree::Path(p) => tree(&p.tree, out),
            syn::UseTree::Name(n) => {
                out.push((n.ident.to_string(), Either));
                true
            }
            syn::UseTree::Rename(r) => {
                out.push((r.rename.to_string(), Either));
                true
            }
            syn::UseTree::Glob(_) => false,
            syn::UseTree::Group(g) => g.items.iter().fold(true, |known, t| tree(t, out) && known),
        }
    }
    let mut push = |i: &syn::Ident, n: Namespace| out.push((i.to_string(), n));
    match item {
        syn::Item::Const(i) => push(&i.ident, Value),
        syn::Item::Static(i) => push(&i.ident, Value),
        syn::Item::Fn(i) => push(&i.sig.ident, Value),
        syn::Item::Struct(i) => push(&i.ident, if matches!(i.fields, syn::Fields::Named(_)) { Other } else { Value }),
        syn::Item::Enum(i) => push(&i.ident, Other),
        syn::Item::Union(i) => push(&i.ident, Other),
        syn::Item::Type(i) => push(&i.ident, Other),
        syn::Item::Trait(i) => push(&i.ident, Other),
        syn::Item::TraitAlias(i) => push(&i.ident, Other),
        syn::Item::Mod(i) => push(&i.ident, Other),
        syn::Item::ExternCrate(i) => push(i.rename.as_ref().map_or(&i.ident, |(_, r)| r), Other),
        syn::Item::Macro(i) => i.ident.iter().for_each(|i| push(i, Other)),
        syn::Item::ForeignMod(m) => {
            for f in &m.items {
                match f {
                    syn::ForeignItem::Fn(f) => push(&f.sig.ident, Value),
                    syn::ForeignItem::Static(f) => push(&f.ident, Value),
                    syn::ForeignItem::Type(f) => push(&f.ident, Other),
                    _ => return false,
                }
            }
        }
        syn::Item::Use(u) => return tree(&u.tree, out),
        syn::Item::Impl(_) => {}
        _ => return false,
    }
    true
}

/// Whether statement macro `mac` is one of the standard library's that expand to an expression
/// or statement and define no item (anything else may define one).
fn makes_no_items(mac: &syn::Macro) -> bool {
    const NO_ITEMS: &[&str] = &[
        "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "print", "println", "eprint",
        "eprintln", "panic", "unreachable", "todo", "unimplemented", "write", "writeln", "dbg", "format", "vec", "matches",
    ];
    NO_ITEMS.contains(&macro_name(mac).as_str())
}

/// The names the items of `block`'s statements put in scope there, or `None` when they may put
/// others (see [`item_names`]; a macro statement other than the standard library's that make
/// no items may make any).
fn block_item_names(block: &Block) -> Option<Vec<(String, Namespace)>> {
    let mut names = Vec::new();
    let known = block.stmts.iter().all(|s| match s {
        Stmt::Item(i) => item_names(i, &mut names),
        Stmt::Macro(m) => makes_no_items(&m.mac),
        _ => true,
    });
    known.then_some(names)
}

/// Whether the body's items (its statements') may name what the parameters' bindings, or the
/// signature's types, name: the prologue binds the parameters again, and names their types, at
/// the top of the body, where those items are in scope (a `const input` turns the binding
/// `input` into a pattern against it, a `fn input` is shadowed by it, a `struct Val` is
/// another type than the signature's `Val`). A glob `use`, or a macro statement that may make
/// items, may.
fn items_name_the_signature(block: &Block, sig: &syn::Signature) -> bool {
    let Some(names) = block_item_names(block) else { return true };
    let mut signature = Vec::new();
    sig.inputs.iter().skip(1).for_each(|a| idents_in(a.to_token_stream(), &mut signature));
    idents_in(sig.output.to_token_stream(), &mut signature);
    names.iter().any(|(n, _)| signature.contains(n))
}

/// Every name a pattern of `block` binds (`let`, `for`, closures' parameters, `match` arms,
/// `if let`), at any depth.
fn bound_names(block: &Block) -> HashSet<String> {
    struct Names(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut n = Names(HashSet::new());
    syn::visit::Visit::visit_block(&mut n, block);
    n.0
}

/// Whether running `s` always evaluates an expression of `points` (addresses), unless it leaves
/// early: a warp instruction or call in it that no branch, short-circuit, loop or closure may
/// skip.
fn reaches_stmt(s: &Stmt, points: &HashSet<usize>) -> bool {
    match s {
        Stmt::Local(l) => l.init.as_ref().is_some_and(|i| reaches(&i.expr, points)),
        Stmt::Expr(e, _) => reaches(e, points),
        Stmt::Item(_) | Stmt::Macro(_) => false,
    }
}

/// See [`reaches_stmt`].
fn reaches(e: &Expr, points: &HashSet<usize>) -> bool {
    if points.contains(&(e as *const Expr as usize)) {
        return true;
    }
    let r = |x: &Expr| reaches(x, points);
    match e {
        Expr::MethodCall(m) => r(&m.receiver) || m.args.iter().any(r),
        Expr::Call(c) => r(&c.func) || c.args.iter().any(r),
        // `a && w.any(..)` may skip its right side.
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => r(&b.left),
        Expr::Binary(b) => r(&b.left) || r(&b.right),
        Expr::Unary(u) => r(&u.expr),
        Expr::Cast(c) => r(&c.expr),
        Expr::Paren(p) => r(&p.expr),
        Expr::Group(g) => r(&g.expr),
        Expr::Reference(x) => r(&x.expr),
        Expr::Field(f) => r(&f.base),
        Expr::Index(i) => r(&i.expr) || r(&i.index),
        Expr::Tuple(t) => t.elems.iter().any(r),
        Expr::Array(a) => a.elems.iter().any(r),
        Expr::Assign(a) => r(&a.left) || r(&a.right),
        Expr::Let(l) => r(&l.expr),
        // Only what always runs: a branch's condition, a match's scrutinee.
        Expr::If(i) => r(&i.cond),
        Expr::Match(m) => r(&m.expr),
        Expr::Block(b) if b.label.is_none() => b.block.stmts.iter().any(|s| reaches_stmt(s, points)),
        Expr::Unsafe(u) => u.block.stmts.iter().any(|s| reaches_stmt(s, points)),
        _ => false,
    }
}

/// Whether a name is a constant's by the naming convention (`RADIX_BITS`).
fn constant_name(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The most turns a loop around a plain load of a kernel with a warp-wide form may take.
const SHORT_LOOP: u128 = 64;

/// Whether a `while` loop counts its turns without reading memory, so that whether and when it
/// ends does not depend on another warp's writes (`while shift < 32 { .. shift += RADIX_BITS; }`,
/// `while base < data.len() { .. base += lanes; }`):
/// - its condition is built from names, literals, parentheses, unary and binary operators, and
///   lengths of `fixed` names (`data.len()`: `GlobalSlice` parameters, whose length no code
///   changes) only;
/// - its body changes those names only by statements of its own top level that add or subtract
///   a non-zero literal, an upper-case constant, or, when `names_step` (every turn reaches a
///   warp instruction: a zero step then loops until the time limit, which the engine checks at
///   each turn, rather than spinning in one lane's code), a name that the body never changes (which
///   every turn runs);
/// - nowhere else does the body assign them or those steps (also through a pattern or a
///   destructuring), borrow them mutably, call a method on them, name them in a macro or a
///   closure, or bind a pattern of that name (a shadow) or by `ref mut`;
/// - it never skips a turn's count (`continue`, `.await`);
/// - and it leaves early (`break`, `return`, `?`) only when `exits`: when every turn reaches a
///   warp instruction and its body makes no atomic. An exit taken on a loaded value would make
///   the loop wait on memory: a flag that another lane of the warp sets is seen at the next turn
///   (every lane ran this one, in both forms), and one of another warp or block is seen where a
///   launch lets that warp run, which a form does not do inside its run (a search that returns
///   at its first match ends within its count either way; a loop waiting for another warp ends
///   at its count or its time limit, not when the other warp writes).
fn counted(w: &syn::ExprWhile, fixed: &HashSet<String>, names_step: bool, exits: bool) -> bool {
    fn names(e: &Expr, fixed: &HashSet<String>, out: &mut Vec<String>) -> bool {
        match e {
            Expr::Path(p) if p.qself.is_none() => {
                if let Some(i) = p.path.get_ident() {
                    out.push(i.to_string());
                }
                true
            }
            Expr::Lit(_) => true,
            Expr::Paren(p) => names(&p.expr, fixed, out),
            Expr::Unary(u) => names(&u.expr, fixed, out),
            Expr::Binary(b) if !is_compound(&b.op) => names(&b.left, fixed, out) && names(&b.right, fixed, out),
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() && m.turbofish.is_none() => {
                name_of(&m.receiver).is_some_and(|n| fixed.contains(&n))
            }
            _ => false,
        }
    }
    /// A step: a non-zero literal, a constant, or a name (pushed to `names`, which the body
    /// must not change).
    fn step(e: &Expr, names_step: bool, names: &mut Vec<String>) -> bool {
        match e {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u128>().is_ok_and(|v| v != 0),
            Expr::Paren(p) => step(&p.expr, names_step, names),
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(i) if !constant_name(&i.to_string()) => {
                    names.push(i.to_string());
                    names_step
                }
                _ => p.path.segments.last().is_some_and(|s| constant_name(&s.ident.to_string())),
            },
            _ => false,
        }
    }
    struct Changes<'n> {
        names: &'n [String],
        exits: bool,
        ok: bool,
        depth: usize,
    }
    impl Changes<'_> {
        fn mentions(&self, ts: TokenStream) -> bool {
            let mut idents = Vec::new();
            idents_in(ts, &mut idents);
            idents.iter().any(|i| self.names.contains(i))
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Changes<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Assign(a) if self.mentions(a.left.to_token_stream()) => self.ok = false,
                // Counted anywhere but at the loop's top level (where `counted` skips it).
                Expr::Binary(b) if is_compound(&b.op) && self.mentions(b.left.to_token_stream()) => self.ok = false,
                Expr::Reference(r) if r.mutability.is_some() && self.mentions(r.expr.to_token_stream()) => self.ok = false,
                Expr::MethodCall(m) if self.mentions(m.receiver.to_token_stream()) => self.ok = false,
                Expr::Macro(m) if self.mentions(m.mac.tokens.clone()) => self.ok = false,
                Expr::Closure(c) if self.mentions(c.body.to_token_stream()) => self.ok = false,
                Expr::Return(_) | Expr::Try(_) if !self.exits => self.ok = false,
                Expr::Await(_) | Expr::Async(_) => self.ok = false,
                // A `break` or `continue` of this loop (unlabeled at its own depth, or labeled).
                Expr::Break(b) if !self.exits && (b.label.is_some() || self.depth == 0) => self.ok = false,
                Expr::Continue(c) if c.label.is_some() || self.depth == 0 => self.ok = false,
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if self.names.contains(&p.ident.to_string()) || (p.by_ref.is_some() && p.mutability.is_some()) {
                self.ok = false;
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
            if self.mentions(m.mac.tokens.clone()) {
                self.ok = false;
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut watched = Vec::new();
    if w.label.is_some() || !names(&w.cond, fixed, &mut watched) {
        return false;
    }
    // The counts: top-level `name += step;` or `name -= step;` (their steps' names watched too).
    let mut steps = Vec::new();
    let mut counted_names = Vec::new();
    let counts: Vec<bool> = w
        .body
        .stmts
        .iter()
        .map(|s| match s {
            Stmt::Expr(Expr::Binary(b), _)
                if matches!(b.op, syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_))
                    && step(&b.right, names_step, &mut steps) =>
            {
                match &*b.left {
                    Expr::Path(p) => match p.path.get_ident() {
                        Some(i) => {
                            counted_names.push(i.to_string());
                            true
                        }
                        None => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        })
        .collect();
    // A step's name is never counted itself (`i += i;`, `i += j; j -= 1;`).
    if steps.iter().any(|s| counted_names.contains(s)) {
        return false;
    }
    watched.extend(steps);
    let mut c = Changes { names: &watched, exits, ok: true, depth: 0 };
    for (s, count) in w.body.stmts.iter().zip(counts) {
        if !count {
            syn::visit::Visit::visit_stmt(&mut c, s);
        }
    }
    c.ok
}

/// Whether a `for` loop's iterable is a short literal sequence: an array literal of at most
/// [`SHORT_LOOP`] elements, or a range between integer literals of at most that many.
fn short_sequence(e: &Expr) -> bool {
    fn int(e: &Expr) -> Option<u128> {
        match e {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u128>().ok(),
            Expr::Paren(p) => int(&p.expr),
            _ => None,
        }
    }
    match e {
        Expr::Paren(p) => short_sequence(&p.expr),
        Expr::Array(a) => a.elems.len() as u128 <= SHORT_LOOP,
        Expr::Range(r) => {
            let start = r.start.as_deref().map_or(Some(0), int);
            let end = r.end.as_deref().and_then(int).map(|e| if matches!(r.limits, syn::RangeLimits::Closed(_)) { e + 1 } else { e });
            matches!((start, end), (Some(s), Some(e)) if e.saturating_sub(s) <= SHORT_LOOP)
        }
        _ => false,
    }
}

/// What the host expansion puts at the top of the kernel's body: the offer of the warp-wide form
/// and, when the offer is declined, the parameters bound again for the per-lane body.
pub struct Prologue {
    pub tokens: TokenStream,
    /// The calls of warp functions (`Support::calls`): in the per-lane body, each one learns for
    /// its call site whether the callee offers its form (`Call::learning`).
    pub calls: Vec<usize>,
}

/// The warp-wide prologue of `item`, or `None` when the kernel does not qualify. `points` are the
/// addresses of the body's suspension points; `support` is what [`supported`] found; `entry`:
/// the kernel is a GPU entry point (`#[warp_kernel(entry)]`).
pub fn prologue(item: &ItemFn, points: &HashSet<usize>, support: &Support, entry: bool) -> Option<Prologue> {
    if item.sig.receiver().is_some() || item.sig.asyncness.is_some() || item.sig.constness.is_some() {
        return None;
    }
    // `GlobalSlice` parameters not declared `mut`: their length is fixed (see `counted`).
    let fixed: HashSet<String> = item
        .sig
        .inputs
        .iter()
        .skip(1)
        .filter_map(|arg| match arg {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && global_slice(&pt.ty) => Some(p.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    // Not a name the body binds again (a shadow's `len` is another value's).
    let rebound = bound_names(&item.block);
    let fixed: HashSet<String> = fixed.into_iter().filter(|n| !rebound.contains(n)).collect();
    // Warp instructions and barriers: each checks the run's time limit (not calls: a callee may
    // return before its instructions).
    let warp_points: HashSet<usize> = points.iter().filter(|p| !support.accesses.contains(p) && !support.calls.contains(p)).copied().collect();
    if spins(&item.block, &support.accesses, &warp_points, &fixed) {
        return None;
    }
    let handle = &support.handle;
    // Loads and stores are lane code in the form.
    let points: HashSet<usize> = points.difference(&support.accesses).copied().collect();
    // A wrapper (one call and nothing else warp-wide) gets a form too, though per lane its lanes
    // reach the callee's offer in one step: its callers' forms, and a launch of it through its
    // entry type, run the callee's form through it without lane futures. An entry that is a
    // wrapper only probes (`wide::probe`): a direct start takes its form, and per lane nothing
    // waits at its top (an offer there made the histogram example's entry, whose callee has no
    // form, 30-40% slower).
    let probes = entry && support.calls.len() == 1 && points.len() == 1;
    let points = &points;
    let suspends = !support.barriers.is_empty();
    // A kernel with CTA barriers that calls warp functions keeps the per-lane form: a form that
    // suspends costs more to start than the per-lane steps around a few calls save (the example
    // `block_reduce`: 11% slower with one).
    if suspends && !support.calls.is_empty() {
        return None;
    }
    // Parameters after the handle: plain identifiers with nameable types.
    let mut names = Vec::new();
    let mut pats = Vec::new();
    let mut types = Vec::new();
    // The parameters' lint attributes (`#[allow(unused_mut)] mut x`), for the `let` that binds
    // them again for the per-lane body, where their lints fire (`expand::host` takes them off
    // the signature).
    let mut lint_attrs = Vec::new();
    for (i, arg) in item.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = arg else { return None };
        if i == 0 {
            continue;
        }
        let Pat::Ident(p) = &*pt.pat else { return None };
        if p.by_ref.is_some() || p.subpat.is_some() || mentions_impl(&pt.ty) {
            return None;
        }
        // A parameter under `cfg` may not be there: the form would name it (the kernel keeps
        // the per-lane form, where the compiler removes it from the signature and the body).
        if pt.attrs.iter().any(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")) {
            return None;
        }
        names.push(p.ident.clone());
        pats.push((*pt.pat).clone());
        types.push((*pt.ty).clone());
        lint_attrs.extend(pt.attrs.iter().filter(|a| is_lint_attr(a)).cloned());
    }
    let ret: Type = match &item.sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => {
            if mentions_impl(ty) {
                return None;
            }
            (**ty).clone()
        }
    };
    let unit = matches!(&ret, Type::Tuple(t) if t.elems.is_empty());
    // A `macro_rules!` defined in the body is not visible at its top, where the form is.
    if item.block.stmts.iter().any(|s| matches!(s, Stmt::Item(syn::Item::Macro(_)))) {
        return None;
    }
    // The per-lane body binds the parameters again at the top of the body, where the body's
    // items are in scope: one named like a parameter or a type of the signature would change
    // what that binding, or the form's types, mean (`items_name_the_signature`).
    if items_name_the_signature(&item.block, &item.sig) {
        return None;
    }
    // Names of two hygiene contexts (a `macro_rules!` macro's arguments and its body), which
    // the generator's strings would take for one.
    if mixed_names(item) {
        return None;
    }
    let krate = crate::krate::facade_at(Span::call_site());
    // Parameters of a primitive integer, `bool`, `char` or `GlobalSlice` type may be taken for
    // uniform (the offer then checks that every lane passed the same value, or slice).
    let candidates: HashSet<String> = names.iter().zip(&types).filter(|(_, t)| primitive(t) || global_slice(t)).map(|(n, _)| n.to_string()).collect();
    let mut tainted = HashSet::new();
    let mut uniform_params: HashSet<String> = HashSet::new();
    let mut escaped: HashSet<usize> = HashSet::new();
    let mut reasons = std::collections::HashMap::new();
    let changed = changed_names(&item.block);
    let (body, whole_warp) = loop {
        let mut g = Gen::new(points, &support.calls, &support.barriers, handle.clone(), krate.clone(), tainted.clone());
        g.stable_handles = !only_receiver(&item.block, handle);
        g.changed = changed.clone();
        g.candidates = candidates.iter().filter(|c| !tainted.contains(*c)).cloned().collect();
        g.uniform_params = uniform_params.iter().filter(|c| !tainted.contains(*c)).cloned().collect();
        g.escaped = escaped.clone();
        g.reasons = reasons.clone();
        g.fixed = fixed.clone();
        g.push_scope();
        let params = g.params(&names);
        for (n, t) in names.iter().zip(&types) {
            let n = n.to_string();
            if g.uniform_params.contains(&n) {
                if integer(t) {
                    g.copy_binds.extend(g.binding(&n));
                } else if fixed.contains(&n) {
                    g.slice_binds.extend(g.binding(&n));
                }
            }
        }
        let block = g.fn_block(&item.block, unit);
        reasons = core::mem::take(&mut g.reasons);
        // Names found changed by lane code are per-lane: generate again (a pass that gave up
        // may have given up because it took one of them for uniform).
        if g.tainted.len() > tainted.len() {
            tainted = g.tainted;
            continue;
        }
        // Stretch-local variables found read past their stretch, or lent: per-lane variables.
        if g.escapes.iter().any(|k| !escaped.contains(k)) {
            escaped.extend(g.escapes);
            continue;
        }
        if !g.ok {
            // A uniform loop or branch on a parameter: generate again, taking it for uniform.
            if g.wanted.is_subset(&uniform_params) {
                return None;
            }
            uniform_params.extend(g.wanted);
            tainted.retain(|t| !g.untaint.contains(t));
            continue;
        }
        // Votes' results that no uniform code reads, when none does: per-lane variables, and
        // the form needs no whole-warp handles (see `uniform_used`). When one is read, one value
        // for the warp costs the rest nothing more.
        let used = g.vote_lets.iter().any(|n| g.uniform_used.borrow().contains(n));
        let unused: Vec<String> = g.vote_lets.iter().filter(|n| !tainted.contains(*n)).cloned().collect();
        if !used && !unused.is_empty() {
            tainted.extend(unused);
            continue;
        }
        uniform_params = g.uniform_params;
        // A lane's code that keeps a reference to its handle (`let h = w;`, an argument, a
        // macro) gets one that lives as long as the form; one that only calls its methods gets
        // a handle made there (a direct run then makes none it does not use).
        let handles = if g.stable_handles { quote!(let __wk_hs = __wk.handles();) } else { quote!() };
        // Uniform code that queries the handle reads the first lane's (a stretch's loop binds
        // each lane's own over it).
        // (Used once here: the stretches bind their own over it, and where uniform code does
        // not read it after all, a crate that denies `unused_variables` must still compile.)
        let first = if g.handle_read.get() { quote!(let #handle = &__wk.first_handle(); let _ = #handle;) } else { quote!() };
        break (quote!(#handles #first #params #block), (g.whole_warp, g.same_shape.get(), g.const_lets, g.call_uniform, g.returns_early, g.call_tiles));
    };
    let (whole_warp, same_shape, const_lets, call_uniform, returns_early, call_tiles) = whole_warp;
    // Bit `i`: the `i`-th parameter after the handle is taken for uniform.
    let same_params = names.iter().enumerate().filter(|(_, n)| uniform_params.contains(&n.to_string())).fold(0u64, |bits, (i, _)| bits | 1 << i);
    let w = handle;
    let args = syn::Ident::new("__warpkit_args", Span::mixed_site());
    let out = syn::Ident::new("__warpkit_out", Span::mixed_site());
    let wide = syn::Ident::new("__warpkit_wide", Span::mixed_site());
    // The arguments as one value: the parameter itself when there is one (so that a direct run
    // takes `Executor::run_with`'s argument array as it is), else a tuple.
    let (args_value, args_type, args_pat) = if names.len() == 1 {
        let (n, t, p) = (&names[0], &types[0], &pats[0]);
        (quote!(#n), quote!(#t), quote!(#p))
    } else {
        (quote!((#(#names,)*)), quote!((#(#types,)*)), quote!((#(#pats,)*)))
    };
    // The check that every lane passed the same value for each parameter the form takes for
    // uniform: the offer is declined otherwise.
    let same_args = if uniform_params.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        // A primitive by `==`; a `GlobalSlice` by what it views (`SameProbe`: a type of that
        // name that is not warpkit's is never the same, and the form is declined).
        let same = |a: TokenStream, b: TokenStream, ty: &Type| {
            if global_slice(ty) {
                quote!({
                    use #krate::__private::wide::{SameNo as _, SameYes as _};
                    (&#krate::__private::wide::SameProbe(&#a, &#b)).__warpkit_same()
                })
            } else {
                quote!(#a == #b)
            }
        };
        let checks: Vec<TokenStream> = if names.len() == 1 {
            vec![same(quote!(*__wk_a), quote!(*__wk_b), &types[0])]
        } else {
            names
                .iter()
                .zip(&types)
                .enumerate()
                .filter(|(_, (n, _))| uniform_params.contains(&n.to_string()))
                .map(|(i, (_, ty))| {
                    let i = syn::Index::from(i);
                    same(quote!(__wk_a.#i), quote!(__wk_b.#i), ty)
                })
                .collect()
        };
        quote!(::core::option::Option::Some(|__wk_a: &#args_type, __wk_b: &#args_type| true #(&& #checks)*))
    };
    let name = &item.sig.ident;
    // Each constant a uniform `let` binds must be `Copy` (asked of its type, without making a
    // value: `type_of` does not call the closure; a `static mut` is read in `unsafe`).
    let copies = syn::Ident::new("__warpkit_copies", Span::mixed_site());
    let (copy_let, copy_consts) = if const_lets.is_empty() {
        (quote!(), quote!())
    } else {
        let w = quote!(#krate::__private::wide);
        // Each value's type in a `let` of its own, under the user's `let`'s lint attributes
        // (`#[allow(deprecated)] let g = OLD;`): the value's tokens are the user's, and linted.
        let value_types: Vec<_> = (0..const_lets.len()).map(|i| format_ident!("__wk_const_{}", i, span = Span::mixed_site())).collect();
        let (attrs, values): (Vec<_>, Vec<_>) = const_lets.iter().cloned().unzip();
        (
            quote! {
                let #copies = {
                    use #w::{CopyNo as _, CopyYes as _};
                    #( #(#attrs)* let #value_types = #w::type_of(|| unsafe { #values }); )*
                    true #(&& (&#value_types).__warpkit_is_copy())*
                };
            },
            quote!(&& #copies),
        )
    };
    // A kernel with CTA barriers: the form is a future, which suspends at each.
    let (form, offer) = if suspends {
        (
            quote! {
                let #wide: #krate::__private::wide::WideAsync<#args_type, #ret> = |__wk, __wk_args, __wk_outs| {
                    ::std::boxed::Box::pin(async move {
                        #body
                        ::core::result::Result::Ok(())
                    })
                };
            },
            quote!(offer_suspending),
        )
    } else {
        (
            quote! {
                let #wide: #krate::__private::wide::WideBody<#args_type, #ret> = |__wk, __wk_args, __wk_outs| {
                    #body
                    ::core::result::Result::Ok(())
                };
            },
            quote!(offer),
        )
    };
    let needs = quote!(#krate::__private::wide::Needs { whole_warp: #whole_warp, same_shape: #same_shape, same_params: #same_params, returns_early: #returns_early });
    // The offer, needing `needs` of the lanes: the kernel returns the form's result, or goes on
    // per lane with its arguments.
    let offer_with = |needs: TokenStream| {
        quote! {
            let __warpkit_kernel = ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name));
            match #krate::__private::wide::#offer(#w, #wide, #args, __warpkit_kernel, #needs, #same_args).await {
                ::core::result::Result::Ok(#out) => return #out,
                ::core::result::Result::Err(#args) => #args,
            }
        }
    };
    // The arguments' tuple reads every parameter, one named `_x` too: clippy's pedantic
    // `used_underscore_binding` there is not the user's (allowed on that `let`).
    let tokens = if support.calls.is_empty() {
        let offered = offer_with(needs);
        quote! {
            #[allow(clippy::used_underscore_binding)]
            let #args = #args_value;
            #copy_let
            #(#lint_attrs)*
            let #args_pat = if #krate::__private::wide::wanted(#w) #copy_consts {
                #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
                #form
                #offered
            } else {
                #args
            };
        }
    } else {
        // With calls: each call site's `static`, and the form's address, by which the per-lane
        // body's calls learn for this instantiation of the kernel (`wide::Calls`). The form is
        // offered once every call site learned that its callee offers one.
        let statics: Vec<syn::Ident> = (0..support.calls.len()).map(calls_static).collect();
        // A last call's site may run a callee whose lanes return early (`wide::Calls::new_last`).
        let last = last_call(&item.block, points);
        // A call that hands its callee a tile of the handle: `Calls::on_tiles`.
        let new_calls: Vec<TokenStream> = support
            .calls
            .iter()
            .zip(&call_tiles)
            .map(|(&c, &tile)| {
                let new = if last == Some(c) { quote!(new_last()) } else { quote!(new()) };
                if tile { quote!(#new.on_tiles()) } else { new }
            })
            .collect();
        let key = calls_key();
        let ready = syn::Ident::new("__warpkit_ready", Span::mixed_site());
        let probing = if probes { quote!(&& #krate::__private::wide::probing(#w)) } else { quote!() };
        // A probe hands the form to a direct start, which gives it whole-warp handles and checks
        // the arguments itself: what the callees need is not asked again.
        let ready_pat = if probes { quote!(_) } else { quote!(#ready) };
        let offered = if probes {
            // Returns `()`: an entry kernel returns nothing.
            quote! {
                let __warpkit_kernel = ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name));
                if #krate::__private::wide::probe(#w, #wide, __warpkit_kernel, #same_args) {
                    return;
                }
                #args
            }
        } else {
            offer_with(quote!(#needs.and(#ready)))
        };
        quote! {
            #(
                static #statics: #krate::__private::wide::Calls = #krate::__private::wide::Calls::#new_calls;
            )*
            #[allow(clippy::used_underscore_binding)]
            let #args = #args_value;
            #copy_let
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            #form
            let #key: *const () = #wide as *const ();
            #(#lint_attrs)*
            let #args_pat = match #krate::__private::wide::wanted(#w) #probing #copy_consts {
                true => match #krate::__private::wide::calls_ready(#key, &[#((&#statics, #call_uniform)),*]) {
                    ::core::option::Option::Some(#ready_pat) => {
                        #offered
                    }
                    ::core::option::Option::None => #args,
                },
                false => #args,
            };
        }
    };
    Some(Prologue { tokens, calls: support.calls.clone() })
}

/// Where a stretch of lane code ends (`Gen::flush_at`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// At a warp instruction or barrier of the kernel.
    Point,
    /// At a call of a warp function.
    Call,
    /// At a uniform `if`'s or loop's start or end.
    Construct,
    /// At the kernel's end.
    End,
}

/// The call after which `block` (a kernel's body) reaches no other point of `points` (warp
/// instructions, barriers, calls) and no atomic, if any, by its address: the last statement of
/// the body that holds a point is that call, as an expression statement, the body's value, or
/// the initializer of a `let` (outside any loop, and evaluated after its own arguments), and no
/// statement after it holds an atomic. After it the body runs only lane code whose order
/// against the callee's other lanes shows only where it races: a lane that returns from the
/// callee early runs it before they finish per lane, and after them warp-wide, and an atomic's
/// value would show that order.
fn last_call(block: &Block, points: &HashSet<usize>) -> Option<usize> {
    struct Holds<'p> {
        points: &'p HashSet<usize>,
        point: bool,
        atomic: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Holds<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            self.point |= self.points.contains(&(e as *const Expr as usize));
            self.atomic |= matches!(e, Expr::MethodCall(m) if crate::intrinsics::is_atomic(&m.method.to_string()));
            syn::visit::visit_expr(self, e);
        }
        // Nested items are their own code.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let holds = |s: &Stmt| {
        let mut h = Holds { points, point: false, atomic: false };
        syn::visit::Visit::visit_stmt(&mut h, s);
        (h.point, h.atomic)
    };
    let k = block.stmts.iter().rposition(|s| holds(s).0)?;
    if block.stmts[k + 1..].iter().any(|s| holds(s).1) {
        return None;
    }
    let e = match &block.stmts[k] {
        Stmt::Expr(e, _) => e,
        Stmt::Local(syn::Local { init: Some(syn::LocalInit { expr, diverge: None, .. }), .. }) => expr,
        _ => return None,
    };
    let at = e as *const Expr as usize;
    (matches!(e, Expr::Call(_)) && points.contains(&at)).then_some(at)
}

/// The names `block` assigns (`x = ..`, `x += ..`, `x[i] = ..`), borrows mutably (`&mut x`) or
/// calls a method on (which may take `&mut self`).
fn changed_names(block: &Block) -> HashSet<String> {
    struct Find(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_expr(&mut self, e: &'ast Expr) {
            // A destructuring assignment (`(a, b) = ..`, `[a, _] = ..`) changes every name in it.
            if let Expr::Assign(a) = e {
                if !matches!(&*a.left, Expr::Path(_) | Expr::Field(_) | Expr::Index(_) | Expr::Paren(_) | Expr::Unary(_)) {
                    let mut names = Vec::new();
                    idents_in(a.left.to_token_stream(), &mut names);
                    self.0.extend(names);
                }
            }
            let root = match e {
                Expr::Assign(a) => root_ident(&a.left),
                Expr::Binary(b) if is_compound(&b.op) => root_ident(&b.left),
                Expr::Reference(r) if r.mutability.is_some() => root_ident(&r.expr),
                Expr::MethodCall(m) => root_ident(&m.receiver),
                _ => None,
            };
            self.0.extend(root);
            syn::visit::visit_expr(self, e);
        }
    }
    let mut f = Find(HashSet::new());
    syn::visit::Visit::visit_block(&mut f, block);
    f.0
}

/// Whether `e` holds a `return` of the kernel (not of a closure in it).
fn has_return(e: &Expr) -> bool {
    finds(e, false, |x| matches!(x, Expr::Return(_)))
}

/// Whether `e` holds a closure or an `async` block: an anonymous type, a different one in each
/// copy of the code.
fn makes_a_type(e: &Expr) -> bool {
    finds(e, true, |x| matches!(x, Expr::Closure(_) | Expr::Async(_)))
}

/// Whether `e`, or an expression in it, is one `hit` accepts: not inside a nested item, and
/// inside closures and `async` blocks only when `into_closures`.
fn finds(e: &Expr, into_closures: bool, hit: impl Fn(&Expr) -> bool) -> bool {
    struct Find<H>(bool, bool, H);
    impl<'ast, H: Fn(&Expr) -> bool> syn::visit::Visit<'ast> for Find<H> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            self.0 |= (self.2)(e);
            if self.1 || !matches!(e, Expr::Closure(_) | Expr::Async(_)) {
                syn::visit::visit_expr(self, e);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Find(false, into_closures, hit);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// Whether `attr` sets a lint's level (`allow`, `expect`, `warn`, `deny`, `forbid`).
pub fn is_lint_attr(attr: &syn::Attribute) -> bool {
    ["allow", "expect", "warn", "deny", "forbid"].iter().any(|l| attr.path().is_ident(l))
}

/// The `static` of call site `index` (`wide::Calls`), declared at the top of the kernel's body.
pub fn calls_static(index: usize) -> syn::Ident {
    format_ident!("__WARPKIT_CALLS_{}", index)
}

/// The local holding the form's address, by which the per-lane body's calls learn for this
/// instantiation of the kernel.
pub fn calls_key() -> syn::Ident {
    syn::Ident::new("__warpkit_key", Span::mixed_site())
}

/// Whether a pattern binds something by reference: by `ref` or `ref mut` (`mutable`: by
/// `ref mut` only).
fn binds_ref(pat: &Pat, mutable: bool) -> bool {
    struct Find(bool, bool);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= p.by_ref.is_some() && (!self.1 || p.mutability.is_some());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut f = Find(false, mutable);
    syn::visit::Visit::visit_pat(&mut f, pat);
    f.0
}

/// Whether a type is a primitive integer's.
fn integer(ty: &Type) -> bool {
    const INTEGERS: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"];
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| INTEGERS.contains(&i.to_string().as_str())))
}

/// Whether a parameter's type is a primitive integer, `bool` or `char`: `Copy` and `Eq`, one
/// value per bit pattern (so equal values are the same value).
fn primitive(ty: &Type) -> bool {
    const PRIMITIVES: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "bool", "char"];
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| PRIMITIVES.contains(&i.to_string().as_str())))
}

/// Whether a type is warpkit's `GlobalSlice<'_, T>` (by its name, as `primitive` takes `u32`):
/// a parameter the form may take for uniform, compared by what it views (`wide::SameProbe`).
fn global_slice(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "GlobalSlice"))
}

/// Whether a type names an `impl Trait` (which a closure's signature cannot name), at any depth.
fn mentions_impl(ty: &Type) -> bool {
    fn any_impl(ts: TokenStream) -> bool {
        ts.into_iter().any(|t| match t {
            TokenTree::Ident(i) => i == "impl",
            TokenTree::Group(g) => any_impl(g.stream()),
            _ => false,
        })
    }
    any_impl(ty.to_token_stream())
}

/// How a name in scope is bound.
#[derive(Clone)]
enum Bind {
    /// A uniform scalar: the same in every lane.
    Uniform,
    /// A per-lane variable: the `Lanes` of this name.
    Wide(syn::Ident),
    /// A per-lane variable that lives in one stretch only: a plain local of the stretch's loop
    /// body, bound by the `let` (keyed by its pattern's address) in stretch `stretch`.
    Local { stretch: usize, key: usize },
}

struct Gen<'p> {
    points: &'p HashSet<usize>,
    /// The calls of warp functions (`Support::calls`), and for each, the arguments after the
    /// handle that the form passes for uniform (bit `i`: the `i`-th).
    calls: &'p [usize],
    call_uniform: Vec<u64>,
    /// For each call, whether it hands the callee a tile of the kernel's handle (`w.tile(8)`)
    /// rather than the handle itself (`wide::Calls::on_tiles`).
    call_tiles: Vec<bool>,
    /// The per-lane variables (by their `Lanes`' names) that hold a tile of the kernel's own
    /// handle (`let t = w.tile(8);`), which a call may hand its callee.
    tiles: HashSet<String>,
    /// The calls whose results the next stretch reads (each once per lane: taken).
    call_results: HashSet<usize>,
    /// Names the body assigns, borrows mutably or calls a method on (`changed_names`): a call's
    /// argument may borrow a per-lane variable only when it is none of these.
    changed: HashSet<String>,
    /// Whether a lane may return while the form goes on to a warp instruction or call (a
    /// `return` before a point, or in a loop that has one): the form is then exact only where
    /// returning is exiting, at the kernel's entry (`Needs::returns_early`).
    returns_early: bool,
    return_seen: bool,
    /// The pending stretch holds an atomic (`LaneRewrite`).
    stretch_atomic: bool,
    /// The pending stretch started right after a warp instruction or barrier of this kernel
    /// (not at the kernel's start, after a call, or at a uniform `if`'s or loop's edge).
    after_point: bool,
    loops: usize,

    /// The points that are CTA barriers: the form suspends at each.
    barriers: &'p HashSet<usize>,
    /// Whether the form keeps a vote's or reduction's result a scalar, which holds only when
    /// every lane's handle is the whole warp's.
    whole_warp: bool,
    /// Whether uniform code reads the kernel's handle: a query of its warp (`warp_index`,
    /// `ctaid`, ...), the same in every lane of the warp; or of its group's shape (`width`,
    /// `size`), the same when every lane's handle has that shape, which the offer then checks
    /// (`same_shape`). The form's top binds the handle's name to the first lane's.
    handle_read: core::cell::Cell<bool>,
    same_shape: core::cell::Cell<bool>,
    /// The values of uniform `let`s made of constants only (`let g = NAME;`): the form is
    /// offered only when each one's type is `Copy` (else each lane's copy, and its `Drop`, is
    /// not the same as one value for the warp), which the offer's prologue asks the compiler;
    /// with each `let`'s lint attributes, for the copy of its value there.
    const_lets: Vec<(Vec<syn::Attribute>, Expr)>,
    /// Parameters that may be taken for uniform (a primitive type, never changed by lane code),
    /// those taken for uniform in this pass, and those a uniform loop or branch read per lane.
    candidates: HashSet<String>,
    uniform_params: HashSet<String>,
    wanted: HashSet<String>,
    /// For each name that lane code assigned from parameters read per lane (`i += step;`), or
    /// that a per-lane `let` bound from them (`let mut i = start;`), those parameters (kept over
    /// passes): a loop or branch that then reads the name per lane wants them for uniform, and
    /// a name tainted by the assignment uniform again (`untaint`).
    reasons: std::collections::HashMap<String, Vec<String>>,
    /// Tainted names a loop or branch wanted uniform again, their reasons taken for uniform.
    untaint: HashSet<String>,
    /// The uniform names that uniform code read (a condition, an iterable, a uniform `let` or
    /// assignment, a call's argument, a shuffle's `b`), and the `let`s of votes' results: when
    /// only lane code reads them, they are made per-lane variables in the next pass (a value
    /// for the warp needs whole-warp handles, which the offer would then check for nothing).
    uniform_used: core::cell::RefCell<HashSet<String>>,
    vote_lets: Vec<String>,
    handle: syn::Ident,
    /// Whether lanes' code keeps references to its handle: each lane's then lives in an array
    /// as long as the form.
    stable_handles: bool,
    krate: TokenStream,
    scopes: Vec<Vec<(String, Bind)>>,
    next: usize,
    /// False once the body uses something the form does not support.
    ok: bool,
    /// Names that per-lane code changes: never uniform.
    tainted: HashSet<String>,
    /// The number of the current stretch (one more at each `flush_at`).
    stretch: usize,
    /// The `let`s (by their pattern's address) whose names must be per-lane variables, not
    /// stretch-local ones ([`Bind::Local`]): found used past their stretch, or lent, by an
    /// earlier pass; and those this pass finds so.
    escaped: HashSet<usize>,
    escapes: Vec<usize>,
    /// The current stretch: declarations before its loop, and the statements in it.
    hoisted: Vec<TokenStream>,
    pending: Vec<TokenStream>,
    /// The uniform-level code of the block being generated.
    out: Vec<TokenStream>,
    /// Hoisted instructions (by address) and the `Lanes` of their futures.
    temps: Vec<(usize, syn::Ident)>,
    /// The `Lanes` the current stretch reads by lane, and those it declares: when every lane is
    /// live, the others hold a value for every lane, which the stretch's dense loop checks once.
    used: Vec<String>,
    fresh_here: Vec<String>,
    /// The results that a `let` in this stretch names (see `local`): set in it, like
    /// `fresh_here`'s, but read by index with the stretch's other variables.
    renamed_here: Vec<String>,
    /// Uniform statements met in the middle of the current stretch, run after its loop (so
    /// that the lanes' code on either side stays one loop, in lane order), and the names they
    /// define or change, which the rest of the stretch must not read.
    deferred: Vec<TokenStream>,
    deferred_names: Vec<String>,
    /// The uniform names the current stretch's lane code read so far.
    uniform_reads: Vec<String>,
    /// Uniform bindings (scope, index in it) whose values are known to be primitive integers
    /// (integer parameters, ballots and reductions, `let`s of integer literals, casts to
    /// integers, arithmetic and integer methods of such): an assignment that may panic after
    /// lane code that read the name computes the new value in the first lane and stores it after
    /// the stretch (`uniform_statement_of`), and lane code calling an integer method on one does
    /// not change it.
    copy_binds: HashSet<(usize, usize)>,
    /// Uniform bindings of `GlobalSlice` parameters not declared `mut`: no method changes them
    /// (none of `GlobalSlice`'s takes `&mut self`, and a trait's would need a `mut` binding).
    slice_binds: HashSet<(usize, usize)>,
    /// `GlobalSlice` parameters not declared `mut` that the body never binds again (`prologue`).
    fixed: HashSet<String>,
    /// Where each identifier the form declares (`fresh`) resolves: its declaration's span, which
    /// each use takes for its hygiene (`ident_at`).
    decls: HashMap<String, Span>,
}

/// What [`Gen::order`] found so far in an expression.
struct Order<'e> {
    points: Vec<&'e Expr>,
    /// A variable was read before the next instruction (outside instructions' operands).
    reads: bool,
    /// Something other than a literal or a read was evaluated before the next instruction.
    dirty: bool,
    /// One of those reads was more than a bare name (a field, which may run a `Deref`, or a
    /// reference).
    read_places: bool,
    ok: bool,
}

impl Default for Order<'_> {
    fn default() -> Self {
        Order { points: Vec::new(), reads: false, dirty: false, read_places: false, ok: true }
    }
}

fn expr_attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::MethodCall(m) => &m.attrs,
        Expr::Call(c) => &c.attrs,
        Expr::Assign(a) => &a.attrs,
        Expr::Binary(b) => &b.attrs,
        Expr::ForLoop(f) => &f.attrs,
        Expr::While(w) => &w.attrs,
        Expr::If(i) => &i.attrs,
        Expr::Block(b) => &b.attrs,
        Expr::Macro(m) => &m.attrs,
        _ => &[],
    }
}

/// Where a fast instruction's operands are among its method's arguments: the value (`a`), and
/// the arguments that make its `b` operand (`b`, then `c` for `shfl`'s explicit form).
struct Operands {
    value: usize,
    b: Option<usize>,
    c: Option<usize>,
}

/// `(ts)`, spanned as `at`: an error about the value (a type a shuffle does not take) points at
/// the user's tokens, as in the per-lane form.
fn verbatim_at(ts: TokenStream, at: &Expr) -> Expr {
    use syn::spanned::Spanned;
    parenthesized(ts, at.span())
}

/// `(ts)`, the parentheses spanned as `span`.
fn parenthesized(ts: TokenStream, span: Span) -> Expr {
    let mut g = Group::new(Delimiter::Parenthesis, ts);
    g.set_span(span);
    Expr::Verbatim(TokenTree::Group(g).into())
}

/// [`verbatim_at`] for a place where the parentheses are not needed (a call's or method's
/// argument, an element, a field's value, an assigned value, an index): they are the macro's
/// there (in its context, at the user's place), so that a crate that denies `unused_parens`
/// does not see them as its own. (Not around an operand: an operation that spans the user's
/// tokens and the macro's is placed at the macro's call, and so would be a panic in it.)
fn verbatim_arg(ts: TokenStream, at: &Expr) -> Expr {
    use syn::spanned::Spanned;
    parenthesized(ts, Span::mixed_site().located_at(at.span()))
}

/// Lane `__wk_l`'s value of the per-lane variable `v`, moved out or copied when `Copy`
/// (`LaneArg`), in a block spanned as `span`. The traits' `use` is the macro's: one of the two
/// goes unused, which a crate that denies `unused_imports` must not see as its own code.
fn lane_value(krate: &TokenStream, v: &syn::Ident, span: Span) -> TokenStream {
    let traits = quote!(use #krate::__private::wide::{ArgCopy as _, ArgMove as _};);
    let l = form_ident("__wk_l", span);
    quote_spanned!(span=> { #traits #v.arg(#l).__warpkit_value() })
}

/// The form's own `__wk` or `__wk_l` (the run's context, the current lane), placed at `span`: in
/// the macro's call-site context, as `quote!` declares them. A use spanned as the user's tokens
/// would be in their context, which is another when the kernel is written inside a
/// `macro_rules!` macro (E0425).
fn form_ident(name: &str, span: Span) -> syn::Ident {
    syn::Ident::new(name, Span::call_site().located_at(span))
}

/// A call of `wide::site()` placed as the user's method call whose method name is spanned
/// `method` and whose parentheses `paren`: `#[track_caller]` then records the place that the
/// handle's method records in the per-lane form, the method's position; and where the method's
/// name and the parentheses come from different macro contexts (a `macro_rules!` macro's
/// argument and its body), the macro call's, as there.
fn site_call(method: Span, paren: Span) -> TokenStream {
    let at = crate::krate::facade_at(method);
    let mut args = Group::new(Delimiter::Parenthesis, TokenStream::new());
    args.set_span(paren);
    quote_spanned!(method=> #at::__private::wide::site #args)
}

/// Whether a name that `item` binds (a parameter, or a pattern's name in its body) is bound in
/// two hygiene contexts, or written anywhere in the body in a context none of its bindings has:
/// inside a `macro_rules!` macro, a name from its arguments and the same name written in its
/// body are two variables to Rust, one to the generator, which resolves names as strings (a
/// use would read the other variable, or a uniform one of the other's name would be captured
/// as the outer function's parameter). Such a kernel keeps the per-lane form. A token of that
/// name that is a field or a method counts too (a kernel then runs per lane that might not
/// need to). Outside the compiler, or where its format is not known, nothing is mixed.
fn mixed_names(item: &ItemFn) -> bool {
    struct Binds(HashMap<String, HashSet<String>>);
    impl<'ast> syn::visit::Visit<'ast> for Binds {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if let Some(ctx) = crate::ast::context(p.ident.span()) {
                self.0.entry(p.ident.to_string()).or_default().insert(ctx);
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut binds = Binds(HashMap::new());
    for input in &item.sig.inputs {
        syn::visit::Visit::visit_fn_arg(&mut binds, input);
    }
    syn::visit::Visit::visit_block(&mut binds, &item.block);
    if binds.0.values().any(|c| c.len() > 1) {
        return true;
    }
    fn uses(ts: TokenStream, binds: &HashMap<String, HashSet<String>>) -> bool {
        ts.into_iter().any(|t| match t {
            TokenTree::Group(g) => uses(g.stream(), binds),
            TokenTree::Ident(i) => binds.get(&i.to_string()).is_some_and(|c| crate::ast::context(i.span()).is_some_and(|ctx| !c.contains(&ctx))),
            _ => false,
        })
    }
    uses(item.block.to_token_stream(), &binds.0)
}

/// A read of a variable, a field of one or a constant: nothing that runs code.
fn simple_read(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Field(f) => simple_read(&f.base),
        Expr::Paren(p) => simple_read(&p.expr),
        Expr::Reference(r) => r.mutability.is_none() && simple_read(&r.expr),
        _ => false,
    }
}

/// Whether evaluating `e` may change a variable: an assignment, a `&mut`, or code that runs,
/// other than a load or the length of one of `fixed` (`GlobalSlice` parameters that the body
/// never binds again: a method of a non-`mut` binding, called on it by name, cannot assign a
/// local; what else it may change is for `Gen::order` to weigh).
fn mutating(e: &Expr, fixed: &HashSet<String>) -> bool {
    struct M<'f>(bool, &'f HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for M<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Assign(_) | Expr::Macro(_) | Expr::Call(_) | Expr::Closure(_) | Expr::Block(_) | Expr::Unsafe(_) => self.0 = true,
                Expr::MethodCall(m) if m.turbofish.is_none() && matches!(m.method.to_string().as_str(), "load" | "len" | "is_empty") && name_of(&m.receiver).is_some_and(|n| self.1.contains(&n)) => {}
                Expr::MethodCall(_) => self.0 = true,
                Expr::Binary(b) if is_compound(&b.op) => self.0 = true,
                Expr::Reference(r) if r.mutability.is_some() => self.0 = true,
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut m = M(false, fixed);
    syn::visit::Visit::visit_expr(&mut m, e);
    m.0
}

impl<'p> Gen<'p> {
    fn new(points: &'p HashSet<usize>, calls: &'p [usize], barriers: &'p HashSet<usize>, handle: syn::Ident, krate: TokenStream, tainted: HashSet<String>) -> Gen<'p> {
        Gen { points, calls, call_uniform: vec![0; calls.len()], call_tiles: vec![false; calls.len()], tiles: HashSet::new(), call_results: HashSet::new(), changed: HashSet::new(), returns_early: false, return_seen: false, stretch_atomic: false, after_point: false, loops: 0, barriers, whole_warp: false, handle_read: Default::default(), same_shape: Default::default(), const_lets: Vec::new(), candidates: HashSet::new(), uniform_params: HashSet::new(), wanted: HashSet::new(), handle, stable_handles: true, krate, scopes: Vec::new(), next: 0, ok: true, tainted, stretch: 0, escaped: HashSet::new(), escapes: Vec::new(), hoisted: Vec::new(), pending: Vec::new(), out: Vec::new(), temps: Vec::new(), used: Vec::new(), fresh_here: Vec::new(), renamed_here: Vec::new(), deferred: Vec::new(), deferred_names: Vec::new(), uniform_reads: Vec::new(), copy_binds: HashSet::new(), slice_binds: HashSet::new(), reasons: Default::default(), untaint: HashSet::new(), uniform_used: Default::default(), vote_lets: Vec::new(), fixed: HashSet::new(), decls: HashMap::new() }
    }

    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }
    fn pop_scope(&mut self) {
        self.scopes.pop();
        let depth = self.scopes.len();
        self.copy_binds.retain(|&(s, _)| s < depth);
        self.slice_binds.retain(|&(s, _)| s < depth);
    }
    /// The innermost binding of `name`: its scope and its index there.
    fn binding(&self, name: &str) -> Option<(usize, usize)> {
        self.scopes.iter().enumerate().rev().find_map(|(i, s)| s.iter().rposition(|(n, _)| n == name).map(|j| (i, j)))
    }
    /// Whether `name`'s innermost binding is uniform and known to be an integer.
    fn copy_name(&self, name: &str) -> bool {
        matches!(self.resolve(name), Some(Bind::Uniform)) && self.binding(name).is_some_and(|b| self.copy_binds.contains(&b))
    }
    /// Whether `name`'s innermost binding is a uniform `GlobalSlice` parameter no code changes.
    fn slice_name(&self, name: &str) -> bool {
        matches!(self.resolve(name), Some(Bind::Uniform)) && self.binding(name).is_some_and(|b| self.slice_binds.contains(&b))
    }
    fn bind(&mut self, name: &str, b: Bind) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), b));
        }
    }
    fn resolve(&self, name: &str) -> Option<&Bind> {
        self.scopes.iter().rev().find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, b)| b))
    }
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.fresh_at(what, Span::call_site())
    }
    /// [`fresh`](Self::fresh), declared at `span`: a user's variable's is its name's, so that its
    /// uses resolve in the context of the user's tokens.
    fn fresh_at(&mut self, what: &str, span: Span) -> syn::Ident {
        self.next += 1;
        let v = format_ident!("__wk_{}_{}", self.next, what.trim_start_matches("r#"), span = span);
        self.decls.insert(v.to_string(), span);
        v
    }
    /// A use of the form's identifier `name` at `span` (the user's token, for a user's
    /// variable), resolved as its declaration: the same context, whether the user's tokens come
    /// from a `macro_rules!` macro's arguments or not (E0425 otherwise), and the place of the
    /// use, so that errors and panics point at it. (The generator resolves the user's names as
    /// strings: a kernel whose names of one string come from two contexts has no form,
    /// `mixed_names`.)
    fn ident_at(&self, name: &str, span: Span) -> syn::Ident {
        syn::Ident::new(name, span.resolved_at(self.decls.get(name).copied().unwrap_or_else(Span::call_site)))
    }
    /// The form's identifier `name` as declared (its declaration's span).
    fn decl_ident(&self, name: &str) -> syn::Ident {
        syn::Ident::new(name, self.decls.get(name).copied().unwrap_or_else(Span::call_site))
    }
    fn is_point(&self, e: &Expr) -> bool {
        self.points.contains(&(e as *const Expr as usize))
    }
    /// Whether `e` holds a suspension point anywhere.
    fn has_point(&self, e: &Expr) -> bool {
        struct Find<'a, 'p>(&'a Gen<'p>, bool);
        impl<'ast> syn::visit::Visit<'ast> for Find<'_, '_> {
            fn visit_expr(&mut self, e: &'ast Expr) {
                if self.0.is_point(e) {
                    self.1 = true;
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut f = Find(self, false);
        syn::visit::Visit::visit_expr(&mut f, e);
        f.1
    }
    /// Each lane's arguments into per-lane variables.
    fn params(&mut self, names: &[syn::Ident]) -> TokenStream {
        let vars: Vec<syn::Ident> = names.iter().map(|n| self.fresh_at(&n.to_string(), n.span())).collect();
        // A parameter taken for uniform is one value (every lane passed it: the offer checked),
        // read from the first live lane.
        let mut uniform = Vec::new();
        for (n, v) in names.iter().zip(&vars) {
            if self.uniform_params.contains(&n.to_string()) {
                self.bind(&n.to_string(), Bind::Uniform);
                // `mut`: the kernel may count it down at the uniform level (`n -= 1`).
                uniform.push(quote! {
                    let mut #n = match __wk.uniform(&#v) {
                        ::core::option::Option::Some(__wk_v) => __wk_v,
                        ::core::option::Option::None => return ::core::result::Result::Ok(()),
                    };
                });
            } else {
                self.bind(&n.to_string(), Bind::Wide(v.clone()));
            }
        }
        let lanes = self.lanes_ty();
        if let [var] = &vars[..] {
            // One parameter: the lanes' arguments are its values.
            return quote! {
                let #var = __wk_args;
                #(#uniform)*
            };
        }
        let locals: Vec<syn::Ident> = names.iter().map(|n| format_ident!("__wk_a_{}", n.to_string().trim_start_matches("r#"))).collect();
        let unpack = if locals.len() == 1 { let l = &locals[0]; quote!(#l) } else { quote!((#(#locals,)*)) };
        quote! {
            #(let mut #vars = #lanes::new();)*
            __wk.unpack(__wk_args, |__wk_l, #unpack| {
                #(#vars.set(__wk_l, #locals);)*
            });
            #(#uniform)*
        }
    }

    /// A loop's or branch's condition `e` is not uniform: the parameters it reads per lane that
    /// could be taken for uniform are wanted so.
    fn want_uniform(&mut self, e: &Expr) {
        let mut names = Vec::new();
        idents_in(e.to_token_stream(), &mut names);
        for n in &names {
            // A name per lane because its `let`, or lane code that assigned it, read parameters
            // per lane: with those taken for uniform, the `let` or the assignment is uniform too.
            if let Some(params) = self.reasons.get(n).filter(|_| matches!(self.resolve(n), Some(Bind::Wide(_)))) {
                self.wanted.extend(params.iter().cloned());
                if self.tainted.contains(n) {
                    self.untaint.insert(n.clone());
                }
            }
        }
        names.retain(|n| self.candidate_per_lane(n));
        self.wanted.extend(names);
    }

    /// A parameter that could be taken for uniform, read per lane in this pass.
    fn candidate_per_lane(&self, name: &str) -> bool {
        self.candidates.contains(name) && matches!(self.resolve(name), Some(Bind::Wide(_)))
    }

    /// `name` is per lane because `e` (its `let`'s value, or an assignment's right side in lane
    /// code) reads parameters per lane: notes them, for `want_uniform`.
    fn note_reasons(&mut self, name: String, e: &Expr) {
        let mut reads = Vec::new();
        idents_in(e.to_token_stream(), &mut reads);
        reads.retain(|n| self.candidate_per_lane(n));
        if !reads.is_empty() {
            self.reasons.entry(name).or_default().extend(reads);
        }
    }

    /// Whether `e` names a uniform `GlobalSlice` parameter that no code changes (`slice_name`).
    fn slice_receiver(&self, e: &Expr) -> bool {
        name_of(unparen(e)).is_some_and(|n| self.slice_name(&n))
    }

    fn lanes_ty(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::__private::wide::Lanes)
    }

    /// Ends the current stretch: its loop over the live lanes.
    /// Emits the pending stretch, which ends at `edge`.
    ///
    /// Per lane, each lane runs its code from one warp instruction to the next before the next
    /// lane does; warp-wide, each stretch is a loop over the lanes, and a call, the kernel's
    /// start and end, and a uniform `if`'s or loop's edges cut the code between two
    /// instructions into several loops. An atomic's value shows the lanes' order, so a stretch
    /// with an atomic must be the only one between two instructions: one that starts after an
    /// instruction or barrier and ends at one. One that ends at the kernel's end is exact where
    /// returning is exiting (behind last calls, or at a run's entry), like an early return
    /// (`Needs::returns_early`).
    fn flush_at(&mut self, edge: Edge) {
        self.stretch += 1;
        if core::mem::take(&mut self.stretch_atomic) {
            match (self.after_point, edge) {
                (true, Edge::Point) => {}
                (true, Edge::End) => self.returns_early = true,
                _ => self.ok = false,
            }
        }
        self.after_point = edge == Edge::Point;
        let hoisted = core::mem::take(&mut self.hoisted);
        let pending = core::mem::take(&mut self.pending);
        let mut used = core::mem::take(&mut self.used);
        let fresh = core::mem::take(&mut self.fresh_here);
        self.renamed_here.clear();
        let deferred = core::mem::take(&mut self.deferred);
        self.deferred_names.clear();
        self.uniform_reads.clear();
        self.out.extend(hoisted);
        if pending.is_empty() {
            self.out.extend(deferred);
            return;
        }
        used.sort();
        used.dedup();
        used.retain(|u| !fresh.contains(u));
        let full: Vec<syn::Ident> = used.iter().map(|u| self.decl_ident(u)).collect();
        let w = &self.handle;
        let handle_of = if self.stable_handles { quote!(&__wk_hs[__wk_l as usize]) } else { quote!(&__wk.handle(__wk_l)) };
        // The lane's handle, under the kernel's name for it, where the stretch names it (and
        // used once: the stretch may bind the name again). An unused variable would be an error
        // in a crate that denies `unused_variables`, which the form's `allow(warnings)` does not
        // override.
        let mut names = Vec::new();
        pending.iter().for_each(|ts| idents_in(ts.clone(), &mut names));
        let bind_handle = if names.iter().any(|n| *w == n) { quote!(let #w = #handle_of; let _ = #w;) } else { quote!() };

        // When every lane is live and runs in ascending order, the stretch is a plain loop over
        // 0..32 in which the per-lane variables it reads were set for every lane (checked once
        // here, so that each read's check folds away); otherwise, the live lanes in order. Each
        // lane is the current one while it runs: a function its code calls may access memory
        // (the race detector names the lane), and a panic is its own.
        self.out.push(quote! {
            if __wk.dense() {
                #(#full.assert_full();)*
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    #bind_handle
                    #(#pending)*
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    #bind_handle
                    #(#pending)*
                }
            }
        });
        self.out.extend(deferred);
    }

    /// A uniform statement at this point (`let #pat = #value;` when `pat` is given, else the
    /// expression statement `value;`): at once when no lane code of the stretch precedes it.
    /// Otherwise, when it cannot panic, after the stretch's loop; when it can, in the stretch's
    /// loop, once, in the first lane that gets to it (as in the per-lane executor, where that lane
    /// runs it first: a panic is that lane's, before the later lanes run anything; a `let`'s
    /// names are bound after the loop). The rest of the stretch must not read what it defines
    /// or changes (each lane would see its own copy), and an assignment that can panic must not
    /// change a name the stretch read before it (the later lanes would read the new value): the
    /// kernel then gets no form.
    fn uniform_statement(&mut self, name: &str, pat: Option<&Pat>, value: TokenStream, may_panic: bool) {
        self.uniform_statement_of(name, pat, value, may_panic, false)
    }

    /// [`uniform_statement`](Self::uniform_statement) of a `let` whose value, when `hoistable`,
    /// is a literal or a handle query (or a cast of one): it may run before the stretch's loop.
    fn uniform_statement_of(&mut self, name: &str, pat: Option<&Pat>, value: TokenStream, may_panic: bool, hoistable: bool) {
        if self.pending.is_empty() {
            self.out.extend(core::mem::take(&mut self.hoisted));
            let tokens = match pat {
                Some(pat) => quote!(let #pat = #value;),
                None => quote!(#value;),
            };
            self.out.push(quote!(__wk.enter_first(); #tokens));
            return;
        }
        let mut reads = Vec::new();
        idents_in(value.clone(), &mut reads);
        if let (Some(pat), false, true) = (pat, may_panic, hoistable) {
            // A `let` of a literal or a query of the handle (or a cast of one) runs no user code
            // and cannot panic (a name's value may be moved, or be a constant of a type with a
            // `Drop`: not hoisted). When nothing of the stretch so far names what it binds (lane
            // code, or the uniform statements run in or after the loop: a read, an assignment, a
            // function of that name) nor changes what it reads, it runs before the stretch's
            // loop, which may then read it.
            let mut named = Vec::new();
            for t in self.pending.iter().chain(&self.deferred) {
                idents_in(t.clone(), &mut named);
            }
            let clear = !self.uniform_reads.iter().any(|r| r == name)
                && !self.deferred_names.iter().any(|r| r == name)
                && !named.iter().any(|r| r == name)
                && !reads.iter().any(|r| self.deferred_names.contains(r));
            if clear {
                self.hoisted.push(quote!(let #pat = #value;));
                return;
            }
        }
        if !may_panic {
            let tokens = match pat {
                Some(pat) => quote!(let #pat = #value;),
                None => quote!(#value;),
            };
            self.deferred.push(quote!(__wk.enter_first(); #tokens));
            self.deferred_names.push(name.to_string());
            return;
        }
        if pat.is_none() && self.uniform_reads.iter().any(|r| r == name) && self.copy_name(name) && !reads.iter().any(|r| self.deferred_names.contains(r)) {
            // An assignment that may panic, after lane code that read the name (`base += lanes;`
            // after a lane's `return (base + k, ..)`): the first lane that gets to it computes
            // the new value (a panic is that lane's, before the later lanes run anything, as
            // per lane), which the name takes after the stretch's loop (the later lanes read the
            // value they would have read per lane). The rest of the stretch must not read it.
            let once = self.fresh("once");
            // The name as the assignment writes it (its first token): the user's, in their
            // context, which a `macro_rules!` macro's argument may give (not the macro's).
            let ident = value.clone().into_iter().find_map(|t| match t {
                TokenTree::Ident(i) if i == name => Some(i),
                _ => None,
            });
            let Some(ident) = ident else {
                self.ok = false;
                return;
            };
            self.hoisted.push(quote!(let mut #once = ::core::option::Option::None;));
            self.pending.push(quote!(if #once.is_none() { #once = ::core::option::Option::Some({ let mut #ident = #ident; #value; #ident }); }));
            self.deferred.push(quote!(if let ::core::option::Option::Some(__wk_v) = #once { #ident = __wk_v; }));
            self.deferred_names.push(name.to_string());
            return;
        }
        // Run before the statements deferred past the loop, it must not read what they change.
        if (pat.is_none() && self.uniform_reads.iter().any(|r| r == name)) || reads.iter().any(|r| self.deferred_names.contains(r)) {
            self.ok = false;
            return;
        }
        let once = self.fresh("once");
        match pat {
            Some(pat) => {
                self.hoisted.push(quote!(let mut #once = ::core::option::Option::None;));
                self.pending.push(quote!(if #once.is_none() { #once = ::core::option::Option::Some(#value); }));
                // No lane got to it: every lane that ran the stretch returned in it, and the
                // form has nothing left to run.
                self.deferred.push(quote! {
                    let #pat = match #once {
                        ::core::option::Option::Some(__wk_v) => __wk_v,
                        ::core::option::Option::None => return ::core::result::Result::Ok(()),
                    };
                });
            }
            None => {
                self.hoisted.push(quote!(let mut #once = false;));
                self.pending.push(quote!(if !#once { #once = true; #value; }));
            }
        }
        self.deferred_names.push(name.to_string());
    }

    /// The lane returns `value`: its per-lane variables are dropped then, latest first, as its
    /// locals are when it returns in the per-lane form (a guard it holds is released before
    /// the next lane runs).
    fn ret(&self, value: TokenStream) -> TokenStream {
        let vars: Vec<&syn::Ident> = self.scopes.iter().flatten().filter_map(|(_, b)| match b {
            Bind::Wide(v) => Some(v),
            // A stretch-local variable is an instruction's result (nothing to drop).
            Bind::Uniform | Bind::Local { .. } => None,
        }).rev().collect();
        quote!({ let __wk_r = #value; #(#vars.drop_lane(__wk_l);)* __wk.ret(__wk_outs, __wk_l, __wk_r); })
    }

    /// `e`, when it is a per-lane variable's name, as the lane's value moved out of its `Lanes`
    /// (copied when its type is `Copy`: `LaneArg`), as Rust moves a variable that is a `let`'s
    /// value or the value returned; `v[__wk_l]` there would move out of an index (E0507) for a
    /// `String`.
    fn moved_value(&mut self, e: &Expr) -> Option<TokenStream> {
        let v = self.wide_var(e)?;
        self.used.push(v.to_string());
        Some(lane_value(&self.krate, &v, Span::call_site()))
    }

    /// A `Lanes` declared for the current stretch (set lane by lane in it).
    fn declare(&mut self, v: &syn::Ident) {
        self.fresh_here.push(v.to_string());
    }

    /// The function's body: its statements, then each lane's result.
    fn fn_block(&mut self, block: &Block, unit: bool) -> TokenStream {
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            if last {
                if let Stmt::Expr(e, None) = stmt {
                    self.tail(e);
                    continue;
                }
            }
            self.stmt(stmt);
        }
        if unit && !matches!(block.stmts.last(), Some(Stmt::Expr(_, None))) {
            let ret = self.ret(quote!(()));
            self.pending.push(ret);
        }
        self.flush_at(Edge::End);
        let out = core::mem::take(&mut self.out);
        quote!(#(#out)*)
    }

    /// A uniform-level block (of a uniform `if`, `for` or `while`): its code, in a scope.
    fn nested_block(&mut self, block: &Block) -> TokenStream {
        self.flush_at(Edge::Construct);
        let saved = core::mem::take(&mut self.out);
        self.push_scope();
        for stmt in &block.stmts {
            if let Stmt::Item(_) = stmt {
                self.ok = false;
            }
            self.stmt(stmt);
        }
        self.flush_at(Edge::Construct);
        self.pop_scope();
        let out = core::mem::replace(&mut self.out, saved);
        quote!({ #(#out)* })
    }

    /// The body's last expression: each lane's result.
    fn tail(&mut self, e: &Expr) {
        if let Some(moved) = self.moved_value(e) {
            let ret = self.ret(moved);
            self.pending.push(ret);
            return;
        }
        let Some(e) = self.hoist(e) else { return };
        let ret = self.ret(e);
        self.pending.push(ret);
    }

    /// Issues, in every lane and in order, the warp instructions of `e`, each ending a stretch
    /// and settled; returns `e` as lane code reading their results. `None` (and the form is given
    /// up) when they cannot be issued ahead of the rest of `e` without changing what it does.
    fn hoist(&mut self, e: &Expr) -> Option<TokenStream> {
        if !self.has_point(e) {
            return Some(self.lane_expr(e));
        }
        let mut order = Order::default();
        self.order(e, &mut order);
        if !order.ok {
            self.ok = false;
            return None;
        }
        for pt in order.points {
            if let Expr::Call(c) = pt {
                self.issue_call(pt, c);
                if !self.ok {
                    return None;
                }
                continue;
            }
            let Expr::MethodCall(m) = pt else {
                self.ok = false;
                return None;
            };
            self.point(pt);
            if let Some((instr, ops)) = self.fast_instruction(m) {
                self.issue_fast(pt, m, instr, ops);
                continue;
            }
            let mut call = m.clone();
            *call.receiver = verbatim_at(self.emit(&m.receiver), &m.receiver);
            for (new, old) in call.args.iter_mut().zip(m.args.iter()) {
                *new = verbatim_arg(self.emit(old), old);
            }
            let t = self.fresh("issued");
            let lanes = self.lanes_ty();
            self.hoisted.push(quote!(let mut #t = #lanes::new();));
            self.declare(&t);
            // The call itself, in the lane's stretch (its parts already lane code).
            let call = call.to_token_stream();
            self.pending.push(quote!(#t.set(__wk_l, #call);));
            self.flush_at(Edge::Point);
            if self.barriers.contains(&(pt as *const Expr as usize)) {
                // The warp waits at the barrier in its block's scheduler, as its lanes would.
                self.out.push(quote!(__wk.barrier()?.await; __wk.resumed();));
            } else {
                self.out.push(quote!(__wk.settle()?;));
            }
            // Each lane reads its result first thing in the next stretch, as it does when it
            // resumes (the next instruction overwrites the result registers), through the
            // instruction's `Future` bound, spanned at the value argument as the per-lane form's
            // `.await`: a value type the instruction does not take is an error at those tokens.
            let span = {
                use syn::spanned::Spanned;
                crate::intrinsics::value_arg(&m.method.to_string()).and_then(|i| m.args.iter().nth(i)).map_or(m.method.span(), |a| a.span())
            };
            let r = self.fresh_at("result", span);
            let krate = self.krate.clone();
            let t_at = self.ident_at(&t.to_string(), span);
            let l = form_ident("__wk_l", span);
            self.hoisted.push(quote_spanned!(span=> let mut #r = #lanes::new();));
            self.declare(&r);
            let read = quote_spanned!(span=> #krate::__private::wide::result(#t_at.take(#l)));
            self.pending.push(quote!(#r.set(__wk_l, #read);));
            self.temps.push((pt as *const Expr as usize, r));
        }
        Some(self.emit(e))
    }

    /// The point `pt` (an instruction, a barrier or a call) is issued: after a `return`, or with
    /// one in its operands, a lane may have returned while others go on to it.
    fn point(&mut self, pt: &Expr) {
        self.returns_early |= self.return_seen || has_return(pt);
    }

    /// A lane code's `return`.
    fn returns(&mut self) {
        self.return_seen = true;
        self.returns_early |= self.loops > 0;
    }

    /// Calls the warp function of `pt` (the call `c`, `f(w, ..)`) through the form's context
    /// (`WideCtx::call`): each lane evaluates the arguments after the handle at the end of its
    /// stretch, in order, as the per-lane form does before it calls; then the callee's form runs
    /// for the warp, and the next stretch reads each lane's result.
    fn issue_call(&mut self, pt: &Expr, c: &syn::ExprCall) {
        use syn::spanned::Spanned;
        let at = pt as *const Expr as usize;
        let Some(index) = self.calls.iter().position(|&a| a == at) else {
            self.ok = false;
            return;
        };
        self.point(pt);
        // The handle as the kernel received it (not a local of that name).
        if self.resolve(&self.handle.to_string()).is_some() {
            self.ok = false;
            return;
        }
        let lanes = self.lanes_ty();
        let k = self.krate.clone();
        let w = quote!(#k::__private::wide);
        let (args, callee, site, r) = (self.fresh("args"), self.fresh("callee"), self.fresh("site"), self.fresh("returned"));
        let span = c.func.span();
        let rest: Vec<&Expr> = c.args.iter().skip(1).collect();
        // A tile of the handle (`f(&t, ..)` with `let t = w.tile(8);`, or `f(&w.tile(8), ..)`):
        // each lane hands the callee its tile, and the callee's form runs on those handles
        // (`wide::Calls::on_tiles` says what the caller's offer must then promise).
        let first = &c.args[0];
        let tile = match tile_arg(first, &self.handle) {
            None => false,
            Some(TileArg::Derived) => true,
            Some(TileArg::Name(n)) => {
                let held = matches!(self.resolve(&n.to_string()), Some(Bind::Wide(v)) if self.tiles.contains(&v.to_string()));
                // The tile once (a second is a callee with two handles, which has no form).
                let mut names = Vec::new();
                rest.iter().for_each(|a| idents_in(a.to_token_stream(), &mut names));
                if !held || names.iter().any(|m| n == m) {
                    self.ok = false;
                    return;
                }
                true
            }
        };
        self.call_tiles[index] = tile;
        // A closure (or `async` block) written in an argument is a type of its own in the form,
        // so the callee there is another instantiation than the one its call site learned of
        // in the per-lane body: not a call the form makes.
        if rest.iter().any(|a| makes_a_type(a)) {
            self.ok = false;
            return;
        }
        // The lanes' arguments are kept together until the call: one that borrows a per-lane
        // variable borrows its `Lanes`, which must then not change meanwhile (it is not set in
        // this stretch, nor changed anywhere); a mutable borrow of one would be 32 at once.
        if rest.iter().any(|a| self.borrows_changing(a)) {
            self.ok = false;
            return;
        }
        self.call_uniform[index] = rest.iter().enumerate().filter(|(_, a)| self.uniform(a)).fold(0, |bits, (i, _)| bits | 1 << i);
        let pack = format_ident!("pack{}", rest.len());
        let func = verbatim_at(self.emit(&c.func), &c.func);
        // A per-lane variable passed whole is moved into the call when its type is not `Copy`
        // (`LaneArg`); any other argument is lane code as written.
        let values: Vec<Expr> = rest
            .iter()
            .map(|a| match unparen(a) {
                Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => match self.resolve(&p.path.segments[0].ident.to_string()) {
                    Some(Bind::Wide(v)) => {
                        let v = self.ident_at(&v.to_string(), p.path.segments[0].ident.span());
                        self.used.push(v.to_string());
                        verbatim_arg(lane_value(&self.krate, &v, Span::call_site()), a)
                    }
                    _ => verbatim_arg(self.emit(a), a),
                },
                _ => verbatim_arg(self.emit(a), a),
            })
            .collect();
        // Spanned as the per-lane form's call (`WarpCall::into_future`): the call's site.
        let at_call = crate::krate::facade_at(span);
        self.hoisted.push(quote!(let mut #args = #lanes::new();));
        self.hoisted.push(quote!(let mut #callee = #w::TypeOf::new();));
        self.hoisted.push(quote_spanned!(span=> let #site = #at_call::__private::wide::site();));
        self.declare(&args);
        let handles = if tile {
            let hs = self.fresh("tiles");
            let value = verbatim_arg(self.emit(first), first);
            self.hoisted.push(quote!(let mut #hs = #lanes::new();));
            self.declare(&hs);
            self.pending.push(quote!(#hs.set(__wk_l, #w::tile_handle(#value));));
            quote!(::core::option::Option::Some(&#hs))
        } else {
            quote!(::core::option::Option::None)
        };
        self.pending.push(quote!(#args.set(__wk_l, #w::#pack(&#func, &mut #callee #(, #values)*));));
        self.flush_at(Edge::Call);
        let calls = calls_static(index);
        self.out.push(quote!(let mut #r = #lanes::new();));
        // The arguments are the callee's now (it took each lane's): what they borrowed of the
        // caller's variables is free again, as after the per-lane form's call.
        self.out.push(quote! {
            {
                use #w::{CallsForm as _, CallsNothing as _};
                (&#callee).__warpkit_call_in(__wk, &#calls, #site, #handles, &mut #args, &mut #r)?;
            }
            ::core::mem::drop(#args);
        });
        self.call_results.insert(at);
        self.temps.push((at, r));
    }

    /// Whether `e` borrows mutably, or borrows a per-lane variable that this stretch sets or
    /// that the body changes.
    fn borrows_changing(&self, e: &Expr) -> bool {
        struct Find<'g, 'p>(&'g Gen<'p>, bool);
        impl<'ast> syn::visit::Visit<'ast> for Find<'_, '_> {
            fn visit_expr(&mut self, e: &'ast Expr) {
                if let Expr::Reference(r) = e {
                    let mut names = Vec::new();
                    idents_in(r.expr.to_token_stream(), &mut names);
                    let changing = names.iter().any(|n| match self.0.resolve(n) {
                        Some(Bind::Wide(v)) => {
                            let v = v.to_string();
                            self.0.fresh_here.contains(&v) || self.0.renamed_here.contains(&v) || self.0.changed.contains(n)
                        }
                        _ => false,
                    });
                    self.1 |= r.mutability.is_some() || changing;
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut f = Find(self, false);
        syn::visit::Visit::visit_expr(&mut f, e);
        f.1
    }

    /// Whether `m` is `w.sync_threads()` on the kernel's own handle.
    fn own_sync_threads(&self, m: &syn::ExprMethodCall) -> bool {
        self.on_own_handle(m) && m.method == "sync_threads" && m.args.is_empty() && m.attrs.is_empty()
    }

    /// Whether `m` is a method of the kernel's own handle (not shadowed), without turbofish: one
    /// the form may issue itself.
    fn on_own_handle(&self, m: &syn::ExprMethodCall) -> bool {
        matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident(&self.handle))
            && self.resolve(&self.handle.to_string()).is_none()
            && m.turbofish.is_none()
    }

    /// Whether `e` is a vote or reduction on the kernel's own handle whose operand holds no other
    /// instruction: its result is the same in every lane of a whole warp.
    fn uniform_result(&self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = e else { return false };
        let uniform = matches!(
            m.method.to_string().as_str(),
            "all" | "any" | "uni" | "ballot" | "redux_add" | "redux_min" | "redux_max" | "redux_and" | "redux_or" | "redux_xor"
        );
        uniform && self.is_point(e) && self.fast_instruction(m).is_some() && !m.args.iter().any(|a| self.has_point(a))
    }

    /// The instruction descriptor (`warp_runtime::wide::WideInstr`) of a call the form issues
    /// itself, and where its operands are among the call's arguments: a shuffle, vote, match or
    /// reduction on the kernel's own handle (whose methods post exactly what the descriptor
    /// computes).
    fn fast_instruction(&self, m: &syn::ExprMethodCall) -> Option<(TokenStream, Operands)> {
        if !self.on_own_handle(m) {
            return None;
        }
        let k = &self.krate;
        let w = quote!(#k::__private::wide);
        let (one, with_b) = (Operands { value: 0, b: None, c: None }, Operands { value: 0, b: Some(1), c: None });
        let found = match (m.method.to_string().as_str(), m.args.len()) {
            ("shfl_up", 2) => (quote!(#w::ShflOwn(#k::ShflMode::Up)), with_b),
            ("shfl_down", 2) => (quote!(#w::ShflOwn(#k::ShflMode::Down)), with_b),
            ("shfl_xor", 2) => (quote!(#w::ShflOwn(#k::ShflMode::Bfly)), with_b),
            ("shfl_idx", 2) => (quote!(#w::ShflOwn(#k::ShflMode::Idx)), with_b),
            ("shfl_up_pred", 2) => (quote!(#w::ShflOwnPred(#k::ShflMode::Up)), with_b),
            ("shfl_down_pred", 2) => (quote!(#w::ShflOwnPred(#k::ShflMode::Down)), with_b),
            ("shfl_xor_pred", 2) => (quote!(#w::ShflOwnPred(#k::ShflMode::Bfly)), with_b),
            ("shfl_idx_pred", 2) => (quote!(#w::ShflOwnPred(#k::ShflMode::Idx)), with_b),
            // The mode is read before the stretch: only a constant's path (`ShflMode::Down`).
            ("shfl", 4) if self.constant_path(&m.args[0]) => {
                let mode = &m.args[0];
                (quote!(#w::Shfl(#mode)), Operands { value: 1, b: Some(2), c: Some(3) })
            }
            ("match_any", 1) => (quote!(#w::Match::<false>), one),
            ("match_all", 1) => (quote!(#w::Match::<true>), one),
            ("ballot", 1) => (quote!(#w::Ballot), one),
            ("all", 1) => (quote!(#w::VoteBool(#k::VoteMode::All)), one),
            ("any", 1) => (quote!(#w::VoteBool(#k::VoteMode::Any)), one),
            ("uni", 1) => (quote!(#w::VoteBool(#k::VoteMode::Uni)), one),
            ("redux_add", 1) => (quote!(#w::ReduxAdd), one),
            ("redux_min", 1) => (quote!(#w::ReduxMinMaxOf(false)), one),
            ("redux_max", 1) => (quote!(#w::ReduxMinMaxOf(true)), one),
            ("redux_and", 1) => (quote!(#w::ReduxBitwise(#k::ReduxOp::And)), one),
            ("redux_or", 1) => (quote!(#w::ReduxBitwise(#k::ReduxOp::Or)), one),
            ("redux_xor", 1) => (quote!(#w::ReduxBitwise(#k::ReduxOp::Xor)), one),
            _ => return None,
        };
        Some(found)
    }

    /// Whether `e` is the path of a constant or an enum variant (`ShflMode::Down`, or a name
    /// that no local binding shadows, written with a capital): reading it runs nothing.
    fn constant_path(&self, e: &Expr) -> bool {
        let Expr::Path(p) = unparen(e) else { return false };
        if p.qself.is_some() || !p.attrs.is_empty() {
            return false;
        }
        let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let capital = last.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        match p.path.get_ident() {
            Some(name) => capital && self.resolve(&name.to_string()).is_none(),
            None => capital,
        }
    }

    /// Issues `pt` (the call `m`) through the form's own completion (`WideCtx::issue`): each lane
    /// evaluates the operands at the end of its stretch, then the warp's results at once.
    fn issue_fast(&mut self, pt: &Expr, m: &syn::ExprMethodCall, instr: TokenStream, ops: Operands) {
        use syn::spanned::Spanned;
        let lanes = self.lanes_ty();
        let k = self.krate.clone();
        let w = quote!(#k::__private::wide);
        let (i, site, a, b) = (self.fresh("instr"), self.fresh("site"), self.fresh("a"), self.fresh("b"));
        let method = m.method.span();
        let value_arg = &m.args[ops.value];
        let value = value_arg.span();
        let r = self.fresh_at("result", value);
        let a_at = self.ident_at(&a.to_string(), value);
        // The arguments that make the `b` operand (`b`, and `c` when there is one).
        let b_args: Vec<&Expr> = ops.b.iter().chain(&ops.c).map(|&i| &m.args[i]).collect();
        let with_b = !b_args.is_empty();
        // A `b` that is a literal or a uniform name is read once, after the stretch (reading it
        // cannot panic or change anything, and no lane changes it).
        let b_uniform = with_b && b_args.iter().all(|e| plain_uniform(self, e));
        // An operand that is a per-lane variable is copied after the stretch, as a whole (no
        // lane code runs in the copy, so it needs no loop that enters each lane): the stretch's
        // lanes do not change each other's values, so after it the variable holds what each
        // lane's copy at its end would. (Handing the variable itself to `issue` would let its
        // address escape, and each later read of it in a stretch would check its lane again.)
        // (Not when a per-lane `b`, lane code evaluated after the operand, names the variable:
        // it may change it after the operand's value was taken.)
        let mut b_word = None;
        let in_place = match unparen(value_arg) {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let name = p.path.segments[0].ident.to_string();
                let mut in_b = Vec::new();
                if !b_uniform {
                    b_args.iter().for_each(|e| idents_in(e.to_token_stream(), &mut in_b));
                }
                match self.resolve(&name) {
                    Some(Bind::Wide(v)) if !in_b.contains(&name) => Some(v.clone()),
                    _ => None,
                }
            }
            _ => None,
        };
        let operands_at = match &in_place {
            Some(v) => self.ident_at(&v.to_string(), value),
            None => a_at.clone(),
        };
        self.hoisted.push(quote!(let #i = #instr;));
        if in_place.is_none() {
            self.hoisted.push(quote!(let mut #a = #lanes::new();));
        }
        if with_b && !b_uniform {
            self.hoisted.push(quote!(let mut #b: #lanes<u32> = #lanes::new();));
        }
        let at_method = site_call(method, m.paren_token.span.join());
        self.hoisted.push(quote_spanned!(method=> let #site = #at_method;));
        let wk = form_ident("__wk", value);
        self.hoisted.push(quote_spanned!(value=> #wk.expect(&#i, #site, &#operands_at);));
        self.declare(&a);
        self.declare(&b);
        if in_place.is_none() {
            let v = verbatim_arg(self.emit(value_arg), value_arg);
            self.pending.push(quote!(#a.set(__wk_l, #v);));
        }
        // A per-lane `b` whose parts are each a uniform value or a per-lane variable's name,
        // after the value operand: each lane's word is computed after the stretch, at once
        // (`WideCtx::b_word`), not in it.
        let after_value = ops.b.iter().chain(&ops.c).all(|&i| i > ops.value);
        let b_split = if with_b && !b_uniform && after_value { self.b_parts(&b_args) } else { None };
        let mut after = None;
        if let Some(parts) = &b_split {
            let bw = self.fresh("bword");
            let (b0, c0) = match &parts[..] {
                [b] => (b, quote!(::core::option::Option::None)),
                [b, c] => (b, quote!(::core::option::Option::Some(#c))),
                _ => unreachable!("an instruction's `b` operand is one or two arguments"),
            };
            after = Some(quote!(let #bw = __wk.b_word(#b0, #c0, &mut #b);));
            b_word = Some(bw);
        } else if with_b {
            let parts: Vec<Expr> = b_args.iter().map(|e| verbatim_arg(self.emit(e), e)).collect();
            // `b` and `c` as one word, which the instruction's descriptor unpacks.
            let bv = match &parts[..] {
                [b] => quote!(#b),
                [b, c] => quote!(#w::shfl_bc(#b, #c)),
                _ => unreachable!("an instruction's `b` operand is one or two arguments"),
            };
            if b_uniform {
                after = Some(quote!(let #b: u32 = #bv;));
            } else {
                self.pending.push(quote!(#b.set(__wk_l, #bv);));
            }
        }
        self.flush_at(Edge::Point);
        // A per-lane variable's values are the operand as they are (the instruction only reads
        // them, and nothing before it changes them): no copy.
        let a_at = if in_place.is_some() { operands_at.clone() } else { a_at };
        self.out.extend(after);
        let b_arg = match (with_b, b_uniform) {
            _ if b_word.is_some() => quote!(#b_word),
            (false, _) => quote!(#w::B::None),
            (true, true) => quote!(#w::B::Uniform(#b)),
            (true, false) => quote!(#w::B::Lanes(&#b)),
        };
        let wk = form_ident("__wk", value);
        self.out.push(quote_spanned!(value=> let mut #r = #lanes::new();));
        self.out.push(quote_spanned!(value=> #wk.issue(&#i, #site, &#a_at, #b_arg, &mut #r)?;));
        self.temps.push((pt as *const Expr as usize, r));
    }

    /// The parts of a shuffle's per-lane `b` operand as `wide::Operand`s, when each is a uniform
    /// value or a per-lane variable's name (see `issue_fast`).
    fn b_parts(&mut self, args: &[&Expr]) -> Option<Vec<TokenStream>> {
        let k = self.krate.clone();
        let mut parts = Vec::new();
        for e in args {
            if plain_uniform(self, e) {
                let v = verbatim_arg(self.emit(e), e);
                parts.push(quote!(#k::__private::wide::Operand::Uniform(#v)));
                continue;
            }
            let v = self.wide_var(e)?;
            parts.push(quote!(#v.operand()));
        }
        Some(parts)
    }

    /// The `Lanes` of the per-lane variable that `e` names, when `e` is its name alone (spanned
    /// as that name).
    fn wide_var(&self, e: &Expr) -> Option<syn::Ident> {
        let Expr::Path(p) = unparen(e) else { return None };
        if p.qself.is_some() || !p.attrs.is_empty() {
            return None;
        }
        let name = p.path.get_ident()?;
        match self.resolve(&name.to_string()) {
            Some(Bind::Wide(v)) => Some(self.ident_at(&v.to_string(), name.span())),
            _ => None,
        }
    }

    /// `e` as lane code, its hoisted instructions replaced by their results.
    fn emit(&mut self, e: &Expr) -> TokenStream {
        let at = e as *const Expr as usize;
        if let Some((_, t)) = self.temps.iter().find(|(a, _)| *a == at) {
            // Spanned as the instruction: a type error in using its result points at it.
            use syn::spanned::Spanned;
            let span = e.span();
            self.used.push(t.to_string());
            let t = self.ident_at(&t.to_string(), span);
            if self.call_results.contains(&at) {
                // Moved out, or copied when `Copy` (no bit to clear: `LaneArg`).
                return lane_value(&self.krate, &t, span);
            }
            let l = form_ident("__wk_l", span);
            return quote_spanned!(span=> #t[#l]);
        }
        if !self.has_point(e) {
            return self.lane_expr(e);
        }
        // The node itself runs in the lane (its parts are rewritten below): a uniform name it
        // changes is not uniform after all.
        match e {
            Expr::Assign(a) => {
                self.taint_root(&a.left);
                let mut names = Vec::new();
                idents_in(a.left.to_token_stream(), &mut names);
                for n in names {
                    if matches!(self.resolve(&n), Some(Bind::Uniform)) {
                        self.tainted.insert(n);
                    }
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => self.taint_root(&b.left),
            Expr::MethodCall(m) => self.taint_root(&m.receiver),
            Expr::Reference(r) if r.mutability.is_some() => self.taint_root(&r.expr),
            _ => {}
        }
        if let Expr::Assign(a) = e {
            if let Some(v) = self.wide_var(&a.left) {
                let right = verbatim_arg(self.emit(&a.right), &a.right);
                return assign_whole(&self.krate, &v, right.to_token_stream());
            }
        }
        let mut c = e.clone();
        match (e, &mut c) {
            (Expr::Paren(o), Expr::Paren(n)) => *n.expr = verbatim_arg(self.emit(&o.expr), &o.expr),
            (Expr::Group(o), Expr::Group(n)) => *n.expr = verbatim_arg(self.emit(&o.expr), &o.expr),
            (Expr::Unary(o), Expr::Unary(n)) => *n.expr = verbatim_at(self.emit(&o.expr), &o.expr),
            (Expr::Cast(o), Expr::Cast(n)) => *n.expr = verbatim_at(self.emit(&o.expr), &o.expr),
            (Expr::Reference(o), Expr::Reference(n)) => *n.expr = verbatim_at(self.emit(&o.expr), &o.expr),
            (Expr::Field(o), Expr::Field(n)) => *n.base = verbatim_at(self.emit(&o.base), &o.base),
            (Expr::Binary(o), Expr::Binary(n)) if is_compound(&o.op) => {
                // The right side of `x op= ..` as it is: no parentheses are needed there (an
                // assignment binds loosest), and the user's would be unneeded to `unused_parens`;
                // the macro's would place the operation, and a panic in it, at the macro's call.
                *n.left = verbatim_at(self.emit(&o.left), &o.left);
                *n.right = Expr::Verbatim(self.emit(&o.right));
            }
            (Expr::Binary(o), Expr::Binary(n)) => {
                *n.left = verbatim_at(self.emit(&o.left), &o.left);
                *n.right = verbatim_at(self.emit(&o.right), &o.right);
            }
            (Expr::Assign(o), Expr::Assign(n)) => {
                *n.left = verbatim_at(self.emit(&o.left), &o.left);
                *n.right = verbatim_arg(self.emit(&o.right), &o.right);
            }
            (Expr::Index(o), Expr::Index(n)) => {
                *n.expr = verbatim_at(self.emit(&o.expr), &o.expr);
                *n.index = verbatim_arg(self.emit(&o.index), &o.index);
            }
            (Expr::Array(o), Expr::Array(n)) => {
                for (n, o) in n.elems.iter_mut().zip(o.elems.iter()) {
                    *n = verbatim_arg(self.emit(o), o);
                }
            }
            (Expr::Tuple(o), Expr::Tuple(n)) => {
                for (n, o) in n.elems.iter_mut().zip(o.elems.iter()) {
                    *n = verbatim_arg(self.emit(o), o);
                }
            }
            (Expr::Call(o), Expr::Call(n)) => {
                *n.func = verbatim_at(self.emit(&o.func), &o.func);
                for (n, o) in n.args.iter_mut().zip(o.args.iter()) {
                    *n = verbatim_arg(self.emit(o), o);
                }
            }
            (Expr::MethodCall(o), Expr::MethodCall(n)) => {
                *n.receiver = verbatim_at(self.emit(&o.receiver), &o.receiver);
                for (n, o) in n.args.iter_mut().zip(o.args.iter()) {
                    *n = verbatim_arg(self.emit(o), o);
                }
            }
            (Expr::Struct(o), Expr::Struct(n)) => {
                for (n, o) in n.fields.iter_mut().zip(o.fields.iter()) {
                    n.colon_token.get_or_insert_with(Default::default);
                    n.expr = verbatim_arg(self.emit(&o.expr), &o.expr);
                }
            }
            _ => self.ok = false,
        }
        // The parts were rewritten for the lane already; what is left is the node itself.
        c.to_token_stream()
    }

    /// A uniform name that lane code changes (assigned, `&mut`, a method's receiver).
    fn taint_root(&mut self, e: &Expr) {
        if let Some(name) = root_ident(e) {
            if matches!(self.resolve(&name), Some(Bind::Uniform)) {
                self.tainted.insert(name);
            }
        }
    }

    /// The warp instructions of `e` in the order a lane issues them, checking that issuing each
    /// ahead of the parts of `e` evaluated before it changes nothing: those parts are literals,
    /// or reads of variables that the instruction's operands do not change.
    fn order<'e>(&self, e: &'e Expr, o: &mut Order<'e>) {
        if !o.ok {
            return;
        }
        if self.is_point(e) {
            let operands: Vec<&Expr> = match e {
                Expr::MethodCall(m) => core::iter::once(&*m.receiver).chain(m.args.iter()).collect(),
                // A warp function's arguments (its path is not evaluated).
                Expr::Call(c) => c.args.iter().collect(),
                _ => {
                    o.ok = false;
                    return;
                }
            };
            // A load or length of a `GlobalSlice` parameter in the operands (`mutating`'s
            // `fixed`) may run ahead of earlier reads only when those are bare names: the value
            // of a local changes by assignment, and no method changes one through `&self` or by
            // value; a field may be a `Deref`'s code, which a method by value (a trait's `load`,
            // which method resolution picks before the inherent one) may affect, and a type of
            // that name need not be warpkit's.
            let none = HashSet::new();
            let fixed = if o.read_places { &none } else { &self.fixed };
            if o.dirty || (o.reads && operands.iter().any(|a| mutating(a, fixed))) {
                o.ok = false;
                return;
            }
            // The operands run in the instruction's own stretch, in order.
            let (dirty, reads, read_places) = (o.dirty, o.reads, o.read_places);
            for a in operands {
                self.order(a, o);
            }
            (o.dirty, o.reads, o.read_places) = (dirty, reads, read_places);
            o.points.push(e);
            return;
        }
        if !self.has_point(e) {
            match e {
                Expr::Lit(_) => {}
                _ if simple_read(e) => {
                    o.reads = true;
                    o.read_places |= name_of(e).is_none();
                }
                _ => o.dirty = true,
            }
            return;
        }
        match e {
            Expr::Paren(p) => self.order(&p.expr, o),
            Expr::Group(g) => self.order(&g.expr, o),
            Expr::Unary(u) => self.order(&u.expr, o),
            Expr::Cast(c) => self.order(&c.expr, o),
            Expr::Reference(r) => self.order(&r.expr, o),
            Expr::Field(f) => self.order(&f.base, o),
            Expr::Binary(b) if !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                if is_compound(&b.op) {
                    // `place op= value`: the place must be a plain one, read after the value.
                    if self.has_point(&b.left) || !simple_read(&b.left) {
                        o.ok = false;
                    }
                    self.order(&b.right, o);
                    o.dirty = true;
                } else {
                    self.order(&b.left, o);
                    self.order(&b.right, o);
                }
            }
            // The assigned value is evaluated first, then the place, then the assignment, which
            // changes what is read after it.
            Expr::Assign(a) => {
                if self.has_point(&a.left) || !simple_read(&a.left) {
                    o.ok = false;
                }
                self.order(&a.right, o);
                o.dirty = true;
            }
            Expr::Index(i) => {
                self.order(&i.expr, o);
                self.order(&i.index, o);
            }
            Expr::Array(a) => a.elems.iter().for_each(|e| self.order(e, o)),
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.order(e, o)),
            // The call runs after its arguments, before what follows it.
            Expr::Call(c) => {
                self.order(&c.func, o);
                c.args.iter().for_each(|e| self.order(e, o));
                o.dirty = true;
            }
            Expr::MethodCall(m) => {
                self.order(&m.receiver, o);
                m.args.iter().for_each(|e| self.order(e, o));
                o.dirty = true;
            }
            Expr::Struct(s) if s.rest.is_none() => s.fields.iter().for_each(|f| self.order(&f.expr, o)),
            _ => o.ok = false,
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        if !self.ok {
            return;
        }
        // A statement that `#[cfg]` may remove is not one the form can reorder around.
        let attrs: &[syn::Attribute] = match stmt {
            Stmt::Local(l) => &l.attrs,
            Stmt::Macro(m) => &m.attrs,
            Stmt::Expr(e, _) => expr_attrs(e),
            Stmt::Item(_) => &[],
        };
        if attrs.iter().any(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")) {
            self.ok = false;
            return;
        }
        match stmt {
            Stmt::Item(_) => {} // visible from the form, which is in the same body
            Stmt::Macro(m) => {
                let tokens = self.lane_macro_tokens(&m.mac);
                let mut m = m.clone();
                m.mac.tokens = tokens;
                self.pending.push(m.to_token_stream());
            }
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(e, semi) => self.expr_stmt(e, semi.is_some()),
        }
    }

    fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            self.ok = false;
            return;
        };
        if init.diverge.is_some() {
            self.ok = false;
            return;
        }
        if self.has_point(&init.expr) {
            if let Some(name) = plain_ident(&local.pat).filter(|n| !self.tainted.contains(n)) {
                if self.uniform_result(&init.expr) {
                    // `let v = w.all(p);`: the same value in every lane, kept a scalar (a branch
                    // on it is uniform). It holds for the whole warp's handle only: the form is
                    // then offered for whole-warp handles alone.
                    if self.hoist(&init.expr).is_some() {
                        let at = &*init.expr as *const Expr as usize;
                        let Some((_, r)) = self.temps.iter().find(|(a, _)| *a == at).cloned() else {
                            self.ok = false;
                            return;
                        };
                        let pat = &local.pat;
                        self.out.push(quote! {
                            let #pat = match __wk.uniform(&#r) {
                                ::core::option::Option::Some(__wk_v) => __wk_v,
                                // Every lane has returned.
                                ::core::option::Option::None => return ::core::result::Result::Ok(()),
                            };
                        });
                        self.bind(&name, Bind::Uniform);
                        // A ballot's or an integer reduction's result (`all`, `any` and `uni`
                        // give a `bool`, `redux_min` and `redux_max` may give an `f32`).
                        if let Expr::MethodCall(m) = &*init.expr {
                            if matches!(m.method.to_string().as_str(), "ballot" | "redux_add" | "redux_and" | "redux_or" | "redux_xor") {
                                self.copy_binds.extend(self.binding(&name));
                            }
                        }
                        self.vote_lets.push(name.clone());
                        self.whole_warp = true;
                    }
                    return;
                }
            }
            if let Some(e) = self.hoist(&init.expr) {
                // An instruction's result (a `Copy` value: nothing to drop) that the code reads
                // in this stretch only is a local of the stretch's loop body.
                let at = unparen(&init.expr) as *const Expr as usize;
                let key = &local.pat as *const Pat as usize;
                let temp = self.temps.iter().find(|(a, _)| *a == at).map(|(_, r)| r.clone());
                let instruction = temp.is_some() && !self.call_results.contains(&at);
                if instruction && !self.escaped.contains(&key) {
                    self.lane_local_let(&local.pat, e, key);
                } else if let (Some(name), Some(r)) = (bare_ident(&local.pat), temp) {
                    // `let v = f(w, ..);` or `let v = w.shfl(..);` read past this stretch: `v`
                    // is the result's own per-lane variable (each lane's value stays where the
                    // call or the instruction left it, not copied into another). Set in this
                    // stretch, as the copy was: a call's borrow of it here is of a changing
                    // variable (`borrows_changing`).
                    self.renamed_here.push(r.to_string());
                    self.bind(&name, Bind::Wide(r));
                } else {
                    self.per_lane_let(&local.pat, e);
                }
            }
            return;
        }
        // A uniform `let`: a plain identifier, a uniform value, never changed per lane.
        if let Some(name) = plain_ident(&local.pat) {
            // (Not one named as the handle: the stretches' loops bind that name to each lane's
            // handle, over it.)
            if !self.tainted.contains(&name) && self.handle != name && self.uniform(&init.expr) {
                let e = &init.expr;
                let pat = &local.pat;
                if self.constants_only(e) == Some(true) {
                    let lints = local.attrs.iter().filter(|a| is_lint_attr(a)).cloned().collect();
                    self.const_lets.push((lints, (**e).clone()));
                }
                let may_panic = !plain_uniform(self, e);
                let hoistable = !may_panic && !names_a_value(e);
                let copy = self.copy_known(e);
                self.uniform_statement_of(&name, Some(pat), quote!(#e), may_panic, hoistable);
                self.bind(&name, Bind::Uniform);
                if copy {
                    self.copy_binds.extend(self.binding(&name));
                }
                return;
            }
        }
        // A per-lane borrow or closure kept in a `Lanes` would borrow every lane's variable
        // (or the stretch's lane index) at once: not a form this generator makes.
        let mut inner = &*init.expr;
        while let Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        if matches!(inner, Expr::Reference(_)) || makes_a_type(inner) {
            self.ok = false;
            return;
        }
        // A `let` per lane because it reads parameters per lane (`let mut i = start;`): a loop
        // or branch that reads it wants them for uniform.
        if let Some(name) = plain_ident(&local.pat) {
            self.note_reasons(name, &init.expr);
        }
        let e = match self.moved_value(&init.expr) {
            Some(moved) => moved,
            None => self.lane_expr(&init.expr),
        };
        self.per_lane_let(&local.pat, e);
        // `let t = w.tile(8);` on the kernel's own handle: a tile a call may hand its callee.
        if let Some(name) = plain_ident(&local.pat) {
            if tile_of_own(inner, &self.handle) && self.resolve(&self.handle.to_string()).is_none() {
                if let Some(Bind::Wide(v)) = self.resolve(&name) {
                    self.tiles.insert(v.to_string());
                }
            }
        }
    }

    /// `let pat = value;` in each lane, `pat`'s names becoming locals of the stretch's loop body
    /// ([`Bind::Local`]).
    fn lane_local_let(&mut self, pat: &Pat, value: TokenStream, key: usize) {
        let mut names = Vec::new();
        if !pattern_names(pat, &mut names) {
            self.ok = false;
            return;
        }
        self.pending.push(quote!(let #pat = #value;));
        for n in names {
            self.bind(&n.to_string(), Bind::Local { stretch: self.stretch, key });
        }
    }

    /// `let pat = value;` in each lane, `pat`'s names becoming per-lane variables.
    fn per_lane_let(&mut self, pat: &Pat, value: TokenStream) {
        let mut names = Vec::new();
        if !pattern_names(pat, &mut names) {
            self.ok = false;
            return;
        }
        let lanes = self.lanes_ty();
        let vars: Vec<syn::Ident> = names.iter().map(|n| self.fresh_at(&n.to_string(), n.span())).collect();
        for v in &vars {
            self.hoisted.push(quote!(let mut #v = #lanes::new();));
            self.declare(v);
        }
        let mut plain = pat.clone();
        strip_mut(&mut plain);
        self.pending.push(quote!({ let #plain = #value; #(#vars.set(__wk_l, #names);)* }));
        for (n, v) in names.iter().zip(vars) {
            self.bind(&n.to_string(), Bind::Wide(v));
        }
    }

    fn expr_stmt(&mut self, e: &Expr, semi: bool) {
        if !self.has_point(e) {
            // A uniform assignment stays a scalar one, at the uniform level.
            if let Some((name, rhs)) = assignment(e) {
                if matches!(self.resolve(&name), Some(Bind::Uniform)) && self.uniform(rhs) && !self.deferred_names.contains(&name) {
                    let may_panic = assignment_may_panic(self, e);
                    self.uniform_statement(&name, None, quote!(#e), may_panic);
                    return;
                }
                if matches!(self.resolve(&name), Some(Bind::Uniform)) {
                    // Lane code changes it (tainted): note the parameters read per lane that
                    // made it so.
                    self.note_reasons(name, rhs);
                }
            }
            let e2 = self.lane_expr(e);
            self.pending.push(quote!(#e2;));
            return;
        }
        match e {
            Expr::ForLoop(f) if f.attrs.is_empty() && !self.has_point(&f.expr) => {
                // `for _ in ..` binds nothing.
                let name = if matches!(&*f.pat, Pat::Wild(_)) { Some(String::new()) } else { plain_ident(&f.pat) };
                // (A loop variable named as the handle would sit under the stretches' handle.)
                let Some(name) = name.filter(|n| !self.tainted.contains(n) && self.handle != n) else {
                    self.ok = false;
                    return;
                };
                if !self.uniform_iter(&f.expr) {
                    self.want_uniform(&f.expr);
                    self.ok = false;
                    return;
                }
                self.flush_at(Edge::Construct);
                self.push_scope();
                if !name.is_empty() {
                    self.bind(&name, Bind::Uniform);
                }
                self.loops += 1;
                let body = self.nested_block(&f.body);
                self.loops -= 1;
                self.pop_scope();
                let (label, pat, iter) = (&f.label, &f.pat, &f.expr);
                // Every lane returned: no lane runs the loop any more.
                // The iterable (and a `while`'s or `if`'s condition) is uniform code: a panic in it
                // is the first live lane's, as for a uniform statement.
                self.out.push(quote!(#label for #pat in { __wk.enter_first(); #iter } { if __wk.done() { return ::core::result::Result::Ok(()); } #body }));
            }
            Expr::While(wl) if wl.attrs.is_empty() && !self.has_point(&wl.cond) && self.uniform(&wl.cond) => {
                self.flush_at(Edge::Construct);
                self.loops += 1;
                let body = self.nested_block(&wl.body);
                self.loops -= 1;
                let (label, cond) = (&wl.label, &wl.cond);
                self.out.push(quote!(#label while { __wk.enter_first(); #cond } { if __wk.done() { return ::core::result::Result::Ok(()); } #body }));
            }
            Expr::While(wl) if wl.attrs.is_empty() && !self.has_point(&wl.cond) && self.has_point(e) => {
                // A loop with instructions on a condition read per lane.
                self.want_uniform(&wl.cond);
                self.ok = false;
            }
            Expr::If(_) => {
                let t = self.uniform_if(e);
                if let Some(t) = t {
                    self.out.push(t);
                }
            }
            Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => {
                let body = self.nested_block(&b.block);
                self.out.push(body);
            }
            // `w.sync_threads();` on the kernel's own handle: the form posts every lane's request
            // at once after the stretch.
            Expr::MethodCall(m) if self.barriers.contains(&(e as *const Expr as usize)) && self.own_sync_threads(m) => {
                let method = m.method.span();
                let site = self.fresh("site");
                let at_method = site_call(method, m.paren_token.span.join());
                self.hoisted.push(quote_spanned!(method=> let #site = #at_method;));
                self.hoisted.push(quote!(__wk.expect_sync_threads(#site);));
                self.point(e);
                self.flush_at(Edge::Point);
                self.out.push(quote!(__wk.sync_threads(#site)?.await; __wk.resumed();));
            }
            _ => {
                if let Some(e) = self.hoist(e) {
                    self.pending.push(quote!(#e;));
                }
            }
        }
        let _ = semi;
    }

    /// `if c { .. } else if d { .. } else { .. }` with uniform conditions.
    fn uniform_if(&mut self, e: &Expr) -> Option<TokenStream> {
        let Expr::If(i) = e else {
            self.ok = false;
            return None;
        };
        if !i.attrs.is_empty() || self.has_point(&i.cond) || !self.uniform(&i.cond) {
            self.want_uniform(&i.cond);
            self.ok = false;
            return None;
        }
        self.flush_at(Edge::Construct);
        let then = self.nested_block(&i.then_branch);
        let cond = &i.cond;
        let els = match &i.else_branch {
            None => quote!(),
            Some((_, e)) => match &**e {
                Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => {
                    let b = self.nested_block(&b.block);
                    quote!(else #b)
                }
                Expr::If(_) => {
                    let inner = self.uniform_if(e)?;
                    quote!(else #inner)
                }
                _ => {
                    self.ok = false;
                    return None;
                }
            },
        };
        Some(quote!(if { __wk.enter_first(); #cond } #then #els))
    }

    /// Whether `e` is the same in every lane: built from literals, constants and uniform names
    /// with operators that read nothing else.
    fn uniform(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => true,
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(ident) => match self.resolve(&ident.to_string()) {
                    Some(Bind::Uniform) => {
                        self.uniform_used.borrow_mut().insert(ident.to_string());
                        true
                    }
                    Some(_) => false,
                    // A constant (by the naming convention), not a function or a unit value.
                    None => constant_name(&ident.to_string()),
                },
                None => p.path.segments.len() > 1 && p.path.segments.iter().all(|s| s.arguments.is_none()),
            },
            Expr::Paren(p) => self.uniform(&p.expr),
            Expr::Group(g) => self.uniform(&g.expr),
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) && self.uniform(&u.expr),
            Expr::Binary(b) => !is_compound(&b.op) && self.uniform(&b.left) && self.uniform(&b.right),
            Expr::Cast(c) => self.uniform(&c.expr),
            Expr::Array(a) => a.elems.iter().all(|e| self.uniform(e)),
            Expr::Tuple(t) => t.elems.iter().all(|e| self.uniform(e)),
            // A field of a query's value (`w.ctaid().x`). Not of any uniform value: through a
            // user's `Deref`, a field access is user code, which each lane runs.
            Expr::Field(f) if matches!(unparen(&f.base), Expr::MethodCall(_)) => self.uniform(&f.base),
            Expr::MethodCall(m) if m.args.is_empty() && m.attrs.is_empty() && self.on_own_handle(m) => {
                let method = m.method.to_string();
                let warp = WARP_QUERIES.contains(&method.as_str());
                let shape = SHAPE_QUERIES.contains(&method.as_str());
                self.handle_read.set(self.handle_read.get() || warp || shape);
                self.same_shape.set(self.same_shape.get() || shape);
                warp || shape
            }
            // A pure method of an integer on uniform values (`members.count_ones()`), or the
            // length of a `GlobalSlice` parameter taken for uniform (`data.len()`).
            Expr::MethodCall(m) if m.attrs.is_empty() && m.turbofish.is_none() && !self.on_own_handle(m) => {
                let method = m.method.to_string();
                let receiver = if LENGTH_METHODS.contains(&method.as_str()) {
                    let slice = self.slice_receiver(&m.receiver);
                    if slice {
                        self.uniform_used.borrow_mut().extend(root_ident(&m.receiver));
                    }
                    slice
                } else {
                    // Of a value known to be an integer: the method is the integer's own.
                    INTEGER_METHODS.contains(&method.as_str()) && self.copy_known(&m.receiver) && self.uniform(&m.receiver)
                };
                receiver && m.args.iter().all(|a| self.uniform(a))
            }
            _ => false,
        }
    }

    /// Whether `e`'s value is known to be a primitive integer (on which the methods of
    /// [`INTEGER_METHODS`] are the inherent ones): an integer literal, a cast to an integer
    /// type, a name of [`copy_binds`](Self::copy_binds), arithmetic and integer methods of
    /// such, a `GlobalSlice` parameter's length.
    fn copy_known(&self, e: &Expr) -> bool {
        match e {
            // An integer literal with no float suffix (`1.0` is a float literal).
            Expr::Lit(l) => matches!(&l.lit, syn::Lit::Int(i) if !matches!(i.suffix(), "f32" | "f64")),
            Expr::Cast(c) => integer(&c.ty),
            Expr::Path(p) => p.path.get_ident().is_some_and(|i| self.copy_name(&i.to_string())),
            Expr::Paren(p) => self.copy_known(&p.expr),
            Expr::Group(g) => self.copy_known(&g.expr),
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) && self.copy_known(&u.expr),
            // Arithmetic and bit operations of integers (not comparisons, whose value is a
            // `bool`, on which a user's trait may have a method of an integer method's name).
            Expr::Binary(b) => {
                use syn::BinOp::*;
                matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_) | BitAnd(_) | BitOr(_) | BitXor(_) | Shl(_) | Shr(_))
                    && self.copy_known(&b.left)
                    && self.copy_known(&b.right)
            }
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                let slice = self.slice_receiver(&m.receiver);
                (LENGTH_METHODS.contains(&method.as_str()) && slice) || (INTEGER_METHODS.contains(&method.as_str()) && self.copy_known(&m.receiver))
            }
            _ => false,
        }
    }

    /// Whether `e` is made of literals and constants only (no binding of the kernel's, so that
    /// the offer's prologue can name its type): `Some(true)` when it holds a constant's value (a
    /// path that names no binding: `NAME`, `Type::NAME`; not under a cast, whose value is a
    /// primitive), `Some(false)` for literals and casts only, `None` otherwise.
    fn constants_only(&self, e: &Expr) -> Option<bool> {
        match e {
            Expr::Lit(_) => Some(false),
            Expr::Path(p) => (p.qself.is_none() && p.path.get_ident().is_none_or(|i| self.resolve(&i.to_string()).is_none())).then_some(true),
            Expr::Paren(p) => self.constants_only(&p.expr),
            Expr::Group(g) => self.constants_only(&g.expr),
            Expr::Cast(c) => self.constants_only(&c.expr).map(|_| false),
            Expr::Tuple(t) => t.elems.iter().try_fold(false, |any, e| Some(any | self.constants_only(e)?)),
            Expr::Array(a) => a.elems.iter().try_fold(false, |any, e| Some(any | self.constants_only(e)?)),
            _ => None,
        }
    }

    /// A `for` loop's iterable that every lane walks alike: a uniform array, or a range with
    /// uniform ends.
    fn uniform_iter(&self, e: &Expr) -> bool {
        match e {
            Expr::Range(r) => r.start.as_ref().is_none_or(|s| self.uniform(s)) && r.end.as_ref().is_some_and(|s| self.uniform(s)),
            Expr::Paren(p) => self.uniform_iter(&p.expr),
            _ => self.uniform(e),
        }
    }

    /// `e` as code of one lane (`__wk_l`) in a stretch's loop.
    fn lane_expr(&mut self, e: &Expr) -> TokenStream {
        let mut e = e.clone();
        LaneRewrite::new(self).visit_expr_mut(&mut e);
        e.to_token_stream()
    }

    /// Tokens of a macro call in a stretch: each per-lane variable as its lane's value.
    fn lane_macro_tokens(&mut self, mac: &syn::Macro) -> TokenStream {
        let mut r = LaneRewrite::new(self);
        r.check_macro(mac);
        r.rewrite_macro(mac)
    }
}

/// Rewrites lane code: per-lane variables to their lane's value, `return` to the lane's result.
struct LaneRewrite<'g, 'p> {
    g: &'g mut Gen<'p>,
    /// Names bound inside the code (they shadow the generator's).
    scopes: Vec<Vec<String>>,
    /// Labels of the loops the code is inside (`None`: unlabeled).
    loops: Vec<Option<String>>,
    /// Depth of closures and async blocks.
    closure: usize,
    /// Whether the macro whose tokens are being rewritten may keep a borrow of what it names
    /// (see `check_macro`).
    macro_lends: bool,
}

impl<'g, 'p> LaneRewrite<'g, 'p> {
    fn new(g: &'g mut Gen<'p>) -> Self {
        LaneRewrite { g, scopes: vec![Vec::new()], loops: Vec::new(), closure: 0, macro_lends: false }
    }

    fn local(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }
    fn bind_pat(&mut self, pat: &Pat) {
        let mut names = Vec::new();
        collect_bindings(pat, &mut names);
        if let Some(s) = self.scopes.last_mut() {
            s.extend(names);
        }
    }
    /// Whether `name` is a variable of the kernel here (per lane or uniform), or one its code
    /// binds.
    fn names_a_variable(&self, name: &str) -> bool {
        self.local(name) || self.g.resolve(name).is_some()
    }

    /// The lane's value of `name`, if it is a per-lane variable here.
    fn wide(&self, name: &str) -> Option<syn::Ident> {
        if self.local(name) {
            return None;
        }
        match self.g.resolve(name) {
            Some(Bind::Wide(v)) => Some(v.clone()),
            _ => None,
        }
    }
    /// `wide`, noting that the stretch reads the variable.
    fn wide_use(&mut self, name: &str) -> Option<syn::Ident> {
        let v = self.wide(name)?;
        self.g.used.push(v.to_string());
        Some(v)
    }
    /// A use of `name` in lane code: when it is a stretch-local variable ([`Bind::Local`]) of
    /// another stretch (its `let` is not in scope here), or the use lends it (`lent`: a
    /// reference, a method's receiver, a `ref` binding, or a closure's capture, any of which may
    /// outlive the lane's iteration of the loop), its `let` must make a per-lane variable.
    fn local_use(&mut self, name: &str, lent: bool) {
        if self.local(name) {
            return;
        }
        if let Some(&Bind::Local { stretch, key }) = self.g.resolve(name) {
            if stretch != self.g.stretch || lent || self.closure > 0 {
                self.g.escapes.push(key);
            }
        }
    }
    fn uniform_name(&self, name: &str) -> bool {
        !self.local(name) && matches!(self.g.resolve(name), Some(Bind::Uniform))
    }
    /// A uniform name that a statement deferred to the end of this stretch defines or changes.
    fn deferred(&self, name: &str) -> bool {
        self.uniform_name(name) && self.g.deferred_names.iter().any(|n| n == name)
    }
    /// A uniform name that this lane code may change: it is not uniform after all.
    fn taint(&mut self, e: &Expr) {
        if let Some(name) = root_ident(e) {
            if self.uniform_name(&name) {
                self.g.tainted.insert(name);
            }
        }
    }

    /// A macro call whose tokens name a per-lane variable must be one whose arguments are
    /// expressions (formatting, assertions, `vec!`), without closures or braces: elsewhere a
    /// name may be a binding of the macro's own (a closure parameter, a pattern, a field).
    fn check_macro(&mut self, mac: &syn::Macro) {
        const EXPRESSION_MACROS: &[&str] = &[
            "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "println", "print", "eprintln", "eprint",
            "format", "write", "writeln", "panic", "unreachable", "todo", "unimplemented", "vec", "dbg",
        ];
        let name = macro_name(mac);
        let expression = EXPRESSION_MACROS.contains(&name.as_str()) && !has_closure_or_braces(mac.tokens.clone());
        // A stretch-local variable it names may be borrowed past the lane's iteration unless
        // the macro only formats or checks (`local_use`): `vec![&v]`, `dbg!(&v)`, a closure.
        self.macro_lends = !expression || name == "vec" || name == "dbg";
        let mut names = Vec::new();
        idents_in(mac.tokens.clone(), &mut names);
        if !expression && names.iter().any(|n| self.wide(n).is_some()) {
            self.g.ok = false;
        }
    }

    /// The tokens of a macro call in lane code, each per-lane variable its lane's value. An
    /// `assert!` or `debug_assert!` without a message names its condition in the panic's
    /// message, which would then show the form's names (`__wk_3_v[__wk_l] < 4`): it gets that
    /// message as the per-lane form's gives it, from the condition as written.
    fn rewrite_macro(&mut self, mac: &syn::Macro) -> TokenStream {
        let ts = self.macro_tokens(mac.tokens.clone());
        let name = macro_name(mac);
        // `assert!(cond)`, or `assert!(cond,)`: the message names the condition as written,
        // without the comma (as `assert!` prints it).
        let strip = |ts: TokenStream| {
            let mut v: Vec<TokenTree> = ts.into_iter().collect();
            if matches!(v.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
                v.pop();
            }
            v.into_iter().collect::<TokenStream>()
        };
        let original = strip(mac.tokens.clone());
        if (name == "assert" || name == "debug_assert") && syn::parse2::<Expr>(original.clone()).is_ok() && ts.to_string() != mac.tokens.to_string() {
            let ts = strip(ts);
            return quote!(#ts, "{}", ::core::concat!("assertion failed: ", ::core::stringify!(#original)));
        }
        ts
    }

    fn macro_tokens(&mut self, ts: TokenStream) -> TokenStream {
        let mut out = Vec::new();
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        // The group of a nested macro's call at `i` (`name ! (..)`).
        let call_group = |i: usize, name: &str| match (&tokens[i], tokens.get(i + 1), tokens.get(i + 2)) {
            (TokenTree::Ident(id), Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) if id == name && p.as_char() == '!' => Some(g.clone()),
            _ => None,
        };
        let mut skip = 0;
        for (i, t) in tokens.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            // `stringify!(..)` shows its tokens as written: a per-lane variable in it is a name,
            // not its lane's value.
            if call_group(i, "stringify").is_some() {
                out.extend(tokens[i..i + 3].iter().cloned());
                skip = 2;
                continue;
            }
            // `matches!(value, pattern if guard)`: the value is an expression of the lane; the
            // pattern binds names and the guard reads them, which a rewrite by name would
            // break: the form is declined when they name a per-lane variable.
            if let Some(g) = call_group(i, "matches") {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let comma = inner.iter().position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','));
                let (value, rest) = inner.split_at(comma.unwrap_or(inner.len()));
                let mut names = Vec::new();
                idents_in(rest.iter().cloned().collect(), &mut names);
                if names.iter().any(|n| self.wide(n).is_some()) {
                    self.g.ok = false;
                }
                let mut body = self.macro_tokens(value.iter().cloned().collect());
                body.extend(rest.iter().cloned());
                let mut ng = Group::new(g.delimiter(), body);
                ng.set_span(g.span());
                out.extend(tokens[i..i + 2].iter().cloned());
                out.push(TokenTree::Group(ng));
                skip = 2;
                continue;
            }
            match t {
                // A pattern (`let`, `match`, `if let` in a block among the macro's tokens)
                // would have its names rewritten as values: the form is declined.
                TokenTree::Ident(id) if id == "let" || id == "match" => {
                    self.g.ok = false;
                    out.push(t.clone());
                }
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let after_dot = i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    // A path's segment (`q::`), or a macro's name (`q!(..)`, not `q != d`).
                    let before_path = match tokens.get(i + 1) {
                        Some(TokenTree::Punct(p)) if p.as_char() == ':' => true,
                        Some(TokenTree::Punct(p)) if p.as_char() == '!' => {
                            p.spacing() == proc_macro2::Spacing::Alone && matches!(tokens.get(i + 2), Some(TokenTree::Group(_)))
                        }
                        _ => false,
                    };
                    if self.uniform_name(&name) {
                        // What the macro does with it is invisible: it may change it.
                        self.g.tainted.insert(name.clone());
                    }
                    if !after_dot && !before_path {
                        self.local_use(&name, self.macro_lends);
                    }
                    match self.wide(&name).filter(|_| !after_dot && !before_path) {
                        Some(_) => {
                            let v = self.wide_use(&name).expect("a per-lane variable");
                            let span = id.span();
                            let v = self.g.ident_at(&v.to_string(), span);
                            let l = form_ident("__wk_l", span);
                            // The parentheses on the name's span too: an operation on the
                            // value (`v / d`) then keeps the user's span, and a panic in it
                            // names the user's line, not the attribute's (as per lane).
                            let mut g = Group::new(Delimiter::Parenthesis, quote_spanned!(span=> #v[#l]));
                            g.set_span(span);
                            out.push(TokenTree::Group(g));
                        }
                        _ => out.push(t.clone()),
                    }
                }
                TokenTree::Group(g) => {
                    let inner = self.macro_tokens(g.stream());
                    let mut ng = Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                TokenTree::Literal(l) => {
                    // `{name}` in a format string names a variable the form renamed.
                    let text = l.to_string();
                    if text.contains('{') && text.starts_with(|c| c == '"' || c == 'r') {
                        self.g.ok = false;
                    }
                    out.push(t.clone());
                }
                _ => out.push(t.clone()),
            }
        }
        out.into_iter().collect()
    }
}

impl VisitMut for LaneRewrite<'_, '_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // What lends a stretch-local variable (see `local_use`).
        let lent = match &*e {
            Expr::Reference(r) => root_ident(&r.expr),
            Expr::RawAddr(r) => root_ident(&r.expr),
            Expr::MethodCall(m) => root_ident(&m.receiver),
            Expr::Match(m) if m.arms.iter().any(|a| binds_ref(&a.pat, false)) => root_ident(&m.expr),
            Expr::Let(l) if binds_ref(&l.pat, false) => root_ident(&l.expr),
            _ => None,
        };
        if let Some(name) = lent {
            self.local_use(&name, true);
        }
        match e {
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                if let Some(ident) = p.path.get_ident() {
                    if self.deferred(&ident.to_string()) {
                        self.g.ok = false;
                    }
                    if self.uniform_name(&ident.to_string()) {
                        self.g.uniform_reads.push(ident.to_string());
                    }
                    self.local_use(&ident.to_string(), false);
                    if let Some(v) = self.wide_use(&ident.to_string()) {
                        // Spanned as the use: errors about the value point at it.
                        let span = ident.span();
                        let v = self.g.ident_at(&v.to_string(), span);
                        let l = form_ident("__wk_l", span);
                        *e = syn::parse_quote_spanned!(span=> #v[#l]);
                    }
                }
                return;
            }
            Expr::Return(r) if self.closure == 0 => {
                // `return s;` of a per-lane variable moves it (`Gen::moved_value`), unless the
                // lane code shadows that name.
                let shadowed = |v: &Expr| matches!(unparen(v), Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.local(&i.to_string())));
                let moved = r.expr.as_deref().filter(|v| !shadowed(v)).and_then(|v| self.g.moved_value(v));
                if moved.is_none() {
                    if let Some(v) = &mut r.expr {
                        self.visit_expr_mut(v);
                    }
                }
                let v = moved.unwrap_or_else(|| r.expr.as_ref().map_or_else(|| quote!(()), |v| v.to_token_stream()));
                self.g.returns();
                let ret = self.g.ret(v);
                *e = syn::parse_quote!({ #ret continue '__wk_lanes; });
                return;
            }
            Expr::Try(_) | Expr::Await(_) | Expr::Yield(_) => {
                if self.closure == 0 {
                    self.g.ok = false;
                }
            }
            Expr::Async(_) => {
                self.g.ok = false;
                return;
            }
            Expr::Break(b) if self.closure == 0 => {
                let target = b.label.as_ref().map(|l| l.ident.to_string());
                let inside = match &target {
                    None => !self.loops.is_empty(),
                    Some(l) => self.loops.iter().any(|x| x.as_deref() == Some(l.as_str())),
                };
                if !inside {
                    // Leaves a uniform loop (or a labeled block) from per-lane code.
                    self.g.ok = false;
                }
            }
            Expr::Continue(c) if self.closure == 0 => {
                let target = c.label.as_ref().map(|l| l.ident.to_string());
                let inside = match &target {
                    None => !self.loops.is_empty(),
                    Some(l) => self.loops.iter().any(|x| x.as_deref() == Some(l.as_str())),
                };
                if !inside {
                    self.g.ok = false;
                }
            }
            Expr::Assign(a) => {
                self.taint(&a.left);
                // A destructuring assignment (`(a, b) = ..`) changes every name in it.
                let mut names = Vec::new();
                idents_in(a.left.to_token_stream(), &mut names);
                for n in names {
                    if self.uniform_name(&n) {
                        self.g.tainted.insert(n);
                    }
                }
                // A per-lane variable assigned whole: set, not written through its index (the
                // lane may have moved its value out; `LaneAssign`).
                let shadowed = root_ident(&a.left).is_some_and(|n| self.local(&n));
                let whole = if self.closure == 0 && !shadowed { self.g.wide_var(&a.left) } else { None };
                if let Some(v) = whole {
                    self.visit_expr_mut(&mut a.right);
                    let right = &a.right;
                    *e = syn::parse2(assign_whole(&self.g.krate, &v, quote!(#right))).expect("an assignment's block parses");
                    return;
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => self.taint(&b.left),
            Expr::Reference(r) if r.mutability.is_some() => self.taint(&r.expr),
            // `match n { ref mut m => *m += 1 }`, `if let ref mut m = n`: the place is borrowed
            // mutably.
            Expr::Match(m) if m.arms.iter().any(|a| binds_ref(&a.pat, true)) => self.taint(&m.expr),
            Expr::Let(l) if binds_ref(&l.pat, true) => self.taint(&l.expr),
            Expr::MethodCall(m) => {
                // Not a receiver that the method cannot change: an integer method of an integer,
                // any method of a `GlobalSlice` parameter.
                let keeps = matches!(&*m.receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
                    let (n, method) = (i.to_string(), m.method.to_string());
                    !self.local(&n) && (self.g.slice_name(&n) || (self.g.copy_name(&n) && INTEGER_METHODS.contains(&method.as_str())))
                }));
                if !keeps {
                    self.taint(&m.receiver);
                }
                // `v.push(v.len())` with `v` per lane: `v[l].push(v[l].len())` borrows the
                // `Lanes` mutably and then reads it.
                if let Some(name) = root_ident(&m.receiver) {
                    if self.wide(&name).is_some() {
                        let mut names = Vec::new();
                        m.args.iter().for_each(|a| idents_in(a.to_token_stream(), &mut names));
                        if names.contains(&name) {
                            self.g.ok = false;
                        }
                    }
                }
                if self.closure == 0 && crate::intrinsics::is_atomic(&m.method.to_string()) {
                    // Input:  c.atomic_add(0, v)   (an atomic of `supported`, in lane code)
                    // Output: ::warpkit::__private::at(match c.atomic_add(0, v[__wk_l]) { __warpkit_call => ::warpkit::__private::form_atomic(::warpkit::__private::MemCall::into_future(__warpkit_call)) })
                    // The operation was performed when called; the form does not pause at it
                    // (nor does the per-lane form, on sm_70+: `lockstep_atomic`). Spanned as the
                    // per-lane form's `MemCall` bound, so that a receiver of the wrong type is
                    // reported once.
                    let span = m.method.span();
                    self.g.stretch_atomic = true;
                    visit_mut::visit_expr_mut(self, e);
                    let krate = crate::krate::facade_at(span);
                    let call = syn::Ident::new("__warpkit_call", span);
                    let base = core::mem::replace(e, Expr::Verbatim(TokenStream::new()));
                    let value: Expr = syn::parse_quote_spanned!(span=> #krate::__private::form_atomic(#krate::__private::MemCall::into_future(#call)));
                    let whole = syn::spanned::Spanned::span(&base);
                    *e = crate::expand::at_user(Vec::new(), crate::expand::binding(base, &call, value), whole);
                    return;
                }
            }
            Expr::Closure(c) => {
                if c.capture.is_some() {
                    self.g.ok = false;
                    return;
                }
                self.closure += 1;
                self.scopes.push(Vec::new());
                for p in &c.inputs {
                    self.bind_pat(p);
                }
                // Any uniform name a closure mentions may change through it.
                let mut names = Vec::new();
                idents_in(c.body.to_token_stream(), &mut names);
                for n in names {
                    if self.uniform_name(&n) {
                        self.g.tainted.insert(n);
                    }
                }
                self.visit_expr_mut(&mut c.body);
                self.scopes.pop();
                self.closure -= 1;
                return;
            }
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                self.scopes.push(Vec::new());
                self.bind_pat(&f.pat);
                self.loops.push(f.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block_mut(&mut f.body);
                self.loops.pop();
                self.scopes.pop();
                return;
            }
            Expr::While(wl) => {
                self.scopes.push(Vec::new());
                self.visit_expr_mut(&mut wl.cond);
                self.loops.push(wl.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block_mut(&mut wl.body);
                self.loops.pop();
                self.scopes.pop();
                return;
            }
            Expr::Loop(l) => {
                self.loops.push(l.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block_mut(&mut l.body);
                self.loops.pop();
                return;
            }
            Expr::Block(b) if b.label.is_some() => {
                self.loops.push(b.label.as_ref().map(|l| l.name.ident.to_string()));
                self.visit_block_mut(&mut b.block);
                self.loops.pop();
                return;
            }
            Expr::If(i) => {
                self.scopes.push(Vec::new());
                self.visit_expr_mut(&mut i.cond);
                self.visit_block_mut(&mut i.then_branch);
                self.scopes.pop();
                if let Some((_, els)) = &mut i.else_branch {
                    self.visit_expr_mut(els);
                }
                return;
            }
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                self.bind_pat(&l.pat);
                return;
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    self.scopes.push(Vec::new());
                    self.bind_pat(&arm.pat);
                    if let Some((_, g)) = &mut arm.guard {
                        self.visit_expr_mut(g);
                    }
                    self.visit_expr_mut(&mut arm.body);
                    self.scopes.pop();
                }
                return;
            }
            Expr::Macro(m) => {
                self.check_macro(&m.mac);
                m.mac.tokens = self.rewrite_macro(&m.mac);
                return;
            }
            Expr::Struct(s) => {
                // `S { x }` with `x` per-lane: `S { x: x[l] }`.
                for f in &mut s.fields {
                    if f.colon_token.is_none() {
                        if let syn::Member::Named(n) = &f.member {
                            if self.wide(&n.to_string()).is_some() {
                                f.colon_token = Some(Default::default());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut Block) {
        // A block's items of the value namespace are in scope in all of it, and shadow the
        // variables of the same name: lane code reads them, not a lane's value. A type or a
        // module does not (`v` is still the variable beside `mod v`). What a `use` brings may
        // be either, and a glob `use` or a macro statement (other than the standard library's
        // that make no items) may bring anything: the form is declined when they may name a
        // variable.
        let names = block_item_names(b).unwrap_or_else(|| {
            self.g.ok = false;
            Vec::new()
        });
        if names.iter().any(|(n, ns)| *ns == Namespace::Either && self.names_a_variable(n)) {
            self.g.ok = false;
        }
        let values = names.into_iter().filter(|(_, ns)| *ns == Namespace::Value).map(|(n, _)| n).collect();
        self.scopes.push(values);
        visit_mut::visit_block_mut(self, b);
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, d)) = &mut init.diverge {
                self.visit_expr_mut(d);
            }
        }
        self.bind_pat(&l.pat);
    }

    fn visit_stmt_macro_mut(&mut self, m: &mut syn::StmtMacro) {
        self.check_macro(&m.mac);
        m.mac.tokens = self.rewrite_macro(&m.mac);
    }

    // Nested items are their own code.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) | BitXorAssign(_) | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_))
}

/// `name = rhs` or `name op= rhs`, for a plain name.
fn assignment(e: &Expr) -> Option<(String, &Expr)> {
    let (left, right) = match e {
        Expr::Assign(a) => (&a.left, &a.right),
        Expr::Binary(b) if is_compound(&b.op) => (&b.left, &b.right),
        _ => return None,
    };
    match &**left {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| (i.to_string(), &**right)),
        _ => None,
    }
}

/// The name `e` is, when it is one bare identifier (`x`, not `a::x`, `<T>::x` or `x.f`).
fn name_of(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The variable an assignment target or receiver starts from (`x` of `x.a[i]`).
fn root_ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(_) => name_of(e),
        Expr::Field(f) => root_ident(&f.base),
        Expr::Index(i) => root_ident(&i.expr),
        Expr::Paren(p) => root_ident(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => root_ident(&u.expr),
        _ => None,
    }
}

/// The identifier of `x`, `mut x` or `x: T`.
fn plain_ident(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.to_string()),
        Pat::Type(t) => plain_ident(&t.pat),
        _ => None,
    }
}

/// A macro's name (the last segment of its path).
fn macro_name(mac: &syn::Macro) -> String {
    mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

/// `v = right;` of the per-lane variable `v` (its `Lanes`), in a stretch's loop: the value first,
/// as an assignment evaluates it, then the lane's variable set to it (`LaneAssign`).
fn assign_whole(krate: &TokenStream, v: &syn::Ident, right: TokenStream) -> TokenStream {
    quote!({
        let __wk_v = #right;
        use #krate::__private::wide::{AssignCopy as _, AssignMove as _};
        #v.assign(__wk_l).__warpkit_put(__wk_v)
    })
}

/// The identifier of `x` or `mut x` (no type, which could coerce the value).
fn bare_ident(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.to_string()),
        _ => None,
    }
}

/// The names a `let` pattern binds, for the patterns the form supports (identifiers, `_`, tuples
/// and type ascriptions of those); false for others.
fn pattern_names(pat: &Pat, names: &mut Vec<syn::Ident>) -> bool {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            names.push(p.ident.clone());
            true
        }
        Pat::Wild(_) => true,
        Pat::Tuple(t) => t.elems.iter().all(|p| pattern_names(p, names)),
        Pat::Type(t) => pattern_names(&t.pat, names),
        Pat::Paren(p) => pattern_names(&p.pat, names),
        _ => false,
    }
}

fn strip_mut(pat: &mut Pat) {
    match pat {
        Pat::Ident(p) => p.mutability = None,
        Pat::Tuple(t) => t.elems.iter_mut().for_each(strip_mut),
        Pat::Type(t) => strip_mut(&mut t.pat),
        Pat::Paren(p) => strip_mut(&mut p.pat),
        _ => {}
    }
}

/// Every identifier a pattern may bind (over-approximated: an enum variant's or a constant's
/// name counts too, which only makes a shadow of it).
fn collect_bindings(pat: &Pat, names: &mut Vec<String>) {
    struct C<'a>(&'a mut Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for C<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    syn::visit::Visit::visit_pat(&mut C(names), pat);
}

fn has_closure_or_braces(ts: TokenStream) -> bool {
    ts.into_iter().any(|t| match t {
        TokenTree::Punct(p) => p.as_char() == '|',
        TokenTree::Group(g) => g.delimiter() == Delimiter::Brace || has_closure_or_braces(g.stream()),
        _ => false,
    })
}

fn idents_in(ts: TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Group(g) => idents_in(g.stream(), out),
            _ => {}
        }
    }
}

/// Whether `e` (a `plain_uniform` value) reads a name's value: a local, a parameter or a
/// constant, which a `let` may move, or which may have a `Drop` (not a literal or a query).
fn names_a_value(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Paren(p) => names_a_value(&p.expr),
        Expr::Group(g) => names_a_value(&g.expr),
        Expr::Cast(c) => names_a_value(&c.expr),
        _ => false,
    }
}

/// A call's first argument that hands the callee a tile of the kernel's own handle `own`
/// ([`supported`]): a name (`t`, `&t`), which the generator takes when `let t = w.tile(N);`
/// bound it, or the tile itself (`w.tile(N)`, `&w.tile(N)`), `N` an integer literal.
enum TileArg<'e> {
    Name(&'e syn::Ident),
    Derived,
}

fn tile_arg<'e>(a: &'e Expr, own: &syn::Ident) -> Option<TileArg<'e>> {
    let mut e = unparen(a);
    if let Expr::Reference(r) = e {
        if r.mutability.is_some() {
            return None;
        }
        e = unparen(&r.expr);
    }
    match e {
        Expr::Path(p) if p.qself.is_none() && !p.path.is_ident(own) => p.path.get_ident().map(TileArg::Name),
        _ if tile_of_own(e, own) => Some(TileArg::Derived),
        _ => None,
    }
}

/// Whether `e` is `own.tile(N)`, `N` an integer literal: the same tile shape in every lane whose
/// handle is the whole warp's.
fn tile_of_own(e: &Expr, own: &syn::Ident) -> bool {
    let Expr::MethodCall(m) = unparen(e) else { return false };
    let literal = matches!(&m.args.first(), Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(_), .. })));
    m.method == "tile" && m.args.len() == 1 && literal && m.turbofish.is_none() && m.attrs.is_empty() && matches!(unparen(&m.receiver), Expr::Path(p) if p.path.is_ident(own))
}

/// `e` without the parentheses (or invisible groups) around it.
fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        _ => e,
    }
}

/// A literal, a uniform name or a uniform query of the kernel's handle (in parentheses or cast,
/// or a field of a query's value): the same in every lane, and reading it can neither panic nor
/// change anything.
fn plain_uniform(g: &Gen<'_>, e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        // A uniform name, or a query of the kernel's handle (a register read).
        Expr::Path(_) => g.uniform(e),
        Expr::MethodCall(m) => g.on_own_handle(m) && g.uniform(e),
        // A field of a query's value (`w.ctaid().x`).
        Expr::Field(f) if matches!(unparen(&f.base), Expr::MethodCall(_)) => plain_uniform(g, &f.base),
        Expr::Paren(p) => plain_uniform(g, &p.expr),
        Expr::Group(x) => plain_uniform(g, &x.expr),
        Expr::Cast(c) => plain_uniform(g, &c.expr),
        _ => false,
    }
}

/// Handle queries whose value is the same in every lane of a warp (its block's and its own
/// position), whatever group each lane's handle is: uniform in a form.
const WARP_QUERIES: &[&str] = &[
    "ntid", "ctaid", "nctaid", "block_size", "warp_in_block", "block_rank", "warp_index", "cluster_ctarank", "cluster_nctarank", "clusterid",
    "nclusterid", "cluster_ctaid", "cluster_nctaid", "is_explicit_cluster",
];

/// Handle queries of the group's shape: uniform in a form whose offer checks that every lane's
/// handle has the same segment width and the same number of lanes.
const SHAPE_QUERIES: &[&str] = &["width", "size"];

/// Methods of the primitive integers that depend only on their receiver and arguments: on
/// uniform values known to be integers (`Gen::copy_known`, where these are the inherent
/// methods), their result is uniform (`let lanes = members.count_ones();`).
const INTEGER_METHODS: &[&str] = &[
    "count_ones",
    "count_zeros",
    "leading_zeros",
    "trailing_zeros",
    "leading_ones",
    "trailing_ones",
    "rotate_left",
    "rotate_right",
    "reverse_bits",
    "swap_bytes",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_shl",
    "wrapping_shr",
    "min",
    "max",
];

/// Lengths: uniform of a `GlobalSlice` parameter taken for uniform (whose length no code
/// changes), not of any uniform name (a constant's `len` may read what another warp changes).
const LENGTH_METHODS: &[&str] = &["len", "is_empty"];

/// Handle methods that return plain values (no borrow of the handle).
const QUERIES: &[&str] = &[
    "lane_id", "lanemask_eq", "lanemask_lt", "lanemask_le", "lanemask_gt", "lanemask_ge", "tid", "ntid", "ctaid", "nctaid",
    "thread_rank", "block_size", "warp_in_block", "block_rank", "warp_index", "global_id", "cluster_ctarank", "cluster_nctarank",
    "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid", "is_explicit_cluster", "membermask", "width", "rank", "size",
];

/// Whether `handle` appears in `block` only as the receiver of the handle's own methods that keep
/// no borrow of it (instructions, `tile`/`group`, queries such as `lane_id`), not as a value
/// (`let h = w;`, `f(w)`, inside a macro's tokens) nor as the receiver of another method (a
/// trait's, which may return a borrow of it).
fn only_receiver(block: &Block, handle: &syn::Ident) -> bool {
    struct Uses<'h> {
        handle: &'h syn::Ident,
        ok: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Uses<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            match &*m.receiver {
                Expr::Path(p) if p.path.is_ident(self.handle) => {
                    let name = m.method.to_string();
                    if !(crate::intrinsics::is_suspending(&name) || crate::intrinsics::is_deriving(&name) || QUERIES.contains(&name.as_str())) {
                        self.ok = false;
                    }
                }
                other => self.visit_expr(other),
            }
            for a in &m.args {
                self.visit_expr(a);
            }
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.is_ident(self.handle) {
                self.ok = false;
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let mut idents = Vec::new();
            idents_in(mac.tokens.clone(), &mut idents);
            if idents.iter().any(|i| i == &self.handle.to_string()) {
                self.ok = false;
            }
        }
    }
    let mut uses = Uses { handle, ok: true };
    syn::visit::Visit::visit_block(&mut uses, block);
    uses.ok
}

/// Whether a uniform assignment (`x = e`, `x op= e`) may panic: not when `e` is a literal or a
/// uniform name and the operator cannot overflow or divide by zero with it (`=`, the bitwise
/// ones, `/` and `%` by a literal other than 0, shifts by a literal below 8).
fn assignment_may_panic(g: &Gen<'_>, e: &Expr) -> bool {
    use syn::BinOp;
    let lit = |e: &Expr| match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    match e {
        Expr::Assign(a) => !plain_uniform(g, &a.right),
        Expr::Binary(b) => match b.op {
            BinOp::BitAndAssign(_) | BinOp::BitOrAssign(_) | BinOp::BitXorAssign(_) => !plain_uniform(g, &b.right),
            BinOp::DivAssign(_) | BinOp::RemAssign(_) => !lit(&b.right).is_some_and(|v| v != 0),
            BinOp::ShlAssign(_) | BinOp::ShrAssign(_) => !lit(&b.right).is_some_and(|v| v < 8),
            _ => true,
        },
        _ => true,
    }
}
