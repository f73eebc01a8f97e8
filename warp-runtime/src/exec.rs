//! The lockstep executor: polls lane futures until each stops at a warp instruction, completes
//! the instructions whose lanes have all arrived, and reports what can never complete.
//!
//! Mechanism and policy are apart: the order in which lanes are polled within a step is a
//! [`LaneOrder`] (it matters only for side effects outside the warp, such as global atomics),
//! and which target's rules apply is a [`Target`].

use core::cell::Cell;
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
    /// The [`Op::code`] of each waiting lane's instruction.
    pub(crate) op: Cell<[u32; 32]>,
    /// The membermask of each waiting lane's instruction.
    pub(crate) mask: Cell<[u32; 32]>,
    /// Operand `a` (the value or predicate), zero-extended to 64 bits.
    pub(crate) a: Cell<[u64; 32]>,
    /// Operand `b` of `shfl.sync`.
    pub(crate) b: Cell<[u32; 32]>,
    /// Operand `c` of `shfl.sync`.
    pub(crate) c: Cell<[u32; 32]>,
    /// Where each waiting lane called its instruction.
    pub(crate) site: [Cell<Site>; 32],
    /// The destination register `d` of each completed lane.
    pub(crate) result: Cell<[u64; 32]>,
    /// Bit `lane` is the predicate destination `p` of a completed lane.
    pub(crate) pred: Cell<u32>,
    /// How many requests each lane posted since the executor last collected them: 0 or 1, or
    /// more when a lane issued an intrinsic without awaiting it before the next (only possible
    /// without the macro). A count rather than a bit so that posting is one increment.
    pub(crate) posts: Cell<[u8; 32]>,
    /// The warp's index in its launch: global thread id = 32 * warp + lane.
    pub(crate) warp: u64,
}

/// Lane `lane`'s cell of a per-lane register array.
#[inline(always)]
pub(crate) fn at<T>(cells: &Cell<[T; 32]>, lane: usize) -> &Cell<T> {
    let cells: &Cell<[T]> = cells;
    &cells.as_slice_of_cells()[lane & 31]
}

/// Whether every lane's register holds the same value: read in place (no copy of the array) and
/// branch-free, so it vectorizes.
#[inline(always)]
fn uniform(values: &Cell<[u32; 32]>) -> bool {
    let cells: &Cell<[u32]> = values;
    let cells = cells.as_slice_of_cells();
    let first = cells[0].get();
    cells.iter().fold(0, |d, v| d | (v.get() ^ first)) == 0
}

impl Shared {
    fn new(warp: u64) -> Shared {
        let here: Site = Location::caller();
        Shared {
            op: Cell::new([0; 32]),
            mask: Cell::new([0; 32]),
            a: Cell::new([0; 32]),
            b: Cell::new([0; 32]),
            c: Cell::new([0; 32]),
            site: core::array::from_fn(|_| Cell::new(here)),
            result: Cell::new([0; 32]),
            pred: Cell::new(0),
            posts: Cell::new([0; 32]),
            warp,
        }
    }

    /// Records lane `lane`'s arrival at a warp instruction.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn post(&self, lane: u32, op: Op, mask: u32, a: u64, b: u32, c: u32, site: Site) {
        let l = lane as usize;
        at(&self.op, l).set(op.code());
        at(&self.mask, l).set(mask);
        at(&self.a, l).set(a);
        at(&self.b, l).set(b);
        at(&self.c, l).set(c);
        self.site[l & 31].set(site);
        let posts = at(&self.posts, l);
        posts.set(posts.get().saturating_add(1));
    }

    /// Collects the lanes that posted since the last call: `(posted, posted more than once)`.
    #[inline(always)]
    fn take_posts(&self) -> (u32, u32) {
        /// Bit `i` set when byte `i` of `word` has any bit of `bits` set (SWAR, no per-byte loop).
        #[inline(always)]
        fn bytes_with(word: u64, bits: u64) -> u32 {
            const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
            let w = word & bits;
            let high = (((w & LOW7) + LOW7) | w) & !LOW7; // 0x80 in every nonzero byte
            ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
        }
        let posts = self.posts.replace([0; 32]);
        let (mut posted, mut twice) = (0, 0);
        for (i, chunk) in posts.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            posted |= bytes_with(word, !0) << (8 * i);
            twice |= bytes_with(word, 0xfefe_fefe_fefe_fefe) << (8 * i);
        }
        (posted, twice)
    }

    fn op_at(&self, lane: usize) -> Op {
        Op::from_code(at(&self.op, lane).get())
    }
    fn mask_at(&self, lane: usize) -> u32 {
        at(&self.mask, lane).get()
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
        let outs = self.run_partial(FULL, kernel)?;
        Ok(outs.map(|r| r.expect("every launched lane returned")))
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
        self.run(async |w: &Warp<'_>| kernel(w, args[w.lane_id() as usize]).await)
    }

    /// Runs `kernel` on the lanes of `launched` (a partial warp; the others are inactive from the
    /// start, like the threads past the end of a grid) and returns each launched lane's result.
    pub fn run_partial<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let shared = Shared::new(self.warp);
        let handles: [Warp<'_>; 32] = core::array::from_fn(|l| Warp::new(&shared, l as u32));
        let futs = core::array::from_fn(|l| (launched >> l & 1 == 1).then(|| kernel(&handles[l])));
        let mut futs = core::pin::pin!(futs);
        let result = Run { exec: self, shared: &shared, launched, exited: !launched, waiting: 0, blocked: 0, panicked: None }
            .drive(futs.as_mut());
        if result.is_err() {
            // Lanes stopped mid-kernel are dropped here, under the panic guard: a kernel local
            // whose `Drop` panics must not reach the host. (A slot assigned while its old value's
            // drop unwinds still receives the new value, so each lane is dropped once.)
            for lane in 0..32 {
                let _ = catch_lane_panic(|| project(futs.as_mut(), lane).set(None));
            }
        }
        result
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

fn project<F>(futs: Pin<&mut [Option<F>; 32]>, lane: u32) -> Pin<&mut Option<F>> {
    // SAFETY: structural pinning of the array's elements: the array is never moved while pinned,
    // and elements are only replaced through `Pin::set`, which drops the old value in place.
    unsafe { futs.map_unchecked_mut(|a| &mut a[lane as usize]) }
}

impl Run<'_> {
    fn drive<F: Future>(mut self, mut futs: Pin<&mut [Option<F>; 32]>) -> Result<[Option<F::Output>; 32], WarpError> {
        install_panic_capture();
        let mut cx = Context::from_waker(Waker::noop());
        let mut outs: [Option<F::Output>; 32] = [const { None }; 32];
        let order = self.exec.order.permutation();
        let ascending = self.exec.order == LaneOrder::Ascending;
        let mut runnable = self.launched;
        let mut idle_steps = 0;
        loop {
            let exited_before = self.exited;
            // Poll every runnable lane until it stops at its next warp instruction or returns.
            // One `catch_unwind` covers the whole step; `current` says which lane panicked.
            let current = Cell::new(0u32);
            let mut exited = self.exited;
            let step = catch_lane_panic(|| {
                // The lanes to poll, in order, gathered first so that one loop (and one inlined
                // poll) serves every order.
                let mut seq = [0u8; 32];
                let mut n = 0;
                if ascending && runnable == FULL {
                    seq = IDENTITY;
                    n = 32;
                } else if ascending {
                    for lane in lanes(runnable) {
                        seq[n & 31] = lane as u8;
                        n += 1;
                    }
                } else {
                    for &lane in order.iter().filter(|&&l| runnable >> l & 1 == 1) {
                        seq[n & 31] = lane;
                        n += 1;
                    }
                }
                for &lane in &seq[..n.min(32)] {
                    let lane = lane as u32 & 31;
                    current.set(lane);
                    let mut slot = project(futs.as_mut(), lane);
                    let Some(fut) = slot.as_mut().as_pin_mut() else { continue };
                    if let Poll::Ready(r) = fut.poll(&mut cx) {
                        outs[lane as usize] = Some(r);
                        exited |= 1 << lane;
                        slot.set(None);
                    }
                }
            });
            self.exited = exited;
            let (posted, twice) = self.shared.take_posts();
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
                return Ok(outs);
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
        let (code, mask) = (at(&s.op, first).get(), at(&s.mask, first).get());
        let same = if waiting == FULL {
            uniform(&s.op) && uniform(&s.mask)
        } else {
            lanes(waiting).all(|l| at(&s.op, l as usize).get() == code && at(&s.mask, l as usize).get() == mask)
        };
        let op = Op::from_code(code);
        if same
            && mask & live == waiting
            && op.synchronizing()
            && op.supported_on(self.exec.target)
            && (self.exec.target.independent_scheduling() || self.same_site(waiting))
        {
            self.complete(op, mask, waiting)?;
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
                self.complete(op, group, group)?;
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
                self.complete(op, mask, group)?;
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
    fn complete(&self, op: Op, mask: u32, group: u32) -> Result<(), WarpError> {
        let s = self.shared;
        let store_all = |value: u64| lanes(group).for_each(|l| s.set_result(l as usize, value));
        let set_pred = |p: u32| s.pred.set((s.pred.get() & !group) | (p & group));
        match op {
            Op::Shfl { mode, .. } => {
                let a = s.a.get();
                if group == FULL && uniform(&s.b) && uniform(&s.c) {
                    // Converged, with immediate-like operands: every source is a participant.
                    let (d, pred) = shfl::converged(mode, &a, at(&s.b, 0).get(), at(&s.c, 0).get());
                    s.result.set(d);
                    set_pred(pred);
                    return Ok(());
                }
                let (b, c) = (s.b.get(), s.c.get());
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
