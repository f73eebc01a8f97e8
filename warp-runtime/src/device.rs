//! The device lane handle (`nvptx64` only): the same [`Warp`] API as the host runtime's handle, with
//! every intrinsic returning its result directly.
//!
//! On the host, `Warp::shfl_down(v, 1)` returns a future that the lockstep executor completes; here
//! the same call is one `shfl.sync.down.b32` (two for an 8-byte value), executed at once by the
//! hardware. `#[warp_kernel]` keeps a function's body unchanged for nvptx64, so the method names and
//! argument lists below are exactly those of the host handle (`warp_runtime::handle::Warp`).
//!
//! An entry point makes the handle with [`Warp::current`]:
//!
//! ```ignore
//! #[no_mangle]
//! pub unsafe extern "ptx-kernel" fn sum(x: *const u32, out: *mut u32) {
//!     let w = Warp::current();
//!     let t = w.global_id() as usize;
//!     *out.add(t) = w.redux_add(*x.add(t));
//! }
//! ```
//!
//! # Targets
//!
//! Each intrinsic is compiled from the instruction of the configured `-C target-cpu` (rustc exposes
//! it as `target_feature = "sm_*"`, see [`crate::nvptx`]). Where the target lacks the instruction
//! the handle either uses a fallback built from older instructions, or the call does not compile
//! and the error names the minimum target:
//!
//! | method | instruction | below its minimum target |
//! |---|---|---|
//! | `lane_id`, `lanemask_*`, `warp_index`, `global_id` | `%laneid`, `%lanemask_*`, `%ctaid.x`/`%ntid.x`/`%tid.x` | (all targets) |
//! | `shfl*` | `shfl.sync.{up,down,bfly,idx}.b32` (x2 for 8-byte values) | (all targets) |
//! | `vote`, `ballot`, `all`, `any`, `uni`, `none`, `not_all` | `vote.sync.*` | (all targets) |
//! | `vote_legacy` | `vote.{all,any,uni,ballot}` (no `.sync`) | compile error on sm_70 and above (removed there) |
//! | `activemask`, `syncwarp` | `activemask.b32`, `bar.warp.sync` | (all targets) |
//! | `match_any`, `match_all` | `match.{any,all}.sync.{b32,b64}` (sm_70) | compile error naming sm_70 |
//! | `redux_add/min/max/and/or/xor` on `u32`/`i32` | `redux.sync.*` (sm_80) | fallback: `vote.sync.ballot` + 6 `shfl.sync.idx` (rank tree) |
//! | `redux_min/max` on `f32`, `redux_f32`, `redux_{min,max}_abs{_nan}`, `redux_{min,max}_nan` | `redux.sync.{min,max}{.abs}{.NaN}.f32` (sm_100a) | fallback: the same rank tree with the spec's f32 rules |
//! | `elect` | `elect.sync` (sm_90) | fallback: `vote.sync.ballot`, lowest lane (what an H100 elects) |
//!
//! The fallbacks reduce over the non-exited lanes of the membermask exactly as the instruction does:
//! `vote.sync.ballot.b32 1` names them, each lane finds its rank among them, and a shuffle tree over
//! ranks (`shfl.sync.idx` with the same membermask, every source a participant) leaves the result in
//! the lowest one, which then broadcasts it.

use core::marker::PhantomData;

use crate::nvptx;

/// The membermask naming all 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

pub use crate::semantics::redux::{FloatRedux, CANONICAL_NAN_F32};
pub use crate::semantics::shfl::{width_c, ShflMode};
pub use crate::semantics::vote::VoteMode;
use crate::semantics::redux::ReduxType;
use crate::value::{MinMaxType, ReduxBits, ReduxInt, ReduxMinMax, WarpValue};

// ---- integer redux: native on sm_80+, rank tree below ----

#[cfg(target_feature = "sm_80")]
mod int_redux {
    use crate::nvptx as n;
    #[inline(always)]
    pub fn add_u32(a: u32, m: u32) -> u32 {
        n::redux_sync_add_u32(a, m)
    }
    #[inline(always)]
    pub fn add_s32(a: i32, m: u32) -> i32 {
        n::redux_sync_add_s32(a, m)
    }
    #[inline(always)]
    pub fn min_u32(a: u32, m: u32) -> u32 {
        n::redux_sync_min_u32(a, m)
    }
    #[inline(always)]
    pub fn max_u32(a: u32, m: u32) -> u32 {
        n::redux_sync_max_u32(a, m)
    }
    #[inline(always)]
    pub fn min_s32(a: i32, m: u32) -> i32 {
        n::redux_sync_min_s32(a, m)
    }
    #[inline(always)]
    pub fn max_s32(a: i32, m: u32) -> i32 {
        n::redux_sync_max_s32(a, m)
    }
    #[inline(always)]
    pub fn and_b32(a: u32, m: u32) -> u32 {
        n::redux_sync_and_b32(a, m)
    }
    #[inline(always)]
    pub fn or_b32(a: u32, m: u32) -> u32 {
        n::redux_sync_or_b32(a, m)
    }
    #[inline(always)]
    pub fn xor_b32(a: u32, m: u32) -> u32 {
        n::redux_sync_xor_b32(a, m)
    }
}

#[cfg(not(target_feature = "sm_80"))]
mod int_redux {
    use super::redux_tree as t;
    #[inline(always)]
    pub fn add_u32(a: u32, m: u32) -> u32 {
        t(a, m, u32::wrapping_add)
    }
    #[inline(always)]
    pub fn add_s32(a: i32, m: u32) -> i32 {
        t(a as u32, m, u32::wrapping_add) as i32
    }
    #[inline(always)]
    pub fn min_u32(a: u32, m: u32) -> u32 {
        t(a, m, |x: u32, y: u32| x.min(y))
    }
    #[inline(always)]
    pub fn max_u32(a: u32, m: u32) -> u32 {
        t(a, m, |x: u32, y: u32| x.max(y))
    }
    #[inline(always)]
    pub fn min_s32(a: i32, m: u32) -> i32 {
        t(a as u32, m, |x: u32, y: u32| (x as i32).min(y as i32) as u32) as i32
    }
    #[inline(always)]
    pub fn max_s32(a: i32, m: u32) -> i32 {
        t(a as u32, m, |x: u32, y: u32| (x as i32).max(y as i32) as u32) as i32
    }
    #[inline(always)]
    pub fn and_b32(a: u32, m: u32) -> u32 {
        t(a, m, |x: u32, y: u32| x & y)
    }
    #[inline(always)]
    pub fn or_b32(a: u32, m: u32) -> u32 {
        t(a, m, |x: u32, y: u32| x | y)
    }
    #[inline(always)]
    pub fn xor_b32(a: u32, m: u32) -> u32 {
        t(a, m, |x: u32, y: u32| x ^ y)
    }
}

/// `redux.sync.add` for `T`, dispatched on its instruction type (a constant).
#[inline(always)]
fn redux_add<T: ReduxInt>(v: T, m: u32) -> T {
    T::from_word(match T::TYPE {
        ReduxType::S32 => int_redux::add_s32(v.to_word() as i32, m) as u32,
        _ => int_redux::add_u32(v.to_word(), m),
    })
}

/// `redux.sync.{min,max}` for `T`, dispatched on its instruction type (a constant).
#[inline(always)]
fn redux_min_max<T: ReduxMinMax>(v: T, max: bool, m: u32) -> T {
    let w = v.to_word();
    T::from_word(match (T::TYPE, max) {
        (MinMaxType::U32, false) => int_redux::min_u32(w, m),
        (MinMaxType::U32, true) => int_redux::max_u32(w, m),
        (MinMaxType::S32, false) => int_redux::min_s32(w as i32, m) as u32,
        (MinMaxType::S32, true) => int_redux::max_s32(w as i32, m) as u32,
        (MinMaxType::F32, _) => redux_f32_bits(w, FloatRedux { max, abs: false, nan: false }, m),
    })
}

// ---- f32 redux: native on sm_100a, rank tree below ----

#[cfg(target_feature = "sm_100a")]
#[inline(always)]
fn redux_f32_bits(a: u32, q: FloatRedux, m: u32) -> u32 {
    use crate::nvptx as n;
    let a = f32::from_bits(a);
    let d = match (q.max, q.abs, q.nan) {
        (false, false, false) => n::redux_sync_min_f32(a, m),
        (true, false, false) => n::redux_sync_max_f32(a, m),
        (false, true, false) => n::redux_sync_min_abs_f32(a, m),
        (true, true, false) => n::redux_sync_max_abs_f32(a, m),
        (false, false, true) => n::redux_sync_min_nan_f32(a, m),
        (true, false, true) => n::redux_sync_max_nan_f32(a, m),
        (false, true, true) => n::redux_sync_min_abs_nan_f32(a, m),
        (true, true, true) => n::redux_sync_max_abs_nan_f32(a, m),
    };
    d.to_bits()
}

/// The PTX rules for `redux.sync.{min,max}{.abs}{.NaN}.f32`, as a combining step: "+0.0 > -0.0";
/// with `.abs` the absolute values; with `.NaN` any NaN gives the canonical NaN, without it NaN
/// inputs are skipped and the result is the canonical NaN only when all inputs are NaN.
#[cfg(not(target_feature = "sm_100a"))]
#[inline(always)]
fn redux_f32_bits(a: u32, q: FloatRedux, m: u32) -> u32 {
    let a = if q.abs { a & 0x7fff_ffff } else { a };
    let is_nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    let r = redux_tree(a, m, move |x: u32, y: u32| {
        match (is_nan(x), is_nan(y)) {
            (true, _) if q.nan => CANONICAL_NAN_F32,
            (_, true) if q.nan => CANONICAL_NAN_F32,
            (true, _) => y,
            (_, true) => x,
            _ => {
                // total order on non-NaN floats: -0.0 < +0.0, otherwise as `<`.
                let o = f32::from_bits(x).total_cmp(&f32::from_bits(y));
                if o.is_lt() != q.max {
                    x
                } else {
                    y
                }
            }
        }
    });
    if is_nan(r) {
        CANONICAL_NAN_F32
    } else {
        r
    }
}

/// The reduction of `a` over the non-exited lanes of `membermask` with the associative and
/// commutative `op`, in every one of them: the fallback for `redux.sync` below its target.
///
/// `vote.sync.ballot.b32 1` names the participants; lane of rank `r` then combines the partial
/// result of rank `r + 2^k` for `k = 0..5` (when that rank exists), which leaves each participant
/// counted exactly once in rank 0, the lowest participant; it broadcasts the result. Every
/// `shfl.sync.idx` has the instruction's membermask and sources a participant.
#[cfg_attr(all(target_feature = "sm_80", target_feature = "sm_100a"), allow(dead_code))]
#[inline(always)]
fn redux_tree(a: u32, membermask: u32, op: impl Fn(u32, u32) -> u32) -> u32 {
    let part = nvptx::vote_sync_ballot(true, membermask);
    let lane = nvptx::laneid();
    let rank = (part & nvptx::lanemask_lt()).count_ones();
    let n = part.count_ones();
    let mut acc = a;
    let mut off = 1;
    while off < 32 {
        let src_rank = rank + off;
        // fns counts from 1 and gives 0xffffffff past the last participant; a lane without a
        // partner reads itself. Branch-free on purpose: with `if`, LLVM tail-duplicated the
        // shuffle into both arms (two `shfl.sync` at different addresses, each run by some lanes).
        let found = nvptx::fns(part, 0, src_rank as i32 + 1);
        let none = 0u32.wrapping_sub(found >> 31);
        let src = (found & !none) | (lane & none);
        let (v, _) = nvptx::shfl_sync_idx(acc, src, 0x1f, membermask);
        if src_rank < n {
            acc = op(acc, v);
        }
        off <<= 1;
    }
    nvptx::shfl_sync_idx(acc, part.trailing_zeros(), 0x1f, membermask).0
}

// ---------------------------------------------------------------------------------------------
// Compile errors for instructions the target lacks
// ---------------------------------------------------------------------------------------------

/// Implemented for the handle when the target has `match.sync` (sm_70).
#[diagnostic::on_unimplemented(
    message = "`match_any`/`match_all` are `match.{{any,all}}.sync`, which need sm_70: build with `-C target-cpu=sm_70` or higher",
    label = "needs sm_70 (`match.sync`)"
)]
pub trait HasMatchSync {}
#[cfg(target_feature = "sm_70")]
impl HasMatchSync for Warp<'_> {}

/// Implemented for the handle when the target still has the deprecated `vote` without `.sync`
/// (below sm_70).
#[diagnostic::on_unimplemented(
    message = "`vote_legacy` is the deprecated `vote` without `.sync`, which PTX removed for sm_70 and above: use `vote`/`ballot`/`all`/`any`/`uni` (vote.sync), or build for a target below sm_70",
    label = "not available on sm_70 and above"
)]
pub trait HasLegacyVote {}
#[cfg(not(target_feature = "sm_70"))]
impl HasLegacyVote for Warp<'_> {}

// ---------------------------------------------------------------------------------------------
// The handle
// ---------------------------------------------------------------------------------------------

/// One lane's handle to its warp, or to a tile or membermask group of it (device side).
///
/// Zero-cost: the membermask and the shuffle width, which are constants wherever the kernel
/// writes them as constants.
#[derive(Clone, Copy, Debug)]
pub struct Warp<'w> {
    mask: u32,
    width: u32,
    _lane: PhantomData<&'w ()>,
}

#[inline(always)]
fn shfl32(mode: ShflMode, a: u32, b: u32, c: u32, m: u32) -> (u32, bool) {
    match mode {
        ShflMode::Up => nvptx::shfl_sync_up(a, b, c, m),
        ShflMode::Down => nvptx::shfl_sync_down(a, b, c, m),
        ShflMode::Bfly => nvptx::shfl_sync_bfly(a, b, c, m),
        ShflMode::Idx => nvptx::shfl_sync_idx(a, b, c, m),
    }
}

/// One `shfl.sync` per 32-bit word of `value`, all with the same `b`, `c` and membermask.
#[inline(always)]
fn shfl_value<T: WarpValue>(mode: ShflMode, value: T, b: u32, c: u32, m: u32) -> (T, bool) {
    let bits = value.to_bits();
    let (lo, p) = shfl32(mode, bits as u32, b, c, m);
    if T::WORDS == 2 {
        let (hi, _) = shfl32(mode, (bits >> 32) as u32, b, c, m);
        (T::from_bits(lo as u64 | (hi as u64) << 32), p)
    } else {
        (T::from_bits(lo as u64), p)
    }
}

#[inline(always)]
fn vote32(mode: VoteMode, pred: bool, m: u32) -> u32 {
    match mode {
        VoteMode::All => nvptx::vote_sync_all(pred, m) as u32,
        VoteMode::Any => nvptx::vote_sync_any(pred, m) as u32,
        VoteMode::Uni => nvptx::vote_sync_uni(pred, m) as u32,
        VoteMode::Ballot => nvptx::vote_sync_ballot(pred, m),
    }
}

impl Warp<'static> {
    /// The whole warp of the calling thread: the handle an entry point (`extern "ptx-kernel"`)
    /// starts from. Launch blocks whose size is a multiple of 32 so that warps are whole (a partial
    /// last warp is fine: its missing lanes count as exited).
    #[inline(always)]
    pub fn current() -> Warp<'static> {
        Warp { mask: FULL_MASK, width: 32, _lane: PhantomData }
    }
}

impl<'w> Warp<'w> {
    // ---- lane registers ----

    /// `%laneid`: this lane's index in the warp, 0..32.
    #[inline(always)]
    pub fn lane_id(&self) -> u32 {
        nvptx::laneid()
    }
    /// `%lanemask_eq`: the bit of this lane.
    #[inline(always)]
    pub fn lanemask_eq(&self) -> u32 {
        nvptx::lanemask_eq()
    }
    /// `%lanemask_lt`: the bits of lower lanes.
    #[inline(always)]
    pub fn lanemask_lt(&self) -> u32 {
        nvptx::lanemask_lt()
    }
    /// `%lanemask_le`: the bits of this and lower lanes.
    #[inline(always)]
    pub fn lanemask_le(&self) -> u32 {
        nvptx::lanemask_le()
    }
    /// `%lanemask_gt`: the bits of higher lanes.
    #[inline(always)]
    pub fn lanemask_gt(&self) -> u32 {
        nvptx::lanemask_gt()
    }
    /// `%lanemask_ge`: the bits of this and higher lanes.
    #[inline(always)]
    pub fn lanemask_ge(&self) -> u32 {
        nvptx::lanemask_ge()
    }

    /// The warp's index in its launch: `global_id() / 32` (1-D launches, blocks of a multiple of
    /// 32 threads).
    #[inline(always)]
    pub fn warp_index(&self) -> u64 {
        self.global_id() / 32
    }
    /// This thread's index in its launch: `%ctaid.x * %ntid.x + %tid.x`.
    #[inline(always)]
    pub fn global_id(&self) -> u64 {
        nvptx::ctaid_x() as u64 * nvptx::ntid_x() as u64 + nvptx::tid_x() as u64
    }

    // ---- groups ----

    /// The membermask this handle's instructions use.
    #[inline(always)]
    pub fn membermask(&self) -> u32 {
        self.mask
    }
    /// The shuffle segment width: 32 for the warp and for membermask groups, the tile width for
    /// tiles.
    #[inline(always)]
    pub fn width(&self) -> u32 {
        self.width
    }
    /// This lane's index within its group: the number of lower lanes of the membermask.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        (self.mask & nvptx::lanemask_lt()).count_ones()
    }
    /// The number of lanes in the group.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.mask.count_ones()
    }

    /// The tile of `width` consecutive lanes (a power of two in 1..=32) that holds this lane.
    ///
    /// # Panics
    /// If `width` is not a power of two in 1..=32 (a `trap` on the device).
    #[inline(always)]
    pub fn tile(&self, width: u32) -> Warp<'w> {
        assert!(width.is_power_of_two() && width <= 32, "tile width is not a power of two in 1..=32");
        let base = nvptx::laneid() & !(width - 1);
        let mask = if width == 32 { FULL_MASK } else { ((1u32 << width) - 1) << base };
        Warp { mask, width, _lane: PhantomData }
    }

    /// The group of lanes named by `membermask`, with whole-warp shuffle segments.
    #[inline(always)]
    pub fn group(&self, membermask: u32) -> Warp<'w> {
        Warp { mask: membermask, width: 32, _lane: PhantomData }
    }

    // ---- shfl.sync ----

    /// `shfl.sync.<mode>.b32` with explicit `b` and `c` and this handle's membermask: `(d, p)`.
    /// An 8-byte value moves as two 32-bit shuffles with the same operands.
    #[inline(always)]
    pub fn shfl<T: WarpValue>(&self, mode: ShflMode, value: T, b: u32, c: u32) -> (T, bool) {
        shfl_value(mode, value, b, c, self.mask)
    }
    /// `__shfl_up_sync` within this handle's segment.
    #[inline(always)]
    pub fn shfl_up<T: WarpValue>(&self, value: T, delta: u32) -> T {
        shfl_value(ShflMode::Up, value, delta, width_c(ShflMode::Up, self.width), self.mask).0
    }
    /// `__shfl_down_sync` within this handle's segment.
    #[inline(always)]
    pub fn shfl_down<T: WarpValue>(&self, value: T, delta: u32) -> T {
        shfl_value(ShflMode::Down, value, delta, width_c(ShflMode::Down, self.width), self.mask).0
    }
    /// `__shfl_xor_sync` within this handle's segment.
    #[inline(always)]
    pub fn shfl_xor<T: WarpValue>(&self, value: T, lane_mask: u32) -> T {
        shfl_value(ShflMode::Bfly, value, lane_mask, width_c(ShflMode::Bfly, self.width), self.mask).0
    }
    /// `__shfl_sync` within this handle's segment.
    #[inline(always)]
    pub fn shfl_idx<T: WarpValue>(&self, value: T, src_lane: u32) -> T {
        shfl_value(ShflMode::Idx, value, src_lane, width_c(ShflMode::Idx, self.width), self.mask).0
    }
    /// [`shfl_up`](Self::shfl_up) with the predicate.
    #[inline(always)]
    pub fn shfl_up_pred<T: WarpValue>(&self, value: T, delta: u32) -> (T, bool) {
        shfl_value(ShflMode::Up, value, delta, width_c(ShflMode::Up, self.width), self.mask)
    }
    /// [`shfl_down`](Self::shfl_down) with the predicate.
    #[inline(always)]
    pub fn shfl_down_pred<T: WarpValue>(&self, value: T, delta: u32) -> (T, bool) {
        shfl_value(ShflMode::Down, value, delta, width_c(ShflMode::Down, self.width), self.mask)
    }
    /// [`shfl_xor`](Self::shfl_xor) with the predicate.
    #[inline(always)]
    pub fn shfl_xor_pred<T: WarpValue>(&self, value: T, lane_mask: u32) -> (T, bool) {
        shfl_value(ShflMode::Bfly, value, lane_mask, width_c(ShflMode::Bfly, self.width), self.mask)
    }
    /// [`shfl_idx`](Self::shfl_idx) with the predicate.
    #[inline(always)]
    pub fn shfl_idx_pred<T: WarpValue>(&self, value: T, src_lane: u32) -> (T, bool) {
        shfl_value(ShflMode::Idx, value, src_lane, width_c(ShflMode::Idx, self.width), self.mask)
    }
    /// CUDA's `__shfl_up_sync(mask, var, delta, width)`.
    #[inline(always)]
    pub fn shfl_up_sync<T: WarpValue>(&self, mask: u32, value: T, delta: u32, width: u32) -> T {
        shfl_value(ShflMode::Up, value, delta, width_c(ShflMode::Up, width), mask).0
    }
    /// CUDA's `__shfl_down_sync(mask, var, delta, width)`.
    #[inline(always)]
    pub fn shfl_down_sync<T: WarpValue>(&self, mask: u32, value: T, delta: u32, width: u32) -> T {
        shfl_value(ShflMode::Down, value, delta, width_c(ShflMode::Down, width), mask).0
    }
    /// CUDA's `__shfl_xor_sync(mask, var, lane_mask, width)`.
    #[inline(always)]
    pub fn shfl_xor_sync<T: WarpValue>(&self, mask: u32, value: T, lane_mask: u32, width: u32) -> T {
        shfl_value(ShflMode::Bfly, value, lane_mask, width_c(ShflMode::Bfly, width), mask).0
    }
    /// CUDA's `__shfl_sync(mask, var, src_lane, width)`.
    #[inline(always)]
    pub fn shfl_idx_sync<T: WarpValue>(&self, mask: u32, value: T, src_lane: u32, width: u32) -> T {
        shfl_value(ShflMode::Idx, value, src_lane, width_c(ShflMode::Idx, width), mask).0
    }

    // ---- vote.sync ----

    /// `vote.sync.<mode>` with `pred`, negated first when `negate`: the ballot mask for
    /// [`VoteMode::Ballot`], 0 or 1 for the others.
    #[inline(always)]
    pub fn vote(&self, mode: VoteMode, pred: bool, negate: bool) -> u32 {
        vote32(mode, pred ^ negate, self.mask)
    }
    /// `vote.sync.ballot.b32` (`__ballot_sync`).
    #[inline(always)]
    pub fn ballot(&self, pred: bool) -> u32 {
        nvptx::vote_sync_ballot(pred, self.mask)
    }
    /// `vote.sync.all.pred` (`__all_sync`).
    #[inline(always)]
    pub fn all(&self, pred: bool) -> bool {
        nvptx::vote_sync_all(pred, self.mask)
    }
    /// `vote.sync.any.pred` (`__any_sync`).
    #[inline(always)]
    pub fn any(&self, pred: bool) -> bool {
        nvptx::vote_sync_any(pred, self.mask)
    }
    /// `vote.sync.uni.pred` (`__uni_sync`).
    #[inline(always)]
    pub fn uni(&self, pred: bool) -> bool {
        nvptx::vote_sync_uni(pred, self.mask)
    }
    /// `vote.sync.all.pred d, !a`: true when no lane's predicate is true.
    #[inline(always)]
    pub fn none(&self, pred: bool) -> bool {
        nvptx::vote_sync_all(!pred, self.mask)
    }
    /// `vote.sync.any.pred d, !a`: true when some lane's predicate is false.
    #[inline(always)]
    pub fn not_all(&self, pred: bool) -> bool {
        nvptx::vote_sync_any(!pred, self.mask)
    }
    /// The deprecated `vote.<mode>` without `.sync` (targets below sm_70 only; a compile error
    /// naming the replacement on sm_70 and above).
    #[inline(always)]
    pub fn vote_legacy(&self, mode: VoteMode, pred: bool) -> u32
    where
        Warp<'w>: HasLegacyVote,
    {
        #[cfg(not(target_feature = "sm_70"))]
        {
            match mode {
                VoteMode::All => nvptx::vote_all(pred) as u32,
                VoteMode::Any => nvptx::vote_any(pred) as u32,
                VoteMode::Uni => nvptx::vote_uni(pred) as u32,
                VoteMode::Ballot => nvptx::vote_ballot(pred),
            }
        }
        #[cfg(target_feature = "sm_70")]
        {
            let _ = (mode, pred);
            unreachable_without_impl()
        }
    }

    // ---- match.sync ----

    /// `match.any.sync.{b32,b64}` (`__match_any_sync`), by the value's size. sm_70.
    #[inline(always)]
    pub fn match_any<T: WarpValue>(&self, value: T) -> u32
    where
        Warp<'w>: HasMatchSync,
    {
        #[cfg(target_feature = "sm_70")]
        {
            if T::WORDS == 2 {
                nvptx::match_any_sync_b64(value.to_bits(), self.mask)
            } else {
                nvptx::match_any_sync_b32(value.to_bits() as u32, self.mask)
            }
        }
        #[cfg(not(target_feature = "sm_70"))]
        {
            let _ = value;
            unreachable_without_impl()
        }
    }
    /// `match.all.sync.{b32,b64}` (`__match_all_sync`): `(d, p)`. sm_70.
    #[inline(always)]
    pub fn match_all<T: WarpValue>(&self, value: T) -> (u32, bool)
    where
        Warp<'w>: HasMatchSync,
    {
        #[cfg(target_feature = "sm_70")]
        {
            if T::WORDS == 2 {
                nvptx::match_all_sync_b64(value.to_bits(), self.mask)
            } else {
                nvptx::match_all_sync_b32(value.to_bits() as u32, self.mask)
            }
        }
        #[cfg(not(target_feature = "sm_70"))]
        {
            let _ = value;
            unreachable_without_impl()
        }
    }

    // ---- redux.sync ----

    /// `redux.sync.add.{u32,s32}` (`__reduce_add_sync`): the wrapping sum over the membermask.
    #[inline(always)]
    pub fn redux_add<T: ReduxInt>(&self, value: T) -> T {
        redux_add(value, self.mask)
    }
    /// `redux.sync.min` on `u32`, `i32` or `f32`.
    #[inline(always)]
    pub fn redux_min<T: ReduxMinMax>(&self, value: T) -> T {
        redux_min_max(value, false, self.mask)
    }
    /// `redux.sync.max` on `u32`, `i32` or `f32`.
    #[inline(always)]
    pub fn redux_max<T: ReduxMinMax>(&self, value: T) -> T {
        redux_min_max(value, true, self.mask)
    }
    /// `redux.sync.and.b32` (`__reduce_and_sync`).
    #[inline(always)]
    pub fn redux_and<T: ReduxBits>(&self, value: T) -> T {
        T::from_word(int_redux::and_b32(value.to_word(), self.mask))
    }
    /// `redux.sync.or.b32` (`__reduce_or_sync`).
    #[inline(always)]
    pub fn redux_or<T: ReduxBits>(&self, value: T) -> T {
        T::from_word(int_redux::or_b32(value.to_word(), self.mask))
    }
    /// `redux.sync.xor.b32` (`__reduce_xor_sync`).
    #[inline(always)]
    pub fn redux_xor<T: ReduxBits>(&self, value: T) -> T {
        T::from_word(int_redux::xor_b32(value.to_word(), self.mask))
    }
    /// `redux.sync.{min,max}{.abs}{.NaN}.f32` with explicit qualifiers.
    #[inline(always)]
    pub fn redux_f32(&self, value: f32, qualifiers: FloatRedux) -> f32 {
        f32::from_bits(redux_f32_bits(value.to_bits(), qualifiers, self.mask))
    }
    /// `redux.sync.min.abs.f32`.
    #[inline(always)]
    pub fn redux_min_abs(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: false, abs: true, nan: false })
    }
    /// `redux.sync.max.abs.f32`.
    #[inline(always)]
    pub fn redux_max_abs(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: true, abs: true, nan: false })
    }
    /// `redux.sync.min.NaN.f32`.
    #[inline(always)]
    pub fn redux_min_nan(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: false, abs: false, nan: true })
    }
    /// `redux.sync.max.NaN.f32`.
    #[inline(always)]
    pub fn redux_max_nan(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: true, abs: false, nan: true })
    }
    /// `redux.sync.min.abs.NaN.f32`.
    #[inline(always)]
    pub fn redux_min_abs_nan(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: false, abs: true, nan: true })
    }
    /// `redux.sync.max.abs.NaN.f32`.
    #[inline(always)]
    pub fn redux_max_abs_nan(&self, value: f32) -> f32 {
        self.redux_f32(value, FloatRedux { max: true, abs: true, nan: true })
    }

    // ---- activemask, bar.warp.sync, elect.sync ----

    /// `activemask.b32` (`__activemask`).
    #[inline(always)]
    pub fn activemask(&self) -> u32 {
        nvptx::activemask()
    }
    /// `bar.warp.sync` (`__syncwarp`) over this handle's membermask.
    #[inline(always)]
    pub fn syncwarp(&self) {
        nvptx::bar_warp_sync(self.mask)
    }
    /// `elect.sync d|p` over this handle's membermask: `(leader lane id, whether this lane is the
    /// leader)`. Below sm_90: the lowest non-exited lane of the membermask, from `vote.sync.ballot`.
    #[inline(always)]
    pub fn elect(&self) -> (u32, bool) {
        #[cfg(target_feature = "sm_90")]
        {
            nvptx::elect_sync(self.mask)
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            let leader = nvptx::vote_sync_ballot(true, self.mask).trailing_zeros();
            (leader, leader == nvptx::laneid())
        }
    }
}

/// The body of a method whose `where` clause the target cannot satisfy: never instantiated, since
/// no call type-checks.
#[allow(dead_code)]
#[inline(always)]
fn unreachable_without_impl() -> ! {
    loop {}
}
