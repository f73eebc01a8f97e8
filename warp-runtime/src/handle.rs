//! The lane handle on the host: what a kernel calls warp instructions on.
//!
//! A [`Warp`] is one lane's view of a group of lanes: the whole warp, a tile of `width` lanes
//! ([`Warp::tile`]) or the lanes of a membermask ([`Warp::group`]). Its methods are defined once
//! for both targets in [`crate::api`]; here are the handle's state and the host side of each
//! instruction family ([`fam`]): posting the lane's request for the executor. An instruction
//! method returns an [`Intrinsic`] future that completes when the executor (or, for a CTA
//! barrier, the block scheduler) has performed the instruction; `#[warp_kernel]` inserts the
//! `.await`s, and code written against the runtime directly awaits them itself.

use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::api::Decode;
pub use crate::api::FULL_MASK;
use crate::warp::Regs;

/// One lane's handle to its warp, or to a tile or membermask group of it.
///
/// It cannot be made outside a run: the executor gives each lane one, and `tile`/`group`
/// derive others from it.
#[derive(Clone, Copy)]
pub struct Warp<'w> {
    pub(crate) regs: &'w Regs,
    pub(crate) lane: u32,
    /// The membermask the group's instructions use.
    pub(crate) mask: u32,
    /// The shuffle segment width (32 for the whole warp or a membermask group).
    pub(crate) width: u32,
    /// The request key's bits that this handle fixes: its membermask and shuffle segment
    /// (`warp::pack` of no instruction), so that issuing an instruction adds only the opcode and
    /// `b`.
    pub(crate) base: u64,
}

impl core::fmt::Debug for Warp<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Warp").field("lane", &self.lane).field("mask", &format_args!("{:#010x}", self.mask)).field("width", &self.width).finish()
    }
}

impl<'w> Warp<'w> {
    pub(crate) fn new(regs: &'w Regs, lane: u32) -> Warp<'w> {
        Warp::with(regs, lane, FULL_MASK, 32)
    }

    #[inline(always)]
    pub(crate) fn with(regs: &'w Regs, lane: u32, mask: u32, width: u32) -> Warp<'w> {
        // `.up`'s `c` for the width: the segment alone; the other modes add the clamp 0x1f.
        let base = crate::warp::pack_base(mask, crate::semantics::shfl::width_c(crate::ShflMode::Up, width));
        Warp { regs, lane, mask, width, base }
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
    regs: &'w Regs,
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
            let (d, p) = this.regs.result_of(this.lane);
            Poll::Ready(D::decode(d, p))
        }
    }
}

/// The host side of each instruction family: each function posts the calling lane's request
/// (the instruction as an [`Op`](crate::Op), its membermask and operands, and the call site) and
/// returns the token [`fam::finish`] turns into the method's [`Intrinsic`]. Every function is
/// `#[track_caller]`, as is every handle method, so the site is the kernel's call.
pub(crate) mod fam {
    use core::marker::PhantomData;
    use std::panic::Location;

    use super::{Intrinsic, Warp};
    use crate::api::Decode;
    use crate::geom::Dim3;
    use crate::op::{BarOp, Op};
    use crate::semantics::barrier::BarKind;
    use crate::semantics::lanemask;
    use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
    use crate::semantics::shfl::{self, ShflMode};
    use crate::semantics::vote::VoteMode;
    use crate::value::{MinMaxType, WarpValue};
    use crate::warp::pack;

    /// A request the lane has posted.
    pub struct Posted(());

    /// The method's future for the request just posted.
    #[inline(always)]
    pub fn finish<'w, D: Decode>(w: &Warp<'w>, _: Posted) -> Intrinsic<'w, D> {
        Intrinsic { regs: w.regs, lane: w.lane, suspended: false, decode: PhantomData }
    }

    #[inline(always)]
    #[track_caller]
    fn post(w: &Warp<'_>, op: Op, mask: u32, a: u64, b: u32, c: u32) -> Posted {
        w.regs.post_key(w.lane, pack(op, mask, b, c), a, Location::caller());
        Posted(())
    }

    // ---- registers ----

    #[inline(always)]
    pub fn lane_id(w: &Warp<'_>) -> u32 {
        w.lane
    }
    #[inline(always)]
    pub fn lanemask_eq(w: &Warp<'_>) -> u32 {
        lanemask::eq(w.lane)
    }
    #[inline(always)]
    pub fn lanemask_lt(w: &Warp<'_>) -> u32 {
        lanemask::lt(w.lane)
    }
    #[inline(always)]
    pub fn lanemask_le(w: &Warp<'_>) -> u32 {
        lanemask::le(w.lane)
    }
    #[inline(always)]
    pub fn lanemask_gt(w: &Warp<'_>) -> u32 {
        lanemask::gt(w.lane)
    }
    #[inline(always)]
    pub fn lanemask_ge(w: &Warp<'_>) -> u32 {
        lanemask::ge(w.lane)
    }
    #[inline(always)]
    pub fn tid(w: &Warp<'_>) -> Dim3 {
        let pos = w.regs.pos();
        pos.ntid.index_of(pos.warp_in_block as u64 * 32 + w.lane as u64)
    }
    #[inline(always)]
    pub fn ntid(w: &Warp<'_>) -> Dim3 {
        w.regs.pos().ntid
    }
    #[inline(always)]
    pub fn ctaid(w: &Warp<'_>) -> Dim3 {
        w.regs.pos().ctaid
    }
    #[inline(always)]
    pub fn nctaid(w: &Warp<'_>) -> Dim3 {
        w.regs.pos().nctaid
    }
    #[inline(always)]
    pub fn cluster_ctarank(w: &Warp<'_>) -> u32 {
        let pos = w.regs.pos();
        pos.cluster.rank_of(cluster_ctaid(w)) as u32
    }
    #[inline(always)]
    pub fn cluster_nctarank(w: &Warp<'_>) -> u32 {
        w.regs.pos().cluster.count() as u32
    }
    #[inline(always)]
    pub fn clusterid(w: &Warp<'_>) -> Dim3 {
        let pos = w.regs.pos();
        Dim3::new(pos.ctaid.x / pos.cluster.x, pos.ctaid.y / pos.cluster.y, pos.ctaid.z / pos.cluster.z)
    }
    #[inline(always)]
    pub fn nclusterid(w: &Warp<'_>) -> Dim3 {
        let pos = w.regs.pos();
        Dim3::new(pos.nctaid.x / pos.cluster.x, pos.nctaid.y / pos.cluster.y, pos.nctaid.z / pos.cluster.z)
    }
    #[inline(always)]
    pub fn cluster_ctaid(w: &Warp<'_>) -> Dim3 {
        let pos = w.regs.pos();
        Dim3::new(pos.ctaid.x % pos.cluster.x, pos.ctaid.y % pos.cluster.y, pos.ctaid.z % pos.cluster.z)
    }
    #[inline(always)]
    pub fn cluster_nctaid(w: &Warp<'_>) -> Dim3 {
        w.regs.pos().cluster
    }
    #[inline(always)]
    pub fn is_explicit_cluster(w: &Warp<'_>) -> bool {
        w.regs.pos().explicit_cluster
    }
    #[track_caller]
    pub fn barrier_cluster_arrive(_: &Warp<'_>, release: bool, aligned: bool) -> crate::cluster::Arrive {
        crate::cluster::arrive(release, aligned)
    }
    /// `cp.async.commit_group` / `wait_group` / `wait_all`: the copies completed when issued.
    #[track_caller]
    pub fn cp_async_group(w: &Warp<'_>, kind: u32, n: u32) {
        let op = ["cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all"][kind as usize % 3];
        crate::ordered::gate(op, 80);
        let arena = &w.regs.block().arena;
        match kind {
            0 => arena.copy_group(true, None),
            1 => arena.copy_group(false, Some(n)),
            _ => arena.copy_group(false, None),
        }
    }
    #[track_caller]
    pub fn griddepcontrol_launch_dependents(w: &Warp<'_>) -> crate::mem::MemOp<()> {
        let op = "griddepcontrol.launch_dependents";
        crate::ordered::gate(op, 90);
        let block = w.regs.block();
        block.races.trigger();
        crate::grid::pdl_trigger(block);
        crate::mem::MemOp::new((), op, crate::mem::Space::Global, 0, 0, std::panic::Location::caller())
    }
    #[track_caller]
    pub fn griddepcontrol_wait(_: &Warp<'_>) -> crate::cluster::GridWait {
        crate::cluster::grid_dependency_wait()
    }
    #[track_caller]
    pub fn barrier_cluster_wait(_: &Warp<'_>, arrive_first: bool, aligned: bool) -> crate::cluster::Wait {
        crate::cluster::wait(arrive_first, aligned)
    }
    #[inline(always)]
    pub fn global_id(w: &Warp<'_>) -> u64 {
        let pos = w.regs.pos();
        pos.ctaid.x as u64 * pos.ntid.x as u64 + tid(w).x as u64
    }
    #[inline(always)]
    pub fn derive<'w>(w: &Warp<'w>, mask: u32, width: u32) -> Warp<'w> {
        Warp::with(w.regs, w.lane, mask, width)
    }

    /// CUDA leaves a `width` that is not a power of two in 1..=32 undefined; here it is a panic in
    /// the lane, which the run reports (`#[warp_kernel]` rejects such constants at compile time).
    #[inline(always)]
    #[track_caller]
    pub fn check_width(width: u32) {
        assert!(width.is_power_of_two() && width <= 32, "shuffle width {width} is not a power of two in 1..=32");
    }

    // ---- instruction families ----

    #[inline(always)]
    #[track_caller]
    pub fn shfl<T: WarpValue>(w: &Warp<'_>, mode: ShflMode, value: T, b: u32, c: u32, mask: u32) -> Posted {
        post(w, Op::Shfl { mode, words: T::WORDS }, mask, value.to_bits(), b, c)
    }

    /// A shuffle with the handle's membermask and segment: the key is mostly precomputed.
    #[inline(always)]
    #[track_caller]
    pub fn shfl_own<T: WarpValue>(w: &Warp<'_>, mode: ShflMode, value: T, b: u32) -> Posted {
        w.regs.post_key(w.lane, shfl_own_key(w, mode, T::WORDS, b), value.to_bits(), Location::caller());
        Posted(())
    }

    /// The request word of a shuffle with the handle's membermask and segment.
    #[inline(always)]
    pub(crate) fn shfl_own_key(w: &Warp<'_>, mode: ShflMode, words: u8, b: u32) -> u64 {
        let clamp = shfl::width_c(mode, 32); // 0 for `.up`, 0x1f for the others
        pack(Op::Shfl { mode, words }, 0, b, clamp) | w.base
    }

    #[inline(always)]
    #[track_caller]
    pub fn vote(w: &Warp<'_>, mode: VoteMode, pred: bool, mask: u32) -> Posted {
        post(w, Op::Vote(mode), mask, pred as u64, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn vote_legacy(w: &Warp<'_>, mode: VoteMode, pred: bool) -> Posted {
        post(w, Op::VoteLegacy(mode), super::FULL_MASK, pred as u64, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn match_any<T: WarpValue>(w: &Warp<'_>, value: T, mask: u32) -> Posted {
        post(w, Op::MatchAny { b64: T::WORDS == 2 }, mask, value.to_bits(), 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn match_all<T: WarpValue>(w: &Warp<'_>, value: T, mask: u32) -> Posted {
        post(w, Op::MatchAll { b64: T::WORDS == 2 }, mask, value.to_bits(), 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn redux_int(w: &Warp<'_>, op: ReduxOp, ty: ReduxType, word: u32, mask: u32) -> Posted {
        post(w, Op::Redux(op, ty), mask, word as u64, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn redux_min_max(w: &Warp<'_>, ty: MinMaxType, max: bool, word: u32, mask: u32) -> Posted {
        let int = if max { ReduxOp::Max } else { ReduxOp::Min };
        let op = match ty {
            MinMaxType::U32 => Op::Redux(int, ReduxType::U32),
            MinMaxType::S32 => Op::Redux(int, ReduxType::S32),
            MinMaxType::F32 => Op::ReduxF32(FloatRedux { max, abs: false, nan: false }),
        };
        post(w, op, mask, word as u64, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn redux_f32(w: &Warp<'_>, q: FloatRedux, word: u32, mask: u32) -> Posted {
        post(w, Op::ReduxF32(q), mask, word as u64, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn activemask(w: &Warp<'_>) -> Posted {
        post(w, Op::Activemask, super::FULL_MASK, 0, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn syncwarp(w: &Warp<'_>, mask: u32) -> Posted {
        post(w, Op::BarWarpSync, mask, 0, 0, 0)
    }

    /// `tensormap.cp_fenceproxy`: the copy as `.relaxed` stores at `scope`, then the warp's
    /// lanes meet (`.sync.aligned`).
    #[inline(always)]
    #[track_caller]
    pub fn tensormap_cp_fenceproxy<T: crate::GlobalValue + crate::shared::dev::SharedAsm>(
        w: &Warp<'_>,
        dst: crate::GlobalSlice<'_, T>,
        dst_i: usize,
        src: crate::SharedSlice<'_, T>,
        src_i: usize,
        scope: crate::sem::Scope,
    ) -> Posted {
        crate::ordered::gate("tensormap.cp_fenceproxy", 90);
        for k in 0..128 / T::BYTES {
            dst.store_relaxed(dst_i + k, src.load(src_i + k), scope);
        }
        post(w, Op::BarWarpSync, w.mask, 0, 0, 0)
    }

    #[inline(always)]
    #[track_caller]
    pub fn elect(w: &Warp<'_>, mask: u32) -> Posted {
        post(w, Op::Elect, mask, 0, 0, 0)
    }

    /// A CTA barrier: the barrier id and the thread count travel whole in operand `a` (id in the
    /// low 32 bits, count in the high 32), so that an id above 15 or a count that is not a
    /// multiple of 32 can be reported as written; the predicate `c` (after `!c`) in `b`.
    #[inline(always)]
    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    pub fn bar(w: &Warp<'_>, kind: BarKind, aligned: bool, a: u32, count: Option<u32>, c: bool, negate: bool) -> Posted {
        let op = Op::Bar(BarOp { kind, aligned, counted: count.is_some(), negate });
        let operand = a as u64 | (count.unwrap_or(0) as u64) << 32;
        post(w, op, 0, operand, (c ^ negate) as u32, 0)
    }
}
