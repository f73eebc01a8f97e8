//! The device lane handle (`nvptx64` only): the same [`Warp`] API as the host runtime's handle, with
//! every intrinsic returning its result directly.
//!
//! On the host, `Warp::shfl_down(v, 1)` returns a future that the lockstep executor completes; here
//! the same call is one `shfl.sync.down.b32` (two for an 8-byte value), executed at once by the
//! hardware. `#[warp_kernel]` keeps a function's body unchanged for nvptx64; the methods are defined
//! once for both targets in [`crate::api`], and this module is the device side of each instruction
//! family ([`fam`]): the instruction table's row for the configured target, or a fallback.
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
//! | `lane_id`, `lanemask_*`, `tid`, `ntid`, `ctaid`, `nctaid`, `global_id`, ... | `%laneid`, `%lanemask_*`, `%tid`, `%ntid`, `%ctaid`, `%nctaid` | (all targets) |
//! | `shfl*` | `shfl.sync.{up,down,bfly,idx}.b32` (x2 for 8-byte values) | (all targets) |
//! | `vote`, `ballot`, `all`, `any`, `uni`, `none`, `not_all` | `vote.sync.*` | (all targets) |
//! | `vote_legacy` | `vote.{all,any,uni,ballot}` (no `.sync`) | compile error on sm_70 and above (removed there) |
//! | `activemask`, `syncwarp` | `activemask.b32`, `bar.warp.sync` | (all targets) |
//! | `match_any`, `match_all` | `match.{any,all}.sync.{b32,b64}` (sm_70) | compile error naming sm_70 |
//! | `redux_add/min/max/and/or/xor` on `u32`/`i32` | `redux.sync.*` (sm_80) | fallback: `vote.sync.ballot` + 6 `shfl.sync.idx` (rank tree) |
//! | `redux_min/max` on `f32`, `redux_f32`, `redux_{min,max}_abs{_nan}`, `redux_{min,max}_nan` | `redux.sync.{min,max}{.abs}{.NaN}.f32` (sm_100a) | fallback: the same rank tree with the spec's f32 rules |
//! | `elect` | `elect.sync` (sm_90) | fallback: `vote.sync.ballot`, lowest lane (what an H100 elects) |
//! | `bar_*`, `barrier_*`, `sync_threads*` | `bar`/`barrier` `.sync`/`.arrive`/`.red` | (all targets) |
//!
//! The fallbacks reduce over the non-exited lanes of the membermask exactly as the instruction does:
//! `vote.sync.ballot.b32 1` names them, each lane finds its rank among them, and a shuffle tree over
//! ranks (`shfl.sync.idx` with the same membermask, every source a participant) leaves the result in
//! the lowest one, which then broadcasts it.

use core::marker::PhantomData;

use crate::nvptx;

pub use crate::api::FULL_MASK;
pub use crate::semantics::redux::{FloatRedux, CANONICAL_NAN_F32};
pub use crate::semantics::shfl::{width_c, ShflMode};
pub use crate::semantics::vote::VoteMode;
use crate::semantics::redux::ReduxType;
use crate::value::MinMaxType;

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
    pub(crate) mask: u32,
    pub(crate) width: u32,
    _lane: PhantomData<&'w ()>,
}

impl Warp<'static> {
    /// The whole warp of the calling thread: the handle an entry point (`extern "ptx-kernel"`)
    /// starts from. A partial last warp is fine: its missing lanes count as exited.
    #[inline(always)]
    pub fn current() -> Warp<'static> {
        Warp { mask: FULL_MASK, width: 32, _lane: PhantomData }
    }
}

/// The device side of each instruction family: each function executes the instruction now and
/// returns `(d, p)` (or a register's value). Selecting among the table's rows by a qualifier
/// (`mode`, `kind`, ...) folds away when the qualifier is a constant, as it is in every handle
/// method, so each call is one instruction (or one fallback sequence).
pub(crate) mod fam {
    use super::*;
    use crate::geom::Dim3;
    use crate::semantics::barrier::{BarKind, BarRed};
    use crate::semantics::redux::ReduxOp;
    use crate::value::WarpValue;

    #[inline(always)]
    pub fn lane_id(_: &Warp<'_>) -> u32 {
        let lane = nvptx::laneid();
        // SAFETY: `%laneid` is 0..=31 (PTX ISA, special registers). Telling the compiler lets it
        // drop bounds checks on indices built from the lane (`32 * k + lane` into a window of
        // `32 * K` elements), as LLVM's own range for `llvm.nvvm.read.ptx.sreg.laneid` does.
        unsafe { core::hint::assert_unchecked(lane < 32) };
        lane
    }
    #[inline(always)]
    pub fn lanemask_eq(_: &Warp<'_>) -> u32 {
        nvptx::lanemask_eq()
    }
    #[inline(always)]
    pub fn lanemask_lt(_: &Warp<'_>) -> u32 {
        nvptx::lanemask_lt()
    }
    #[inline(always)]
    pub fn lanemask_le(_: &Warp<'_>) -> u32 {
        nvptx::lanemask_le()
    }
    #[inline(always)]
    pub fn lanemask_gt(_: &Warp<'_>) -> u32 {
        nvptx::lanemask_gt()
    }
    #[inline(always)]
    pub fn lanemask_ge(_: &Warp<'_>) -> u32 {
        nvptx::lanemask_ge()
    }
    #[inline(always)]
    pub fn tid(w: &Warp<'_>) -> Dim3 {
        let (n, t) = (ntid(w), Dim3::new(nvptx::tid_x(), nvptx::tid_y(), nvptx::tid_z()));
        // SAFETY: each `%tid` component is in `0..%ntid` of that component (PTX ISA, special
        // registers); with `ntid`'s ranges this bounds `thread_rank` and `warp_in_block`.
        unsafe { core::hint::assert_unchecked(t.x < n.x && t.y < n.y && t.z < n.z) };
        t
    }
    #[inline(always)]
    pub fn ntid(_: &Warp<'_>) -> Dim3 {
        let n = Dim3::new(nvptx::ntid_x(), nvptx::ntid_y(), nvptx::ntid_z());
        // SAFETY: a block has 1..=1024 threads in x and y and 1..=64 in z (the launch limits,
        // and LLVM's ranges for `llvm.nvvm.read.ptx.sreg.ntid.*`).
        unsafe {
            core::hint::assert_unchecked((1..=1024).contains(&n.x) && (1..=1024).contains(&n.y) && (1..=64).contains(&n.z))
        };
        n
    }
    #[inline(always)]
    pub fn ctaid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::ctaid_x(), nvptx::ctaid_y(), nvptx::ctaid_z())
    }
    #[inline(always)]
    pub fn nctaid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::nctaid_x(), nvptx::nctaid_y(), nvptx::nctaid_z())
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn cluster_ctarank(_: &Warp<'_>) -> u32 {
        nvptx::cluster_ctarank()
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn cluster_nctarank(_: &Warp<'_>) -> u32 {
        nvptx::cluster_nctarank()
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn clusterid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::clusterid_x(), nvptx::clusterid_y(), nvptx::clusterid_z())
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn nclusterid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::nclusterid_x(), nvptx::nclusterid_y(), nvptx::nclusterid_z())
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn cluster_ctaid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::cluster_ctaid_x(), nvptx::cluster_ctaid_y(), nvptx::cluster_ctaid_z())
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn cluster_nctaid(_: &Warp<'_>) -> Dim3 {
        Dim3::new(nvptx::cluster_nctaid_x(), nvptx::cluster_nctaid_y(), nvptx::cluster_nctaid_z())
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn is_explicit_cluster(_: &Warp<'_>) -> bool {
        nvptx::is_explicit_cluster()
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn barrier_cluster_arrive(_: &Warp<'_>, release: bool, aligned: bool) {
        // SAFETY: a barrier instruction; it touches no memory of Rust's.
        unsafe {
            match (release, aligned) {
                (true, false) => core::arch::asm!("barrier.cluster.arrive;", options(nostack)),
                (false, false) => core::arch::asm!("barrier.cluster.arrive.relaxed;", options(nostack)),
                (true, true) => core::arch::asm!("barrier.cluster.arrive.aligned;", options(nostack)),
                (false, true) => core::arch::asm!("barrier.cluster.arrive.relaxed.aligned;", options(nostack)),
            }
        }
    }
    #[cfg(target_feature = "sm_80")]
    #[inline(always)]
    pub fn cp_async_group(_: &Warp<'_>, kind: u32, n: u32) {
        // SAFETY: waits for or groups this thread's asynchronous copies (a memory clobber: the
        // copies' writes are visible after a wait).
        unsafe {
            match (kind, n) {
                (0, _) => core::arch::asm!("cp.async.commit_group;", options(nostack)),
                (2, _) => core::arch::asm!("cp.async.wait_all;", options(nostack)),
                (_, 0) => core::arch::asm!("cp.async.wait_group 0;", options(nostack)),
                (_, 1) => core::arch::asm!("cp.async.wait_group 1;", options(nostack)),
                (_, 2) => core::arch::asm!("cp.async.wait_group 2;", options(nostack)),
                (_, 3) => core::arch::asm!("cp.async.wait_group 3;", options(nostack)),
                (_, 4) => core::arch::asm!("cp.async.wait_group 4;", options(nostack)),
                (_, 5) => core::arch::asm!("cp.async.wait_group 5;", options(nostack)),
                (_, 6) => core::arch::asm!("cp.async.wait_group 6;", options(nostack)),
                _ => core::arch::asm!("cp.async.wait_group 7;", options(nostack)),
            }
        }
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn griddepcontrol_launch_dependents(_: &Warp<'_>) {
        // SAFETY: grid dependency control; it touches no memory of Rust's.
        unsafe { core::arch::asm!("griddepcontrol.launch_dependents;", options(nostack)) }
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn griddepcontrol_wait(_: &Warp<'_>) {
        // SAFETY: waits for the prerequisite grids; the memory clobber orders their writes before
        // what follows.
        unsafe { core::arch::asm!("griddepcontrol.wait;", options(nostack)) }
    }
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn barrier_cluster_wait(_: &Warp<'_>, arrive_first: bool, aligned: bool) {
        // SAFETY: barrier instructions; they touch no memory of Rust's.
        unsafe {
            match (arrive_first, aligned) {
                (true, _) => core::arch::asm!("barrier.cluster.arrive;", "barrier.cluster.wait;", options(nostack)),
                (false, false) => core::arch::asm!("barrier.cluster.wait;", options(nostack)),
                (false, true) => core::arch::asm!("barrier.cluster.wait.aligned;", options(nostack)),
            }
        }
    }
    #[inline(always)]
    pub fn global_id(_: &Warp<'_>) -> u64 {
        nvptx::ctaid_x() as u64 * nvptx::ntid_x() as u64 + nvptx::tid_x() as u64
    }
    #[inline(always)]
    pub fn derive<'w>(_: &Warp<'w>, mask: u32, width: u32) -> Warp<'w> {
        Warp { mask, width, _lane: PhantomData }
    }
    /// CUDA leaves a bad `width` undefined; the device does not check it.
    #[inline(always)]
    pub fn check_width(_: u32) {}

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
    pub fn shfl<T: WarpValue>(_: &Warp<'_>, mode: ShflMode, value: T, b: u32, c: u32, m: u32) -> (u64, bool) {
        let bits = value.to_bits();
        let (lo, p) = shfl32(mode, bits as u32, b, c, m);
        if T::WORDS == 2 {
            let (hi, _) = shfl32(mode, (bits >> 32) as u32, b, c, m);
            (lo as u64 | (hi as u64) << 32, p)
        } else {
            (lo as u64, p)
        }
    }

    /// A shuffle with the handle's membermask and segment.
    #[inline(always)]
    pub fn shfl_own<T: WarpValue>(w: &Warp<'_>, mode: ShflMode, value: T, b: u32) -> (u64, bool) {
        shfl(w, mode, value, b, width_c(mode, w.width), w.mask)
    }

    #[inline(always)]
    pub fn vote(_: &Warp<'_>, mode: VoteMode, pred: bool, m: u32) -> (u64, bool) {
        let d = match mode {
            VoteMode::All => nvptx::vote_sync_all(pred, m) as u32,
            VoteMode::Any => nvptx::vote_sync_any(pred, m) as u32,
            VoteMode::Uni => nvptx::vote_sync_uni(pred, m) as u32,
            VoteMode::Ballot => nvptx::vote_sync_ballot(pred, m),
        };
        (d as u64, false)
    }

    /// The deprecated `vote` (below sm_70; the method's bound makes a call on sm_70+ a compile
    /// error, so this body is never instantiated there).
    #[inline(always)]
    pub fn vote_legacy(_: &Warp<'_>, mode: VoteMode, pred: bool) -> (u64, bool) {
        #[cfg(not(target_feature = "sm_70"))]
        {
            let d = match mode {
                VoteMode::All => nvptx::vote_all(pred) as u32,
                VoteMode::Any => nvptx::vote_any(pred) as u32,
                VoteMode::Uni => nvptx::vote_uni(pred) as u32,
                VoteMode::Ballot => nvptx::vote_ballot(pred),
            };
            (d as u64, false)
        }
        #[cfg(target_feature = "sm_70")]
        {
            let _ = (mode, pred);
            unreachable_without_impl()
        }
    }

    #[inline(always)]
    pub fn match_any<T: WarpValue>(_: &Warp<'_>, value: T, m: u32) -> (u64, bool) {
        #[cfg(target_feature = "sm_70")]
        {
            let d = if T::WORDS == 2 { nvptx::match_any_sync_b64(value.to_bits(), m) } else { nvptx::match_any_sync_b32(value.to_bits() as u32, m) };
            (d as u64, false)
        }
        #[cfg(not(target_feature = "sm_70"))]
        {
            let _ = (value, m);
            unreachable_without_impl()
        }
    }

    #[inline(always)]
    pub fn match_all<T: WarpValue>(_: &Warp<'_>, value: T, m: u32) -> (u64, bool) {
        #[cfg(target_feature = "sm_70")]
        {
            let (d, p) = if T::WORDS == 2 { nvptx::match_all_sync_b64(value.to_bits(), m) } else { nvptx::match_all_sync_b32(value.to_bits() as u32, m) };
            (d as u64, p)
        }
        #[cfg(not(target_feature = "sm_70"))]
        {
            let _ = (value, m);
            unreachable_without_impl()
        }
    }

    #[inline(always)]
    pub fn redux_int(_: &Warp<'_>, op: ReduxOp, ty: ReduxType, a: u32, m: u32) -> (u64, bool) {
        let d = match (op, ty) {
            (ReduxOp::Add, ReduxType::S32) => int_redux::add_s32(a as i32, m) as u32,
            (ReduxOp::Add, _) => int_redux::add_u32(a, m),
            (ReduxOp::Min, ReduxType::S32) => int_redux::min_s32(a as i32, m) as u32,
            (ReduxOp::Min, _) => int_redux::min_u32(a, m),
            (ReduxOp::Max, ReduxType::S32) => int_redux::max_s32(a as i32, m) as u32,
            (ReduxOp::Max, _) => int_redux::max_u32(a, m),
            (ReduxOp::And, _) => int_redux::and_b32(a, m),
            (ReduxOp::Or, _) => int_redux::or_b32(a, m),
            (ReduxOp::Xor, _) => int_redux::xor_b32(a, m),
        };
        (d as u64, false)
    }

    #[inline(always)]
    pub fn redux_min_max(w: &Warp<'_>, ty: MinMaxType, max: bool, a: u32, m: u32) -> (u64, bool) {
        let op = if max { ReduxOp::Max } else { ReduxOp::Min };
        match ty {
            MinMaxType::U32 => redux_int(w, op, ReduxType::U32, a, m),
            MinMaxType::S32 => redux_int(w, op, ReduxType::S32, a, m),
            MinMaxType::F32 => (redux_f32_bits(a, FloatRedux { max, abs: false, nan: false }, m) as u64, false),
        }
    }

    #[inline(always)]
    pub fn redux_f32(_: &Warp<'_>, q: FloatRedux, a: u32, m: u32) -> (u64, bool) {
        (redux_f32_bits(a, q, m) as u64, false)
    }

    #[inline(always)]
    pub fn activemask(_: &Warp<'_>) -> (u64, bool) {
        (nvptx::activemask() as u64, false)
    }

    #[inline(always)]
    pub fn syncwarp(_: &Warp<'_>, m: u32) -> (u64, bool) {
        nvptx::bar_warp_sync(m);
        (0, false)
    }

    /// `tensormap.cp_fenceproxy` of the 128 bytes at `src[src_i..]` to `dst[dst_i..]`.
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    pub fn tensormap_cp_fenceproxy<T: crate::GlobalValue + crate::shared::dev::SharedAsm>(
        _: &Warp<'_>,
        dst: crate::GlobalSlice<'_, T>,
        dst_i: usize,
        src: crate::SharedSlice<'_, T>,
        src_i: usize,
        scope: crate::sem::Scope,
    ) -> (u64, bool) {
        let n = 128 / T::BYTES;
        let (d, s) = (dst.dev_addr_of(dst_i, n), src.addr_of(src_i + n - 1) - ((n - 1) * T::BYTES) as u64);
        macro_rules! go {
            ($scope:literal) => {
                // SAFETY: `dev_addr_of` and `addr_of` checked both ranges; a memory clobber.
                unsafe {
                    core::arch::asm!(
                        "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {d};",
                        concat!("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.", $scope, ".sync.aligned [%ga], [{s}], 128;"),
                        "}}",
                        d = in(reg64) d, s = in(reg64) s, options(nostack)
                    )
                }
            };
        }
        match scope {
            crate::sem::Scope::Cta => go!("cta"),
            crate::sem::Scope::Cluster => go!("cluster"),
            crate::sem::Scope::Gpu => go!("gpu"),
            crate::sem::Scope::Sys => go!("sys"),
        }
        (0, false)
    }

    /// `elect.sync` on sm_90; below it the lowest non-exited lane of the membermask, from one
    /// `vote.sync.ballot` (what an H100 elects).
    #[inline(always)]
    pub fn elect(_: &Warp<'_>, m: u32) -> (u64, bool) {
        #[cfg(target_feature = "sm_90")]
        {
            let (d, p) = nvptx::elect_sync(m);
            (d as u64, p)
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            let leader = nvptx::vote_sync_ballot(true, m).trailing_zeros();
            (leader as u64, leader == nvptx::laneid())
        }
    }

    /// A CTA barrier: the table's row for the form (`bar`/`barrier`, `.sync`/`.arrive`/`.red`,
    /// with or without a count, `c` or `!c`).
    #[inline(always)]
    pub fn bar(_: &Warp<'_>, kind: BarKind, aligned: bool, a: u32, count: Option<u32>, c: bool, negate: bool) -> (u64, bool) {
        use nvptx as n;
        let d: u32 = match (kind, aligned, count) {
            (BarKind::Sync, true, None) => { n::bar_sync(a); 0 }
            (BarKind::Sync, true, Some(b)) => { n::bar_sync_count(a, b); 0 }
            (BarKind::Sync, false, None) => { n::barrier_sync(a); 0 }
            (BarKind::Sync, false, Some(b)) => { n::barrier_sync_count(a, b); 0 }
            // `arrive` always has a count (the API asks for one).
            (BarKind::Arrive, true, b) => { n::bar_arrive(a, b.unwrap_or(0)); 0 }
            (BarKind::Arrive, false, b) => { n::barrier_arrive(a, b.unwrap_or(0)); 0 }
            (BarKind::Red(op), aligned, count) => red(op, aligned, a, count, c, negate),
        };
        (d as u64, false)
    }

    #[inline(always)]
    fn red(op: BarRed, aligned: bool, a: u32, count: Option<u32>, c: bool, negate: bool) -> u32 {
        use nvptx as n;
        macro_rules! forms {
            ($($op:ident $al:literal: $plain:ident $not:ident $cnt:ident $cnt_not:ident;)*) => {
                match (op, aligned, count, negate) {
                    $(
                        (BarRed::$op, $al, None, false) => n::$plain(a, c) as u32,
                        (BarRed::$op, $al, None, true) => n::$not(a, c) as u32,
                        (BarRed::$op, $al, Some(b), false) => n::$cnt(a, b, c) as u32,
                        (BarRed::$op, $al, Some(b), true) => n::$cnt_not(a, b, c) as u32,
                    )*
                }
            };
        }
        forms! {
            Popc true: bar_red_popc bar_red_popc_not bar_red_popc_count bar_red_popc_count_not;
            And true: bar_red_and bar_red_and_not bar_red_and_count bar_red_and_count_not;
            Or true: bar_red_or bar_red_or_not bar_red_or_count bar_red_or_count_not;
            Popc false: barrier_red_popc barrier_red_popc_not barrier_red_popc_count barrier_red_popc_count_not;
            And false: barrier_red_and barrier_red_and_not barrier_red_and_count barrier_red_and_count_not;
            Or false: barrier_red_or barrier_red_or_not barrier_red_or_count barrier_red_or_count_not;
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
