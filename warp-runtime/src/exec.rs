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
    /// The instruction each waiting lane executes.
    pub(crate) op: [Cell<Op>; 32],
    /// The membermask of each waiting lane's instruction.
    pub(crate) mask: [Cell<u32>; 32],
    /// Operand `a` (the value or predicate), zero-extended to 64 bits.
    pub(crate) a: [Cell<u64>; 32],
    /// Operand `b` of `shfl.sync`.
    pub(crate) b: [Cell<u32>; 32],
    /// Operand `c` of `shfl.sync`.
    pub(crate) c: [Cell<u32>; 32],
    /// Where each waiting lane called its instruction.
    pub(crate) site: [Cell<Site>; 32],
    /// The destination register `d` of each completed lane.
    pub(crate) result: [Cell<u64>; 32],
    /// Bit `lane` is the predicate destination `p` of a completed lane.
    pub(crate) pred: Cell<u32>,
    /// Lanes that posted a request since the executor last collected them.
    pub(crate) posted: Cell<u32>,
    /// The warp's index in its launch: global thread id = 32 * warp + lane.
    pub(crate) warp: u64,
}

impl Shared {
    fn new(warp: u64) -> Shared {
        let here: Site = Location::caller();
        Shared {
            op: core::array::from_fn(|_| Cell::new(Op::BarWarpSync)),
            mask: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            site: core::array::from_fn(|_| Cell::new(here)),
            result: Default::default(),
            pred: Cell::new(0),
            posted: Cell::new(0),
            warp,
        }
    }

    /// Records lane `lane`'s arrival at a warp instruction.
    #[inline(always)]
    pub(crate) fn post(&self, lane: u32, op: Op, mask: u32, a: u64, b: u32, c: u32, site: Site) {
        let l = lane as usize;
        self.op[l].set(op);
        self.mask[l].set(mask);
        self.a[l].set(a);
        self.b[l].set(b);
        self.c[l].set(c);
        self.site[l].set(site);
        self.posted.set(self.posted.get() | 1 << lane);
    }

    fn load32(cells: &[Cell<u32>; 32]) -> [u32; 32] {
        core::array::from_fn(|l| cells[l].get())
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
        Run { exec: self, shared: &shared, launched, exited: !launched, waiting: 0, blocked: 0, panicked: None }
            .drive(futs.as_mut())
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
    /// Lanes suspended on a future that is not a warp instruction. Never resumed.
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
        loop {
            self.shared.posted.set(0);
            // Poll every runnable lane until it stops at its next warp instruction or returns.
            // One `catch_unwind` covers the whole step; `current` says which lane panicked.
            let current = Cell::new(0u32);
            let mut exited = self.exited;
            let step = catch_lane_panic(|| {
                let mut poll_one = |lane: u32| {
                    current.set(lane);
                    let mut slot = project(futs.as_mut(), lane);
                    let fut = slot.as_mut().as_pin_mut().expect("a runnable lane has a future");
                    if let Poll::Ready(r) = fut.poll(&mut cx) {
                        outs[lane as usize] = Some(r);
                        exited |= 1 << lane;
                        slot.set(None);
                    }
                };
                if ascending {
                    lanes(runnable).for_each(&mut poll_one);
                } else {
                    order.iter().filter(|&&l| runnable >> l & 1 == 1).for_each(|&l| poll_one(l as u32));
                }
            });
            self.exited = exited;
            if let Err((message, location)) = step {
                let lane = current.get();
                self.exited |= 1 << lane;
                self.panicked = Some(lane);
                self.waiting |= self.shared.posted.get();
                return Err(WarpError::LanePanicked { lane, message, location, report: self.report() });
            }
            // A lane that suspended without posting a request awaits something else.
            self.blocked |= runnable & !self.exited & !self.shared.posted.get();
            self.waiting |= self.shared.posted.get();
            if self.waiting == 0 {
                if self.blocked == 0 {
                    return Ok(outs);
                }
                return Err(self.deadlock());
            }
            runnable = self.resolve()?;
            self.waiting &= !runnable;
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
        let (op, mask) = (s.op[first].get(), s.mask[first].get());
        if mask & live == waiting
            && op.synchronizing()
            && lanes(waiting).all(|l| s.op[l as usize].get() == op && s.mask[l as usize].get() == mask)
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
            let (op, mask) = (s.op[lane].get(), s.mask[lane].get());
            if !op.synchronizing() {
                // Not a synchronization point: it acts on the lanes that execute this call together.
                let site = s.site[lane].get();
                let group = self.select(pending, |l| s.op[l].get() == op && s.site[l].get() == site);
                self.complete(op, group, group)?;
                completed |= group;
                pending &= !group;
                continue;
            }
            let group = self.select(pending, |l| s.op[l].get() == op && s.mask[l].get() == mask);
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
        if completed == 0 {
            return Err(self.stuck());
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
            let op = s.op[lane as usize].get();
            if !op.supported_on(target) {
                let lanes = LaneSet(self.select(self.waiting, |l| s.op[l].get() == op));
                let report = self.report();
                return Err(match op {
                    Op::VoteLegacy(_) => WarpError::VoteRemoved { op, target, lanes, report },
                    _ => WarpError::Unsupported { op, target, lanes, report },
                });
            }
        }
        for lane in lanes(self.waiting) {
            let op = s.op[lane as usize].get();
            if op.synchronizing() && s.mask[lane as usize].get() & (1 << lane) == 0 {
                let lanes = LaneSet(self.select(self.waiting, |l| {
                    s.op[l].get() == op && s.mask[l].get() & (1 << l) == 0
                }));
                return Err(WarpError::NotInMembermask { op, lanes, report: self.report() });
            }
        }
        Ok(())
    }

    /// Performs `op` for the lanes of `group` (membermask `mask`) and stores their results.
    fn complete(&self, op: Op, mask: u32, group: u32) -> Result<(), WarpError> {
        let s = self.shared;
        let store_all = |value: u64| lanes(group).for_each(|l| s.result[l as usize].set(value));
        let set_pred = |p: u32| s.pred.set((s.pred.get() & !group) | (p & group));
        match op {
            Op::Shfl { mode, .. } => {
                let route = shfl::route(mode, &Shared::load32(&s.b), &Shared::load32(&s.c), group);
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
                for l in lanes(group) {
                    let src = route.src[l as usize] as usize;
                    s.result[l as usize].set(s.a[src].get());
                }
                set_pred(route.pred);
            }
            Op::Vote(mode) | Op::VoteLegacy(mode) => {
                let preds = self.select(group, |l| s.a[l].get() != 0);
                let r = vote::vote(mode, preds, group);
                store_all(r as u64);
            }
            Op::MatchAny { .. } => {
                let a: [u64; 32] = core::array::from_fn(|l| s.a[l].get());
                let d = matching::match_any(&a, group);
                lanes(group).for_each(|l| s.result[l as usize].set(d[l as usize] as u64));
            }
            Op::MatchAll { .. } => {
                let a: [u64; 32] = core::array::from_fn(|l| s.a[l].get());
                let (d, p) = matching::match_all(&a, group);
                store_all(d as u64);
                set_pred(if p { FULL } else { 0 });
            }
            Op::Redux(rop, ty) => {
                let src: [u32; 32] = core::array::from_fn(|l| s.a[l].get() as u32);
                store_all(redux::redux_int(rop, ty, &src, group) as u64);
            }
            Op::ReduxF32(q) => {
                let src: [u32; 32] = core::array::from_fn(|l| s.a[l].get() as u32);
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
            let (op, mask) = (s.op[lane as usize].get(), s.mask[lane as usize].get());
            for other in lanes(mask & self.waiting & !(1 << lane)) {
                let (oop, omask) = (s.op[other as usize].get(), s.mask[other as usize].get());
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
            let (op, mask) = (s.op[lane as usize].get(), s.mask[lane as usize].get());
            let arrived = self.select(self.waiting, |l| s.op[l].get() == op && s.mask[l].get() == mask);
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
                LaneState::Waiting { op: s.op[l].get(), mask: s.mask[l].get(), site: s.site[l].get() }
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
    CAPTURE.with(|c| c.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURE.with(|c| c.set(false));
    result.map_err(|_| {
        CAPTURED
            .with(Cell::take)
            .unwrap_or_else(|| ("(panic message not captured)".to_string(), "unknown location".to_string()))
    })
}
