//! The lockstep executor: polls lane futures until each stops at a warp instruction, completes
//! the instructions whose lanes have all arrived, and reports what can never complete.
//!
//! Mechanism and policy are apart: the order in which lanes are polled within a step is a
//! [`LaneOrder`] (it matters only for side effects outside the warp, such as global atomics),
//! and which target's rules apply is a [`Target`].

use core::cell::Cell;
use core::mem::MaybeUninit;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::panic::{self, AssertUnwindSafe, Location};

use crate::error::{Conflict, LaneSet, LaneState, Report, ShflFault, Site, WaitEdge, WarpError};
use crate::handle::Warp;
use crate::op::Op;
use crate::semantics::{elect, lanes, matching, redux, shfl, vote};
use crate::target::Target;

const FULL: u32 = u32::MAX;
/// Steps in a row in which lanes suspended outside any warp instruction make no progress (no
/// lane arrives at an instruction or returns, nothing completes) before the run is a deadlock.
const IDLE_LIMIT: u32 = 1000;
const IDENTITY: [u8; 32] = {
    let mut ids = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        ids[i] = i as u8;
        i += 1;
    }
    ids
};

/// The order in which the lanes that can run are polled within one step.
///
/// Results of warp instructions never depend on it; the order of side effects outside the warp
/// (global-memory atomics, printing) does, and a test can vary it to find order dependence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LaneOrder {
    /// Lane 0 first.
    #[default]
    Ascending,
    /// Lane 31 first.
    Descending,
    /// A fixed pseudo-random permutation derived from the seed, the same for every step.
    Seeded(u64),
}

impl LaneOrder {
    fn permutation(self) -> [u8; 32] {
        let mut order: [u8; 32] = core::array::from_fn(|l| l as u8);
        match self {
            LaneOrder::Ascending => {}
            LaneOrder::Descending => order.reverse(),
            LaneOrder::Seeded(seed) => {
                // splitmix64 drives a Fisher-Yates shuffle: deterministic and dependency-free.
                let mut state = seed;
                for i in (1..32).rev() {
                    state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    let mut z = state;
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    z ^= z >> 31;
                    order.swap(i, (z % (i as u64 + 1)) as usize);
                }
            }
        }
        order
    }
}

/// Per-lane request and result registers shared between the lane futures and the executor.
///
/// Invariant: a lane writes its request registers only while it is being polled, and reads its
/// result register only after the executor completed its request; the executor reads requests
/// and writes results only between polls. Everything runs on one thread.
pub(crate) struct Shared {
    /// Each lane's request: the instruction word (see [`pack`]) in the low 32 bits and the
    /// membermask in the high 32. Zero when the lane has posted nothing since the executor last
    /// resumed it (no instruction packs to zero), so a post is a few stores and one test.
    key: Cell<[u64; 32]>,
    /// Operand `a` (the value or predicate), zero-extended to 64 bits.
    a: Cell<[u64; 32]>,
    /// Where each waiting lane called its instruction.
    site: [Cell<Site>; 32],
    /// The destination register `d` of each completed lane.
    pub(crate) result: Cell<[u64; 32]>,
    /// Bit `lane` is the predicate destination `p` of a completed lane.
    pub(crate) pred: Cell<u32>,
    /// Lanes that issued an intrinsic while their previous one was still pending (issued without
    /// awaiting it: only possible without the macro).
    twice: Cell<u32>,
    /// The warp's index in its launch: global thread id = 32 * warp + lane.
    pub(crate) warp: u64,
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
/// The bits of a key that name the instruction and its membermask (not `b` and `c`).
const OP_AND_MASK: u64 = 0xffff_ffff_0000_0fff;
#[inline(always)]
fn op_of(key: u64) -> Op {
    Op::from_code(key as u32 & 0xfff)
}
#[inline(always)]
fn mask_of(key: u64) -> u32 {
    (key >> 32) as u32
}
#[inline(always)]
fn b_of(key: u64) -> u32 {
    (key >> 12) as u32 & 0x1f
}
#[inline(always)]
fn c_of(key: u64) -> u32 {
    (key >> 17) as u32 & 0x1f | ((key >> 22) as u32 & 0x1f) << 8
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

/// The lanes whose key is not zero: those with a request posted.
#[inline(always)]
fn nonzero(keys: &Cell<[u64; 32]>) -> u32 {
    let cells: &Cell<[u64]> = keys;
    cells.as_slice_of_cells().iter().enumerate().fold(0, |m, (l, k)| m | ((k.get() != 0) as u32) << l)
}

impl Shared {
    fn new(warp: u64) -> Shared {
        let here: Site = Location::caller();
        Shared {
            key: Cell::new([0; 32]),
            a: Cell::new([0; 32]),
            site: core::array::from_fn(|_| Cell::new(here)),
            result: Cell::new([0; 32]),
            pred: Cell::new(0),
            twice: Cell::new(0),
            warp,
        }
    }

    /// Records lane `lane`'s arrival at a warp instruction.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn post(&self, lane: u32, op: Op, mask: u32, a: u64, b: u32, c: u32, site: Site) {
        self.post_key(lane, pack(op, mask, b, c), a, site);
    }

    /// [`post`](Shared::post) with the key already packed.
    #[inline(always)]
    pub(crate) fn post_key(&self, lane: u32, packed: u64, a: u64, site: Site) {
        let l = lane as usize & 31;
        let key = at(&self.key, l);
        if key.get() != 0 {
            self.posted_twice(l);
        }
        key.set(packed);
        at(&self.a, l).set(a);
        self.site[l].set(site);
    }

    #[cold]
    #[inline(never)]
    fn posted_twice(&self, lane: usize) {
        self.twice.set(self.twice.get() | 1 << lane);
    }

    /// Forgets the requests of `lanes` (completed: about to be resumed).
    #[inline(always)]
    fn clear(&self, lanes: u32) {
        if lanes == FULL {
            self.key.set([0; 32]);
        } else {
            crate::semantics::lanes(lanes).for_each(|l| at(&self.key, l as usize).set(0));
        }
    }

    fn key_at(&self, lane: usize) -> u64 {
        at(&self.key, lane).get()
    }
    fn op_at(&self, lane: usize) -> Op {
        op_of(self.key_at(lane))
    }
    fn mask_at(&self, lane: usize) -> u32 {
        mask_of(self.key_at(lane))
    }
    fn a_at(&self, lane: usize) -> u64 {
        at(&self.a, lane).get()
    }
    fn set_result(&self, lane: usize, value: u64) {
        at(&self.result, lane).set(value)
    }
}

/// Runs warps of lane futures in lockstep.
///
/// ```
/// use warp_runtime::{Executor, Warp};
///
/// // Every lane contributes its lane id; a shfl_down tree sums them.
/// let sums = Executor::new()
///     .run(async |w: &Warp<'_>| {
///         let mut v = w.lane_id();
///         for offset in [16, 8, 4, 2, 1] {
///             v += w.shfl_down(v, offset).await;
///         }
///         v
///     })
///     .unwrap();
/// assert_eq!(sums[0], (0..32).sum::<u32>());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Executor {
    target: Target,
    order: LaneOrder,
    warp: u64,
}

impl Executor {
    /// An executor for the default target (`sm_100a`) polling lanes in ascending order.
    pub fn new() -> Executor {
        Executor::default()
    }

    /// Models `target`: its instruction set and, below sm_70, its convergence rules.
    pub fn target(mut self, target: Target) -> Executor {
        self.target = target;
        self
    }

    /// Polls lanes in `order` within each step.
    pub fn order(mut self, order: LaneOrder) -> Executor {
        self.order = order;
        self
    }

    /// Labels reports with this warp index (for launches of many warps).
    pub fn warp_index(mut self, warp: u64) -> Executor {
        self.warp = warp;
        self
    }

    /// The modelled target.
    pub fn current_target(&self) -> Target {
        self.target
    }

    /// Runs `kernel` on all 32 lanes and returns each lane's result.
    pub fn run<K, R>(&self, kernel: K) -> Result<[R; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let shared = Shared::new(self.warp);
        let handles: [Warp<'_>; 32] = core::array::from_fn(|l| Warp::new(&shared, l as u32));
        self.drive(&shared, FULL, |l| kernel(&handles[l as usize])).map(Outs::into_array)
    }

    /// Runs `kernel` on all 32 lanes with lane `i` receiving `args[i]`: the shape of a
    /// `#[warp_kernel] fn k(w: &Warp, x: A) -> R`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    ///
    /// async fn double_neighbour(w: &Warp<'_>, x: u32) -> u32 {
    ///     2 * w.shfl_xor(x, 1).await
    /// }
    /// let out = Executor::new().run_with(&core::array::from_fn(|l| l as u32), double_neighbour).unwrap();
    /// assert_eq!(out[4], 10);
    /// ```
    pub fn run_with<A, K, R>(&self, args: &[A; 32], kernel: K) -> Result<[R; 32], WarpError>
    where
        A: Copy,
        K: AsyncFn(&Warp<'_>, A) -> R,
    {
        let shared = Shared::new(self.warp);
        let handles: [Warp<'_>; 32] = core::array::from_fn(|l| Warp::new(&shared, l as u32));
        self.drive(&shared, FULL, |l| kernel(&handles[l as usize], args[l as usize])).map(Outs::into_array)
    }

    /// Runs `kernel` on the lanes of `launched` (a partial warp; the others are inactive from the
    /// start, like the threads past the end of a grid) and returns each launched lane's result.
    pub fn run_partial<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let shared = Shared::new(self.warp);
        let handles: [Warp<'_>; 32] = core::array::from_fn(|l| Warp::new(&shared, l as u32));
        self.drive(&shared, launched, |l| kernel(&handles[l as usize])).map(Outs::into_options)
    }

    /// Runs the lanes of `launched`, lane `l` being the future `start(l)` (created when the lane
    /// is first polled, so that a panic in creating it is that lane's panic).
    #[inline(always)]
    fn drive<F: Future>(&self, shared: &Shared, launched: u32, start: impl FnMut(u32) -> F) -> Result<Outs<F::Output>, WarpError> {
        let mut lanes = core::pin::pin!(Lanes::<F> { slots: [const { MaybeUninit::uninit() }; 32], live: 0 });
        let mut outs = Outs { values: [const { MaybeUninit::uninit() }; 32], filled: 0 };
        let run = Run { exec: self, shared, launched, exited: !launched, waiting: 0, blocked: 0, panicked: None };
        let result = run.drive(lanes.as_mut(), start, &mut outs);
        if let Err(e) = result {
            // Lanes stopped mid-kernel are dropped here, under the panic guard: a kernel local
            // whose `Drop` panics must not reach the host.
            for lane in 0..32 {
                let _ = catch_lane_panic(|| lanes.as_mut().drop_lane(lane));
            }
            return Err(e);
        }
        Ok(outs)
    }
}

/// The lane futures of a run, in place: lane `l`'s future lives in `slots[l]` from its first poll
/// until it returns (or the run ends), and never moves (the struct is pinned).
struct Lanes<F> {
    slots: [MaybeUninit<F>; 32],
    /// Bit `l`: `slots[l]` holds a future.
    live: u32,
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
        // SAFETY: the lane is live (the executor polls only lanes that started and have not
        // returned), and its future is pinned in place.
        unsafe {
            let this = self.get_unchecked_mut();
            debug_assert!(this.live >> lane & 1 == 1);
            Pin::new_unchecked(this.slots[lane as usize & 31].assume_init_mut()).poll(cx)
        }
    }

    /// Drops lane `lane`'s future in place, if it has one.
    #[inline(always)]
    fn drop_lane(self: Pin<&mut Self>, lane: u32) {
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
struct Outs<R> {
    values: [MaybeUninit<R>; 32],
    /// Bit `l`: `values[l]` holds lane `l`'s result.
    filled: u32,
}

impl<R> Outs<R> {
    #[inline(always)]
    fn set(&mut self, lane: u32, value: R) {
        self.values[lane as usize & 31].write(value);
        self.filled |= 1 << lane;
    }

    /// Every lane's result; every lane was launched, so every lane returned one.
    fn into_array(self) -> [R; 32] {
        assert_eq!(self.filled, FULL, "every launched lane returned");
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: all 32 values are initialized, and `this` is not dropped, so each is read once.
        core::array::from_fn(|l| unsafe { this.values[l].assume_init_read() })
    }

    fn into_options(self) -> [Option<R>; 32] {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `filled` says which values are initialized; `this` is not dropped, so each is
        // read once.
        core::array::from_fn(|l| (this.filled >> l & 1 == 1).then(|| unsafe { this.values[l].assume_init_read() }))
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

/// The state of one run.
struct Run<'a> {
    exec: &'a Executor,
    shared: &'a Shared,
    /// Lanes launched at the start. Never changes.
    launched: u32,
    /// Lanes that returned, panicked or were never launched. Only grows.
    exited: u32,
    /// Lanes waiting at a warp instruction. Disjoint from `exited` and `blocked`.
    waiting: u32,
    /// Lanes that, in the last step, suspended on a future that is not a warp instruction. They
    /// are polled again each step; disjoint from `waiting` and `exited`.
    blocked: u32,
    /// The lane that panicked, if one did.
    panicked: Option<u32>,
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

impl Run<'_> {
    #[inline(always)]
    fn drive<F: Future>(
        mut self,
        mut futs: Pin<&mut Lanes<F>>,
        mut start: impl FnMut(u32) -> F,
        outs: &mut Outs<F::Output>,
    ) -> Result<(), WarpError> {
        install_panic_capture();
        let mut cx = Context::from_waker(Waker::noop());
        let order = (self.exec.order != LaneOrder::Ascending).then(|| self.exec.order.permutation());
        let mut runnable = self.launched;
        let mut idle_steps = 0;
        let mut first = true;
        loop {
            let exited_before = self.exited;
            // Poll every runnable lane until it stops at its next warp instruction or returns.
            // One `catch_unwind` covers the whole step; `current` says which lane panicked.
            let current = Cell::new(0u32);
            let mut exited = self.exited;
            let seq = Seq::new(runnable, &order);
            let step = catch_lane_panic(|| {
                if first {
                    for &lane in seq.lanes() {
                        let lane = lane as u32 & 31;
                        current.set(lane);
                        futs.as_mut().start(lane, start(lane));
                        poll_lane(futs.as_mut(), lane, &mut cx, outs, &mut exited);
                    }
                } else {
                    for &lane in seq.lanes() {
                        let lane = lane as u32 & 31;
                        current.set(lane);
                        poll_lane(futs.as_mut(), lane, &mut cx, outs, &mut exited);
                    }
                }
            });
            first = false;
            self.exited = exited;
            let posted = nonzero(&self.shared.key) & runnable;
            let twice = self.shared.twice.replace(0);
            if let Err((message, location)) = step {
                let lane = current.get();
                self.exited |= 1 << lane;
                self.panicked = Some(lane);
                self.waiting |= posted & !self.exited;
                return Err(WarpError::LanePanicked { lane, message, location, report: self.report() });
            }
            // A lane that suspended without posting a request awaits a future that is not a warp
            // instruction (a yield, say): it is polled again next step.
            self.blocked = runnable & !self.exited & !posted;
            let misused = twice | (self.exited & !exited_before & posted);
            if misused != 0 {
                self.waiting |= posted & !self.exited;
                return Err(WarpError::NotAwaited { lanes: LaneSet(misused), report: self.report() });
            }
            self.waiting |= posted;
            if self.waiting == 0 && self.blocked == 0 {
                return Ok(());
            }
            let completed = if self.waiting != 0 { self.resolve()? } else { 0 };
            if completed == 0 && self.blocked == 0 {
                return Err(self.stuck());
            }
            // Progress: a lane arrived at an instruction, returned, or an instruction completed.
            if completed != 0 || posted != 0 || self.exited != exited_before {
                idle_steps = 0;
            } else {
                idle_steps += 1;
                if idle_steps >= IDLE_LIMIT {
                    return Err(self.deadlock());
                }
            }
            self.shared.clear(completed);
            self.waiting &= !completed;
            runnable = completed | self.blocked;
        }
    }

    /// Completes every instruction whose lanes have all arrived; returns the lanes to resume.
    fn resolve(&mut self) -> Result<u32, WarpError> {
        let s = self.shared;
        let waiting = self.waiting;
        let live = !self.exited;

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
            && op.supported_on(self.exec.target)
            && (self.exec.target.independent_scheduling() || self.same_site(waiting))
        {
            let operands = same_operands.then_some(key);
            self.complete(op, mask, waiting, operands)?;
            return Ok(waiting);
        }

        self.check_each_lane()?;
        let mut pending = waiting;
        let mut completed = 0;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            let (op, mask) = (s.op_at(lane), s.mask_at(lane));
            if !op.synchronizing() {
                // Not a synchronization point: it acts on the lanes that execute this call together.
                let site = s.site[lane].get();
                let group = self.select(pending, |l| s.op_at(l) == op && s.site[l].get() == site);
                self.complete(op, group, group, None)?;
                completed |= group;
                pending &= !group;
                continue;
            }
            let group = self.select(pending, |l| s.op_at(l) == op && s.mask_at(l) == mask);
            if mask & live & !group == 0 {
                if !self.exec.target.independent_scheduling() && !self.same_site(group) {
                    let report = self.report();
                    return Err(WarpError::NotConverged { op, mask, lanes: LaneSet(group), target: self.exec.target, report });
                }
                self.complete(op, mask, group, None)?;
                completed |= group;
            }
            pending &= !group;
        }
        Ok(completed)
    }

    fn select(&self, among: u32, mut pred: impl FnMut(usize) -> bool) -> u32 {
        lanes(among).filter(|&l| pred(l as usize)).fold(0, |m, l| m | 1 << l)
    }

    fn same_site(&self, group: u32) -> bool {
        let s = self.shared;
        let site = s.site[group.trailing_zeros() as usize].get();
        lanes(group).all(|l| core::ptr::eq(s.site[l as usize].get(), site))
    }

    /// Rules that each waiting lane can break alone: membermask without the lane (rule 1) and an
    /// instruction the target lacks (rule 6).
    fn check_each_lane(&self) -> Result<(), WarpError> {
        let s = self.shared;
        let target = self.exec.target;
        for lane in lanes(self.waiting) {
            let op = s.op_at(lane as usize);
            if !op.supported_on(target) {
                let lanes = LaneSet(self.select(self.waiting, |l| s.op_at(l) == op));
                let report = self.report();
                return Err(match op {
                    Op::VoteLegacy(_) => WarpError::VoteRemoved { op, target, lanes, report },
                    _ => WarpError::Unsupported { op, target, lanes, report },
                });
            }
        }
        for lane in lanes(self.waiting) {
            let op = s.op_at(lane as usize);
            if op.synchronizing() && s.mask_at(lane as usize) & (1 << lane) == 0 {
                let lanes = LaneSet(self.select(self.waiting, |l| {
                    s.op_at(l) == op && s.mask_at(l) & (1 << l) == 0
                }));
                return Err(WarpError::NotInMembermask { op, lanes, report: self.report() });
            }
        }
        Ok(())
    }

    /// Performs `op` for the lanes of `group` (membermask `mask`) and stores their results.
    /// `uniform` is the key every lane of a full-warp `group` posted, when all posted the same.
    fn complete(&self, op: Op, mask: u32, group: u32, uniform: Option<u64>) -> Result<(), WarpError> {
        let s = self.shared;
        let store_all = |value: u64| lanes(group).for_each(|l| s.set_result(l as usize, value));
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
                let preds = self.select(group, |l| s.a_at(l) != 0);
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
            Op::BarWarpSync => {}
            Op::Elect => {
                let leader = elect::leader(group);
                store_all(leader as u64);
                set_pred(1 << leader);
            }
        }
        Ok(())
    }

    /// Nothing can complete: explain why (rule 3 when lanes that expect each other disagree,
    /// rule 4 otherwise).
    fn stuck(&self) -> WarpError {
        let s = self.shared;
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

    fn deadlock(&self) -> WarpError {
        let s = self.shared;
        let live = !self.exited;
        let mut edges = Vec::new();
        for lane in lanes(self.waiting) {
            let (op, mask) = (s.op_at(lane as usize), s.mask_at(lane as usize));
            let arrived = self.select(self.waiting, |l| s.op_at(l) == op && s.mask_at(l) == mask);
            for waits_for in lanes(mask & live & !arrived) {
                edges.push(WaitEdge { lane, waits_for });
            }
        }
        WarpError::Deadlock { waiting: LaneSet(self.waiting | self.blocked), edges, report: self.report() }
    }

    /// Every lane's state. Lanes resumed in this step but not yet polled are `Running`.
    fn report(&self) -> Box<Report> {
        let s = self.shared;
        let lanes = core::array::from_fn(|l| {
            let bit = 1u32 << l;
            if self.panicked == Some(l as u32) {
                LaneState::Panicked
            } else if self.launched & bit == 0 {
                LaneState::Inactive
            } else if self.exited & bit != 0 {
                LaneState::Exited
            } else if self.blocked & bit != 0 {
                LaneState::Blocked
            } else if self.waiting & bit != 0 {
                LaneState::Waiting { op: s.op_at(l), mask: s.mask_at(l), site: s.site[l].get() }
            } else {
                LaneState::Running
            }
        });
        Box::new(Report { target: self.exec.target, warp: self.exec.warp, lanes })
    }
}

std::thread_local! {
    /// Set while a lane is polled: a panic then is captured here instead of being printed.
    static CAPTURE: Cell<bool> = const { Cell::new(false) };
    static CAPTURED: Cell<Option<(String, String)>> = const { Cell::new(None) };
}

/// Installs (once per process) a panic hook that, while a lane is polled on this thread, records
/// the message and location for the report instead of printing them, and otherwise defers to the
/// hook that was installed before.
fn install_panic_capture() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURE.with(Cell::get) {
                let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
                    (*s).to_string()
                } else if let Some(s) = info.payload().downcast_ref::<String>() {
                    s.clone()
                } else {
                    "(a panic payload that is not a string)".to_string()
                };
                let location = info.location().map_or_else(|| "unknown location".to_string(), |l| l.to_string());
                CAPTURED.with(|c| c.set(Some((message, location))));
            } else {
                previous(info);
            }
        }));
    });
}

/// Polls a lane with panics captured; a panic becomes `(message, location)`.
#[inline(always)]
fn catch_lane_panic<T>(f: impl FnOnce() -> T) -> Result<T, (String, String)> {
    // Restore the previous flag rather than clearing it: a lane may run a warp of its own, and
    // the outer lane must still be captured when that inner run returns.
    let outer = CAPTURE.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURE.with(|c| c.set(outer));
    result.map_err(|payload| {
        // A payload's own `Drop` may panic too; that must not reach the host.
        if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            core::mem::forget(again);
        }
        CAPTURED
            .with(Cell::take)
            .unwrap_or_else(|| ("(panic message not captured)".to_string(), "unknown location".to_string()))
    })
}
