//! PTX warp instructions, one function each, for `nvptx64-nvidia-cuda`.
//!
//! Every function is `#[inline(always)]` and its body is one inline-`asm!` PTX instruction. Where PTX
//! wants a predicate, the asm opens a `{ .reg .pred p; ... }` scope and moves the predicate in with
//! `setp.ne.u32` or out with `selp.u32`, because Rust's nvptx asm has no predicate register class
//! (operands are `reg32` / `reg64`). Results are returned as plain values: `(d, p)` pairs where the
//! instruction has both a destination and a predicate.
//!
//! # Ordering
//!
//! None of the warp-synchronous instructions uses the `pure` or `nomem` asm options: each asm block is
//! a side effect that may touch memory, so the compiler neither deletes, merges, hoists nor sinks it
//! past memory accesses. `activemask` is not pure either (its value depends on the control flow that
//! reaches it). Only `laneid` and the `lanemask_*` reads, which are constant for a thread, are
//! `pure, nomem`. (Whether the compiler may *duplicate* an asm block into several branches is a
//! separate question: see the PTX crate's docs and `cargo xtask ptx`, which checks the emitted IR.)
//!
//! # Safety contract
//!
//! The functions are safe to call in Rust's sense (they touch no memory), but PTX calls the result
//! undefined if the executing thread is not in `membermask`, if a `shfl` source lane is inactive or
//! not in `membermask`, and so on; the lockstep host runtime reports those cases, the GPU does not.
//!
//! # Target gating
//!
//! Checked with rustc 1.97.0-nightly (2026-05-19):
//! `rustc +nightly --print cfg --target nvptx64-nvidia-cuda -C target-cpu=sm_90` prints
//! `target_feature="sm_70"`, `"sm_72"`, `"sm_75"`, `"sm_80"`, `"sm_86"`, `"sm_87"`, `"sm_89"`,
//! `"sm_90"`: rustc **does** expose the nvptx `sm_*` features to `cfg`, and each `target-cpu` implies
//! every lower sm (sm_100a gives `sm_100`, `sm_100a` and sm_70..sm_90; sm_90a gives `sm_90a` too; the
//! `a` features do not imply each other, e.g. sm_120a does not give `sm_100a`). The lowest
//! target-cpu rustc lists is `sm_70` (the default, with `ptx70`); `-C target-cpu=sm_60` is still
//! accepted by LLVM but sets no `sm_*` cfg at all, which is what the deprecated `vote` gate uses.
//! So each instruction below is compiled only where its minimum target holds:
//!
//! | function | PTX instruction | minimum target (cfg gate) |
//! |---|---|---|
//! | `shfl_sync_up` / `_down` / `_bfly` / `_idx` | `shfl.sync.{up,down,bfly,idx}.b32 d\|p, a, b, c, membermask` | sm_30 (always) |
//! | `vote_sync_all` / `_any` / `_uni` | `vote.sync.{all,any,uni}.pred d, a, membermask` | sm_30 (always) |
//! | `vote_sync_ballot` | `vote.sync.ballot.b32 d, a, membermask` | sm_30 (always) |
//! | `vote_all` / `vote_any` / `vote_uni` | `vote.{all,any,uni}.pred d, a` (deprecated) | below sm_70 only: `not(target_feature = "sm_70")` |
//! | `vote_ballot` | `vote.ballot.b32 d, a` (deprecated) | below sm_70 only |
//! | `match_any_sync_b32` / `_b64` | `match.any.sync.{b32,b64} d, a, membermask` | sm_70: `target_feature = "sm_70"` |
//! | `match_all_sync_b32` / `_b64` | `match.all.sync.{b32,b64} d\|p, a, membermask` | sm_70 |
//! | `redux_sync_{add,min,max}_u32` | `redux.sync.{add,min,max}.u32 d, a, membermask` | sm_80: `target_feature = "sm_80"` |
//! | `redux_sync_{add,min,max}_s32` | `redux.sync.{add,min,max}.s32 d, a, membermask` | sm_80 |
//! | `redux_sync_{and,or,xor}_b32` | `redux.sync.{and,or,xor}.b32 d, a, membermask` | sm_80 |
//! | `redux_sync_{min,max}[_abs][_nan]_f32` | `redux.sync.{min,max}{.abs}{.NaN}.f32 d, a, membermask` | sm_100a (PTX 8.6): `target_feature = "sm_100a"` |
//! | `activemask` | `activemask.b32 d` | sm_30 (always) |
//! | `bar_warp_sync` | `bar.warp.sync membermask` | sm_30 (always) |
//! | `elect_sync` | `elect.sync d\|p, membermask` | sm_90: `target_feature = "sm_90"` |
//! | `laneid` | `mov.u32 d, %laneid` | always |
//! | `lanemask_{eq,lt,le,gt,ge}` | `mov.u32 d, %lanemask_{eq,lt,le,gt,ge}` | always (sm_20+) |
//!
//! The `.f32` redux is also legal on the sm_100f family from PTX 8.8, but `sm_100f` is an LLVM
//! code-generation feature that rustc does not expose to `cfg`, so only `sm_100a` enables it here.

use core::arch::asm;

// ---------------------------------------------------------------------------------------------
// shfl.sync
// ---------------------------------------------------------------------------------------------

macro_rules! shfl_sync {
    ($(#[$doc:meta])* $name:ident, $instr:literal) => {
        $(#[$doc])*
        ///
        /// Returns `(d, p)`: the value read and whether the source lane was in range.
        #[inline(always)]
        pub fn $name(a: u32, b: u32, c: u32, membermask: u32) -> (u32, bool) {
            let d: u32;
            let p: u32;
            unsafe {
                asm!(
                    "{{",
                    ".reg .pred p;",
                    concat!($instr, " {d}|p, {a}, {b}, {c}, {m};"),
                    "selp.u32 {p}, 1, 0, p;",
                    "}}",
                    d = out(reg32) d,
                    p = out(reg32) p,
                    a = in(reg32) a,
                    b = in(reg32) b,
                    c = in(reg32) c,
                    m = in(reg32) membermask,
                );
            }
            (d, p != 0)
        }
    };
}

shfl_sync!(
    /// `shfl.sync.up.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid - b`.
    shfl_sync_up, "shfl.sync.up.b32"
);
shfl_sync!(
    /// `shfl.sync.down.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid + b`.
    shfl_sync_down, "shfl.sync.down.b32"
);
shfl_sync!(
    /// `shfl.sync.bfly.b32 d|p, a, b, c, membermask`: read `a` from lane `laneid ^ b`.
    shfl_sync_bfly, "shfl.sync.bfly.b32"
);
shfl_sync!(
    /// `shfl.sync.idx.b32 d|p, a, b, c, membermask`: read `a` from lane `b` (within the segment).
    shfl_sync_idx, "shfl.sync.idx.b32"
);

// ---------------------------------------------------------------------------------------------
// vote.sync
// ---------------------------------------------------------------------------------------------

macro_rules! vote_sync_pred {
    ($(#[$doc:meta])* $name:ident, $instr:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(pred: bool, membermask: u32) -> bool {
            let d: u32;
            unsafe {
                asm!(
                    "{{",
                    ".reg .pred a, d;",
                    "setp.ne.u32 a, {a}, 0;",
                    concat!($instr, " d, a, {m};"),
                    "selp.u32 {d}, 1, 0, d;",
                    "}}",
                    d = out(reg32) d,
                    a = in(reg32) pred as u32,
                    m = in(reg32) membermask,
                );
            }
            d != 0
        }
    };
}

vote_sync_pred!(
    /// `vote.sync.all.pred d, a, membermask`: `pred` holds in every non-exited lane of `membermask`.
    vote_sync_all, "vote.sync.all.pred"
);
vote_sync_pred!(
    /// `vote.sync.any.pred d, a, membermask`: `pred` holds in some lane of `membermask`.
    vote_sync_any, "vote.sync.any.pred"
);
vote_sync_pred!(
    /// `vote.sync.uni.pred d, a, membermask`: `pred` is the same in every non-exited lane of `membermask`.
    vote_sync_uni, "vote.sync.uni.pred"
);

/// `vote.sync.ballot.b32 d, a, membermask`: bit `i` is lane `i`'s `pred` (0 outside `membermask`).
#[inline(always)]
pub fn vote_sync_ballot(pred: bool, membermask: u32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "{{",
            ".reg .pred a;",
            "setp.ne.u32 a, {a}, 0;",
            "vote.sync.ballot.b32 {d}, a, {m};",
            "}}",
            d = out(reg32) d,
            a = in(reg32) pred as u32,
            m = in(reg32) membermask,
        );
    }
    d
}

// ---------------------------------------------------------------------------------------------
// vote (deprecated, no .sync): removed for sm_70+ at PTX 6.4, so only below sm_70
// ---------------------------------------------------------------------------------------------

macro_rules! vote_pred {
    ($(#[$doc:meta])* $name:ident, $instr:literal) => {
        $(#[$doc])*
        ///
        /// Deprecated PTX; compiled only when the target is below sm_70 (`not(target_feature = "sm_70")`).
        #[cfg(not(target_feature = "sm_70"))]
        #[inline(always)]
        pub fn $name(pred: bool) -> bool {
            let d: u32;
            unsafe {
                asm!(
                    "{{",
                    ".reg .pred a, d;",
                    "setp.ne.u32 a, {a}, 0;",
                    concat!($instr, " d, a;"),
                    "selp.u32 {d}, 1, 0, d;",
                    "}}",
                    d = out(reg32) d,
                    a = in(reg32) pred as u32,
                );
            }
            d != 0
        }
    };
}

vote_pred!(
    /// `vote.all.pred d, a`: `pred` holds in every active lane of the warp.
    vote_all, "vote.all.pred"
);
vote_pred!(
    /// `vote.any.pred d, a`: `pred` holds in some active lane of the warp.
    vote_any, "vote.any.pred"
);
vote_pred!(
    /// `vote.uni.pred d, a`: `pred` is the same in every active lane of the warp.
    vote_uni, "vote.uni.pred"
);

/// `vote.ballot.b32 d, a`: bit `i` is active lane `i`'s `pred`.
///
/// Deprecated PTX; compiled only when the target is below sm_70 (`not(target_feature = "sm_70")`).
#[cfg(not(target_feature = "sm_70"))]
#[inline(always)]
pub fn vote_ballot(pred: bool) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "{{",
            ".reg .pred a;",
            "setp.ne.u32 a, {a}, 0;",
            "vote.ballot.b32 {d}, a;",
            "}}",
            d = out(reg32) d,
            a = in(reg32) pred as u32,
        );
    }
    d
}

// ---------------------------------------------------------------------------------------------
// match.sync (sm_70+)
// ---------------------------------------------------------------------------------------------

/// `match.any.sync.b32 d, a, membermask`: the lanes of `membermask` whose `a` equals this lane's.
#[cfg(target_feature = "sm_70")]
#[inline(always)]
pub fn match_any_sync_b32(a: u32, membermask: u32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "match.any.sync.b32 {d}, {a}, {m};",
            d = out(reg32) d,
            a = in(reg32) a,
            m = in(reg32) membermask,
        );
    }
    d
}

/// `match.any.sync.b64 d, a, membermask`: the lanes of `membermask` whose `a` equals this lane's.
#[cfg(target_feature = "sm_70")]
#[inline(always)]
pub fn match_any_sync_b64(a: u64, membermask: u32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "match.any.sync.b64 {d}, {a}, {m};",
            d = out(reg32) d,
            a = in(reg64) a,
            m = in(reg32) membermask,
        );
    }
    d
}

/// `match.all.sync.b32 d|p, a, membermask`: `(mask of the non-exited lanes, true)` if all lanes of
/// `membermask` hold the same `a`, else `(0, false)`.
#[cfg(target_feature = "sm_70")]
#[inline(always)]
pub fn match_all_sync_b32(a: u32, membermask: u32) -> (u32, bool) {
    let d: u32;
    let p: u32;
    unsafe {
        asm!(
            "{{",
            ".reg .pred p;",
            "match.all.sync.b32 {d}|p, {a}, {m};",
            "selp.u32 {p}, 1, 0, p;",
            "}}",
            d = out(reg32) d,
            p = out(reg32) p,
            a = in(reg32) a,
            m = in(reg32) membermask,
        );
    }
    (d, p != 0)
}

/// `match.all.sync.b64 d|p, a, membermask`: `(mask of the non-exited lanes, true)` if all lanes of
/// `membermask` hold the same `a`, else `(0, false)`.
#[cfg(target_feature = "sm_70")]
#[inline(always)]
pub fn match_all_sync_b64(a: u64, membermask: u32) -> (u32, bool) {
    let d: u32;
    let p: u32;
    unsafe {
        asm!(
            "{{",
            ".reg .pred p;",
            "match.all.sync.b64 {d}|p, {a}, {m};",
            "selp.u32 {p}, 1, 0, p;",
            "}}",
            d = out(reg32) d,
            p = out(reg32) p,
            a = in(reg64) a,
            m = in(reg32) membermask,
        );
    }
    (d, p != 0)
}

// ---------------------------------------------------------------------------------------------
// redux.sync (integer and bitwise: sm_80+; f32: sm_100a)
// ---------------------------------------------------------------------------------------------

macro_rules! redux_sync {
    ($(#[$attr:meta])* $name:ident, $ty:ty, $instr:literal) => {
        $(#[$attr])*
        ///
        /// Every participating lane receives the same result.
        #[inline(always)]
        pub fn $name(src: $ty, membermask: u32) -> $ty {
            let d: $ty;
            unsafe {
                asm!(
                    concat!($instr, " {d}, {a}, {m};"),
                    d = out(reg32) d,
                    a = in(reg32) src,
                    m = in(reg32) membermask,
                );
            }
            d
        }
    };
}

redux_sync!(
    /// `redux.sync.add.u32 d, a, membermask` (wrapping sum).
    #[cfg(target_feature = "sm_80")]
    redux_sync_add_u32, u32, "redux.sync.add.u32"
);
redux_sync!(
    /// `redux.sync.min.u32 d, a, membermask`.
    #[cfg(target_feature = "sm_80")]
    redux_sync_min_u32, u32, "redux.sync.min.u32"
);
redux_sync!(
    /// `redux.sync.max.u32 d, a, membermask`.
    #[cfg(target_feature = "sm_80")]
    redux_sync_max_u32, u32, "redux.sync.max.u32"
);
redux_sync!(
    /// `redux.sync.add.s32 d, a, membermask` (wrapping sum).
    #[cfg(target_feature = "sm_80")]
    redux_sync_add_s32, i32, "redux.sync.add.s32"
);
redux_sync!(
    /// `redux.sync.min.s32 d, a, membermask` (signed comparison).
    #[cfg(target_feature = "sm_80")]
    redux_sync_min_s32, i32, "redux.sync.min.s32"
);
redux_sync!(
    /// `redux.sync.max.s32 d, a, membermask` (signed comparison).
    #[cfg(target_feature = "sm_80")]
    redux_sync_max_s32, i32, "redux.sync.max.s32"
);
redux_sync!(
    /// `redux.sync.and.b32 d, a, membermask`.
    #[cfg(target_feature = "sm_80")]
    redux_sync_and_b32, u32, "redux.sync.and.b32"
);
redux_sync!(
    /// `redux.sync.or.b32 d, a, membermask`.
    #[cfg(target_feature = "sm_80")]
    redux_sync_or_b32, u32, "redux.sync.or.b32"
);
redux_sync!(
    /// `redux.sync.xor.b32 d, a, membermask`.
    #[cfg(target_feature = "sm_80")]
    redux_sync_xor_b32, u32, "redux.sync.xor.b32"
);
redux_sync!(
    /// `redux.sync.min.f32 d, a, membermask` (NaN inputs skipped; `-0.0 < +0.0`).
    #[cfg(target_feature = "sm_100a")]
    redux_sync_min_f32, f32, "redux.sync.min.f32"
);
redux_sync!(
    /// `redux.sync.max.f32 d, a, membermask` (NaN inputs skipped; `-0.0 < +0.0`).
    #[cfg(target_feature = "sm_100a")]
    redux_sync_max_f32, f32, "redux.sync.max.f32"
);
redux_sync!(
    /// `redux.sync.min.abs.f32 d, a, membermask`: minimum of the absolute values.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_min_abs_f32, f32, "redux.sync.min.abs.f32"
);
redux_sync!(
    /// `redux.sync.max.abs.f32 d, a, membermask`: maximum of the absolute values.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_max_abs_f32, f32, "redux.sync.max.abs.f32"
);
redux_sync!(
    /// `redux.sync.min.NaN.f32 d, a, membermask`: canonical NaN if any input is NaN.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_min_nan_f32, f32, "redux.sync.min.NaN.f32"
);
redux_sync!(
    /// `redux.sync.max.NaN.f32 d, a, membermask`: canonical NaN if any input is NaN.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_max_nan_f32, f32, "redux.sync.max.NaN.f32"
);
redux_sync!(
    /// `redux.sync.min.abs.NaN.f32 d, a, membermask`.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_min_abs_nan_f32, f32, "redux.sync.min.abs.NaN.f32"
);
redux_sync!(
    /// `redux.sync.max.abs.NaN.f32 d, a, membermask`.
    #[cfg(target_feature = "sm_100a")]
    redux_sync_max_abs_nan_f32, f32, "redux.sync.max.abs.NaN.f32"
);

// ---------------------------------------------------------------------------------------------
// activemask, bar.warp.sync, elect.sync
// ---------------------------------------------------------------------------------------------

/// `activemask.b32 d`: the lanes currently executing this instruction (not a synchronization point).
///
/// Deliberately not `pure`: its value depends on the control flow that reaches it.
#[inline(always)]
pub fn activemask() -> u32 {
    let d: u32;
    unsafe {
        asm!("activemask.b32 {d};", d = out(reg32) d);
    }
    d
}

/// `bar.warp.sync membermask`: wait until every lane of `membermask` reaches a `bar.warp.sync`
/// (also orders memory among them).
#[inline(always)]
pub fn bar_warp_sync(membermask: u32) {
    unsafe {
        asm!("bar.warp.sync {m};", m = in(reg32) membermask);
    }
}

/// `elect.sync d|p, membermask`: `(laneid of the elected leader, whether this lane is the leader)`.
/// On an H100 the leader was always the lowest lane of `membermask`.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn elect_sync(membermask: u32) -> (u32, bool) {
    let d: u32;
    let p: u32;
    unsafe {
        asm!(
            "{{",
            ".reg .pred p;",
            "elect.sync {d}|p, {m};",
            "selp.u32 {p}, 1, 0, p;",
            "}}",
            d = out(reg32) d,
            p = out(reg32) p,
            m = in(reg32) membermask,
        );
    }
    (d, p != 0)
}

// ---------------------------------------------------------------------------------------------
// laneid and lane masks (constant per thread: pure)
// ---------------------------------------------------------------------------------------------

/// `mov.u32 d, %laneid`: this thread's lane number, 0..=31.
#[inline(always)]
pub fn laneid() -> u32 {
    let d: u32;
    unsafe {
        asm!("mov.u32 {d}, %laneid;", d = out(reg32) d, options(pure, nomem, nostack));
    }
    d
}

/// A special register read: `mov.u32 d, %sreg;` (constant per thread, so `pure`).
macro_rules! sreg {
    ($(#[$doc:meta])* $name:ident, $sreg:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            let d: u32;
            unsafe {
                asm!(
                    concat!("mov.u32 {d}, ", $sreg, ";"),
                    d = out(reg32) d,
                    options(pure, nomem, nostack),
                );
            }
            d
        }
    };
}

sreg!(
    /// `mov.u32 d, %lanemask_eq`: the bit of this lane.
    lanemask_eq, "%lanemask_eq"
);
sreg!(
    /// `mov.u32 d, %lanemask_lt`: the bits of the lanes below this one.
    lanemask_lt, "%lanemask_lt"
);
sreg!(
    /// `mov.u32 d, %lanemask_le`: the bits of this lane and the lanes below it.
    lanemask_le, "%lanemask_le"
);
sreg!(
    /// `mov.u32 d, %lanemask_gt`: the bits of the lanes above this one.
    lanemask_gt, "%lanemask_gt"
);
sreg!(
    /// `mov.u32 d, %lanemask_ge`: the bits of this lane and the lanes above it.
    lanemask_ge, "%lanemask_ge"
);

// ---------------------------------------------------------------------------------------------
// thread position and bit search (used by the device handle; constant per thread: pure)
// ---------------------------------------------------------------------------------------------

sreg!(
    /// `mov.u32 d, %tid.x`: the thread's index in its CTA (x dimension).
    tid_x, "%tid.x"
);
sreg!(
    /// `mov.u32 d, %ntid.x`: the CTA size (x dimension).
    ntid_x, "%ntid.x"
);
sreg!(
    /// `mov.u32 d, %ctaid.x`: the CTA's index in the grid (x dimension).
    ctaid_x, "%ctaid.x"
);

/// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit of `mask` at or above
/// `base` (`offset` 1 is the first), or `0xffffffff` if there is none. Not a warp instruction; the
/// device handle's `redux.sync` fallback uses it to find the lane of a given rank (sm_20+).
#[inline(always)]
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "fns.b32 {d}, {m}, {b}, {o};",
            d = out(reg32) d,
            m = in(reg32) mask,
            b = in(reg32) base,
            o = in(reg32) offset,
            options(pure, nomem, nostack),
        );
    }
    d
}
