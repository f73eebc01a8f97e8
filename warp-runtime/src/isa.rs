//! The PTX instruction table: one row per instruction form, the single place an instruction is
//! defined.
//!
//! A row gives the instruction's Rust name, its operands and results with their register
//! classes, the PTX mnemonic and operand template, the lowest target that has it, what kind of
//! instruction it is, the host runtime's identity for it ([`Op`](crate::Op), which selects the
//! pure semantics function in [`semantics`](crate::semantics)), and whether a conformance kernel
//! is generated for it. Read a row next to the spec (`shared/spec/`): the template is the PTX
//! syntax line with the operands named.
//!
//! From the rows, [`isa_rows!`](crate::isa_rows) drives three expansions:
//!
//! - on `nvptx64`, [`crate::nvptx`]: one `#[inline(always)]` function per row whose body is one
//!   inline-`asm!` instruction. Predicate operands (`pred`) travel through a `{ .reg .pred ..; }`
//!   scope: `setp.ne.u32` moves an input in, `selp.u32` an output out (Rust's nvptx asm has no
//!   predicate register class). A row's gate becomes a `cfg` on the function, so an instruction the
//!   target lacks does not exist there.
//! - on the host, [`ROWS`]: the rows as data, from which [`Op`](crate::Op) takes its mnemonic, its
//!   minimum target and whether a target has it (natively, or through the handle's fallback), and
//!   `cargo xtask ptx` takes the instruction each conformance kernel must contain.
//! - in the kernel crate `ptx/`, `conf_<name>`: one conformance kernel per row marked `conf`, with
//!   the launch convention of `ptx/src/conformance.rs` (thread `t` reads element `t` of each input
//!   array, writes element `t` of each output array, and returns at once when `active[t] == 0`).
//!
//! The handle methods users call ([`Warp`](crate::Warp)) are defined once for both targets in
//! [`crate::api`]; each calls a row's function on the device and posts the row's [`Op`] on the
//! host.
//!
//! # Row syntax
//!
//! ```text
//! /// docs
//! name (operand: class, ..) -> (result: class, ..) = "mnemonic" "operand template";
//!     gate G [fallback F]; kind K; op [host Op expression, or empty]; conf yes|no;
//! ```
//!
//! Classes: `u32`, `i32`, `f32` (a 32-bit register), `u64` (a 64-bit register), `pred` (a
//! predicate, passed as `bool`). In the template `{x}` is operand `x`'s register and a bare `x` is
//! the predicate register of a `pred` operand. A fallback names what the device handle executes
//! on targets below the gate (`rank_tree`, `rank_tree_f32`, `ballot_lowest`; see [`Row::fallback`]).
//! Gates: `always`, `below_sm70` (removed on sm_70 and
//! later), `sm70`, `sm80`, `sm90`, `sm100a`. Kinds: `warp` (a warp-synchronous instruction, a
//! suspension point on the host), `block` (a CTA barrier, a suspension point on the host), `pure`
//! (a special-register read or ALU instruction: `pure, nomem` asm, no `Op`).

#[cfg(not(target_arch = "nvptx64"))]
use crate::op::Op;
#[cfg(not(target_arch = "nvptx64"))]
use crate::target::Target;

/// The lowest target that has an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gate {
    /// Every target (sm_30 and later for the warp instructions).
    Always,
    /// Only below sm_70: the deprecated `vote` without `.sync`, removed for sm_70+ in PTX ISA 6.4.
    BelowSm70,
    /// sm_70 and later.
    Sm70,
    /// sm_80 and later.
    Sm80,
    /// sm_90 and later.
    Sm90,
    /// sm_100a (and, from PTX ISA 8.8, the other `a`/`f` targets of the sm_100 family).
    Sm100a,
}

impl Gate {
    /// The lowest target name, as the spec's Target ISA Notes give it.
    pub const fn min_target(self) -> &'static str {
        match self {
            Gate::Always => "sm_30",
            Gate::BelowSm70 => "sm_30 (and below sm_70)",
            Gate::Sm70 => "sm_70",
            Gate::Sm80 => "sm_80",
            Gate::Sm90 => "sm_90",
            Gate::Sm100a => "sm_100a",
        }
    }

    /// Whether `target` has the instruction.
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn holds(self, target: Target) -> bool {
        match self {
            Gate::Always => true,
            Gate::BelowSm70 => !target.independent_scheduling(),
            Gate::Sm70 => target.sm >= 70,
            Gate::Sm80 => target.sm >= 80,
            Gate::Sm90 => target.sm >= 90,
            Gate::Sm100a => target.has_redux_f32(),
        }
    }
}

/// What kind of instruction a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A warp-synchronous instruction (`shfl.sync`, `vote.sync`, ...): on the host, a suspension
    /// point that the lockstep executor completes for the lanes of its membermask.
    Warp,
    /// A CTA barrier (`bar`/`barrier`): on the host, a suspension point that the block scheduler
    /// completes when the barrier's warps have arrived.
    Block,
    /// A special-register read or an ALU instruction: constant per thread, `pure` asm.
    Pure,
}

/// One row of the table, as data (host only).
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The Rust name of the instruction's function (`crate::nvptx::<name>`).
    pub name: &'static str,
    /// The PTX mnemonic with its qualifiers, as in PTX source (`shfl.sync.up.b32`).
    pub mnemonic: &'static str,
    /// The operand template (`{d}|p, {a}, {b}, {c}, {membermask}`).
    pub operands: &'static str,
    /// The lowest target that has it.
    pub gate: Gate,
    /// On targets below the gate, what the handle method executes instead (the device handle's
    /// fallback, whose results the host computes with the instruction's own semantics).
    pub fallback: Option<&'static str>,
    /// The kind of instruction.
    pub kind: Kind,
    /// The host runtime's identity for it (`None` for `Pure` rows).
    pub op: Option<Op>,
    /// Whether the kernel crate has a generated `conf_<name>` kernel for it.
    pub conformance: bool,
}

#[cfg(not(target_arch = "nvptx64"))]
impl Row {
    /// The row of `op`, if any (an 8-byte shuffle's row is its 32-bit instruction's).
    pub fn of(op: Op) -> Option<&'static Row> {
        let op = op.per_instruction();
        ROWS.iter().find(|r| r.op == Some(op))
    }
}

/// Expands the instruction table into `$cb! { rows }`: the one place instructions are defined.
/// (Used by this crate for [`crate::nvptx`] and [`ROWS`], and by the kernel crate `ptx/` for the
/// conformance kernels; not public API.)
#[doc(hidden)]
#[macro_export]
macro_rules! isa_rows {
    ($($cb:tt)*) => { $($cb)*! {
        // ---- shfl.sync (9.7.8.6) ----
        /// `shfl.sync.up.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid - b[4:0]` of the
        /// segment; `p` is whether that lane is in range.
        shfl_sync_up (a: u32, b: u32, c: u32, membermask: u32) -> (d: u32, p: pred)
            = "shfl.sync.up.b32" "{d}|p, {a}, {b}, {c}, {membermask}";
            gate always; kind warp; op [Op::Shfl { mode: ShflMode::Up, words: 1 }]; conf yes;
        /// `shfl.sync.down.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid + b[4:0]`.
        shfl_sync_down (a: u32, b: u32, c: u32, membermask: u32) -> (d: u32, p: pred)
            = "shfl.sync.down.b32" "{d}|p, {a}, {b}, {c}, {membermask}";
            gate always; kind warp; op [Op::Shfl { mode: ShflMode::Down, words: 1 }]; conf yes;
        /// `shfl.sync.bfly.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid ^ b[4:0]`.
        shfl_sync_bfly (a: u32, b: u32, c: u32, membermask: u32) -> (d: u32, p: pred)
            = "shfl.sync.bfly.b32" "{d}|p, {a}, {b}, {c}, {membermask}";
            gate always; kind warp; op [Op::Shfl { mode: ShflMode::Bfly, words: 1 }]; conf yes;
        /// `shfl.sync.idx.b32 d|p, a, b, c, membermask`: read `a` from lane `b[4:0]` of the segment.
        shfl_sync_idx (a: u32, b: u32, c: u32, membermask: u32) -> (d: u32, p: pred)
            = "shfl.sync.idx.b32" "{d}|p, {a}, {b}, {c}, {membermask}";
            gate always; kind warp; op [Op::Shfl { mode: ShflMode::Idx, words: 1 }]; conf yes;

        // ---- vote.sync (9.7.13.9) ----
        /// `vote.sync.all.pred d, a, membermask`: `a` holds in every non-exited lane of `membermask`.
        vote_sync_all (a: pred, membermask: u32) -> (d: pred)
            = "vote.sync.all.pred" "d, a, {membermask}";
            gate always; kind warp; op [Op::Vote(VoteMode::All)]; conf yes;
        /// `vote.sync.any.pred d, a, membermask`: `a` holds in some lane of `membermask`.
        vote_sync_any (a: pred, membermask: u32) -> (d: pred)
            = "vote.sync.any.pred" "d, a, {membermask}";
            gate always; kind warp; op [Op::Vote(VoteMode::Any)]; conf yes;
        /// `vote.sync.uni.pred d, a, membermask`: `a` is the same in every non-exited lane of
        /// `membermask`.
        vote_sync_uni (a: pred, membermask: u32) -> (d: pred)
            = "vote.sync.uni.pred" "d, a, {membermask}";
            gate always; kind warp; op [Op::Vote(VoteMode::Uni)]; conf yes;
        /// `vote.sync.ballot.b32 d, a, membermask`: bit `i` is lane `i`'s `a` (0 outside
        /// `membermask`).
        vote_sync_ballot (a: pred, membermask: u32) -> (d: u32)
            = "vote.sync.ballot.b32" "{d}, a, {membermask}";
            gate always; kind warp; op [Op::Vote(VoteMode::Ballot)]; conf yes;

        // ---- vote, deprecated (9.7.13.8): removed for sm_70+ in PTX ISA 6.4 ----
        /// `vote.all.pred d, a`: `a` holds in every active lane of the warp.
        vote_all (a: pred) -> (d: pred) = "vote.all.pred" "d, a";
            gate below_sm70; kind warp; op [Op::VoteLegacy(VoteMode::All)]; conf yes;
        /// `vote.any.pred d, a`: `a` holds in some active lane of the warp.
        vote_any (a: pred) -> (d: pred) = "vote.any.pred" "d, a";
            gate below_sm70; kind warp; op [Op::VoteLegacy(VoteMode::Any)]; conf yes;
        /// `vote.uni.pred d, a`: `a` is the same in every active lane of the warp.
        vote_uni (a: pred) -> (d: pred) = "vote.uni.pred" "d, a";
            gate below_sm70; kind warp; op [Op::VoteLegacy(VoteMode::Uni)]; conf yes;
        /// `vote.ballot.b32 d, a`: bit `i` is active lane `i`'s `a`.
        vote_ballot (a: pred) -> (d: u32) = "vote.ballot.b32" "{d}, a";
            gate below_sm70; kind warp; op [Op::VoteLegacy(VoteMode::Ballot)]; conf yes;

        // ---- match.sync (9.7.13.10) ----
        /// `match.any.sync.b32 d, a, membermask`: the lanes of `membermask` whose `a` equals this
        /// lane's.
        match_any_sync_b32 (a: u32, membermask: u32) -> (d: u32)
            = "match.any.sync.b32" "{d}, {a}, {membermask}";
            gate sm70; kind warp; op [Op::MatchAny { b64: false }]; conf yes;
        /// `match.any.sync.b64 d, a, membermask`: the same on all 64 bits.
        match_any_sync_b64 (a: u64, membermask: u32) -> (d: u32)
            = "match.any.sync.b64" "{d}, {a}, {membermask}";
            gate sm70; kind warp; op [Op::MatchAny { b64: true }]; conf yes;
        /// `match.all.sync.b32 d|p, a, membermask`: `(the non-exited lanes of membermask, true)` if
        /// they all hold the same `a`, else `(0, false)`.
        match_all_sync_b32 (a: u32, membermask: u32) -> (d: u32, p: pred)
            = "match.all.sync.b32" "{d}|p, {a}, {membermask}";
            gate sm70; kind warp; op [Op::MatchAll { b64: false }]; conf yes;
        /// `match.all.sync.b64 d|p, a, membermask`: the same on all 64 bits.
        match_all_sync_b64 (a: u64, membermask: u32) -> (d: u32, p: pred)
            = "match.all.sync.b64" "{d}|p, {a}, {membermask}";
            gate sm70; kind warp; op [Op::MatchAll { b64: true }]; conf yes;

        // ---- redux.sync (9.7.13.12): integers sm_80, .f32 sm_100a ----
        /// `redux.sync.add.u32 d, a, membermask`: the wrapping sum.
        redux_sync_add_u32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.add.u32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Add, ReduxType::U32)]; conf yes;
        /// `redux.sync.min.u32 d, a, membermask`.
        redux_sync_min_u32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.min.u32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Min, ReduxType::U32)]; conf yes;
        /// `redux.sync.max.u32 d, a, membermask`.
        redux_sync_max_u32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.max.u32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Max, ReduxType::U32)]; conf yes;
        /// `redux.sync.add.s32 d, a, membermask`: the wrapping sum.
        redux_sync_add_s32 (a: i32, membermask: u32) -> (d: i32)
            = "redux.sync.add.s32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Add, ReduxType::S32)]; conf yes;
        /// `redux.sync.min.s32 d, a, membermask` (signed comparison).
        redux_sync_min_s32 (a: i32, membermask: u32) -> (d: i32)
            = "redux.sync.min.s32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Min, ReduxType::S32)]; conf yes;
        /// `redux.sync.max.s32 d, a, membermask` (signed comparison).
        redux_sync_max_s32 (a: i32, membermask: u32) -> (d: i32)
            = "redux.sync.max.s32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Max, ReduxType::S32)]; conf yes;
        /// `redux.sync.and.b32 d, a, membermask`.
        redux_sync_and_b32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.and.b32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::And, ReduxType::B32)]; conf yes;
        /// `redux.sync.or.b32 d, a, membermask`.
        redux_sync_or_b32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.or.b32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Or, ReduxType::B32)]; conf yes;
        /// `redux.sync.xor.b32 d, a, membermask`.
        redux_sync_xor_b32 (a: u32, membermask: u32) -> (d: u32)
            = "redux.sync.xor.b32" "{d}, {a}, {membermask}";
            gate sm80 fallback rank_tree; kind warp; op [Op::Redux(ReduxOp::Xor, ReduxType::B32)]; conf yes;
        /// `redux.sync.min.f32 d, a, membermask`: NaN inputs skipped; `-0.0 < +0.0`.
        redux_sync_min_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.min.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: false, abs: false, nan: false })]; conf yes;
        /// `redux.sync.max.f32 d, a, membermask`: NaN inputs skipped; `-0.0 < +0.0`.
        redux_sync_max_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.max.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: true, abs: false, nan: false })]; conf yes;
        /// `redux.sync.min.abs.f32 d, a, membermask`: the least absolute value.
        redux_sync_min_abs_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.min.abs.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: false, abs: true, nan: false })]; conf yes;
        /// `redux.sync.max.abs.f32 d, a, membermask`: the greatest absolute value.
        redux_sync_max_abs_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.max.abs.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: true, abs: true, nan: false })]; conf yes;
        /// `redux.sync.min.NaN.f32 d, a, membermask`: the canonical NaN if any input is NaN.
        redux_sync_min_nan_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.min.NaN.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: false, abs: false, nan: true })]; conf yes;
        /// `redux.sync.max.NaN.f32 d, a, membermask`: the canonical NaN if any input is NaN.
        redux_sync_max_nan_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.max.NaN.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: true, abs: false, nan: true })]; conf yes;
        /// `redux.sync.min.abs.NaN.f32 d, a, membermask`.
        redux_sync_min_abs_nan_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.min.abs.NaN.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: false, abs: true, nan: true })]; conf yes;
        /// `redux.sync.max.abs.NaN.f32 d, a, membermask`.
        redux_sync_max_abs_nan_f32 (a: f32, membermask: u32) -> (d: f32)
            = "redux.sync.max.abs.NaN.f32" "{d}, {a}, {membermask}";
            gate sm100a fallback rank_tree_f32; kind warp; op [Op::ReduxF32(FloatRedux { max: true, abs: true, nan: true })]; conf yes;

        // ---- activemask (9.7.13.11), bar.warp.sync (9.7.13.2), elect.sync (9.7.13.14) ----
        /// `activemask.b32 d`: the lanes executing this instruction together. Not a
        /// synchronization point; deliberately not `pure` (its value depends on the control flow
        /// that reaches it).
        activemask () -> (d: u32) = "activemask.b32" "{d}";
            gate always; kind warp; op [Op::Activemask]; conf yes;
        /// `bar.warp.sync membermask`: wait until every lane of `membermask` reaches a
        /// `bar.warp.sync` with the same membermask; orders memory among them.
        bar_warp_sync (membermask: u32) -> () = "bar.warp.sync" "{membermask}";
            gate always; kind warp; op [Op::BarWarpSync]; conf no;
        /// `elect.sync d|p, membermask`: `(the leader's lane id, whether this lane is the leader)`.
        /// On an H100 the leader was always the lowest non-exited lane of `membermask`.
        elect_sync (membermask: u32) -> (d: u32, p: pred) = "elect.sync" "{d}|p, {membermask}";
            gate sm90 fallback ballot_lowest; kind warp; op [Op::Elect]; conf yes;

        // ---- bar / barrier (9.7.13.1). `bar` is `barrier.aligned` ----
        /// `bar.sync a`: wait until every non-exited thread of the CTA has arrived at barrier `a`
        /// (`__syncthreads()` is `bar.sync 0`). Aligned: every thread of the CTA executes the same
        /// `bar.sync`.
        bar_sync (a: u32) -> () = "bar.sync" "{a}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Sync, aligned: true, counted: false, negate: false })]; conf no;
        /// `bar.sync a, b`: wait until `b` threads (a multiple of 32) have arrived at barrier `a`.
        bar_sync_count (a: u32, b: u32) -> () = "bar.sync" "{a}, {b}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Sync, aligned: true, counted: true, negate: false })]; conf no;
        /// `barrier.sync a`: `bar.sync a` without `.aligned`: the threads of a warp may reach it
        /// from different `barrier` instructions (sm_70 and later).
        barrier_sync (a: u32) -> () = "barrier.sync" "{a}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Sync, aligned: false, counted: false, negate: false })]; conf no;
        /// `barrier.sync a, b`.
        barrier_sync_count (a: u32, b: u32) -> () = "barrier.sync" "{a}, {b}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Sync, aligned: false, counted: true, negate: false })]; conf no;
        /// `bar.arrive a, b`: announce this warp's arrival at barrier `a` of `b` threads and go on
        /// without waiting.
        bar_arrive (a: u32, b: u32) -> () = "bar.arrive" "{a}, {b}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Arrive, aligned: true, counted: true, negate: false })]; conf no;
        /// `barrier.arrive a, b`.
        barrier_arrive (a: u32, b: u32) -> () = "barrier.arrive" "{a}, {b}";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Arrive, aligned: false, counted: true, negate: false })]; conf no;
        /// `bar.red.popc.u32 d, a, c`: `bar.sync a`, and `d` is the number of participating
        /// threads whose `c` is true.
        bar_red_popc (a: u32, c: pred) -> (d: u32) = "bar.red.popc.u32" "{d}, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: true, counted: false, negate: false })]; conf no;
        /// `bar.red.popc.u32 d, a, !c`.
        bar_red_popc_not (a: u32, c: pred) -> (d: u32) = "bar.red.popc.u32" "{d}, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: true, counted: false, negate: true })]; conf no;
        /// `bar.red.popc.u32 d, a, b, c`.
        bar_red_popc_count (a: u32, b: u32, c: pred) -> (d: u32) = "bar.red.popc.u32" "{d}, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: true, counted: true, negate: false })]; conf no;
        /// `bar.red.popc.u32 d, a, b, !c`.
        bar_red_popc_count_not (a: u32, b: u32, c: pred) -> (d: u32) = "bar.red.popc.u32" "{d}, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: true, counted: true, negate: true })]; conf no;
        /// `bar.red.and.pred d, a, c`: `bar.sync a`, and `d` is whether `c` holds in every
        /// participating thread.
        bar_red_and (a: u32, c: pred) -> (d: pred) = "bar.red.and.pred" "d, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: true, counted: false, negate: false })]; conf no;
        /// `bar.red.and.pred d, a, !c`.
        bar_red_and_not (a: u32, c: pred) -> (d: pred) = "bar.red.and.pred" "d, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: true, counted: false, negate: true })]; conf no;
        /// `bar.red.and.pred d, a, b, c`.
        bar_red_and_count (a: u32, b: u32, c: pred) -> (d: pred) = "bar.red.and.pred" "d, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: true, counted: true, negate: false })]; conf no;
        /// `bar.red.and.pred d, a, b, !c`.
        bar_red_and_count_not (a: u32, b: u32, c: pred) -> (d: pred) = "bar.red.and.pred" "d, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: true, counted: true, negate: true })]; conf no;
        /// `bar.red.or.pred d, a, c`: `bar.sync a`, and `d` is whether `c` holds in some
        /// participating thread.
        bar_red_or (a: u32, c: pred) -> (d: pred) = "bar.red.or.pred" "d, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: true, counted: false, negate: false })]; conf no;
        /// `bar.red.or.pred d, a, !c`.
        bar_red_or_not (a: u32, c: pred) -> (d: pred) = "bar.red.or.pred" "d, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: true, counted: false, negate: true })]; conf no;
        /// `bar.red.or.pred d, a, b, c`.
        bar_red_or_count (a: u32, b: u32, c: pred) -> (d: pred) = "bar.red.or.pred" "d, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: true, counted: true, negate: false })]; conf no;
        /// `bar.red.or.pred d, a, b, !c`.
        bar_red_or_count_not (a: u32, b: u32, c: pred) -> (d: pred) = "bar.red.or.pred" "d, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: true, counted: true, negate: true })]; conf no;
        /// `barrier.red.popc.u32 d, a, c` (not aligned).
        barrier_red_popc (a: u32, c: pred) -> (d: u32) = "barrier.red.popc.u32" "{d}, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: false, counted: false, negate: false })]; conf no;
        /// `barrier.red.popc.u32 d, a, !c`.
        barrier_red_popc_not (a: u32, c: pred) -> (d: u32) = "barrier.red.popc.u32" "{d}, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: false, counted: false, negate: true })]; conf no;
        /// `barrier.red.popc.u32 d, a, b, c`.
        barrier_red_popc_count (a: u32, b: u32, c: pred) -> (d: u32) = "barrier.red.popc.u32" "{d}, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: false, counted: true, negate: false })]; conf no;
        /// `barrier.red.popc.u32 d, a, b, !c`.
        barrier_red_popc_count_not (a: u32, b: u32, c: pred) -> (d: u32) = "barrier.red.popc.u32" "{d}, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Popc), aligned: false, counted: true, negate: true })]; conf no;
        /// `barrier.red.and.pred d, a, c`.
        barrier_red_and (a: u32, c: pred) -> (d: pred) = "barrier.red.and.pred" "d, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: false, counted: false, negate: false })]; conf no;
        /// `barrier.red.and.pred d, a, !c`.
        barrier_red_and_not (a: u32, c: pred) -> (d: pred) = "barrier.red.and.pred" "d, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: false, counted: false, negate: true })]; conf no;
        /// `barrier.red.and.pred d, a, b, c`.
        barrier_red_and_count (a: u32, b: u32, c: pred) -> (d: pred) = "barrier.red.and.pred" "d, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: false, counted: true, negate: false })]; conf no;
        /// `barrier.red.and.pred d, a, b, !c`.
        barrier_red_and_count_not (a: u32, b: u32, c: pred) -> (d: pred) = "barrier.red.and.pred" "d, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::And), aligned: false, counted: true, negate: true })]; conf no;
        /// `barrier.red.or.pred d, a, c`.
        barrier_red_or (a: u32, c: pred) -> (d: pred) = "barrier.red.or.pred" "d, {a}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: false, counted: false, negate: false })]; conf no;
        /// `barrier.red.or.pred d, a, !c`.
        barrier_red_or_not (a: u32, c: pred) -> (d: pred) = "barrier.red.or.pred" "d, {a}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: false, counted: false, negate: true })]; conf no;
        /// `barrier.red.or.pred d, a, b, c`.
        barrier_red_or_count (a: u32, b: u32, c: pred) -> (d: pred) = "barrier.red.or.pred" "d, {a}, {b}, c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: false, counted: true, negate: false })]; conf no;
        /// `barrier.red.or.pred d, a, b, !c`.
        barrier_red_or_count_not (a: u32, b: u32, c: pred) -> (d: pred) = "barrier.red.or.pred" "d, {a}, {b}, !c";
            gate always; kind block; op [Op::Bar(BarOp { kind: BarKind::Red(BarRed::Or), aligned: false, counted: true, negate: true })]; conf no;

        // ---- special registers (constant per thread) ----
        /// `%laneid`: this thread's lane number, 0..=31.
        laneid () -> (d: u32) = "mov.u32" "{d}, %laneid"; gate always; kind pure; op []; conf no;
        /// `%lanemask_eq`: the bit of this lane.
        lanemask_eq () -> (d: u32) = "mov.u32" "{d}, %lanemask_eq"; gate always; kind pure; op []; conf no;
        /// `%lanemask_lt`: the bits of the lanes below this one.
        lanemask_lt () -> (d: u32) = "mov.u32" "{d}, %lanemask_lt"; gate always; kind pure; op []; conf no;
        /// `%lanemask_le`: the bits of this lane and the lanes below it.
        lanemask_le () -> (d: u32) = "mov.u32" "{d}, %lanemask_le"; gate always; kind pure; op []; conf no;
        /// `%lanemask_gt`: the bits of the lanes above this one.
        lanemask_gt () -> (d: u32) = "mov.u32" "{d}, %lanemask_gt"; gate always; kind pure; op []; conf no;
        /// `%lanemask_ge`: the bits of this lane and the lanes above it.
        lanemask_ge () -> (d: u32) = "mov.u32" "{d}, %lanemask_ge"; gate always; kind pure; op []; conf no;
        /// `%tid.x`: the thread's index in its CTA, x.
        tid_x () -> (d: u32) = "mov.u32" "{d}, %tid.x"; gate always; kind pure; op []; conf no;
        /// `%tid.y`.
        tid_y () -> (d: u32) = "mov.u32" "{d}, %tid.y"; gate always; kind pure; op []; conf no;
        /// `%tid.z`.
        tid_z () -> (d: u32) = "mov.u32" "{d}, %tid.z"; gate always; kind pure; op []; conf no;
        /// `%ntid.x`: the CTA's size, x.
        ntid_x () -> (d: u32) = "mov.u32" "{d}, %ntid.x"; gate always; kind pure; op []; conf no;
        /// `%ntid.y`.
        ntid_y () -> (d: u32) = "mov.u32" "{d}, %ntid.y"; gate always; kind pure; op []; conf no;
        /// `%ntid.z`.
        ntid_z () -> (d: u32) = "mov.u32" "{d}, %ntid.z"; gate always; kind pure; op []; conf no;
        /// `%ctaid.x`: the CTA's index in the grid, x.
        ctaid_x () -> (d: u32) = "mov.u32" "{d}, %ctaid.x"; gate always; kind pure; op []; conf no;
        /// `%ctaid.y`.
        ctaid_y () -> (d: u32) = "mov.u32" "{d}, %ctaid.y"; gate always; kind pure; op []; conf no;
        /// `%ctaid.z`.
        ctaid_z () -> (d: u32) = "mov.u32" "{d}, %ctaid.z"; gate always; kind pure; op []; conf no;
        /// `%nctaid.x`: the grid's size in CTAs, x.
        nctaid_x () -> (d: u32) = "mov.u32" "{d}, %nctaid.x"; gate always; kind pure; op []; conf no;
        /// `%nctaid.y`.
        nctaid_y () -> (d: u32) = "mov.u32" "{d}, %nctaid.y"; gate always; kind pure; op []; conf no;
        /// `%nctaid.z`.
        nctaid_z () -> (d: u32) = "mov.u32" "{d}, %nctaid.z"; gate always; kind pure; op []; conf no;
        /// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch gave the CTA.
        dynamic_smem_size () -> (d: u32) = "mov.u32" "{d}, %dynamic_smem_size"; gate always; kind pure; op []; conf no;

        // ---- ALU helpers of the handle's fallbacks ----
        /// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit of `mask` at or
        /// above `base` (`offset` 1 is the first), or `0xffffffff` if there is none.
        fns (mask: u32, base: u32, offset: i32) -> (d: u32) = "fns.b32" "{d}, {mask}, {base}, {offset}";
            gate always; kind pure; op []; conf no;
    } };
}

/// The rows as data (expanded from [`isa_rows!`](crate::isa_rows)).
#[cfg(not(target_arch = "nvptx64"))]
macro_rules! rows_data {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ($($arg:ident : $aty:ident),*) -> ($($out:ident : $oty:ident),*)
            = $mn:literal $ops:literal;
            gate $gate:ident $(fallback $fb:ident)?; kind $kind:ident; op [$($op:tt)*]; conf $conf:ident;
    )*) => {
        rows_data!(@gate_fn [] $([$($op)*] $gate [$($fb)?])*);

        /// Every row of the instruction table, in table order.
        pub static ROWS: &[Row] = &[$(
            Row {
                name: stringify!($name),
                mnemonic: $mn,
                operands: $ops,
                gate: rows_data!(@gate $gate),
                fallback: rows_data!(@fallback $($fb)?),
                kind: rows_data!(@kind $kind),
                op: rows_data!(@op $($op)*),
                conformance: rows_data!(@conf $conf),
            },
        )*];
    };
    // `gate_of`: a `match` on the rows' `Op`s (as patterns), so that the executor's check of an
    // instruction against the target is a jump table, not a search of the table.
    (@gate_fn [$($arms:tt)*]) => {
        /// The gate of `op`'s row and whether the row has a fallback.
        #[inline]
        pub(crate) const fn gate_of(op: Op) -> Option<(Gate, bool)> {
            match op.per_instruction() {
                $($arms)*
                _ => None,
            }
        }
    };
    (@gate_fn [$($arms:tt)*] [] $g:ident [$($fb:ident)?] $($rest:tt)*) => {
        rows_data!(@gate_fn [$($arms)*] $($rest)*);
    };
    (@gate_fn [$($arms:tt)*] [$($op:tt)+] $g:ident [$($fb:ident)?] $($rest:tt)*) => {
        rows_data!(@gate_fn [$($arms)* $($op)+ => Some((rows_data!(@gate $g), rows_data!(@has_fallback $($fb)?))),] $($rest)*);
    };
    (@has_fallback) => { false };
    (@has_fallback $fb:ident) => { true };
    (@gate always) => { Gate::Always };
    (@gate below_sm70) => { Gate::BelowSm70 };
    (@gate sm70) => { Gate::Sm70 };
    (@gate sm80) => { Gate::Sm80 };
    (@gate sm90) => { Gate::Sm90 };
    (@gate sm100a) => { Gate::Sm100a };
    (@kind warp) => { Kind::Warp };
    (@kind block) => { Kind::Block };
    (@kind pure) => { Kind::Pure };
    (@fallback) => { None };
    (@fallback rank_tree) => {
        Some("one `vote.sync.ballot.b32` and a tree of six `shfl.sync.idx.b32` over the non-exited lanes of membermask")
    };
    (@fallback rank_tree_f32) => {
        Some("one `vote.sync.ballot.b32` and a tree of six `shfl.sync.idx.b32`, combining with the spec's `.f32` rules")
    };
    (@fallback ballot_lowest) => { Some("one `vote.sync.ballot.b32`, electing the lowest non-exited lane of membermask") };
    (@op) => { None };
    (@op $($op:tt)+) => { Some($($op)+) };
    (@conf yes) => { true };
    (@conf no) => { false };
}

#[cfg(not(target_arch = "nvptx64"))]
mod rows {
    use super::{Gate, Kind, Row};
    use crate::op::{BarKind, BarOp, BarRed, Op};
    use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
    use crate::semantics::shfl::ShflMode;
    use crate::semantics::vote::VoteMode;

    crate::isa_rows!(rows_data);
}
#[cfg(not(target_arch = "nvptx64"))]
pub use rows::ROWS;
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use rows::gate_of;

/// One `#[inline(always)]` function per row whose body is the row's instruction (nvptx64).
///
/// The rows are normalised first: each operand becomes `[name class]`, each result
/// `[name class]`, so that one muncher can sort them into the asm's predicate declarations,
/// `setp`/`selp` moves and register operands.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_nvptx_fns {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ($($arg:ident : $aty:ident),*) -> ($($out:ident : $oty:ident),*)
            = $mn:literal $ops:literal;
            gate $gate:ident $(fallback $fb:ident)?; kind $kind:ident; op [$($op:tt)*]; conf $conf:ident;
    )*) => {$(
        $crate::__isa_gated! { $gate
            $(#[doc = $doc])*
            #[doc = ""]
            #[doc = concat!("`", $mn, " ", $ops, ";`")]
            #[inline(always)]
            pub fn $name($($arg: $crate::__isa_ty!($aty)),*) -> $crate::__isa_ret_ty!($($oty)*) {
                $( let $out: $crate::__isa_reg_ty!($oty); )*
                // SAFETY: one PTX instruction on registers; it touches memory only as the
                // instruction itself does (a barrier's ordering), which the asm's lack of
                // `nomem` tells the compiler.
                unsafe {
                    $crate::__isa_asm!(
                        @munch $kind [$mn $ops] [] [] [] []
                        $([$arg $aty])* ; $([$out $oty])*
                    );
                }
                $crate::__isa_ret!($($out $oty)*)
            }
        }
    )*};
}

/// Sorts a row's operands into the pieces of its `asm!` (see `__isa_nvptx_fns`).
/// Accumulators: [predicate declarations] [setp lines] [selp lines] [register operands].
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_asm {
    // Inputs.
    (@munch $k:ident $i:tt [$($d:tt)*] [$($pre:tt)*] [$($post:tt)*] [$($o:tt)*] [$a:ident pred] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i
            [$($d)* concat!(".reg .pred ", stringify!($a), ";"),]
            [$($pre)* concat!("setp.ne.u32 ", stringify!($a), ", {", stringify!($a), "}, 0;"),]
            [$($post)*]
            [$($o)* $a = in(reg32) $a as u32,]
            $($rest)*)
    };
    (@munch $k:ident $i:tt $d:tt $pre:tt $post:tt [$($o:tt)*] [$a:ident u64] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i $d $pre $post [$($o)* $a = in(reg64) $a,] $($rest)*)
    };
    (@munch $k:ident $i:tt $d:tt $pre:tt $post:tt [$($o:tt)*] [$a:ident $t:ident] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i $d $pre $post [$($o)* $a = in(reg32) $a,] $($rest)*)
    };
    // Outputs (after the `;`).
    (@munch $k:ident $i:tt [$($d:tt)*] $pre:tt [$($post:tt)*] [$($o:tt)*] ; [$a:ident pred] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i
            [$($d)* concat!(".reg .pred ", stringify!($a), ";"),]
            $pre
            [$($post)* concat!("selp.u32 {", stringify!($a), "}, 1, 0, ", stringify!($a), ";"),]
            [$($o)* $a = out(reg32) $a,]
            ; $($rest)*)
    };
    (@munch $k:ident $i:tt $d:tt $pre:tt $post:tt [$($o:tt)*] ; [$a:ident u64] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i $d $pre $post [$($o)* $a = out(reg64) $a,] ; $($rest)*)
    };
    (@munch $k:ident $i:tt $d:tt $pre:tt $post:tt [$($o:tt)*] ; [$a:ident $t:ident] $($rest:tt)*) => {
        $crate::__isa_asm!(@munch $k $i $d $pre $post [$($o)* $a = out(reg32) $a,] ; $($rest)*)
    };
    // Done: without predicates, the bare instruction; with them, a scope for their registers.
    (@munch pure [$mn:literal $ops:literal] [] [] [] [$($o:tt)*] ;) => {
        core::arch::asm!(concat!($mn, " ", $ops, ";"), $($o)* options(pure, nomem, nostack))
    };
    (@munch $k:ident [$mn:literal $ops:literal] [] [] [] [$($o:tt)*] ;) => {
        core::arch::asm!(concat!($mn, " ", $ops, ";"), $($o)*)
    };
    (@munch $k:ident [$mn:literal $ops:literal] [$($d:tt)+] [$($pre:tt)*] [$($post:tt)*] [$($o:tt)*] ;) => {
        core::arch::asm!("{{", $($d)+ $($pre)* concat!($mn, " ", $ops, ";"), $($post)* "}}", $($o)*)
    };
}

/// A row's `cfg` for its gate.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_gated {
    (always $($item:tt)*) => { $($item)* };
    (below_sm70 $($item:tt)*) => { #[cfg(not(target_feature = "sm_70"))] $($item)* };
    (sm70 $($item:tt)*) => { #[cfg(target_feature = "sm_70")] $($item)* };
    (sm80 $($item:tt)*) => { #[cfg(target_feature = "sm_80")] $($item)* };
    (sm90 $($item:tt)*) => { #[cfg(target_feature = "sm_90")] $($item)* };
    (sm100a $($item:tt)*) => { #[cfg(target_feature = "sm_100a")] $($item)* };
}

/// The Rust type of an operand class.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_ty {
    (pred) => { bool };
    ($t:ident) => { $t };
}

/// The register a result of a class is read into (predicates through a `u32`).
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_reg_ty {
    (pred) => { u32 };
    ($t:ident) => { $t };
}

/// A row's return type: nothing, one value, or `(d, p)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_ret_ty {
    () => { () };
    ($t:ident) => { $crate::__isa_ty!($t) };
    ($t:ident $u:ident) => { ($crate::__isa_ty!($t), $crate::__isa_ty!($u)) };
}

/// A row's return value.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_ret {
    () => { () };
    ($a:ident pred) => { $a != 0 };
    ($a:ident $t:ident) => { $a };
    ($a:ident $t:ident $b:ident $u:ident) => { ($crate::__isa_ret!($a $t), $crate::__isa_ret!($b $u)) };
}

/// Conformance kernels, one per row marked `conf yes` (used by the kernel crate `ptx/`):
/// `conf_<name>(active, <each operand as an array>, <each result as an array>)`. Thread
/// `t = %ctaid.x * %ntid.x + %tid.x` returns at once when `active[t] == 0` (an exited lane);
/// otherwise it executes the instruction on element `t` of each operand array and writes element
/// `t` of each result array (a predicate as 0 or 1, in a `u32`).
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_conformance {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ($($arg:ident : $aty:ident),*) -> ($($out:ident : $oty:ident),*)
            = $mn:literal $ops:literal;
            gate $gate:ident $(fallback $fb:ident)?; kind $kind:ident; op [$($op:tt)*]; conf $conf:ident;
    )*) => {$(
        $crate::__isa_conformance!(@one $conf $gate $name ($($arg : $aty),*) -> ($($out : $oty),*) $mn $ops);
    )*};
    (@one no $($rest:tt)*) => {};
    (@one yes $gate:ident $name:ident ($($arg:ident : $aty:ident),*) -> ($($out:ident : $oty:ident),*) $mn:literal $ops:literal) => {
        $crate::__isa_gated! { $gate
            #[doc = concat!("Conformance kernel of `", $mn, " ", $ops, ";`.")]
            #[export_name = concat!("conf_", stringify!($name))]
            pub unsafe extern "ptx-kernel" fn $name(
                active: *const u32,
                $($arg: *const $crate::__isa_mem_ty!($aty),)*
                $($out: *mut $crate::__isa_mem_ty!($oty),)*
            ) {
                let t = ($crate::nvptx::ctaid_x() as usize) * ($crate::nvptx::ntid_x() as usize)
                    + ($crate::nvptx::tid_x() as usize);
                if *active.add(t) == 0 {
                    return;
                }
                let r = $crate::nvptx::$name($($crate::__isa_load!($aty, $arg, t)),*);
                $crate::__isa_store!(r, t; $($out $oty)*);
            }
        }
    };
}

/// The element type of a conformance kernel's array for an operand class.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_mem_ty {
    (pred) => { u32 };
    ($t:ident) => { $t };
}

/// Element `t` of an operand array, as the operand.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_load {
    (pred, $a:ident, $t:ident) => { *$a.add($t) != 0 };
    ($ty:ident, $a:ident, $t:ident) => { *$a.add($t) };
}

/// Stores a row's results at element `t` of the result arrays.
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_store {
    ($r:ident, $t:ident;) => { let () = $r; };
    ($r:ident, $t:ident; $a:ident $at:ident) => { *$a.add($t) = $crate::__isa_to_mem!($at, $r); };
    ($r:ident, $t:ident; $a:ident $at:ident $b:ident $bt:ident) => {
        *$a.add($t) = $crate::__isa_to_mem!($at, $r.0);
        *$b.add($t) = $crate::__isa_to_mem!($bt, $r.1);
    };
}

/// A result as its array element (a predicate as 0 or 1).
#[doc(hidden)]
#[macro_export]
macro_rules! __isa_to_mem {
    (pred, $v:expr) => { $v as u32 };
    ($t:ident, $v:expr) => { $v };
}
