//! The single-warp executor: runs one warp of lane futures in lockstep and returns each lane's
//! result, or the report of what went wrong.
//!
//! The engine is [`crate::warp`]; a warp alone is a block of one warp, so CTA barriers complete
//! when its non-exited lanes arrive (with a thread count of at most 32) and shared memory works
//! as in a block. Mechanism and policy are apart: the order in which lanes are polled within a
//! step is a [`LaneOrder`] (it matters only for side effects outside the warp, such as global
//! atomics), and which target's rules apply is a [`Target`].

use core::future::Future;
use std::time::Duration;

use crate::block::{BlockCtx, Barriers};
use crate::error::WarpError;
use crate::handle::Warp;
use crate::target::Target;
use crate::warp::{Lanes, Outs, Regs, Step, WarpPos, WarpRun, FULL};

/// Steps in a row in which lanes suspended at memory make no progress (nothing is written, no
/// lane returns, every suspended lane re-reads what it read last time) before a single-warp run
/// is a deadlock; see [`Executor::spin_limit`].
pub const DEFAULT_WARP_SPIN_LIMIT: u32 = 1000;

/// How long a run (a warp, or a whole grid launch) may take before it ends with
/// [`WarpError::TimeLimit`]: long enough for any test-sized launch, short enough that a livelocked
/// kernel fails a test instead of hanging it. See [`Executor::time_limit`].
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(120);

/// Warp steps between two looks at a run's clock.
pub(crate) const CLOCK_EVERY: u32 = 1024;

/// A run's time limit and when the run started. The loops that run warps count their own steps
/// (a local counter stays in a register) and ask every [`CLOCK_EVERY`].
#[derive(Clone, Copy)]
pub(crate) struct Deadline {
    limit: Duration,
    started: Stamp,
}

impl Deadline {
    /// The deadline of a run starting now, if it has a limit.
    pub(crate) fn start(limit: Option<Duration>) -> Option<Deadline> {
        limit.map(|limit| Deadline { limit, started: Stamp::now() })
    }

    /// `Some(elapsed)` once the run is past its limit.
    pub(crate) fn passed(&self) -> Option<Duration> {
        let elapsed = self.started.elapsed();
        (elapsed > self.limit).then_some(elapsed)
    }

    /// The limit.
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }
}

/// The block and registers of a run of one warp (`run`, `run_with`, `run_partial`), kept by each
/// thread for its next such run: made once (about 5 KiB of registers, and a block's shared memory
/// and detector state), then made fresh again (`Regs::renew`) when the run that used them ended
/// well and left the block as it found it (`BlockCtx::untouched`: no shared memory, no race
/// detection); otherwise freed, and the next run makes its own.
///
/// Held through the raw pointer `Box::into_raw` gives (`Held`, `Kept`), never as a `Box` while it
/// lives: moving a `Box` asserts unique access to what it holds, which (in Rust's aliasing model,
/// as Miri checks it) would invalidate the registers' pointer to their block.
struct Solo {
    block: BlockCtx,
    /// Points at `block`, in the same allocation (which does not move).
    regs: Regs,
}

/// The `Solo` a thread keeps between runs (null: none), freed when the thread ends.
struct Kept(core::cell::Cell<*mut Solo>);

impl Drop for Kept {
    fn drop(&mut self) {
        drop(Held(self.0.replace(core::ptr::null_mut())));
    }
}

std::thread_local! {
    static SOLO: Kept = const { Kept(core::cell::Cell::new(core::ptr::null_mut())) };
}

/// A `Solo` a run holds (from `Box::into_raw`; null: none), freed when dropped unless kept.
struct Held(*mut Solo);

impl Held {
    /// The thread's kept block and registers, fresh for a warp at `warp`; or new ones, while
    /// another run on this thread holds them (a run inside a kernel's lane).
    #[inline]
    fn take(warp: u64) -> Held {
        let pos = WarpPos::single(warp);
        let kept = SOLO.try_with(|k| k.0.replace(core::ptr::null_mut())).unwrap_or(core::ptr::null_mut());
        if kept.is_null() {
            return Held::new(pos);
        }
        let held = Held(kept);
        held.get().regs.renew(pos);
        held
    }

    #[inline(never)]
    fn new(pos: WarpPos) -> Held {
        let p = Box::into_raw(Box::<Solo>::new_uninit()) as *mut Solo;
        // SAFETY: both fields are written before any reference to the whole is made, the
        // registers with the block's address in the allocation, which stays where it is until
        // `Held`'s drop frees it (the invariant of `Regs::block`).
        unsafe {
            core::ptr::addr_of_mut!((*p).block).write(BlockCtx::new(0));
            core::ptr::addr_of_mut!((*p).regs).write(Regs::new(pos, &*core::ptr::addr_of!((*p).block)));
        }
        Held(p)
    }

    #[inline(always)]
    fn get(&self) -> &Solo {
        // SAFETY: a `Held` holds a live `Solo` from `new` (not null: `take` and `new` make none
        // that is), used only through shared references (its state is in `Cell`s).
        unsafe { &*self.0 }
    }

    /// Keeps these for the thread's next run, if the run left the block untouched; otherwise
    /// (and where the thread's storage is gone) frees them.
    #[inline]
    fn keep(self) {
        if !self.get().block.untouched() {
            return;
        }
        let p = core::mem::ManuallyDrop::new(self).0;
        // Replaces (frees) any kept by a run inside this one.
        match SOLO.try_with(|k| k.0.replace(p)) {
            Ok(old) => drop(Held(old)),
            Err(_) => drop(Held(p)),
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: from `Box::into_raw` in `new`, freed once: the pointer is not kept anywhere
            // else (`keep` gives its `Held` up without dropping it).
            drop(unsafe { Box::from_raw(self.0) });
        }
    }
}

/// A time for the time limits, which are seconds long: on Linux the coarse monotonic clock
/// (`CLOCK_MONOTONIC_COARSE`, a few milliseconds' resolution, read from the vDSO's page without
/// a counter read: `clock_gettime` was 10% of an empty direct run's profile with `Instant::now`,
/// under 3% with it), elsewhere, or where that clock fails (some sandboxes), `Instant` from a
/// process-wide base. Which one is decided once, so that every stamp counts from one origin.
#[derive(Clone, Copy)]
struct Stamp(Duration);

impl Stamp {
    #[inline]
    fn now() -> Stamp {
        #[cfg(target_os = "linux")]
        {
            use std::sync::atomic::{AtomicU8, Ordering};
            // 0: not yet tried, 1: the coarse clock, 2: `Instant`.
            static SOURCE: AtomicU8 = AtomicU8::new(0);
            let source = SOURCE.load(Ordering::Relaxed);
            if source != 2 {
                let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
                // SAFETY: `t` is a valid timespec to write.
                if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut t) } == 0 {
                    if source == 0 {
                        SOURCE.store(1, Ordering::Relaxed);
                    }
                    return Stamp(Duration::new(t.tv_sec as u64, t.tv_nsec as u32));
                }
                // A clock that worked does not fail later; were it to, the run's limit is
                // taken as passed rather than counted from another origin.
                if source == 1 {
                    return Stamp(Duration::MAX);
                }
                SOURCE.store(2, Ordering::Relaxed);
            }
        }
        static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        Stamp(BASE.get_or_init(std::time::Instant::now).elapsed())
    }

    fn elapsed(&self) -> Duration {
        Stamp::now().0.saturating_sub(self.0)
    }
}

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
    pub(crate) fn permutation(self) -> [u8; 32] {
        let mut order: [u8; 32] = core::array::from_fn(|l| l as u8);
        match self {
            LaneOrder::Ascending => {}
            LaneOrder::Descending => order.reverse(),
            LaneOrder::Seeded(seed) => {
                // A Fisher-Yates shuffle driven by ChaCha8, the generator of the schedules,
                // tests and GPU programs: a seed gives the same permutation on every platform.
                use rand_chacha::rand_core::{Rng, SeedableRng};
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                for i in (1..32).rev() {
                    order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
                }
            }
        }
        order
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
#[derive(Clone, Copy, Debug)]
pub struct Executor {
    target: Target,
    order: LaneOrder,
    warp: u64,
    lane_stack: usize,
    spin_limit: u32,
    time_limit: Option<Duration>,
    isolated: bool,
    races: Option<bool>,
    /// The id of the [`Tracer`](crate::trace::Tracer) runs record into.
    trace: Option<u64>,
    /// Whether kernels may run warp-wide ([`crate::wide`]).
    wide: bool,
    /// Whether warp-wide forms use the CPU's vector units ([`crate::simd`]).
    simd: bool,
}

impl Default for Executor {
    fn default() -> Executor {
        Executor {
            target: Target::default(),
            order: LaneOrder::default(),
            warp: 0,
            lane_stack: crate::stack::DEFAULT_LANE_STACK,
            spin_limit: DEFAULT_WARP_SPIN_LIMIT,
            time_limit: Some(DEFAULT_TIME_LIMIT),
            isolated: false,
            races: None,
            trace: None,
            wide: crate::wide::default_on(),
            simd: true,
        }
    }
}

impl Executor {
    /// An executor for the default target (`sm_100a`) polling lanes in ascending order.
    pub fn new() -> Executor {
        Executor::default()
    }

    /// Guarantees lane code at least `bytes` of stack (default
    /// [`DEFAULT_LANE_STACK`](crate::stack::DEFAULT_LANE_STACK)) beyond what the kernel's types
    /// need: a run grows the calling thread's stack when less is left, and grid workers start
    /// with it. Raise it for lanes that recurse deeply.
    pub fn lane_stack(mut self, bytes: usize) -> Executor {
        self.lane_stack = bytes;
        self
    }

    /// The lane-code stack minimum.
    pub fn current_lane_stack(&self) -> usize {
        self.lane_stack
    }

    /// How many steps in a row a warp may only spin (its suspended lanes re-reading memory that
    /// nothing writes; the warp instructions of a polling loop do not count as progress) before
    /// the run ends with [`WarpError::Deadlock`] (default [`DEFAULT_WARP_SPIN_LIMIT`], at least 1).
    pub fn spin_limit(mut self, steps: u32) -> Executor {
        self.spin_limit = steps.max(1);
        self
    }

    /// Ends a run that takes longer than `limit` with [`WarpError::TimeLimit`], listing every
    /// lane's state and where running lanes last completed a warp instruction (default
    /// [`DEFAULT_TIME_LIMIT`]; `None` for no limit). It catches what the spin rule cannot: lanes
    /// that keep writing while they wait. The clock is read at warp instructions and memory
    /// operations, so a lane stuck in pure computation, which never reaches one, is not ended:
    /// only an isolated run can end that. A grid launch applies its own
    /// [`Grid::time_limit`](crate::Grid::time_limit) to the whole launch.
    pub fn time_limit(mut self, limit: Option<Duration>) -> Executor {
        self.time_limit = limit;
        self
    }

    /// The time limit of a run.
    pub fn current_time_limit(&self) -> Option<Duration> {
        self.time_limit
    }

    /// Runs each launch first in a child process (Unix: `fork`), so that what cannot be
    /// recovered in-process ends the child instead of the host: a stack overflow, an abort
    /// (`panic = "abort"`, a panic while panicking, an allocation failure), a fault, a lane stuck
    /// in computation past the time limit. Each becomes [`WarpError::Aborted`] with the lanes
    /// the child was running. A child that survives means the launch then runs in this process
    /// for its results: side effects outside global memory happen twice. See README's "What each
    /// mode catches".
    pub fn isolated(mut self, isolated: bool) -> Executor {
        self.isolated = isolated;
        self
    }

    /// Checks every memory access for data races (the race detector, [`crate::race`]): a run
    /// whose kernel races ends with [`WarpError::Race`], each race with both accesses. The
    /// default is [`race::default_on`](crate::race::default_on): on in debug builds (`cargo
    /// test`), off in release builds; the environment variable `WARPKIT_RACES=0` or `=1`
    /// overrides it. Off, a memory access costs what it did without the detector.
    pub fn races(mut self, on: bool) -> Executor {
        self.races = Some(on);
        self
    }

    /// Records each run's steps into `tracer` (see [`crate::trace`]). Without a tracer a run
    /// records nothing and costs what it did before tracing existed. An isolated run's child
    /// process is not traced; the run that follows it in this process is.
    pub fn trace(mut self, tracer: &crate::trace::Tracer) -> Executor {
        self.trace = Some(tracer.id());
        self
    }

    /// The tracer runs record into, if any.
    pub(crate) fn tracer_id(&self) -> Option<u64> {
        self.trace
    }

    /// Lets kernels that `#[warp_kernel]` gave a warp-wide form run it (the default; see
    /// [`crate::wide`]), or, with `false`, runs every kernel per lane. Both give the same values
    /// and the same reports; the per-lane executor is the reference. The environment variable
    /// `WARPKIT_WIDE=0` turns the default off.
    pub fn wide(mut self, on: bool) -> Executor {
        self.wide = on;
        self
    }

    /// Whether kernels may run warp-wide.
    pub fn current_wide(&self) -> bool {
        self.wide
    }

    /// Lets warp-wide forms use the CPU's vector units for converged shuffles, votes and
    /// reductions (the default: the best of AVX-512 and AVX2 the CPU has, detected at run time;
    /// see [`crate::simd`]), or, with `false`, the portable code. Both compute the same values.
    /// The environment variable `WARPKIT_SIMD=0` makes the detected level the portable one, and
    /// `WARPKIT_SIMD=avx2` AVX2 on an x86-64 CPU that has it (also with AVX-512).
    pub fn simd(mut self, on: bool) -> Executor {
        self.simd = on;
        self
    }

    /// The vector instructions warp-wide forms of this executor's runs use.
    pub fn current_simd(&self) -> crate::simd::Simd {
        if self.simd {
            crate::simd::Simd::detected()
        } else {
            crate::simd::Simd::Portable
        }
    }

    /// Whether runs check for races.
    pub fn current_races(&self) -> bool {
        self.races.unwrap_or_else(crate::race::default_on)
    }

    /// Whether runs are isolated.
    pub fn is_isolated(&self) -> bool {
        self.isolated
    }

    /// What an isolated run of a launch under `schedule` reports with; `None` when runs are not
    /// isolated.
    pub(crate) fn isolation(&self, schedule: crate::schedule::Schedule) -> Option<crate::isolate::Launch> {
        self.isolated.then_some(crate::isolate::Launch { target: self.target, schedule, lane_order: self.order, time_limit: self.time_limit })
    }

    /// In an isolated run, the child's run first (see [`isolated`](Self::isolated)).
    fn probe(&self, child: impl FnOnce(Executor) -> bool) -> Result<(), WarpError> {
        match self.isolation(crate::schedule::Schedule::InOrder) {
            Some(launch) => crate::isolate::probe(launch, || child(self.isolated(false))),
            None => Ok(()),
        }
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

    /// The lane order.
    pub fn current_order(&self) -> LaneOrder {
        self.order
    }

    /// Runs `kernel` on all 32 lanes and returns each lane's result.
    pub fn run<K, R>(&self, kernel: K) -> Result<[R; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.probe(|plain| plain.run_in_process(&kernel).is_ok())?;
        self.run_in_process(kernel)
    }

    fn run_in_process<K, R>(&self, kernel: K) -> Result<[R; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let need = self.stack_need::<R>(crate::footprint::future_size(|| kernel(crate::footprint::no_handle())));
        crate::stack::with_stack(need, || self.run_here(kernel))
    }

    #[inline(always)]
    fn run_here<K, R>(&self, kernel: K) -> Result<[R; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.on_solo(|regs| {
            let handles = Handles::new(regs);
            let mut wide = crate::wide::Lanes::new();
            match self.drive::<K, _, ()>(regs, FULL, |l| kernel(handles.get(l)), Some((&[(); 32], &mut wide)))? {
                Some(outs) => Ok(outs.into_array()),
                None => Ok(wide.into_array()),
            }
        })
    }

    /// Runs `run` on this thread's block and registers for one warp (`Solo`): set up for the
    /// warp at `self.warp`, and kept for the thread's next run when `run` ended well.
    #[inline(always)]
    fn on_solo<T>(&self, run: impl FnOnce(&Regs) -> Result<T, WarpError>) -> Result<T, WarpError> {
        let held = Held::take(self.warp);
        let solo = held.get();
        solo.block.cluster.start(core::slice::from_ref(&solo.block), 0, core::slice::from_ref(&solo.regs));
        let out = run(&solo.regs);
        if out.is_ok() {
            held.keep();
        }
        out
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
        self.probe(|plain| plain.run_with_in_process(args, &kernel).is_ok())?;
        self.run_with_in_process(args, kernel)
    }

    fn run_with_in_process<A, K, R>(&self, args: &[A; 32], kernel: K) -> Result<[R; 32], WarpError>
    where
        A: Copy,
        K: AsyncFn(&Warp<'_>, A) -> R,
    {
        let need = self.stack_need::<R>(crate::footprint::future_size(|| kernel(crate::footprint::no_handle(), args[0])));
        crate::stack::with_stack(need, || self.run_with_here(args, kernel))
    }

    #[inline(always)]
    fn run_with_here<A, K, R>(&self, args: &[A; 32], kernel: K) -> Result<[R; 32], WarpError>
    where
        A: Copy,
        K: AsyncFn(&Warp<'_>, A) -> R,
    {
        self.on_solo(|regs| {
            let handles = Handles::new(regs);
            // A direct run leaves its results here, read once into the returned array.
            let mut wide = crate::wide::Lanes::new();
            match self.drive::<K, _, A>(regs, FULL, |l| kernel(handles.get(l), args[l as usize]), Some((args, &mut wide)))? {
                Some(outs) => Ok(outs.into_array()),
                None => Ok(wide.into_array()),
            }
        })
    }

    /// Runs `kernel` on the lanes of `launched` (a partial warp; the others are inactive from the
    /// start, like the threads past the end of a grid) and returns each launched lane's result.
    pub fn run_partial<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.probe(|plain| plain.run_partial_in_process(launched, &kernel).is_ok())?;
        self.run_partial_in_process(launched, kernel)
    }

    fn run_partial_in_process<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let need = self.stack_need::<R>(crate::footprint::future_size(|| kernel(crate::footprint::no_handle())));
        crate::stack::with_stack(need, || self.run_partial_here(launched, kernel))
    }

    #[inline(always)]
    fn run_partial_here<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.on_solo(|regs| {
            let handles = Handles::new(regs);
            let mut wide = crate::wide::Lanes::new();
            match self.drive::<K, _, ()>(regs, launched, |l| kernel(handles.get(l)), Some((&[(); 32], &mut wide)))? {
                Some(outs) => Ok(outs.into_options()),
                None => Ok(Outs::from_wide(wide).into_options()),
            }
        })
    }

    /// The stack a run of lane futures of `future` bytes with results `R` needs: the 32 futures
    /// and results live in [`drive`](Self::drive)'s frame (checked before the run starts; a
    /// thread with less left runs the warp on a new stack segment).
    #[inline(always)]
    fn stack_need<R>(&self, future: usize) -> usize {
        let in_frame = 32 * future + crate::stack::RESULT_COPIES * 32 * core::mem::size_of::<R>();
        crate::stack::needed(self.lane_stack, in_frame, future)
    }

    /// Runs the lanes of `launched`, lane `l` being the future `start(l)` (created when the lane
    /// is first polled, so that a panic in creating it is that lane's panic). When the futures
    /// are the body of the kernel `K` itself and it has a warp-wide form taking `args`, the run
    /// is that form, without the futures (see `crate::wide::Direct`): it returns `Ok(None)`,
    /// the results in the `Lanes` beside `args` (written once, where the caller reads them).
    #[inline(always)]
    fn drive<K, F: Future, A: Copy>(
        &self,
        regs: &Regs,
        launched: u32,
        mut start: impl FnMut(u32) -> F,
        direct: Option<(&[A; 32], &mut crate::wide::Lanes<F::Output>)>,
    ) -> Result<Option<Outs<F::Output>>, WarpError> {
        // The kernel's future, by its `poll`: the address its form is learned and found by.
        let poll = <F as Future>::poll as fn(core::pin::Pin<&mut F>, &mut core::task::Context<'_>) -> core::task::Poll<F::Output> as *const ();
        // A kernel this thread already ran in its form starts in it again, without the lanes'
        // futures and the step loop (an untraced run that takes forms: a traced one polls).
        let direct = match direct {
            Some((args, douts)) if self.wide && self.trace.is_none() && self.target.independent_scheduling() => {
                match crate::wide::KnownForm::find::<K>(poll, args, launched) {
                    Some(known) => return self.drive_known(regs, launched, &known, args, douts).map(|()| None),
                    None => Some((args, douts)),
                }
            }
            direct => direct,
        };
        crate::warp::install_panic_capture();
        let mut lanes = core::pin::pin!(Lanes::<F>::new());
        let mut outs = Outs::new();
        let tracer = crate::trace::RunTracer::begin(self.trace);
        let deadline = Deadline::start(self.time_limit);
        let mut run = WarpRun::new(regs, self.target, self.order, launched);
        run.traced(tracer.as_ref()).wide(self.wide, deadline, self.current_simd());
        // Made at the first barrier: a kernel without one does not pay for it.
        let mut barriers: Option<Barriers> = None;
        let mut idle_steps = 0;
        // Steps until the next look at the clock (kept here, in a register: warp-wide forms
        // count their instructions on the run's own count, `WarpRun::clock`, and look at the
        // same deadline).
        let mut clock = CLOCK_EVERY;
        let races = self.start_races(regs);
        let current = crate::mem::Current::enter(regs);
        let mut first = None;
        let mut wide = false;
        if let Some((args, douts)) = direct.filter(|_| regs.wide_allowed()) {
            match run.first_step_direct::<K, _, A>(lanes.as_mut(), &mut start, &mut outs, args, douts, poll) {
                Ok(Some(step)) => first = Some(Ok(step)),
                Ok(None) => wide = true,
                Err(e) => first = Some(Err(e)),
            }
        }
        // A direct run that ended has no step left (nothing of the step loop's state is moved).
        let result = if wide { Ok(()) } else { loop {
            clock -= 1;
            if clock == 0 {
                clock = CLOCK_EVERY;
                if let Some((d, elapsed)) = deadline.as_ref().and_then(|d| Some((d, d.passed()?))) {
                    let detail = format!("{idle_steps} of the last steps only spun");
                    break Err(WarpError::TimeLimit { limit: d.limit(), elapsed, detail, blocks: vec![crate::block::block_report(core::slice::from_ref(&run))] });
                }
            }
            let step = match first.take() {
                Some(step) => step,
                None => run.step(lanes.as_mut(), &mut start, &mut outs),
            };
            match step {
                Ok(Step::Running) => idle_steps = 0,
                Ok(Step::Yield { spinning }) => {
                    idle_steps = if spinning { idle_steps + 1 } else { 0 };
                    if idle_steps >= self.spin_limit {
                        break Err(run.deadlock());
                    }
                }
                Ok(Step::Barrier) => {
                    idle_steps = 0;
                    let barriers = barriers.get_or_insert_with(|| Barriers::new(1, self.target.independent_scheduling()));
                    if let Err(e) = barriers.arrive(0, core::slice::from_mut(&mut run)) {
                        break Err(e);
                    }
                    if !run.is_runnable() {
                        // Alone in its block, nothing else can arrive.
                        break Err(barriers.never_completes(core::slice::from_ref(&run)));
                    }
                }
                Ok(Step::Waiting) => {
                    let barriers = barriers.get_or_insert_with(|| Barriers::new(1, self.target.independent_scheduling()));
                    break Err(barriers.never_completes(core::slice::from_ref(&run)));
                }
                Ok(Step::Done) => break Ok(()),
                Err(e) => break Err(e),
            }
        } };
        drop(current);
        if result.is_err() {
            // Lanes stopped mid-kernel are dropped here, under the panic guard: a kernel local
            // whose `Drop` panics must not reach the host.
            lanes.as_mut().drop_all();
        }
        let result = result.and_then(|()| races.map_or(Ok(()), |r| r.result()));
        if let Some(tracer) = tracer {
            drop(run);
            tracer.finish(result.as_ref().err());
        }
        result.map(|()| (!wide).then_some(outs))
    }

    /// The race detection of a run of the warp of `regs`, started in its block, when this
    /// executor checks for races.
    #[inline(always)]
    fn start_races(&self, regs: &Regs) -> Option<std::sync::Arc<crate::race::RunRaces>> {
        let races = self.current_races().then(|| {
            let pos = regs.pos();
            crate::race::RunRaces::new(pos.nctaid, pos.ntid, pos.cluster, !self.target.independent_scheduling())
        });
        if let Some(races) = &races {
            regs.block().races.start(Some(races), regs.pos().warp);
        }
        races
    }

    /// [`drive`](Self::drive) for a run that starts in the form `known` (`Ok(())`: every lane
    /// returned, its result in `douts`): the same run, its registers, clock, race checks and
    /// thread's current warp, without the lanes' futures, their results and the step loop. Not
    /// inlined: its frame holds none of theirs.
    #[inline(never)]
    fn drive_known<A: Copy, R>(&self, regs: &Regs, launched: u32, known: &crate::wide::KnownForm<A, R>, args: &[A; 32], douts: &mut crate::wide::Lanes<R>) -> Result<(), WarpError> {
        crate::warp::install_panic_capture();
        let deadline = Deadline::start(self.time_limit);
        let mut run = WarpRun::new(regs, self.target, self.order, launched);
        run.traced(None).wide(self.wide, deadline, self.current_simd());
        debug_assert!(regs.wide_allowed());
        let races = self.start_races(regs);
        let current = crate::mem::Current::enter(regs);
        let result = run.start_known(known, args, douts);
        drop(current);
        // Matched, not mapped: the error (most of the `Result`'s bytes) is moved only when there
        // is one (`map_or` and `and_then` copied all of its bytes, written or not, and the copy
        // waited on the callee's narrower stores).
        if let Err(e) = result {
            return Err(e);
        }
        match races {
            Some(races) => races.result(),
            None => Ok(()),
        }
    }
}


/// The lanes' handles of a single-warp run, each made when its lane's future is (a run that
/// takes the kernel's warp-wide form makes one).
struct Handles<'r> {
    regs: &'r Regs,
    slots: core::cell::UnsafeCell<[core::mem::MaybeUninit<Warp<'r>>; 32]>,
    made: core::cell::Cell<u32>,
}

impl<'r> Handles<'r> {
    #[inline(always)]
    fn new(regs: &'r Regs) -> Handles<'r> {
        Handles { regs, slots: core::cell::UnsafeCell::new([const { core::mem::MaybeUninit::uninit() }; 32]), made: core::cell::Cell::new(0) }
    }

    /// Lane `lane`'s handle (`Warp::new(regs, lane)`).
    #[inline(always)]
    fn get(&self, lane: u32) -> &Warp<'r> {
        let l = lane as usize & 31;
        // SAFETY: slot `l` is written once, through a pointer to it alone (no reference to the
        // array or to another slot is made), before any reference to it is handed out; `Warp`
        // has no drop glue.
        unsafe {
            let slot = (self.slots.get() as *mut core::mem::MaybeUninit<Warp<'r>>).add(l);
            if self.made.get() >> l & 1 == 0 {
                slot.write(core::mem::MaybeUninit::new(Warp::new(self.regs, l as u32)));
                self.made.set(self.made.get() | 1 << l);
            }
            (*slot).assume_init_ref()
        }
    }
}
