//! The lane handle: what a kernel calls warp instructions on.
//!
//! A [`Warp`] is one lane's view of a group of lanes: the whole warp, a tile of `width` lanes
//! ([`Warp::tile`]) or the lanes of a membermask ([`Warp::group`]). Intrinsics return futures
//! that complete when the executor has performed the instruction for every lane of the group;
//! `#[warp_kernel]` inserts the `.await`s, and code written against the runtime directly awaits
//! them itself.

use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::panic::Location;

use crate::error::Site;
use crate::exec::{at, Shared};
use crate::op::Op;
use crate::semantics::lanemask;
use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
use crate::semantics::shfl::{self, ShflMode};
use crate::semantics::vote::VoteMode;
use crate::value::{MinMaxType, ReduxBits, ReduxInt, ReduxMinMax, WarpValue, Word};

/// The membermask naming all 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

/// One lane's handle to its warp, or to a tile or membermask group of it.
///
/// It cannot be made outside a run: the executor gives each lane one, and `tile`/`group`
/// derive others from it.
#[derive(Clone, Copy)]
pub struct Warp<'w> {
    shared: &'w Shared,
    lane: u32,
    /// The membermask the group's instructions use.
    mask: u32,
    /// The shuffle segment width (32 for the whole warp or a membermask group).
    width: u32,
    /// The request key's bits that this handle fixes: its membermask and shuffle segment
    /// (`exec::pack` of no instruction), so that issuing an instruction adds only the opcode and
    /// `b`.
    base: u64,
}

impl core::fmt::Debug for Warp<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Warp").field("lane", &self.lane).field("mask", &format_args!("{:#010x}", self.mask)).field("width", &self.width).finish()
    }
}

/// Turns a completed instruction's destination registers into the intrinsic's result.
pub trait Decode {
    /// The intrinsic's result type.
    type Output;
    /// `d` (zero-extended) and `p`.
    fn decode(d: u64, p: bool) -> Self::Output;
}

/// Decodes `d` as a value.
pub struct AsValue<T>(PhantomData<T>);
/// Decodes `(d, p)`.
pub struct AsValuePred<T>(PhantomData<T>);
/// Decodes a predicate destination stored in `d`.
pub struct AsBool;
/// Decodes nothing (`bar.warp.sync`).
pub struct AsUnit;
/// Decodes a 32-bit mask or lane id in `d`.
pub struct AsU32;
/// Decodes `(d, p)` with a 32-bit `d`.
pub struct AsU32Pred;
/// Decodes a 32-bit register as a `redux.sync` value.
pub struct AsWord<T>(PhantomData<T>);

impl<T: WarpValue> Decode for AsValue<T> {
    type Output = T;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> T {
        T::from_bits(d)
    }
}
impl<T: WarpValue> Decode for AsValuePred<T> {
    type Output = (T, bool);
    #[inline(always)]
    fn decode(d: u64, p: bool) -> (T, bool) {
        (T::from_bits(d), p)
    }
}
impl Decode for AsBool {
    type Output = bool;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> bool {
        d != 0
    }
}
impl Decode for AsUnit {
    type Output = ();
    #[inline(always)]
    fn decode(_: u64, _: bool) {}
}
impl Decode for AsU32 {
    type Output = u32;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> u32 {
        d as u32
    }
}
impl Decode for AsU32Pred {
    type Output = (u32, bool);
    #[inline(always)]
    fn decode(d: u64, p: bool) -> (u32, bool) {
        (d as u32, p)
    }
}
impl<T: Word> Decode for AsWord<T> {
    type Output = T;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> T {
        T::from_word(d as u32)
    }
}

/// A warp instruction in flight for one lane.
///
/// Calling an intrinsic issues the instruction: the lane's request is recorded at once, as the
/// call executes the instruction on a GPU. Awaiting the future suspends the lane until the
/// executor has completed the instruction for every lane of its membermask, and yields the
/// result. Await each intrinsic before issuing the next (`#[warp_kernel]` does); the executor
/// reports a lane that issues two without awaiting the first.
#[must_use = "a warp instruction's result is only available by awaiting it (`#[warp_kernel]` inserts the `.await`)"]
pub struct Intrinsic<'w, D> {
    shared: &'w Shared,
    lane: u32,
    /// Whether the lane has been suspended at this instruction yet.
    suspended: bool,
    decode: PhantomData<fn() -> D>,
}

impl<D: Decode> Future for Intrinsic<'_, D> {
    type Output = D::Output;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<D::Output> {
        let this = self.get_mut();
        if !this.suspended {
            this.suspended = true;
            Poll::Pending
        } else {
            let d = at(&this.shared.result, this.lane as usize).get();
            let p = this.shared.pred.get() >> this.lane & 1 == 1;
            Poll::Ready(D::decode(d, p))
        }
    }
}

/// CUDA leaves a `width` that is not a power of two in 1..=32 undefined; here it is a panic in
/// the lane, which the run reports (`#[warp_kernel]` rejects such constants at compile time).
#[inline(always)]
#[track_caller]
fn check_width(width: u32) {
    assert!(width.is_power_of_two() && width <= 32, "shuffle width {width} is not a power of two in 1..=32");
}

/// The `redux.sync.{min,max}` instruction for `T`.
#[inline(always)]
fn min_max_op<T: ReduxMinMax>(max: bool) -> Op {
    let int = if max { ReduxOp::Max } else { ReduxOp::Min };
    match T::TYPE {
        MinMaxType::U32 => Op::Redux(int, ReduxType::U32),
        MinMaxType::S32 => Op::Redux(int, ReduxType::S32),
        MinMaxType::F32 => Op::ReduxF32(FloatRedux { max, abs: false, nan: false }),
    }
}

impl<'w> Warp<'w> {
    pub(crate) fn new(shared: &'w Shared, lane: u32) -> Warp<'w> {
        Warp::with(shared, lane, FULL_MASK, 32)
    }

    #[inline(always)]
    fn with(shared: &'w Shared, lane: u32, mask: u32, width: u32) -> Warp<'w> {
        // `.up`'s `c` for the width: the segment alone; the other modes add the clamp 0x1f.
        let base = crate::exec::pack_base(mask, shfl::width_c(ShflMode::Up, width));
        Warp { shared, lane, mask, width, base }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn issue<D: Decode>(&self, op: Op, mask: u32, a: u64, b: u32, c: u32, site: Site) -> Intrinsic<'w, D> {
        self.shared.post(self.lane, op, mask, a, b, c, site);
        Intrinsic { shared: self.shared, lane: self.lane, suspended: false, decode: PhantomData }
    }

    // ---- lane registers (not suspension points) ----

    /// `%laneid`: this lane's index in the warp, 0..32.
    #[inline(always)]
    pub fn lane_id(&self) -> u32 {
        self.lane
    }
    /// `%lanemask_eq`: the bit of this lane.
    #[inline(always)]
    pub fn lanemask_eq(&self) -> u32 {
        lanemask::eq(self.lane)
    }
    /// `%lanemask_lt`: the bits of lower lanes.
    #[inline(always)]
    pub fn lanemask_lt(&self) -> u32 {
        lanemask::lt(self.lane)
    }
    /// `%lanemask_le`: the bits of this and lower lanes.
    #[inline(always)]
    pub fn lanemask_le(&self) -> u32 {
        lanemask::le(self.lane)
    }
    /// `%lanemask_gt`: the bits of higher lanes.
    #[inline(always)]
    pub fn lanemask_gt(&self) -> u32 {
        lanemask::gt(self.lane)
    }
    /// `%lanemask_ge`: the bits of this and higher lanes.
    #[inline(always)]
    pub fn lanemask_ge(&self) -> u32 {
        lanemask::ge(self.lane)
    }

    /// The warp's index in its launch (0 for a single warp).
    #[inline(always)]
    pub fn warp_index(&self) -> u64 {
        self.shared.warp
    }
    /// This lane's thread index in its launch: `32 * warp_index + lane_id`.
    #[inline(always)]
    pub fn global_id(&self) -> u64 {
        self.shared.warp * 32 + self.lane as u64
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
    /// This lane's index within its group: `lane % width` for a tile, the number of lower lanes
    /// of the membermask for a group.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        (self.mask & lanemask::lt(self.lane)).count_ones()
    }
    /// The number of lanes in the group.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.mask.count_ones()
    }

    /// The tile of `width` consecutive lanes (a power of two in 1..=32) that holds this lane, like
    /// CUDA's `tiled_partition`: shuffles use the segment of `c` that CUDA's `width` argument sets,
    /// and every instruction uses the tile's lanes as membermask.
    ///
    /// # Panics
    /// If `width` is not a power of two in 1..=32 (`#[warp_kernel]` rejects such constants at
    /// compile time; a panic in a lane is reported by the run, not propagated).
    #[inline]
    pub fn tile(&self, width: u32) -> Warp<'w> {
        assert!(width.is_power_of_two() && width <= 32, "tile width {width} is not a power of two in 1..=32");
        let base = self.lane & !(width - 1);
        let mask = if width == 32 { FULL_MASK } else { ((1u32 << width) - 1) << base };
        Warp::with(self.shared, self.lane, mask, width)
    }

    /// The group of lanes named by `membermask`: its instructions use that membermask, with
    /// whole-warp shuffle segments and lane ids.
    #[inline]
    pub fn group(&self, membermask: u32) -> Warp<'w> {
        Warp::with(self.shared, self.lane, membermask, 32)
    }

    // ---- shfl.sync ----

    /// `shfl.sync.<mode>.b32` with explicit `b` and `c` operands and this handle's membermask:
    /// returns `(d, p)`. An 8-byte value moves as two 32-bit shuffles with the same operands.
    #[track_caller]
    #[inline(always)]
    pub fn shfl<T: WarpValue>(&self, mode: ShflMode, value: T, b: u32, c: u32) -> Intrinsic<'w, AsValuePred<T>> {
        self.issue(Op::Shfl { mode, words: T::WORDS }, self.mask, value.to_bits(), b, c, Location::caller())
    }

    #[inline(always)]
    fn shfl_width<T: WarpValue, D: Decode>(&self, mode: ShflMode, mask: u32, value: T, b: u32, width: u32, site: Site) -> Intrinsic<'w, D> {
        self.issue(Op::Shfl { mode, words: T::WORDS }, mask, value.to_bits(), b, shfl::width_c(mode, width), site)
    }

    /// A shuffle with this handle's membermask and segment: the key is mostly precomputed.
    #[inline(always)]
    fn shfl_own<T: WarpValue, D: Decode>(&self, mode: ShflMode, value: T, b: u32, site: Site) -> Intrinsic<'w, D> {
        let clamp = shfl::width_c(mode, 32); // 0 for `.up`, 0x1f for the others
        let key = crate::exec::pack(Op::Shfl { mode, words: T::WORDS }, 0, b, clamp) | self.base;
        self.shared.post_key(self.lane, key, value.to_bits(), site);
        Intrinsic { shared: self.shared, lane: self.lane, suspended: false, decode: PhantomData }
    }

    /// `__shfl_up_sync`: the value of the lane `delta` below, within this handle's segment; a lane
    /// with no such lane keeps its own value.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_up<T: WarpValue>(&self, value: T, delta: u32) -> Intrinsic<'w, AsValue<T>> {
        self.shfl_own(ShflMode::Up, value, delta, Location::caller())
    }
    /// `__shfl_down_sync`: the value of the lane `delta` above, within this handle's segment.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_down<T: WarpValue>(&self, value: T, delta: u32) -> Intrinsic<'w, AsValue<T>> {
        self.shfl_own(ShflMode::Down, value, delta, Location::caller())
    }
    /// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask`, within this handle's segment.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_xor<T: WarpValue>(&self, value: T, lane_mask: u32) -> Intrinsic<'w, AsValue<T>> {
        self.shfl_own(ShflMode::Bfly, value, lane_mask, Location::caller())
    }
    /// `__shfl_sync`: the value of lane `src_lane` of this handle's segment.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_idx<T: WarpValue>(&self, value: T, src_lane: u32) -> Intrinsic<'w, AsValue<T>> {
        self.shfl_own(ShflMode::Idx, value, src_lane, Location::caller())
    }

    /// [`shfl_up`](Self::shfl_up) that also returns the predicate: whether the source lane was in
    /// range (CUB's scans add only when it is).
    #[track_caller]
    #[inline(always)]
    pub fn shfl_up_pred<T: WarpValue>(&self, value: T, delta: u32) -> Intrinsic<'w, AsValuePred<T>> {
        self.shfl_own(ShflMode::Up, value, delta, Location::caller())
    }
    /// [`shfl_down`](Self::shfl_down) with the predicate.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_down_pred<T: WarpValue>(&self, value: T, delta: u32) -> Intrinsic<'w, AsValuePred<T>> {
        self.shfl_own(ShflMode::Down, value, delta, Location::caller())
    }
    /// [`shfl_xor`](Self::shfl_xor) with the predicate.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_xor_pred<T: WarpValue>(&self, value: T, lane_mask: u32) -> Intrinsic<'w, AsValuePred<T>> {
        self.shfl_own(ShflMode::Bfly, value, lane_mask, Location::caller())
    }
    /// [`shfl_idx`](Self::shfl_idx) with the predicate.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_idx_pred<T: WarpValue>(&self, value: T, src_lane: u32) -> Intrinsic<'w, AsValuePred<T>> {
        self.shfl_own(ShflMode::Idx, value, src_lane, Location::caller())
    }

    /// CUDA's `__shfl_up_sync(mask, var, delta, width)`, exactly: explicit membermask and width.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_up_sync<T: WarpValue>(&self, mask: u32, value: T, delta: u32, width: u32) -> Intrinsic<'w, AsValue<T>> {
        check_width(width);
        self.shfl_width(ShflMode::Up, mask, value, delta, width, Location::caller())
    }
    /// CUDA's `__shfl_down_sync(mask, var, delta, width)`.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_down_sync<T: WarpValue>(&self, mask: u32, value: T, delta: u32, width: u32) -> Intrinsic<'w, AsValue<T>> {
        check_width(width);
        self.shfl_width(ShflMode::Down, mask, value, delta, width, Location::caller())
    }
    /// CUDA's `__shfl_xor_sync(mask, var, lane_mask, width)`.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_xor_sync<T: WarpValue>(&self, mask: u32, value: T, lane_mask: u32, width: u32) -> Intrinsic<'w, AsValue<T>> {
        check_width(width);
        self.shfl_width(ShflMode::Bfly, mask, value, lane_mask, width, Location::caller())
    }
    /// CUDA's `__shfl_sync(mask, var, src_lane, width)`.
    #[track_caller]
    #[inline(always)]
    pub fn shfl_idx_sync<T: WarpValue>(&self, mask: u32, value: T, src_lane: u32, width: u32) -> Intrinsic<'w, AsValue<T>> {
        check_width(width);
        self.shfl_width(ShflMode::Idx, mask, value, src_lane, width, Location::caller())
    }

    // ---- vote.sync ----

    /// `vote.sync.<mode>` with the source predicate `pred`, negated first when `negate` (`{!}a`).
    /// Returns the ballot mask for [`VoteMode::Ballot`], 0 or 1 for the others.
    #[track_caller]
    #[inline(always)]
    pub fn vote(&self, mode: VoteMode, pred: bool, negate: bool) -> Intrinsic<'w, AsU32> {
        self.issue(Op::Vote(mode), self.mask, (pred ^ negate) as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.ballot.b32` (`__ballot_sync`): bit `i` is lane `i`'s predicate; lanes outside
    /// the membermask contribute 0.
    #[track_caller]
    #[inline(always)]
    pub fn ballot(&self, pred: bool) -> Intrinsic<'w, AsU32> {
        self.issue(Op::Vote(VoteMode::Ballot), self.mask, pred as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.all.pred` (`__all_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn all(&self, pred: bool) -> Intrinsic<'w, AsBool> {
        self.issue(Op::Vote(VoteMode::All), self.mask, pred as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.any.pred` (`__any_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn any(&self, pred: bool) -> Intrinsic<'w, AsBool> {
        self.issue(Op::Vote(VoteMode::Any), self.mask, pred as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.uni.pred` (`__uni_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn uni(&self, pred: bool) -> Intrinsic<'w, AsBool> {
        self.issue(Op::Vote(VoteMode::Uni), self.mask, pred as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.all.pred d, !a`: true when no lane's predicate is true.
    #[track_caller]
    #[inline(always)]
    pub fn none(&self, pred: bool) -> Intrinsic<'w, AsBool> {
        self.issue(Op::Vote(VoteMode::All), self.mask, !pred as u64, 0, 0, Location::caller())
    }
    /// `vote.sync.any.pred d, !a`: true when some lane's predicate is false.
    #[track_caller]
    #[inline(always)]
    pub fn not_all(&self, pred: bool) -> Intrinsic<'w, AsBool> {
        self.issue(Op::Vote(VoteMode::Any), self.mask, !pred as u64, 0, 0, Location::caller())
    }
    /// The deprecated `vote.<mode>` without `.sync`: over the lanes that execute this call
    /// together. Only targets below sm_70 have it.
    #[track_caller]
    #[inline(always)]
    pub fn vote_legacy(&self, mode: VoteMode, pred: bool) -> Intrinsic<'w, AsU32> {
        self.issue(Op::VoteLegacy(mode), FULL_MASK, pred as u64, 0, 0, Location::caller())
    }

    // ---- match.sync ----

    /// `match.any.sync` (`__match_any_sync`): the lanes of the membermask holding the same value
    /// (`.b32` for 4-byte types, `.b64` for 8-byte types, compared on all bits).
    #[track_caller]
    #[inline(always)]
    pub fn match_any<T: WarpValue>(&self, value: T) -> Intrinsic<'w, AsU32> {
        self.issue(Op::MatchAny { b64: T::WORDS == 2 }, self.mask, value.to_bits(), 0, 0, Location::caller())
    }
    /// `match.all.sync` (`__match_all_sync`): `(d, p)`: the non-exited lanes of the membermask
    /// and true if they all hold the same value, else `(0, false)`.
    #[track_caller]
    #[inline(always)]
    pub fn match_all<T: WarpValue>(&self, value: T) -> Intrinsic<'w, AsU32Pred> {
        self.issue(Op::MatchAll { b64: T::WORDS == 2 }, self.mask, value.to_bits(), 0, 0, Location::caller())
    }

    // ---- redux.sync ----

    /// `redux.sync.add.{u32,s32}` (`__reduce_add_sync`): the wrapping sum over the membermask.
    #[track_caller]
    #[inline(always)]
    pub fn redux_add<T: ReduxInt>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(Op::Redux(ReduxOp::Add, T::TYPE), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.min` on `u32`, `i32` (sm_80) or `f32` (sm_100a; NaN inputs skipped).
    #[track_caller]
    #[inline(always)]
    pub fn redux_min<T: ReduxMinMax>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(min_max_op::<T>(false), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.max` on `u32`, `i32` (sm_80) or `f32` (sm_100a; NaN inputs skipped).
    #[track_caller]
    #[inline(always)]
    pub fn redux_max<T: ReduxMinMax>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(min_max_op::<T>(true), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.and.b32` (`__reduce_and_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn redux_and<T: ReduxBits>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(Op::Redux(ReduxOp::And, ReduxType::B32), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.or.b32` (`__reduce_or_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn redux_or<T: ReduxBits>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(Op::Redux(ReduxOp::Or, ReduxType::B32), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.xor.b32` (`__reduce_xor_sync`).
    #[track_caller]
    #[inline(always)]
    pub fn redux_xor<T: ReduxBits>(&self, value: T) -> Intrinsic<'w, AsWord<T>> {
        self.issue(Op::Redux(ReduxOp::Xor, ReduxType::B32), self.mask, value.to_word() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.{min,max}{.abs}{.NaN}.f32` with explicit qualifiers (sm_100a).
    #[track_caller]
    #[inline(always)]
    pub fn redux_f32(&self, value: f32, qualifiers: FloatRedux) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(qualifiers), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.min.abs.f32`: the least absolute value.
    #[track_caller]
    #[inline(always)]
    pub fn redux_min_abs(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: false, abs: true, nan: false }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.max.abs.f32`: the greatest absolute value.
    #[track_caller]
    #[inline(always)]
    pub fn redux_max_abs(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: true, abs: true, nan: false }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.min.NaN.f32`: the minimum, or the canonical NaN if any input is NaN.
    #[track_caller]
    #[inline(always)]
    pub fn redux_min_nan(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: false, abs: false, nan: true }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.max.NaN.f32`: the maximum, or the canonical NaN if any input is NaN.
    #[track_caller]
    #[inline(always)]
    pub fn redux_max_nan(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: true, abs: false, nan: true }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.min.abs.NaN.f32`.
    #[track_caller]
    #[inline(always)]
    pub fn redux_min_abs_nan(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: false, abs: true, nan: true }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }
    /// `redux.sync.max.abs.NaN.f32`.
    #[track_caller]
    #[inline(always)]
    pub fn redux_max_abs_nan(&self, value: f32) -> Intrinsic<'w, AsWord<f32>> {
        self.issue(Op::ReduxF32(FloatRedux { max: true, abs: true, nan: true }), self.mask, value.to_bits() as u64, 0, 0, Location::caller())
    }

    // ---- activemask, bar.warp.sync, elect.sync ----

    /// `activemask.b32` (`__activemask`): the lanes executing this call together with this lane.
    /// Not a synchronization point.
    #[track_caller]
    #[inline(always)]
    pub fn activemask(&self) -> Intrinsic<'w, AsU32> {
        self.issue(Op::Activemask, FULL_MASK, 0, 0, 0, Location::caller())
    }
    /// `bar.warp.sync` (`__syncwarp`) over this handle's membermask.
    #[track_caller]
    #[inline(always)]
    pub fn syncwarp(&self) -> Intrinsic<'w, AsUnit> {
        self.issue(Op::BarWarpSync, self.mask, 0, 0, 0, Location::caller())
    }
    /// `elect.sync d|p` over this handle's membermask: `(leader lane id, whether this lane is the
    /// leader)`. The leader is the lowest non-exited lane of the membermask (sm_90).
    #[track_caller]
    #[inline(always)]
    pub fn elect(&self) -> Intrinsic<'w, AsU32Pred> {
        self.issue(Op::Elect, self.mask, 0, 0, 0, Location::caller())
    }
}
