//! The warp engine: one warp's 32 lane futures, stepped in lockstep.
//!
//! A step polls every runnable lane until it stops at its next instruction (or returns), then
//! completes the warp instructions whose lanes have all arrived. The engine is resumable: each
//! call to [`WarpRun::step`] does one step and says what the warp needs next ([`Step`]), so that a
//! block scheduler can interleave the warps of a block and complete CTA barriers, and a grid can
//! interleave blocks. [`crate::exec::Executor`] drives a single warp with it.
//!
//! Mechanism and policy are apart: the order in which lanes are polled within a step is a
//! [`LaneOrder`](crate::LaneOrder) (it matters only for side effects outside the warp, such as
//! atomics), and which target's rules apply is a [`Target`].

use core::cell::Cell;
use core::future::Future;
use core::mem::MaybeUninit;
use core::pin::Pin;
use core::sync::atomic::{AtomicBool, Ordering};
use core::task::{Context, Poll, Waker};
use std::panic::{self, AssertUnwindSafe, Location};

use crate::error::{Conflict, LaneSet, LaneState, MemWait, Report, ShflFault, Site, Unawaited, WaitEdge, WarpError};
use crate::block::BlockCtx;
use crate::geom::Dim3;
use crate::mem::{self, LaneFault};
use crate::op::Op;
use crate::semantics::{elect, lanes, matching, redux, shfl, vote};
use crate::target::Target;

pub(crate) const FULL: u32 = u32::MAX;
const IDENTITY: [u8; 32] = {
    let mut ids = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        ids[i] = i as u8;
        i += 1;
    }
    ids
};

/// Where a warp sits in its launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WarpPos {
    /// `%ctaid`.
    pub ctaid: Dim3,
    /// `%ntid`.
    pub ntid: Dim3,
    /// `%nctaid`.
    pub nctaid: Dim3,
    /// The warp's index in its block.
    pub warp_in_block: u32,
    /// The warp's index in its launch (for reports).
    pub warp: u64,
    /// The warps of its block.
    pub warps_in_block: u32,
    /// `%cluster_nctaid`: the cluster's size in blocks (1 x 1 x 1 without clusters).
    pub cluster: Dim3,
    /// `%is_explicit_cluster`: whether the launch gave a cluster shape.
    pub explicit_cluster: bool,
}

impl WarpPos {
    /// A warp alone in a one-dimensional block of 32 threads, block `warp` of a launch.
    pub fn single(warp: u64) -> WarpPos {
        let x = warp as u32;
        WarpPos { ctaid: Dim3::new(x, 0, 0), ntid: Dim3::new(32, 1, 1), nctaid: Dim3::new(x + 1, 1, 1), warp_in_block: 0, warp, warps_in_block: 1, cluster: Dim3::new(1, 1, 1), explicit_cluster: false }
    }
}

/// Per-lane request and result registers shared between the lane futures and the engine.
///
/// Invariant: a lane writes its request registers only while it is being polled, and reads its
/// result register only after the engine completed its request; the engine reads requests and
/// writes results only between polls. Everything runs on one thread.
pub struct Regs {
    /// Each lane's request: the instruction word (see [`pack`]) in the low 32 bits and the
    /// membermask in the high 32. Zero when the lane has posted nothing since the engine last
    /// resumed it (no instruction of the crate packs to zero), so a post is a few stores and one test.
    key: Cell<[u64; 32]>,
    /// Two lane masks in one word, so that a post updates both at once. The low half: the lanes
    /// whose request word is not zero (kept with `key`, which only `post_key` sets, and
    /// `clear`/`reset` zero): what a fold of the 32 words gives, without it, where every step and
    /// every instruction a form issues looks ([`Regs::posted`]). The high half: the lanes whose
    /// call site is their own `site` slot (see `site`).
    marks: Cell<u64>,
    /// Operand `a` (the value or predicate; a barrier's id and count), zero-extended to 64 bits.
    a: Cell<[u64; 32]>,
    /// Where each waiting lane called its instruction: `site[l]` for the lanes of the high half
    /// of `marks`, which posted it, and `site_all` for the others (an instruction every lane
    /// issued at once, `issued_by_all`, or none since the reset, sets the one word, not 32).
    /// Read through [`Regs::site_at`].
    site: Cell<[Site; 32]>,
    site_all: Cell<Site>,
    /// Each lane's call path: a hash of the warp-function call sites from the kernel's entry to
    /// where the lane runs now ([`PATH_ENTRY`] at the entry). A waiting lane's instruction is its
    /// `site` reached through this path: on a GPU, after inlining, a helper's instruction called
    /// from two places is two instructions. Written only by the lane itself, as it enters and
    /// leaves a warp function ([`crate::call::Call`]); a lane does not run while it waits, so for
    /// a waiting lane it is the path it posted from. A lane that unwinds is never polled again,
    /// and [`Regs::reset`] starts every lane at the entry.
    path: Cell<[u64; 32]>,
    /// The destination register `d` of each completed lane.
    result: Cell<[u64; 32]>,
    /// Bit `lane` is the predicate destination `p` of a completed lane.
    pred: Cell<u32>,
    /// Lanes that issued an intrinsic while their previous one was still pending (issued without
    /// awaiting it: only possible without the macro).
    twice: Cell<u32>,
    /// For each lane of `twice`, the request word and call site of the first instruction it
    /// issued and did not await (the later post overwrote `key` and `site`). Valid only for the
    /// lanes of `twice`.
    unawaited: [Cell<(u64, Site)>; 32],
    /// The lane being polled (valid while the engine polls this warp).
    current: Cell<u32>,
    /// The warp's exited lanes as of the start of the current step: what an isolated run's
    /// child reports of lanes that returned (see `RegsSnapshot`).
    exited: Cell<u32>,
    /// Lanes that suspended at a memory operation in the current step. Cleared by each step.
    mem_yield: Cell<u32>,
    /// The warp's steps so far: lanes of one warp reaching one call site in the same step
    /// executed one instruction (an mbarrier arrival of several lanes is one arrive-on).
    step: Cell<u64>,
    /// Set when a lane's memory operation at a suspension differs from its previous one (another
    /// location, site or value): the lane is not spinning. Cleared by each step.
    mem_progress: Cell<bool>,
    /// Each lane's last memory operation at a suspension; valid for the lanes of `yields_valid`
    /// (uninitialized otherwise, so that making registers costs nothing for kernels without
    /// memory operations).
    yields: [Cell<MaybeUninit<MemWait>>; 32],
    /// The lanes whose `yields` entry is valid.
    yields_valid: Cell<u32>,
    /// Each lane's plain loads since its last load scheduling point (`mem::pauses_load`).
    loads: Cell<[u8; 32]>,
    /// Where the warp sits in its launch.
    pos: Cell<WarpPos>,
    /// The warp's block (its shared memory). Invariant: the driver that made these registers
    /// keeps the block alive, unmoved, for as long as the registers exist.
    block: *const BlockCtx,
    /// The race detector's state of the warp's lanes.
    pub(crate) races: crate::race::RegsRaces,
    /// The modelled target (set by the run that drives these registers).
    target: Cell<Target>,
    /// Whether the run driving these registers traces the warp, and what its lanes did between
    /// steps that the trace shows (races).
    tracing: Cell<bool>,
    trace_events: core::cell::RefCell<Vec<crate::trace::TraceEvent>>,
    /// Whether the run driving these registers takes warp-wide forms ([`crate::wide`]).
    wide: Cell<bool>,
    /// Lanes that offered a warp-wide form in the current step, and their offers.
    pub(crate) offered: Cell<u32>,
    pub(crate) offers: Cell<[*const crate::wide::Offer; 32]>,
    /// Set while a run that may start in its kernel's form polls the first lane of its first
    /// step; a wrapper entry kernel then returns at once with its form in `probed`
    /// (`wide::probe`) instead of running.
    pub(crate) probing: Cell<bool>,
    pub(crate) probed: Cell<Option<crate::wide::Direct>>,
}

/// The instruction word of a request: the [`Op::code`] in bits 0..12, then the parts of
/// `shfl.sync`'s operands that the instruction reads: `b[4:0]` in bits 12..17, `c[4:0]` in bits
/// 17..22 and `c[12:8]` in bits 22..27. The membermask goes in the high 32 bits of the key.
#[inline(always)]
pub(crate) const fn pack(op: Op, mask: u32, b: u32, c: u32) -> u64 {
    op.code() as u64 | ((b & 0x1f) as u64) << 12 | pack_base(mask, c)
}
/// The part of a key that `mask` and `c` make.
#[inline(always)]
pub(crate) const fn pack_base(mask: u32, c: u32) -> u64 {
    ((c & 0x1f) as u64) << 17 | ((c >> 8 & 0x1f) as u64) << 22 | (mask as u64) << 32
}
/// The instruction's bits of a request word (`Op::code`).
const OP_CODE: u64 = 0xfff;
/// The bits of a key that name the instruction and its membermask (not `b` and `c`).
const OP_AND_MASK: u64 = 0xffff_ffff_0000_0000 | OP_CODE;
#[inline(always)]
pub(crate) fn op_of(key: u64) -> Op {
    Op::from_code((key & OP_CODE) as u32)
}
#[inline(always)]
pub(crate) fn mask_of(key: u64) -> u32 {
    (key >> 32) as u32
}
#[inline(always)]
pub(crate) fn b_of(key: u64) -> u32 {
    (key >> 12) as u32 & 0x1f
}
#[inline(always)]
pub(crate) fn c_of(key: u64) -> u32 {
    (key >> 17) as u32 & 0x1f | ((key >> 22) as u32 & 0x1f) << 8
}

/// The call path at a kernel's entry (no warp-function call yet).
pub(crate) const PATH_ENTRY: u64 = 0;

/// The call path `path` followed by a call at `site`; `last`: the caller reaches no warp
/// instruction, barrier or call after it (`wide::Calls::new_last`).
///
/// Bits 1-63 are a hash. The multiplier is odd, so for a fixed `path` distinct sites give
/// distinct products (but for two places whose [`place_hash`]es collide), and for a fixed site
/// distinct paths do; the rotation makes the order of the calls count (`a` then `b` is not `b`
/// then `a`). By the place, not the `Location`'s address: two copies of a kernel's code have two
/// `Location`s of each place. Bit 0 is set once a call that is not a last call is on the path
/// ([`only_last_calls`]).
///
/// [`place_hash`]: crate::error::place_hash
#[inline(always)]
pub(crate) fn path_then(path: u64, site: Site, last: bool) -> u64 {
    let hash = (path.rotate_left(23) ^ crate::error::place_hash(site)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    hash & !1 | path & 1 | !last as u64
}

/// Whether every call on `path` is a last call (the entry's path too): a lane that returns from
/// the function it runs then runs only lane code (no warp instruction, barrier or call) until it
/// exits, which for the warp's instructions is exiting now.
#[inline(always)]
pub(crate) fn only_last_calls(path: u64) -> bool {
    path & 1 == 0
}

/// Lane `lane`'s cell of a per-lane register array.
#[inline(always)]
pub(crate) fn at<T>(cells: &Cell<[T; 32]>, lane: usize) -> &Cell<T> {
    let cells: &Cell<[T]> = cells;
    &cells.as_slice_of_cells()[lane & 31]
}

/// `first ^ key` OR-ed over every lane: zero when all 32 keys are equal. Read in place (no copy
/// of the array) and branch-free, so it vectorizes.
#[inline(always)]
fn difference(keys: &Cell<[u64; 32]>) -> u64 {
    let cells: &Cell<[u64]> = keys;
    let cells = cells.as_slice_of_cells();
    let first = cells[0].get();
    cells.iter().fold(0, |d, k| d | (k.get() ^ first))
}

/// Every lane's `cells` set to `value`, in place.
#[inline(always)]
fn fill(cells: &Cell<[u64; 32]>, value: u64) {
    let cells: &Cell<[u64]> = cells;
    cells.as_slice_of_cells().iter().for_each(|c| c.set(value));
}

/// The call paths of the lanes that call a warp function together, from before the call
/// ([`Regs::enter_calls`]).
pub(crate) enum Callers {
    /// Every lane's, the same.
    One(u64),
    /// Each lane's.
    Each([u64; 32]),
}

/// The lanes whose key is not zero: those with a request posted (read after every step).
#[inline(always)]
fn nonzero(keys: &Cell<[u64; 32]>) -> u32 {
    crate::simd::nonzero64(keys)
}

/// The call site registers hold before a lane's first instruction.
fn no_site() -> Site {
    Location::caller()
}

/// Where a lane's last warp instruction was called, if it issued one since its block started
/// (the site register keeps the last; a reused slot starts at [`no_site`]). Compared by value: an
/// optimized build may give `no_site`'s location more than one address.
fn issued_at(site: Site) -> Option<Site> {
    let none = no_site();
    let unset = site.file() == none.file() && site.line() == none.line() && site.column() == none.column();
    (!unset).then_some(site)
}

/// What an isolated run's child copies out of the current warp's registers when it dies
/// (`crate::isolate`): plain data, read without allocating, in a signal handler.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct RegsSnapshot {
    pub pos: WarpPos,
    /// The lane being polled.
    pub lane: u32,
    /// Lanes that had returned (or were never launched) when the step began.
    pub exited: u32,
    pub keys: [u64; 32],
    pub sites: [Site; 32],
}

impl RegsSnapshot {
    /// Each lane as the registers show it: waiting at the instruction it posted, else running
    /// (with the last call site its registers hold).
    pub(crate) fn lanes(&self) -> ([LaneState; 32], [Option<Site>; 32]) {
        let lanes = core::array::from_fn(|l| match self.keys[l] {
            _ if self.exited >> l & 1 == 1 && l as u32 != self.lane => LaneState::Exited,
            0 => LaneState::Running,
            key => LaneState::Waiting { op: op_of(key), mask: mask_of(key), site: self.sites[l] },
        });
        let last = core::array::from_fn(|l| issued_at(self.sites[l]).filter(|_| self.exited >> l & 1 == 0));
        (lanes, last)
    }
}

impl Regs {
    /// The registers as plain data (see [`RegsSnapshot`]).
    pub(crate) fn snapshot(&self) -> RegsSnapshot {
        RegsSnapshot {
            pos: self.pos.get(),
            lane: self.current.get(),
            exited: self.exited.get(),
            keys: self.key.get(),
            sites: core::array::from_fn(|l| self.site_at(l)),
        }
    }

    // Inlined, the registers are written where the run keeps them (out of line, rustc built
    // them in a temporary and copied all ~5 KiB, the lanes' unused memory-wait slots included).
    #[inline(always)]
    pub(crate) fn new(pos: WarpPos, block: &BlockCtx) -> Regs {
        let here: Site = no_site();
        Regs {
            key: Cell::new([0; 32]),
            marks: Cell::new(0),
            a: Cell::new([0; 32]),
            site: Cell::new([here; 32]),
            site_all: Cell::new(here),
            path: Cell::new([PATH_ENTRY; 32]),
            result: Cell::new([0; 32]),
            pred: Cell::new(0),
            twice: Cell::new(0),
            unawaited: core::array::from_fn(|_| Cell::new((0, here))),
            current: Cell::new(0),
            exited: Cell::new(0),
            mem_yield: Cell::new(0),
            mem_progress: Cell::new(false),
            step: Cell::new(0),
            yields: [const { Cell::new(MaybeUninit::uninit()) }; 32],
            yields_valid: Cell::new(0),
            loads: Cell::new([0; 32]),
            pos: Cell::new(pos),
            block,
            races: crate::race::RegsRaces::new(),
            target: Cell::new(Target::default()),
            tracing: Cell::new(false),
            trace_events: core::cell::RefCell::new(Vec::new()),
            wide: Cell::new(false),
            offered: Cell::new(0),
            offers: Cell::new([core::ptr::null(); 32]),
            probing: Cell::new(false),
            probed: Cell::new(None),
        }
    }

    /// Whether the run driving these registers takes warp-wide forms.
    #[inline(always)]
    pub(crate) fn wide_allowed(&self) -> bool {
        self.wide.get()
    }

    /// Lane `lane` waits at `offer` (see [`crate::wide`]).
    #[inline(always)]
    pub(crate) fn post_offer(&self, lane: u32, offer: *const crate::wide::Offer) {
        let l = lane as usize & 31;
        at(&self.offers, l).set(offer);
        self.offered.set(self.offered.get() | 1 << l);
    }

    /// Withdraws lane `lane`'s `offer`, if the registers still hold it.
    pub(crate) fn withdraw_offer(&self, lane: u32, offer: *const crate::wide::Offer) {
        let l = lane as usize & 31;
        if core::ptr::eq(at(&self.offers, l).get(), offer) {
            at(&self.offers, l).set(core::ptr::null());
            self.offered.set(self.offered.get() & !(1 << l));
        }
    }

    /// The lane that runs now.
    #[inline(always)]
    pub(crate) fn set_current(&self, lane: u32) {
        self.current.set(lane);
    }

    /// Whether any lane has a request posted.
    #[inline(always)]
    pub(crate) fn any_posted(&self) -> bool {
        self.posted() != 0
    }

    /// The lanes with a request posted (whose request word is not zero).
    #[inline(always)]
    pub(crate) fn posted(&self) -> u32 {
        let posted = self.marks.get() as u32;
        debug_assert_eq!(posted, crate::simd::nonzero64(&self.key), "the posted lanes are those with a request word");
        posted
    }

    /// A warp-wide instruction that every lane issued with the same request, completed without
    /// posting it (see `WideCtx::issue`): the registers as the lanes' posts would leave them
    /// (operands, call sites, the step), for the engine's completion and later reports.
    #[inline(always)]
    pub(crate) fn issued_by_all(&self, a: Option<&[u64; 32]>, site: Site) {
        if let Some(a) = a {
            self.a.set(*a);
        }
        self.site_all.set(site);
        self.marks.set(self.marks.get() & u64::from(u32::MAX));
        self.step.set(self.step.get().wrapping_add(1));
        self.exited.set(0);
    }

    /// The lanes that have not returned (and were launched), as of the warp's last step.
    #[inline(always)]
    pub(crate) fn live_lanes(&self) -> u32 {
        !self.exited.get()
    }

    /// The warp's block.
    #[inline(always)]
    pub(crate) fn block(&self) -> &BlockCtx {
        // SAFETY: the invariant of `block`.
        unsafe { &*self.block }
    }

    /// Makes the registers fresh for another warp at `pos` (a block slot taking its next block).
    pub(crate) fn reset(&self, pos: WarpPos) {
        // Only posted lanes' words are not zero (`posted`): after a run that left none posted
        // (every run that ended without a report, warp-wide or not), they are all zero already.
        if self.posted() != 0 {
            self.key.set([0; 32]);
        }
        self.marks.set(0);
        self.pred.set(0);
        self.twice.set(0);
        self.mem_yield.set(0);
        self.mem_progress.set(false);
        self.yields_valid.set(0);
        self.loads.set([0; 32]);
        self.path.set([PATH_ENTRY; 32]);
        self.site_all.set(no_site());
        self.exited.set(0);
        self.offered.set(0);
        self.pos.set(pos);
        self.races.reset();
    }

    /// Makes the registers as [`new`](Self::new) made them, for another run at `pos` (a
    /// thread's next run of one warp, `Executor::run`, `run_with`, `run_partial`, which keeps
    /// them: `exec::Solo`): [`reset`](Self::reset), and what a run
    /// leaves that a block slot's next block of the same launch keeps. (The operands, results,
    /// unawaited requests and offers are read only for lanes that post them again, as after
    /// `reset`; a run sets the target, tracing and forms before it starts, `WarpRun::new`.)
    pub(crate) fn renew(&self, pos: WarpPos) {
        self.reset(pos);
        self.current.set(0);
        self.step.set(0);
        self.probing.set(false);
        self.probed.set(None);
        self.trace_events.borrow_mut().clear();
    }

    /// The modelled target.
    #[inline(always)]
    pub(crate) fn target(&self) -> Target {
        self.target.get()
    }

    /// Where the warp sits in its launch.
    #[inline(always)]
    pub(crate) fn pos(&self) -> WarpPos {
        self.pos.get()
    }

    /// The warp's step count (see `step`).
    #[inline(always)]
    pub(crate) fn step(&self) -> u64 {
        self.step.get()
    }

    /// The lane being polled.
    #[inline(always)]
    pub(crate) fn current_lane(&self) -> u32 {
        self.current.get()
    }

    /// Records lane `lane`'s arrival at an instruction: `packed` is its request word and
    /// membermask ([`pack`]).
    #[inline(always)]
    pub(crate) fn post_key(&self, lane: u32, packed: u64, a: u64, site: Site) {
        let l = lane as usize & 31;
        let key = at(&self.key, l);
        if key.get() != 0 {
            self.posted_twice(l, key.get());
        }
        key.set(packed);
        // A word of zero (a user's `WideInstr` key, or a `WarpValue` of no words: `Op::code` is
        // zero only for a shuffle of none) posts nothing, as the words alone would say.
        // Posted (for a word that is not zero) and its own call site, in one update.
        self.marks.set(self.marks.get() | u64::from(packed != 0) << l | 1 << (32 + l));
        at(&self.a, l).set(a);
        at(&self.site, l).set(site);
    }

    /// Lane `lane` posts again while `pending` (its previous request) was never awaited: keeps
    /// that request's call site for the report (the first one, if it happens again).
    #[cold]
    #[inline(never)]
    fn posted_twice(&self, lane: usize, pending: u64) {
        let twice = self.twice.get();
        if twice & 1 << lane == 0 {
            self.unawaited[lane].set((pending, self.site_at(lane)));
        }
        self.twice.set(twice | 1 << lane);
    }

    /// Notes that the current lane suspends at the memory operation `wait` (a scheduling point).
    pub(crate) fn note_yield(&self, wait: MemWait) {
        let lane = self.current.get() as usize & 31;
        if self.yield_at(lane).is_none_or(|p| !p.same_as(&wait)) {
            self.mem_progress.set(true);
        }
        self.yields[lane].set(MaybeUninit::new(wait));
        self.yields_valid.set(self.yields_valid.get() | 1 << lane);
        self.mem_yield.set(self.mem_yield.get() | 1 << lane);
    }

    /// Counts a plain load of `lane`; true when it is the lane's turn to yield.
    #[inline]
    pub(crate) fn count_load(&self, lane: u32) -> bool {
        // Below sm_70 every load is one (lockstep: every lane's load before any lane goes on).
        if !self.target().independent_scheduling() {
            return true;
        }
        let cell = at(&self.loads, lane as usize & 31);
        let n = cell.get() + 1;
        if n >= crate::mem::LOADS_PER_POINT {
            cell.set(0);
            true
        } else {
            cell.set(n);
            false
        }
    }

    /// Lane `lane`'s last memory operation at a suspension, if it had one.
    fn yield_at(&self, lane: usize) -> Option<MemWait> {
        // SAFETY: `yields_valid` says the entry was written.
        (self.yields_valid.get() >> lane & 1 == 1).then(|| unsafe { self.yields[lane & 31].get().assume_init() })
    }

    /// The completed instruction's `(d, p)` for `lane`.
    #[inline(always)]
    pub(crate) fn result_of(&self, lane: u32) -> (u64, bool) {
        (at(&self.result, lane as usize).get(), self.pred.get() >> lane & 1 == 1)
    }

    /// Forgets the requests of `lanes` (completed: about to be resumed).
    #[inline(always)]
    fn clear(&self, lanes: u32) {
        self.marks.set(self.marks.get() & !u64::from(lanes));
        if lanes == FULL {
            self.key.set([0; 32]);
        } else {
            crate::semantics::lanes(lanes).for_each(|l| at(&self.key, l as usize).set(0));
        }
    }

    fn key_at(&self, lane: usize) -> u64 {
        at(&self.key, lane).get()
    }
    /// The lanes of `among` whose request words agree with `key` on the bits of `bits` (one
    /// pass over the 32 words, which the compiler vectorizes).
    #[inline]
    fn keys_like(&self, among: u32, bits: u64, key: u64) -> u32 {
        let cells: &Cell<[u64]> = &self.key;
        let want = key & bits;
        cells.as_slice_of_cells().iter().enumerate().fold(0, |m, (l, k)| m | ((k.get() & bits == want) as u32) << l) & among
    }

    /// The instruction bits of lane `lane`'s request word: equal for two lanes exactly when
    /// they wait at the same instruction (distinct instructions have distinct codes), without
    /// decoding either.
    #[inline]
    pub(crate) fn op_code_at(&self, lane: usize) -> u64 {
        self.key_at(lane) & OP_CODE
    }

    pub(crate) fn op_at(&self, lane: usize) -> Op {
        op_of(self.key_at(lane))
    }
    fn mask_at(&self, lane: usize) -> u32 {
        mask_of(self.key_at(lane))
    }
    pub(crate) fn a_at(&self, lane: usize) -> u64 {
        at(&self.a, lane).get()
    }
    /// A barrier request's predicate `c` (after `!c`).
    pub(crate) fn bar_pred_at(&self, lane: usize) -> bool {
        b_of(self.key_at(lane)) & 1 == 1
    }
    pub(crate) fn site_at(&self, lane: usize) -> Site {
        // Both read (every slot holds a site), then one chosen: no branch in the engine's loops
        // over the lanes.
        let (own, all) = (at(&self.site, lane).get(), self.site_all.get());
        if self.marks.get() >> 32 >> (lane & 31) & 1 == 1 { own } else { all }
    }
    /// Lane `lane`'s call path (see `path`).
    pub(crate) fn path_at(&self, lane: usize) -> u64 {
        at(&self.path, lane).get()
    }
    /// Whether lanes `a` and `b` wait at the same instruction: the same call site, reached
    /// through the same warp-function calls.
    pub(crate) fn same_instruction(&self, a: usize, b: usize) -> bool {
        crate::error::same_place(self.site_at(a), self.site_at(b)) && self.path_at(a) == self.path_at(b)
    }

    /// Lane `lane` enters a warp function called at `site` (a last call when `last`): its path
    /// becomes the caller's path followed by `site`. Returns the caller's path, which
    /// [`leave_call`](Self::leave_call) restores.
    #[inline(always)]
    pub(crate) fn enter_call(&self, lane: u32, site: Site, last: bool) -> u64 {
        let cell = at(&self.path, lane as usize);
        let caller = cell.get();
        cell.set(path_then(caller, site, last));
        caller
    }
    /// The lanes of `lanes` call a warp function at `site` together (a warp-wide form's call; a
    /// last call when `last`): each one's path before the call, to give back with
    /// [`leave_calls`](Self::leave_calls).
    #[inline]
    pub(crate) fn enter_calls(&self, lanes: u32, site: Site, last: bool) -> Callers {
        if lanes == u32::MAX && difference(&self.path) == 0 {
            // The whole warp from one path (the usual case): one new path for all, compared and
            // written in place (copying the 32 paths out and back took two to three memcpys).
            let first = at(&self.path, 0).get();
            fill(&self.path, path_then(first, site, last));
            return Callers::One(first);
        }
        let before = self.path.get();
        let mut after = before;
        for l in crate::semantics::lanes(lanes) {
            after[l as usize] = path_then(before[l as usize], site, last);
        }
        self.path.set(after);
        Callers::Each(before)
    }
    /// The lanes [`enter_calls`](Self::enter_calls) entered return from the warp function, to
    /// the paths it gave (no other lane's path changed meanwhile: the others have exited).
    #[inline]
    pub(crate) fn leave_calls(&self, before: &Callers) {
        match before {
            Callers::One(path) => fill(&self.path, *path),
            Callers::Each(paths) => self.path.set(*paths),
        }
    }
    /// Lane `lane` returns from a warp function to its caller, whose path is `caller`.
    #[inline(always)]
    pub(crate) fn leave_call(&self, lane: u32, caller: u64) {
        at(&self.path, lane as usize).set(caller)
    }
    pub(crate) fn set_result(&self, lane: usize, value: u64) {
        at(&self.result, lane).set(value)
    }
    /// Notes, for a traced warp, that lane `lane`'s access `op` at `site` raced.
    #[cold]
    pub(crate) fn trace_race(&self, lane: u32, op: &'static str, site: Site) {
        if self.tracing.get() {
            self.trace_events.borrow_mut().push(crate::trace::TraceEvent::Race { lane, op, site });
        }
    }
}

/// The lane futures of a warp, in place: lane `l`'s future lives in `slots[l]` from its first
/// poll until it returns (or the run ends), and never moves (the struct is pinned).
pub(crate) struct Lanes<F> {
    slots: [MaybeUninit<F>; 32],
    /// Bit `l`: `slots[l]` holds a future.
    live: u32,
}

impl<F> Lanes<F> {
    pub(crate) const fn new() -> Lanes<F> {
        Lanes { slots: [const { MaybeUninit::uninit() }; 32], live: 0 }
    }
}

impl<F: Future> Lanes<F> {
    #[inline(always)]
    fn start(self: Pin<&mut Self>, lane: u32, fut: F) {
        // SAFETY: structural pinning; the slot is empty (each lane starts once), and the future
        // written into it is not moved until it is dropped in place.
        let this = unsafe { self.get_unchecked_mut() };
        this.slots[lane as usize & 31].write(fut);
        this.live |= 1 << lane;
    }

    /// Polls lane `lane`'s future, which must be live.
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, lane: u32, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: the lane is live (the engine polls only lanes that started and have not
        // returned), and its future is pinned in place.
        unsafe {
            let this = self.get_unchecked_mut();
            debug_assert!(this.live >> lane & 1 == 1);
            Pin::new_unchecked(this.slots[lane as usize & 31].assume_init_mut()).poll(cx)
        }
    }

    /// Drops lane `lane`'s future in place, if it has one.
    #[inline(always)]
    pub(crate) fn drop_lane(self: Pin<&mut Self>, lane: u32) {
        // SAFETY: `live` says the slot holds a future; it is marked empty first, so a `Drop` that
        // panics cannot lead to a second drop.
        unsafe {
            let this = self.get_unchecked_mut();
            if this.live >> lane & 1 == 1 {
                this.live &= !(1 << lane);
                this.slots[lane as usize & 31].assume_init_drop();
            }
        }
    }

    /// Drops every live lane future, each under the panic guard: a kernel local whose `Drop`
    /// panics must not reach the host.
    pub(crate) fn drop_all(mut self: Pin<&mut Self>) {
        for lane in 0..32 {
            let _ = catch_lane_panic(|| self.as_mut().drop_lane(lane));
        }
    }
}

impl<F> Drop for Lanes<F> {
    fn drop(&mut self) {
        for lane in crate::semantics::lanes(self.live) {
            self.live &= !(1 << lane);
            // SAFETY: the slot holds a future (its `live` bit was set) and is never used again.
            unsafe { self.slots[lane as usize].assume_init_drop() };
        }
    }
}

/// The results of the lanes that returned.
pub(crate) struct Outs<R> {
    values: [MaybeUninit<R>; 32],
    /// Bit `l`: `values[l]` holds lane `l`'s result.
    filled: u32,
}

impl<R> Outs<R> {
    pub(crate) const fn new() -> Outs<R> {
        Outs { values: [const { MaybeUninit::uninit() }; 32], filled: 0 }
    }

    #[inline(always)]
    pub(crate) fn set(&mut self, lane: u32, value: R) {
        self.values[lane as usize & 31].write(value);
        self.filled |= 1 << lane;
    }

    /// Drops lane `lane`'s result, if it has one.
    pub(crate) fn unset(&mut self, lane: u32) {
        if self.filled >> lane & 1 == 1 {
            self.filled &= !(1 << lane);
            // SAFETY: the value was initialized (its bit was set), and its bit is now clear.
            unsafe { self.values[lane as usize & 31].assume_init_drop() };
        }
    }

    /// The results a warp-wide run left in `lanes`.
    #[inline(always)]
    pub(crate) fn from_wide(lanes: crate::wide::Lanes<R>) -> Outs<R> {
        let (values, filled) = lanes.into_parts();
        Outs { values, filled }
    }

    /// Every lane's result; every lane was launched, so every lane returned one.
    pub(crate) fn into_array(self) -> [R; 32] {
        assert_eq!(self.filled, FULL, "every launched lane returned");
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: all 32 values are initialized (`MaybeUninit<R>` has `R`'s layout), and `this`
        // is not dropped, so each is read once.
        unsafe { core::ptr::read(&this.values as *const [MaybeUninit<R>; 32] as *const [R; 32]) }
    }

    /// Each lane's result, `None` for lanes that did not return one.
    pub(crate) fn into_options(self) -> [Option<R>; 32] {
        let mut this = core::mem::ManuallyDrop::new(self);
        this.take()
    }

    /// Takes every result out, leaving the slots empty (for reuse).
    #[inline]
    pub(crate) fn take(&mut self) -> [Option<R>; 32] {
        let filled = core::mem::replace(&mut self.filled, 0);
        // SAFETY: `filled` says which values are initialized; it is now 0, so each is read once.
        core::array::from_fn(|l| (filled >> l & 1 == 1).then(|| unsafe { self.values[l].assume_init_read() }))
    }
}

impl<R> Drop for Outs<R> {
    fn drop(&mut self) {
        for lane in crate::semantics::lanes(self.filled) {
            // SAFETY: the value is initialized (its bit is set) and dropped once.
            unsafe { self.values[lane as usize].assume_init_drop() };
        }
    }
}

/// What a warp needs after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Lanes are runnable: step again.
    Running,
    /// Lanes are runnable, and some suspended outside any instruction (at a memory operation, or
    /// on a foreign future): a scheduling point, where the scheduler may run another warp. `spinning` is whether the step made no progress at all
    /// (no lane arrived at an instruction or returned, nothing completed, nothing was written to
    /// memory, and every memory operation repeated its lane's previous one).
    Yield {
        /// The step made no progress.
        spinning: bool,
    },
    /// Every non-exited lane waits at a CTA barrier and the warp's arrival has not been taken
    /// yet: the block scheduler must take it ([`WarpRun::barrier_lanes`]).
    Barrier,
    /// Every non-exited lane waits at a CTA barrier whose arrival was taken: the warp waits for
    /// the barrier to complete.
    Waiting,
    /// Every lane has returned.
    Done,
}

/// One warp's state between steps.
pub(crate) struct WarpRun<'r> {
    pub(crate) regs: &'r Regs,
    /// The modelled target.
    pub(crate) target: Target,
    /// The order in which lanes are polled in a step (`None`: ascending).
    order: Option<[u8; 32]>,
    /// The lane order as configured, for reports.
    lane_order: crate::LaneOrder,
    /// Lanes launched at the start. Never changes.
    pub(crate) launched: u32,
    /// Lanes that returned, panicked or were never launched. Only grows.
    pub(crate) exited: u32,
    /// Lanes waiting at an instruction (a warp instruction or a CTA barrier). Disjoint from
    /// `exited` and `blocked`.
    pub(crate) waiting: u32,
    /// Lanes of `waiting` at a CTA barrier whose arrival the block has taken: they wait for the
    /// barrier to complete.
    pub(crate) taken: u32,
    /// Lanes that, in the last step, suspended on a future that is not an instruction (a memory
    /// operation, or a foreign future). They are polled again each step; disjoint from `waiting`
    /// and `exited`.
    pub(crate) blocked: u32,
    /// Lanes of `blocked` that wait to return from a warp-wide form that ran for them in the
    /// last step: they were resumed, as a completed instruction's lanes are, and a report made
    /// before they are polled shows them running from the form's last instruction.
    formed: u32,
    /// Lanes to poll in the next step.
    runnable: u32,
    /// The lane that panicked, if one did.
    pub(crate) panicked: Option<u32>,
    /// Whether the lanes' futures have been started (they are created by the first step).
    started: bool,
    /// The schedule that produced this run, for reports.
    pub(crate) schedule: crate::schedule::Schedule,
    /// The thread's write count when the warp last yielded (a yield without writes since is
    /// spinning, unless something else progressed).
    writes: u64,
    /// The warp's trace recorder, when the run traces it.
    trace: core::cell::RefCell<Option<Box<crate::trace::WarpTracer>>>,
    /// Whether `trace` holds a recorder (tested once per step, without borrowing it).
    tracing: bool,
    /// The run's deadline (its driver's), which warp-wide forms look at too.
    pub(crate) deadline: Option<crate::exec::Deadline>,
    /// Instructions of warp-wide forms until their next look at the clock: one count for all the
    /// forms of the run, so that many short forms reach the clock as the steps of the per-lane
    /// executor would (the driver counts its own steps apart).
    pub(crate) clock: u32,
    /// The vector instructions warp-wide runs use ([`crate::simd`]).
    pub(crate) simd: crate::simd::Simd,
    /// A warp-wide form that waits at a CTA barrier: the offer (of the lowest lane running it)
    /// that holds it; null when none does. The warp's next step resumes it.
    pub(crate) form: *const crate::wide::Offer,
}

impl<'r> WarpRun<'r> {
    #[inline(always)]
    pub(crate) fn new(regs: &'r Regs, target: Target, order: crate::LaneOrder, launched: u32) -> WarpRun<'r> {
        regs.target.set(target);
        regs.tracing.set(false);
        regs.wide.set(false);
        let mut run = WarpRun {
            regs,
            target,
            // Set below where there is one: `then` copied the 32 bytes even for `None`, and the
            // copy waited on stores to them from before.
            order: None,
            lane_order: order,
            launched,
            exited: !launched,
            waiting: 0,
            taken: 0,
            blocked: 0,
            formed: 0,
            runnable: launched,
            panicked: None,
            started: false,
            schedule: crate::schedule::Schedule::InOrder,
            writes: 0,
            trace: core::cell::RefCell::new(None),
            tracing: false,
            deadline: None,
            clock: crate::exec::CLOCK_EVERY,
            simd: crate::simd::Simd::Portable,
            form: core::ptr::null(),
        };
        if order != crate::LaneOrder::Ascending {
            run.order = Some(order.permutation());
        }
        run
    }

    /// Takes the warp-wide forms kernels offer when `on` ([`crate::wide`]), unless the target
    /// lacks independent thread scheduling (lockstep hazards are checked per step) or the warp
    /// is traced (a trace shows every lane's steps); the forms end at the run's `deadline` and
    /// use the vector instructions of `simd`.
    #[inline(always)]
    pub(crate) fn wide(&mut self, on: bool, deadline: Option<crate::exec::Deadline>, simd: crate::simd::Simd) -> &mut WarpRun<'r> {
        self.deadline = deadline;
        self.simd = simd;
        self.regs.wide.set(on && self.target.independent_scheduling() && !self.tracing);
        self
    }

    /// The order lanes run in within a step (`None`: ascending).
    pub(crate) fn order_ref(&self) -> &Option<[u8; 32]> {
        &self.order
    }

    /// Records this warp's steps into `tracer` (`None`: not traced).
    /// (Set in place: a run is large, and moving it through a builder chain is a copy.)
    #[inline(always)]
    pub(crate) fn traced(&mut self, tracer: Option<&crate::trace::RunTracer>) -> &mut WarpRun<'r> {
        match tracer {
            // Fresh registers and runs are untraced: nothing to do.
            None if !self.regs.tracing.get() && self.regs.trace_events.borrow().is_empty() => {}
            _ => self.trace_into(tracer),
        }
        self
    }

    #[inline(never)]
    fn trace_into(&mut self, tracer: Option<&crate::trace::RunTracer>) {
        let pos = self.regs.pos();
        let trace = tracer.and_then(|t| t.warp(pos.warp, pos.ctaid, pos.warp_in_block, self.launched));
        self.tracing = trace.is_some();
        self.trace = core::cell::RefCell::new(trace);
        self.regs.tracing.set(self.tracing);
        if self.tracing {
            self.regs.wide.set(false);
        }
        self.regs.trace_events.borrow_mut().clear();
    }

    /// One step: polls every runnable lane until it stops, then completes what can complete.
    #[inline(always)]
    pub(crate) fn step<F: Future>(
        &mut self,
        futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
    ) -> Result<Step, WarpError> {
        // One copy of the engine's step, traced or not: a second copy for traced runs, or a
        // wrapper around it, kept rustc from inlining the lanes' futures (+30% instructions).
        // The trace hooks are the `self.tracing` tests at the step's ends.
        if !self.form.is_null() {
            return self.resume_form();
        }
        self.step_inner(futs, start, outs)
    }

    /// A step of a warp whose warp-wide form waits at a CTA barrier ([`crate::wide`]), which
    /// has completed: the form runs on, to the next barrier (its lanes' requests are then
    /// those of a step in which every live lane arrived there) or to its end (the lanes return
    /// from their futures in the next step).
    #[cold]
    #[inline(never)]
    fn resume_form(&mut self) -> Result<Step, WarpError> {
        let exited_before = self.begin_step();
        self.regs.mem_progress.set(true);
        let resumed = catch_lane_panic(|| crate::wide::resume_form(self));
        if !matches!(resumed, Ok(Ok(false))) {
            // Ended, failed or panicked: the form is gone.
            self.form = core::ptr::null();
        }
        match resumed {
            Ok(Ok(true)) => {
                self.runnable = !self.exited;
                self.regs.exited.set(self.exited);
                Ok(Step::Running)
            }
            Ok(Ok(false)) => {
                self.runnable = !self.exited;
                let exited = self.exited;
                self.finish_step(Ok(()), exited_before, exited)
            }
            Ok(Err(e)) => Err(e),
            Err(caught) => Err(self.wide_panicked(caught)),
        }
    }

    /// `result`, after recording the step that ends with it when the warp is traced (the step's
    /// rare ends: it failed, returned, or stopped at a barrier).
    #[inline(always)]
    fn ended<T>(&self, result: T) -> T {
        if self.tracing {
            self.record_step(0, false);
        }
        result
    }

    /// Records the step that just ran, whose instructions of lanes `completed` completed (their
    /// registers still hold requests and results); `barrier`: a CTA barrier's completion, a step
    /// of its own in which no lane ran. The recorder knows which lanes ran and which had exited
    /// before (what the previous step left).
    #[cold]
    #[inline(never)]
    fn record_step(&self, completed: u32, barrier: bool) {
        use crate::trace::{Executed, Instr, LaneValues, TraceEvent};
        let mut trace = self.trace.borrow_mut();
        let Some(t) = trace.as_deref_mut() else { return };
        let (ran, exited_before) = if barrier { (0, t.exited) } else { (t.runnable, t.exited) };
        let s = self.regs;
        let mut executed: Vec<Executed> = Vec::new();
        for l in lanes(completed) {
            let i = l as usize;
            let instr = t.instr(Instr { op: s.op_at(i), mask: s.mask_at(i), site: s.site_at(i) });
            let (d, p) = s.result_of(l);
            let b = if matches!(s.op_at(i), Op::Shfl { .. }) { b_of(s.key_at(i)) } else { 0 };
            let v = LaneValues { lane: l, a: s.a_at(i), b, d, p };
            match executed.iter_mut().find(|e| e.instr == instr) {
                Some(e) => {
                    e.lanes.0 |= 1 << l;
                    e.values.push(v);
                }
                None => executed.push(Executed { instr, lanes: LaneSet(1 << l), values: vec![v] }),
            }
        }
        // The instructions lanes wait at are in the table too (the picture names them).
        for l in lanes(self.waiting & !completed) {
            let i = l as usize;
            t.instr(Instr { op: s.op_at(i), mask: s.mask_at(i), site: s.site_at(i) });
        }
        let mut events = core::mem::take(&mut *s.trace_events.borrow_mut());
        let panicked = self.panicked.map_or(0, |l| 1u32 << l);
        let exits = self.exited & !exited_before & self.launched & !panicked;
        if exits != 0 {
            events.push(TraceEvent::Exited(LaneSet(exits)));
        }
        if panicked & !exited_before != 0 {
            events.push(TraceEvent::Panicked(LaneSet(panicked)));
        }
        let lanes_now = self.report().lanes;
        t.push(ran, lanes_now, completed, executed, events);
        t.exited = self.exited;
        // Who runs next: the lanes that completed and those polled again (a step's rare ends
        // set `runnable` themselves; a barrier's completion adds its lanes).
        t.runnable = if barrier { t.runnable | completed } else if completed != 0 { completed | self.blocked } else { self.runnable };
    }

    #[inline(always)]
    fn step_inner<F: Future>(
        &mut self,
        futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
    ) -> Result<Step, WarpError> {
        let exited_before = self.begin_step();
        let mut exited = self.exited;
        let seq = Seq::new(self.runnable, &self.order);
        let mut futs = futs;
        let writes = mem::writes();
        let mut step = self.poll_lanes(futs.as_mut(), start, outs, seq.lanes(), &mut exited);
        if step.is_err() && self.regs.offered.get() != 0 {
            step = self.offered_before_a_panic(futs, outs, seq.lanes(), step, writes, &mut exited);
        }
        self.finish_step(step, exited_before, exited)
    }

    /// A lane panicked (or faulted) in a step in which lanes polled before it wait at a
    /// warp-wide offer. Per lane, those lanes would have run on to their next instruction before
    /// the panic, and the report would show them waiting there (a declined offer's lanes are
    /// otherwise polled again in the next step, which a failed step does not have). So each, in
    /// the lane order, has its offer declined and is polled again until it stops at something
    /// other than an offer (a callee's offer on the way is declined too), before the next.
    ///
    /// They run after the lane that panicked, though, where per lane they ran before it: what
    /// they do must not depend on what it did, nor what it did be overwritten by them. So this
    /// happens only in a step in which no kernel wrote memory (`writes`: the count when it
    /// began; a lane's flag stored before its panic would otherwise let the others take other
    /// paths, spin on it, or store over its value). Even so, the step's panic stays the report,
    /// and at the first panic among them the polling stops: that lane, and those not yet polled
    /// again, stay where they were. (Per lane, a panic of one of them before its instruction
    /// would have come first; that difference remains.) A lane that offers again and again,
    /// calling a kernel in a loop without reaching an instruction, is polled until the run's
    /// time limit, then left at its offer.
    #[cold]
    #[inline(never)]
    fn offered_before_a_panic<F: Future>(
        &mut self,
        mut futs: Pin<&mut Lanes<F>>,
        outs: &mut Outs<F::Output>,
        lanes: &[u8],
        caught: Result<(), Caught>,
        writes: u64,
        exited: &mut u32,
    ) -> Result<(), Caught> {
        if mem::writes() != writes {
            return caught;
        }
        let regs = self.regs;
        let panicked = regs.current.get();
        let offered = regs.offered.get();
        let mut cx = Context::from_waker(Waker::noop());
        'lanes: for &lane in lanes {
            let lane = lane as u32 & 31;
            if offered >> lane & 1 == 0 {
                continue;
            }
            while regs.offered.get() >> lane & 1 == 1 {
                if self.deadline.as_ref().is_some_and(|d| d.passed().is_some()) {
                    break 'lanes;
                }
                regs.offered.set(regs.offered.get() & !(1 << lane));
                crate::wide::decline(1 << lane, &regs.offers.get());
                regs.current.set(lane);
                if catch_lane_panic(|| poll_lane(futs.as_mut(), lane, &mut cx, outs, exited)).is_err() {
                    break 'lanes;
                }
            }
        }
        regs.current.set(panicked);
        caught
    }

    /// A step's start: the registers' per-step state. Returns the lanes exited before it.
    #[inline(always)]
    fn begin_step(&self) -> u32 {
        let regs = self.regs;
        if !self.target.independent_scheduling() {
            regs.races.step();
        }
        regs.exited.set(self.exited);
        regs.mem_yield.set(0);
        regs.mem_progress.set(false);
        regs.step.set(regs.step.get().wrapping_add(1));
        self.exited
    }

    /// Polls `lanes` in order until each stops at its next instruction or returns (starting
    /// their futures in the first step). One `catch_unwind` covers them; `regs.current` says
    /// which lane panicked.
    #[inline(always)]
    fn poll_lanes<F: Future>(
        &mut self,
        mut futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
        lanes: &[u8],
        exited: &mut u32,
    ) -> Result<(), Caught> {
        let regs = self.regs;
        let mut cx = Context::from_waker(Waker::noop());
        catch_lane_panic(|| {
            if !self.started {
                for &lane in lanes {
                    let lane = lane as u32 & 31;
                    regs.current.set(lane);
                    futs.as_mut().start(lane, start(lane));
                    poll_lane(futs.as_mut(), lane, &mut cx, outs, exited);
                }
            } else {
                for &lane in lanes {
                    let lane = lane as u32 & 31;
                    regs.current.set(lane);
                    poll_lane(futs.as_mut(), lane, &mut cx, outs, exited);
                }
            }
        })
    }

    /// The first step of a run of the kernel itself (see `crate::wide::Direct`): polls the first
    /// lane alone, and when it offered a warp-wide form taking `A` and giving `R`, runs that form
    /// for every lane with the arguments `args` instead of the lanes' futures (`Ok(None)`, the
    /// results in `douts`). Otherwise the step goes on as any first step. The form is learned
    /// for the kernel's future's `poll` at `poll` (`Direct::learn`): a kernel this thread
    /// already ran directly starts its form without a lane's poll (`start_known`).
    pub(crate) fn first_step_direct<K, F: Future, A: Copy>(
        &mut self,
        futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
        args: &[A; 32],
        douts: &mut crate::wide::Lanes<F::Output>,
        poll: *const (),
    ) -> Result<Option<Step>, WarpError> {
        let pointers = (args as *const [A; 32] as *const (), douts as *mut crate::wide::Lanes<F::Output> as *mut ());
        let take = |direct: &crate::wide::Direct, launched: u32| (direct.of::<K, A, F::Output>() && direct.agrees(args, launched)).then_some(pointers);
        // SAFETY: `take` gives the pointers only for a form of these `A` and `F::Output`, and
        // `A` is `Copy`. No probe: the run's kernel may be a closure that goes on after a
        // wrapper entry it calls, and would then run that part twice.
        unsafe { self.first_step_offered(futs, start, outs, false, take, poll) }
    }

    /// The run of a kernel in the form this thread learned for it (`wide::KnownForm`), started
    /// without polling a lane: every lane's arguments from `args`, its result into `douts`
    /// (`Ok(())`: every lane returned).
    pub(crate) fn start_known<A: Copy, R>(&mut self, known: &crate::wide::KnownForm<A, R>, args: &[A; 32], douts: &mut crate::wide::Lanes<R>) -> Result<(), WarpError> {
        self.begin_step();
        // SAFETY: `KnownForm::find` checked `Direct::of` for `A` and `R`; `A` is `Copy`.
        match unsafe { self.direct(known.direct(), args as *const [A; 32] as *const (), douts as *mut crate::wide::Lanes<R> as *mut ()) } {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// [`first_step_direct`](Self::first_step_direct) for a grid's warp of an entry kernel
    /// (`Grid::run_entry`): `entry` says which form, and holds every lane's arguments; the
    /// kernel returns nothing.
    pub(crate) fn first_step_entry<F: Future>(
        &mut self,
        futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
        entry: &crate::grid::EntryStart,
    ) -> Result<Option<Step>, WarpError> {
        let mut douts = crate::wide::Lanes::<()>::new();
        let douts = &mut douts as *mut crate::wide::Lanes<()> as *mut ();
        // SAFETY: `of` checked the form's argument type, which `agrees` reads `args` as.
        let take = |direct: &crate::wide::Direct, launched: u32| ((entry.of)(direct) && unsafe { (entry.agrees)(direct, entry.args, launched) }).then_some((entry.args, douts));
        // SAFETY: `entry.of` holds for a form that takes `entry.args`' `A` (`Copy`) and gives `()`.
        // The lanes' futures are the entry's own (`run_entry`'s closure does nothing after it),
        // so a wrapper entry may probe.
        unsafe { self.first_step_offered(futs, start, outs, true, take, core::ptr::null()) }
    }

    /// The first step of a run that may start in the kernel's form: polls the first lane alone,
    /// and when it offered a form (or, when `probe`, a wrapper entry kernel probed with it,
    /// `wide::probe`) that `take` accepts (given the lanes launched) without any lane exiting,
    /// runs that form for every lane from the arguments and into the results `take` points to,
    /// instead of the lanes' futures (`Ok(None)`: every lane returned). Otherwise the step goes
    /// on as any first step (after a probe, from the first lane again). A form that a lane
    /// offered is remembered by the kernel's future's `poll` at `learn`, unless that is null
    /// (`Direct::learn`; only a run without probes gives one).
    ///
    /// # Safety
    /// The pointers `take` gives are a `*const [A; 32]` and a `*mut Lanes<R>` for which the
    /// form's `Direct::of::<_, A, R>()` holds, with `A: Copy`.
    unsafe fn first_step_offered<F: Future>(
        &mut self,
        mut futs: Pin<&mut Lanes<F>>,
        start: &mut impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
        probe: bool,
        take: impl FnOnce(&crate::wide::Direct, u32) -> Option<(*const (), *mut ())>,
        learn: *const (),
    ) -> Result<Option<Step>, WarpError> {
        let exited_before = self.begin_step();
        let mut exited = self.exited;
        let seq = Seq::new(self.runnable, &self.order);
        let (first, rest) = seq.lanes().split_at(seq.lanes().len().min(1));
        let writes = mem::writes();
        self.regs.probing.set(probe);
        let step = self.poll_lanes(futs.as_mut(), start, outs, first, &mut exited);
        self.regs.probing.set(false);
        let probed = self.regs.probed.take();
        if let (Ok(()), Some(&lane)) = (&step, first.first()) {
            let lane = lane as u32;
            if probed.is_some() {
                // The lane returned at its probe, having run nothing of the kernel: it has not
                // exited, and starts again unless the form runs.
                exited = self.exited;
                outs.unset(lane);
            }
            if let Some(direct) = probed.or_else(|| crate::wide::Direct::offered(self.regs, lane)) {
                if let Some((args, douts)) = take(&direct, self.launched).filter(|_| exited == self.exited) {
                    self.regs.offered.set(0);
                    // Suspended at its offer (or returned at its probe), having run nothing of
                    // the kernel.
                    futs.drop_lane(lane);
                    if !learn.is_null() {
                        crate::wide::Direct::learn(learn, direct);
                    }
                    // SAFETY: the caller's contract.
                    return unsafe { self.direct(&direct, args, douts) };
                }
            }
            if probed.is_some() {
                let mut step = self.poll_lanes(futs.as_mut(), start, outs, seq.lanes(), &mut exited);
                if step.is_err() && self.regs.offered.get() != 0 {
                    step = self.offered_before_a_panic(futs, outs, seq.lanes(), step, writes, &mut exited);
                }
                return self.finish_step(step, exited_before, exited).map(Some);
            }
        }
        let mut step = step.and_then(|()| self.poll_lanes(futs.as_mut(), start, outs, rest, &mut exited));
        if step.is_err() && self.regs.offered.get() != 0 {
            step = self.offered_before_a_panic(futs, outs, seq.lanes(), step, writes, &mut exited);
        }
        self.finish_step(step, exited_before, exited).map(Some)
    }

    /// Whether the warp has taken its first step (its lanes' futures, or its form, started).
    pub(crate) fn has_started(&self) -> bool {
        self.started
    }

    /// The direct run of `direct` (see `first_step_direct`) with every lane's arguments at
    /// `args` (`*const [A; 32]`): `Ok(None)` when every lane returned, its result in `douts`
    /// (`*mut Lanes<R>`).
    ///
    /// # Safety
    /// `direct.of::<_, A, R>()` holds for the `A` and `R` behind the pointers, and `A: Copy`.
    unsafe fn direct(&mut self, direct: &crate::wide::Direct, args: *const (), douts: *mut ()) -> Result<Option<Step>, WarpError> {
        self.started = true;
        crate::wide::count_direct_start();
        let limit = self.deadline;
        // The form's error, if it ends with one, is put here, so that the `catch_unwind` returns
        // nothing (returning the `Result`, it copied the error's bytes, written or not: most of
        // an empty kernel's `direct` waited on that copy).
        let mut failed = None;
        // SAFETY: the caller checked the form and its types (`Direct::of`); `A` is `Copy`.
        let run = catch_lane_panic(|| {
            if let Err(e) = unsafe { crate::wide::run_direct(self, direct, args, douts, limit) } {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        match run {
            Ok(()) => {
                // Every lane returned; one that returned with an instruction issued and never
                // awaited is reported as the step it returned in would.
                self.exited = FULL;
                self.runnable = 0;
                self.regs.exited.set(FULL);
                if self.regs.any_posted() {
                    self.waiting = 0;
                    return Err(self.not_awaited(self.regs.posted(), 0));
                }
                Ok(None)
            }
            Err(caught) => Err(self.wide_panicked(caught)),
        }
    }

    /// What a step's polling left: its outcome.
    #[inline(always)]
    fn finish_step(&mut self, step: Result<(), Caught>, exited_before: u32, exited: u32) -> Result<Step, WarpError> {
        let regs = self.regs;
        self.started = true;
        let runnable = self.runnable;
        self.exited = exited;
        // Lanes that returned in this step are exited for what other warps see (a cluster
        // barrier counts only non-exited threads).
        regs.exited.set(exited);
        let mut posted = regs.posted() & runnable;
        let mut twice = regs.twice.replace(0);
        if let Err(caught) = step {
            let lane = regs.current.get();
            self.exited |= 1 << lane;
            self.panicked = Some(lane);
            self.waiting |= posted & !self.exited;
            let e = self.caught(lane, caught);
            return self.ended(Err(e));
        }
        self.formed = 0;
        // Offering lanes suspend without posting: a step in which every lane posted has none
        // (the converged path reads nothing more).
        if runnable & !self.exited & !posted != 0 {
            let offered = regs.offered.replace(0);
            if offered != 0 {
                if let Err(e) = self.offers(offered) {
                    return self.ended(Err(e));
                }
                if !self.form.is_null() {
                    // The form waits at a CTA barrier: every live lane posted it, as in a step
                    // of their own.
                    posted = regs.posted() & runnable & !self.exited;
                    twice |= regs.twice.replace(0);
                }
            }
        }
        // A lane that suspended without posting a request awaits a future that is not an
        // instruction (a memory operation's scheduling point, or a foreign future), or waits at
        // a warp-wide offer: it is polled again next step.
        self.blocked = runnable & !self.exited & !posted;
        let misused = twice | (self.exited & !exited_before & posted);
        if misused != 0 {
            self.waiting |= posted & !self.exited;
            let e = self.not_awaited(misused, twice);
            return self.ended(Err(e));
        }
        self.waiting |= posted;
        if self.waiting == 0 && self.blocked == 0 {
            self.runnable = 0;
            return self.ended(Ok(Step::Done));
        }
        let (completed, at_barrier) = if self.waiting != 0 {
            match self.resolve() {
                Ok(r) => r,
                Err(e) => return self.ended(Err(e)),
            }
        } else {
            (0, 0)
        };
        if completed == 0 && self.blocked == 0 {
            // Nothing in this warp can run now.
            let live = !self.exited;
            self.runnable = 0;
            if at_barrier == live {
                return self.ended(Ok(if at_barrier & !self.taken != 0 { Step::Barrier } else { Step::Waiting }));
            }
            let e = if at_barrier != 0 { self.barrier_stuck(at_barrier) } else { self.stuck() };
            return self.ended(Err(e));
        }
        // Whether this step is progress, decided before the completed lanes' requests are
        // cleared (only steps that suspend lanes at memory ask).
        let spinning = self.blocked != 0 && {
            let writes = mem::writes();
            let moved = self.exited != exited_before || writes != self.writes || regs.mem_progress.get();
            self.writes = writes;
            // Progress is a write, an exit, a lane reading something new, or warp work that does
            // not involve the lanes re-reading memory this step (lanes computing with shuffles
            // among themselves while another lane polls). An instruction whose membermask
            // names a polling lane is part of the polling loop: the `vote.any` of
            // `while w.any(flag.load_volatile(0) == 0) {}` completes at every turn, with the
            // lanes that do not read among them, and the warp is spinning all the same.
            let pollers = regs.mem_yield.get();
            !moved && !crate::semantics::lanes(completed | posted).any(|l| regs.mask_at(l as usize) & pollers == 0)
        };
        if self.tracing {
            self.record_step(completed, false);
        }
        regs.clear(completed);
        self.waiting &= !completed;
        self.runnable = completed | self.blocked;
        if self.blocked != 0 {
            return Ok(Step::Yield { spinning });
        }
        Ok(Step::Running)
    }

    /// The lanes of `offered` wait at a kernel's warp-wide offer ([`crate::wide`]): runs the
    /// warp-wide form when they are every live lane and offered one form at one call, and
    /// declines their offers otherwise. Either way they are polled again next step.
    #[cold]
    #[inline(never)]
    fn offers(&mut self, offered: u32) -> Result<(), WarpError> {
        let regs = self.regs;
        let offers = regs.offers.get();
        if offered != !self.exited || !crate::wide::same_offers(regs, offered, &offers) {
            crate::wide::decline(offered, &offers);
            return Ok(());
        }
        let limit = self.deadline;
        // The form's run is progress: the lanes are not spinning while they wait to return.
        regs.mem_progress.set(true);
        // Every live lane runs in the form: none is suspended outside an instruction (what an
        // earlier step left, such as a declined offer, is not what the form's reports show).
        self.blocked = 0;
        match catch_lane_panic(|| crate::wide::run_offers(self, offered, offers, limit)) {
            Ok(result) => {
                if self.form.is_null() {
                    self.formed = offered & !self.exited;
                }
                result
            }
            Err(caught) => Err(self.wide_panicked(caught)),
        }
    }

    /// A lane panicked in a warp-wide run: the report, as a step's guard makes it.
    #[cold]
    fn wide_panicked(&mut self, caught: Caught) -> WarpError {
        let regs = self.regs;
        let lane = regs.current.get();
        self.exited |= 1 << lane;
        self.panicked = Some(lane);
        self.waiting |= regs.posted() & !self.exited;
        regs.exited.set(self.exited);
        self.caught(lane, caught)
    }

    /// In a warp-wide run, completes the instruction every live lane has just issued, as a
    /// step completes it (see [`crate::wide::WideCtx::settle`]).
    pub(crate) fn settle_wide(&mut self) -> Result<(), WarpError> {
        let regs = self.regs;
        regs.exited.set(self.exited);
        regs.step.set(regs.step.get().wrapping_add(1));
        let posted = regs.posted() & !self.exited;
        let twice = regs.twice.replace(0);
        self.waiting |= posted;
        if twice != 0 {
            return Err(self.not_awaited(twice, twice));
        }
        if self.waiting == 0 {
            return Ok(());
        }
        let (completed, at_barrier) = self.resolve()?;
        if completed != self.waiting {
            // The per-lane engine would let the completed lanes go on while the others wait;
            // a warp-wide run cannot, and reports what those lanes wait for now.
            return Err(if at_barrier != 0 { self.barrier_stuck(at_barrier) } else { self.stuck() });
        }
        regs.clear(completed);
        self.waiting = 0;
        Ok(())
    }

    /// Whether every lane has returned (or was never launched).
    pub(crate) fn finished(&self) -> bool {
        self.exited == FULL
    }

    /// Whether some lane can be polled (the warp neither waits at a barrier nor has finished).
    pub(crate) fn is_runnable(&self) -> bool {
        self.runnable != 0
    }

    /// The lanes among `lanes` whose request is a CTA barrier.
    fn barrier_lanes_among(&self, lanes: u32) -> u32 {
        let regs = self.regs;
        crate::semantics::lanes(lanes).filter(|&l| Op::code_is_barrier(regs.op_code_at(l as usize) as u32)).fold(0, |m, l| m | 1 << l)
    }

    /// The lanes waiting at a CTA barrier whose arrival the block has not taken yet.
    pub(crate) fn barrier_lanes(&self) -> u32 {
        self.barrier_lanes_among(self.waiting) & !self.taken
    }

    /// The block took the arrival of `lanes` (at `.sync`/`.red`: they now wait for completion).
    pub(crate) fn take_arrival(&mut self, lanes: u32) {
        self.taken |= lanes;
        if let Some(t) = self.trace.get_mut() {
            t.event(crate::trace::TraceEvent::BarrierArrived(LaneSet(lanes)));
        }
    }

    /// Completes the barrier requests of `lanes` with result `d` (`bar.red`'s value): they are
    /// resumed at the next step.
    pub(crate) fn complete_barrier(&mut self, lanes: u32, d: u32) {
        for l in crate::semantics::lanes(lanes) {
            self.regs.set_result(l as usize, d as u64);
        }
        if self.tracing {
            // The completion is a step of its own on the timeline: the lanes resume.
            self.regs.trace_events.borrow_mut().push(crate::trace::TraceEvent::BarrierCompleted(LaneSet(lanes)));
            self.record_step(lanes, true);
        }
        self.regs.clear(lanes);
        self.waiting &= !lanes;
        self.taken &= !lanes;
        self.runnable |= lanes;
    }

    /// The report of lanes `misused` that issued an instruction and did not await it: those of
    /// `twice` posted another one (their kept request names the first), the others returned
    /// with it pending (their request registers still hold it).
    #[cold]
    #[inline(never)]
    fn not_awaited(&self, misused: u32, twice: u32) -> WarpError {
        let mut unawaited: Vec<Unawaited> = Vec::new();
        for lane in lanes(misused) {
            let l = lane as usize;
            let (key, site) =
                if twice & 1 << lane != 0 { self.regs.unawaited[l].get() } else { (self.regs.key_at(l), self.regs.site_at(l)) };
            let op = op_of(key);
            match unawaited.iter_mut().find(|u| u.op == op && *u.site == *site) {
                Some(u) => u.lanes.0 |= 1 << lane,
                None => unawaited.push(Unawaited { lanes: LaneSet(1 << lane), op, site }),
            }
        }
        WarpError::NotAwaited { lanes: LaneSet(misused), unawaited, report: self.report() }
    }

    /// Converts what a step's guard caught into the run's error.
    fn caught(&self, lane: u32, caught: Caught) -> WarpError {
        match caught {
            Caught::Panic { message, location } => WarpError::LanePanicked { lane, message, location, report: self.report() },
            Caught::Fault(fault) => WarpError::Memory { lane, fault: *fault, report: self.report() },
        }
    }

    /// Completes every warp instruction whose lanes have all arrived; returns the lanes to resume
    /// and the lanes that wait at a CTA barrier (for the block). A lane at a barrier is a live
    /// lane that has not arrived at any warp instruction.
    #[inline(always)]
    fn resolve(&mut self) -> Result<(u32, u32), WarpError> {
        let s = self.regs;
        let live = !self.exited;
        let waiting = self.waiting;

        // The converged case: every waiting lane at one instruction with one membermask that
        // names exactly the live lanes.
        let first = waiting.trailing_zeros() as usize;
        let key = s.key_at(first);
        let d = if waiting == FULL {
            difference(&s.key)
        } else {
            lanes(waiting).fold(0, |d, l| d | (s.key_at(l as usize) ^ key))
        };
        let (same, same_operands) = (d & OP_AND_MASK == 0, d == 0);
        let (op, mask) = (op_of(key), mask_of(key));
        if same
            && mask & live == waiting
            && op.synchronizing()
            && op.supported_on(self.target)
            && (self.target.independent_scheduling() || self.converged_sm6x(mask, waiting))
        {
            let operands = same_operands.then_some(key);
            self.complete(op, mask, waiting, operands)?;
            return Ok((waiting, 0));
        }
        self.resolve_general()
    }

    /// Whether the lanes of `lanes` (not empty) posted their requests at one place through one
    /// call path.
    #[inline]
    fn one_call(&self, lanes: u32) -> bool {
        let s = self.regs;
        let first = lanes.trailing_zeros() as usize;
        let (site, path) = (s.site_at(first), s.path_at(first));
        crate::semantics::lanes(lanes).all(|l| crate::error::same_place(s.site_at(l as usize), site) && s.path_at(l as usize) == path)
    }

    /// [`resolve`](Self::resolve) when the lanes are not converged at one instruction.
    #[inline(never)]
    fn resolve_general(&mut self) -> Result<(u32, u32), WarpError> {
        let s = self.regs;
        let live = !self.exited;
        // Every waiting lane at one instruction that is not a synchronization point (`activemask`,
        // the deprecated `vote`; not a CTA barrier, which the block completes): it acts on the
        // lanes that execute the call together, which are all of them when they called it at one
        // place through one path (as the loop below groups them). (Here, not in `resolve`: a
        // branch more there made the per-lane warp sum 15% slower, at the same instruction count.)
        let key = s.key_at(self.waiting.trailing_zeros() as usize);
        let op = op_of(key);
        if !op.synchronizing()
            && !op.is_barrier()
            && op.supported_on(self.target)
            && s.keys_like(self.waiting, OP_CODE, key) == self.waiting
            && self.one_call(self.waiting)
        {
            let waiting = self.waiting;
            self.complete(op, waiting, waiting, None)?;
            return Ok((waiting, 0));
        }
        let at_barrier = self.barrier_lanes_among(self.waiting);
        let waiting = self.waiting & !at_barrier;
        self.check_each_lane(waiting)?;
        let mut pending = waiting;
        let mut completed = 0;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            // Lanes are grouped by their request words' instruction (and membermask) bits, not
            // by decoded instructions: distinct instructions have distinct codes.
            let key = s.key_at(lane);
            let (op, mask) = (op_of(key), mask_of(key));
            if !op.synchronizing() {
                // Not a synchronization point: it acts on the lanes that execute this call
                // together (the same call site through the same warp-function calls).
                let (site, path) = (s.site_at(lane), s.path_at(lane));
                let group = self.select(s.keys_like(pending, OP_CODE, key), |l| crate::error::same_place(s.site_at(l), site) && s.path_at(l) == path);
                self.complete(op, group, group, None)?;
                completed |= group;
                pending &= !group;
                continue;
            }
            let group = s.keys_like(pending, OP_AND_MASK, key);
            if mask & live & !group == 0 {
                if !self.target.independent_scheduling() && !self.converged_sm6x(mask, group) {
                    let report = self.report();
                    return Err(WarpError::NotConverged { op, mask, lanes: LaneSet(group), target: self.target, report });
                }
                self.complete(op, mask, group, None)?;
                completed |= group;
            }
            pending &= !group;
        }
        Ok((completed, at_barrier))
    }

    fn select(&self, among: u32, mut pred: impl FnMut(usize) -> bool) -> u32 {
        lanes(among).filter(|&l| pred(l as usize)).fold(0, |m, l| m | 1 << l)
    }

    /// Below sm_70, whether the lanes of `group`, which are every non-exited lane of `mask`,
    /// execute their instruction in convergence: "For .target sm_6x or below, all threads in
    /// membermask must execute the same [shfl.sync, vote.sync, bar.warp.sync] instruction in
    /// convergence". All at the same instruction, and no lane of `mask` exited (or never
    /// launched): an exited thread does not execute it at all. (The CTA barriers' rule excepts
    /// exited threads in so many words, "All threads in warp (except for those have exited)";
    /// these instructions' does not.)
    fn converged_sm6x(&self, mask: u32, group: u32) -> bool {
        mask & self.exited == 0 && self.same_site(group)
    }

    /// Whether every lane of `group` waits at the same instruction: one call site, reached
    /// through the same warp-function calls.
    pub(crate) fn same_site(&self, group: u32) -> bool {
        let s = self.regs;
        let first = group.trailing_zeros() as usize;
        lanes(group).all(|l| s.same_instruction(l as usize, first))
    }

    /// Rules that each waiting lane can break alone: membermask without the lane (rule 1) and an
    /// instruction the target lacks (rule 6).
    fn check_each_lane(&self, waiting: u32) -> Result<(), WarpError> {
        let s = self.regs;
        let target = self.target;
        // Each instruction's rules are looked up once per run of lanes that wait at it.
        let mut last: Option<(u64, Op)> = None;
        let mut op_of_lane = |lane: u32| {
            let code = s.op_code_at(lane as usize);
            match last {
                Some((c, op)) if c == code => op,
                _ => {
                    let op = op_of(code);
                    last = Some((code, op));
                    op
                }
            }
        };
        for lane in lanes(waiting) {
            let op = op_of_lane(lane);
            if !op.supported_on(target) {
                let lanes = LaneSet(self.select(waiting, |l| s.op_at(l) == op));
                let report = self.report();
                return Err(match op {
                    Op::VoteLegacy(_) => WarpError::VoteRemoved { op, target, lanes, report },
                    _ => WarpError::Unsupported { op, target, lanes, report },
                });
            }
        }
        for lane in lanes(waiting) {
            let op = op_of_lane(lane);
            if op.synchronizing() && s.mask_at(lane as usize) & (1 << lane) == 0 {
                let lanes = LaneSet(self.select(waiting, |l| s.op_at(l) == op && s.mask_at(l) & (1 << l) == 0));
                return Err(WarpError::NotInMembermask { op, lanes, report: self.report() });
            }
        }
        Ok(())
    }

    /// Performs `op` for the lanes of `group` (membermask `mask`) and stores their results.
    /// `uniform` is the key every lane of a full-warp `group` posted, when all posted the same.
    pub(crate) fn complete(&self, op: Op, mask: u32, group: u32, uniform: Option<u64>) -> Result<(), WarpError> {
        let s = self.regs;
        let store_all = |value: u64| {
            if group == FULL {
                // One store of the array, which the compiler vectorizes.
                s.result.set([value; 32]);
            } else {
                lanes(group).for_each(|l| s.set_result(l as usize, value));
            }
        };
        let set_pred = |p: u32| s.pred.set((s.pred.get() & !group) | (p & group));
        match op {
            Op::Shfl { mode, .. } => {
                if let (FULL, Some(key)) = (group, uniform) {
                    // Converged, with immediate-like operands: every source is a participant.
                    // SAFETY: between polls nothing else reads or writes these registers, and no
                    // reference into them outlives this block; `a` and `result` are distinct.
                    let pred = unsafe { shfl::converged(mode, &*s.a.as_ptr(), b_of(key), c_of(key), &mut *s.result.as_ptr()) };
                    set_pred(pred);
                    return Ok(());
                }
                let a = s.a.get();
                let b: [u32; 32] = core::array::from_fn(|l| b_of(s.key_at(l)));
                let c: [u32; 32] = core::array::from_fn(|l| c_of(s.key_at(l)));
                let route = shfl::route(mode, &b, &c, group);
                if route.undefined != 0 {
                    let faults = lanes(route.undefined)
                        .map(|lane| {
                            let source = route.src[lane as usize] as u32;
                            ShflFault {
                                lane,
                                source,
                                not_in_mask: mask & (1 << source) == 0,
                                exited: self.exited & (1 << source) != 0,
                                launched: self.launched & (1 << source) != 0,
                            }
                        })
                        .collect();
                    return Err(WarpError::InvalidShflSource { op, faults, report: self.report() });
                }
                let d = shfl::apply(&route, &a, group);
                lanes(group).for_each(|l| s.set_result(l as usize, d[l as usize]));
                set_pred(route.pred);
            }
            Op::Vote(mode) | Op::VoteLegacy(mode) => {
                // Every register's at once (`nonzero`), then the group's.
                let preds = nonzero(&s.a) & group;
                let r = vote::vote(mode, preds, group);
                store_all(r as u64);
            }
            Op::MatchAny { .. } => {
                let a = s.a.get();
                let d = matching::match_any(&a, group);
                lanes(group).for_each(|l| s.set_result(l as usize, d[l as usize] as u64));
            }
            Op::MatchAll { .. } => {
                let a = s.a.get();
                let (d, p) = matching::match_all(&a, group);
                store_all(d as u64);
                set_pred(if p { FULL } else { 0 });
            }
            Op::Redux(rop, ty) => {
                let src = s.a.get().map(|v| v as u32);
                store_all(redux::redux_int(rop, ty, &src, group) as u64);
            }
            Op::ReduxF32(q) => {
                let src = s.a.get().map(|v| v as u32);
                store_all(redux::redux_f32(q, &src, group) as u64);
            }
            Op::Activemask => store_all(group as u64),
            Op::BarWarpSync => s.races.warp_sync(&s.block().races, s.pos().warp_in_block, group),
            Op::Elect => {
                let leader = elect::leader(group);
                store_all(leader as u64);
                set_pred(1 << leader);
            }
            Op::Bar(_) => unreachable!("CTA barriers are completed by the block scheduler"),
        }
        Ok(())
    }

    /// Nothing can complete: explain why (rule 3 when lanes that expect each other disagree,
    /// rule 4 otherwise).
    fn stuck(&self) -> WarpError {
        let s = self.regs;
        let mut conflicts = Vec::new();
        for lane in lanes(self.waiting) {
            let (op, mask) = (s.op_at(lane as usize), s.mask_at(lane as usize));
            for other in lanes(mask & self.waiting & !(1 << lane)) {
                let (oop, omask) = (s.op_at(other as usize), s.mask_at(other as usize));
                if other > lane && omask & (1 << lane) != 0 && (oop, omask) != (op, mask) {
                    conflicts.push(Conflict { lane, op, mask, other, other_op: oop, other_mask: omask });
                }
            }
        }
        if !conflicts.is_empty() {
            return WarpError::Divergent { conflicts, report: self.report() };
        }
        self.deadlock()
    }

    /// Some lanes wait at a CTA barrier, the warp's other live lanes wait at warp instructions
    /// that cannot complete: the barrier waits for all of them, they wait for the barrier's
    /// lanes.
    fn barrier_stuck(&self, at_barrier: u32) -> WarpError {
        let s = self.regs;
        let first = at_barrier.trailing_zeros() as usize;
        let op = s.op_at(first);
        let aligned = matches!(op, Op::Bar(b) if b.aligned) || !self.target.independent_scheduling();
        let others = !self.exited & !at_barrier;
        if aligned {
            let elsewhere = match lanes(others).next().map(|l| (l, self.regs.op_at(l as usize))) {
                Some((l, other)) if self.waiting >> l & 1 == 1 => format!(" but wait at `{other}` with membermask {:#010x}", s.mask_at(l as usize)),
                _ => String::new(),
            };
            WarpError::Barrier {
                rule: crate::error::BarrierRule::AlignedPartialWarp,
                barrier: s.a_at(first) as u32,
                detail: format!(
                    "{} of warp {} wait at `{op}` at {}; {} of the same warp are not at it{elsewhere}: a barrier waits for all non-exited threads of a warp, so neither can ever complete",
                    LaneSet(at_barrier),
                    s.pos().warp_in_block,
                    s.site_at(first),
                    LaneSet(others)
                ),
                report: Box::new(crate::error::BlockReport::of_warp(self.report())),
            }
        } else {
            self.deadlock()
        }
    }

    pub(crate) fn deadlock(&self) -> WarpError {
        let s = self.regs;
        let live = !self.exited;
        let mut edges = Vec::new();
        for lane in lanes(self.waiting) {
            let (op, mask) = (s.op_at(lane as usize), s.mask_at(lane as usize));
            let targets = if op.is_barrier() {
                // A barrier waits for every non-exited lane of its warp.
                live & !self.select(self.waiting, |l| s.op_at(l).is_barrier())
            } else {
                let arrived = self.select(self.waiting, |l| s.op_at(l) == op && s.mask_at(l) == mask);
                mask & live & !arrived
            };
            for waits_for in lanes(targets) {
                edges.push(WaitEdge { lane, waits_for });
            }
        }
        WarpError::Deadlock { waiting: LaneSet(self.waiting | self.blocked), edges, report: self.report() }
    }

    /// Every lane's state. Lanes resumed in this step but not yet polled are `Running`.
    pub(crate) fn report(&self) -> Box<Report> {
        let s = self.regs;
        let mem_blocked = s.mem_yield.get();
        let lanes = core::array::from_fn(|l| {
            let bit = 1u32 << l;
            if self.panicked == Some(l as u32) {
                LaneState::Panicked
            } else if self.launched & bit == 0 {
                LaneState::Inactive
            } else if self.exited & bit != 0 {
                LaneState::Exited
            } else if self.blocked & !self.formed & bit != 0 {
                match s.yield_at(l) {
                    Some(wait) if mem_blocked & bit != 0 => LaneState::AtMemory(wait),
                    _ => LaneState::Blocked,
                }
            } else if self.waiting & bit != 0 {
                let op = s.op_at(l);
                if op.is_barrier() {
                    let a = s.a_at(l);
                    let counted = matches!(op, Op::Bar(b) if b.counted);
                    LaneState::AtBarrier {
                        op,
                        barrier: a as u32,
                        count: counted.then_some((a >> 32) as u32),
                        arrived: self.taken & bit != 0,
                        site: s.site_at(l),
                    }
                } else {
                    LaneState::Waiting { op, mask: s.mask_at(l), site: s.site_at(l) }
                }
            } else {
                LaneState::Running
            }
        });
        let last_site = core::array::from_fn(|l| issued_at(s.site_at(l)));
        let pos = s.pos();
        Box::new(Report {
            target: self.target,
            warp: pos.warp,
            block: pos.ctaid,
            warp_in_block: pos.warp_in_block,
            warps_in_block: pos.warps_in_block,
            schedule: self.schedule,
            lane_order: self.lane_order,
            lanes,
            last_site,
        })
    }
}

/// Polls lane `lane`; when it returns, stores its result and drops its future (out of line: a
/// lane returns once, and keeping that path out of the polling loop keeps the loop lean).
#[inline(always)]
fn poll_lane<F: Future>(futs: Pin<&mut Lanes<F>>, lane: u32, cx: &mut Context<'_>, outs: &mut Outs<F::Output>, exited: &mut u32) {
    let mut futs = futs;
    if let Poll::Ready(r) = futs.as_mut().poll(lane, cx) {
        returned(futs, lane, r, outs, exited);
    }
}

#[cold]
#[inline(never)]
fn returned<F: Future>(futs: Pin<&mut Lanes<F>>, lane: u32, r: F::Output, outs: &mut Outs<F::Output>, exited: &mut u32) {
    outs.set(lane, r);
    *exited |= 1 << lane;
    futs.drop_lane(lane);
}

/// The lanes to poll in one step, in order.
struct Seq {
    lanes: [u8; 32],
    n: usize,
}

impl Seq {
    #[inline(always)]
    fn new(runnable: u32, order: &Option<[u8; 32]>) -> Seq {
        if runnable == FULL && order.is_none() {
            return Seq { lanes: IDENTITY, n: 32 };
        }
        let mut seq = Seq { lanes: [0; 32], n: 0 };
        let mut push = |lane: u32| {
            seq.lanes[seq.n & 31] = lane as u8;
            seq.n += 1;
        };
        match order {
            None => lanes(runnable).for_each(push),
            Some(order) => order.iter().filter(|&&l| runnable >> l & 1 == 1).for_each(|&l| push(l as u32)),
        }
        seq
    }

    #[inline(always)]
    fn lanes(&self) -> &[u8] {
        &self.lanes[..self.n.min(32)]
    }
}

/// What a step's guard caught from a lane.
pub(crate) enum Caught {
    /// A panic, with its message and location.
    Panic {
        /// The message.
        message: String,
        /// `file:line:col`, or `unknown location`.
        location: String,
    },
    /// A memory fault the runtime raised in the lane (out of bounds, uninitialized, ...).
    Fault(Box<LaneFault>),
}

std::thread_local! {
    /// Set while a lane is polled: a panic then is captured here instead of being printed.
    static CAPTURE: Cell<bool> = const { Cell::new(false) };
    static CAPTURED: Cell<Option<(String, String)>> = const { Cell::new(None) };
}

/// Whether warpkit's panic hook is installed (possibly inside a hook installed later that calls
/// the previous one, as chaining hooks do). Cleared when the hook is dropped: `set_hook` drops the
/// hook it replaces, so a hook installed after warpkit's without chaining clears it.
static HOOK_INSTALLED: AtomicBool = AtomicBool::new(false);

/// Lives inside warpkit's hook closure; its drop means the hook was replaced.
struct HookAlive;

impl Drop for HookAlive {
    fn drop(&mut self) {
        HOOK_INSTALLED.store(false, Ordering::Release);
    }
}

/// Makes sure warpkit's panic hook is installed before lanes run: a hook that, while a lane is
/// polled on this thread, records the message and location for the report instead of printing
/// them, and otherwise defers to the hook installed before it.
///
/// Hook order does not matter: installed at the first run, it wraps whatever hook was there; a
/// hook a program installs later replaces it (dropping it, which this notices at the next run)
/// and is then wrapped in turn. One atomic load per run when nothing changed.
#[inline]
pub(crate) fn install_panic_capture() {
    if !HOOK_INSTALLED.load(Ordering::Acquire) {
        install_panic_hook();
    }
}

#[cold]
#[inline(never)]
fn install_panic_hook() {
    // `take_hook`/`set_hook` panic on a panicking thread (a run started from a `Drop` during
    // unwinding); such a run keeps the payload's message and loses only the location.
    if std::thread::panicking() {
        return;
    }
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if HOOK_INSTALLED.load(Ordering::Acquire) {
        return;
    }
    let previous = panic::take_hook();
    let alive = HookAlive;
    HOOK_INSTALLED.store(true, Ordering::Release);
    panic::set_hook(Box::new(move |info| {
        let _alive = &alive;
        if CAPTURE.with(Cell::get) {
            let location = info.location().map_or_else(|| "unknown location".to_string(), |l| l.to_string());
            CAPTURED.with(|c| c.set(Some((payload_message(info.payload()), location))));
        } else {
            previous(info);
        }
    }));
}

/// A panic payload's message: the `&str` or `String` that `panic!` carries.
pub(crate) fn payload_message(payload: &(dyn core::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_string()
    }
}

/// Runs lane code with panics captured; a panic becomes [`Caught`].
#[inline(always)]
pub(crate) fn catch_lane_panic<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    // Restore the previous flag rather than clearing it: a lane may run a warp of its own, and
    // the outer lane must still be captured when that inner run returns.
    let outer = CAPTURE.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURE.with(|c| c.set(outer));
    result.map_err(|payload| {
        // A fault the runtime raised (with `resume_unwind`, which runs no hook).
        let payload = match payload.downcast::<LaneFault>() {
            Ok(fault) => return Caught::Fault(fault),
            Err(other) => other,
        };
        // The hook saw the panic unless another hook replaced warpkit's while this run was
        // polling (the next run installs it again); the payload still has the message.
        let (message, location) = CAPTURED.with(Cell::take).unwrap_or_else(|| {
            // Taken and kept without being called: install it again next run.
            HOOK_INSTALLED.store(false, Ordering::Release);
            (payload_message(&*payload), "unknown location (a panic hook installed during the run replaced warpkit's)".to_string())
        });
        // A payload's own `Drop` may panic too; that must not reach the host.
        if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            core::mem::forget(again);
        }
        Caught::Panic { message, location }
    })
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockCtx;

    /// The posted lanes are the lanes whose request word is not zero, through posts (a zero word
    /// among them: a user's `WideInstr` key may be one), clears of some lanes and of all, and a
    /// reset.
    #[test]
    fn posted_lanes_are_the_nonzero_words() {
        let block = BlockCtx::new(0);
        let regs = Regs::new(WarpPos::single(0), &block);
        let site = no_site();
        let agree = |regs: &Regs| assert_eq!(regs.posted(), crate::simd::nonzero64(&regs.key));
        let shfl = pack(Op::Shfl { mode: crate::semantics::shfl::ShflMode::Down, words: 1 }, !0, 1, 0x1f);
        for (lane, word) in [(0, shfl), (5, 0), (7, shfl | 1 << 40), (31, shfl)] {
            regs.post_key(lane, word, 0, site);
            agree(&regs);
        }
        assert_eq!(regs.posted(), 1 | 1 << 7 | 1 << 31);
        regs.clear(1 << 7 | 1 << 5);
        agree(&regs);
        assert_eq!(regs.posted(), 1 | 1 << 31);
        regs.clear(FULL);
        agree(&regs);
        regs.post_key(3, shfl, 0, site);
        regs.reset(WarpPos::single(0));
        agree(&regs);
        assert_eq!(regs.posted(), 0);
    }

    /// A lane's call site is the one it posted last, or the one an instruction of every lane
    /// (`issued_by_all`) set after that; a reset forgets both.
    #[test]
    fn call_sites_are_the_last_posted_or_issued_by_all() {
        let block = BlockCtx::new(0);
        let regs = Regs::new(WarpPos::single(0), &block);
        // Three places (each its own line).
        let a: Site = Location::caller();
        let b: Site = Location::caller();
        let c: Site = Location::caller();
        assert!(a.line() != b.line() && b.line() != c.line() && no_site().line() != a.line());
        let shfl = pack(Op::Shfl { mode: crate::semantics::shfl::ShflMode::Down, words: 1 }, !0, 1, 0x1f);
        let sites = |regs: &Regs| -> [u32; 32] { core::array::from_fn(|l| regs.site_at(l).line()) };
        regs.post_key(3, shfl, 0, a);
        regs.post_key(9, 0, 0, a);
        regs.issued_by_all(None, b);
        assert_eq!(sites(&regs), [b.line(); 32]);
        regs.post_key(5, shfl, 0, c);
        regs.clear(1 << 5);
        let mut want = [b.line(); 32];
        want[5] = c.line();
        assert_eq!(sites(&regs), want);
        assert_eq!(regs.snapshot().sites.map(|s| s.line()), want);
        regs.reset(WarpPos::single(0));
        assert_eq!(sites(&regs), [no_site().line(); 32]);
        assert_eq!(regs.posted(), 0);
    }
}
