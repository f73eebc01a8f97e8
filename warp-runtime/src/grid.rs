//! Launching a grid: blocks of warps, their resident slots, and the CPU threads that run them.
//!
//! [`Grid::blocks`] launches a CUDA-shaped grid, `grid` blocks of `block` threads each, both in up
//! to three dimensions (`<<<grid, block, shared_bytes>>>`). Each block's threads are numbered x
//! fastest ([`Warp::thread_rank`]); warp `k` of a block holds ranks `32k .. 32k + 32`, and the last
//! warp is partial when the block size is not a multiple of 32 (its missing lanes are never
//! launched). Every thread reads its position from the handle: [`Warp::tid`], [`Warp::ntid`],
//! [`Warp::ctaid`], [`Warp::nctaid`]. [`Grid::new`] is the one-dimensional shape of earlier
//! versions: `threads` threads in blocks of 32, the last block partial.
//!
//! ```
//! use warp_runtime::grid::{launch, Grid};
//! use warp_runtime::{GlobalBuffer, Warp};
//!
//! let x = GlobalBuffer::from_slice(&(0..100u32).collect::<Vec<_>>());
//! let y = GlobalBuffer::<u32>::zeroed(100);
//! let (xs, ys) = (x.slice(), y.slice());
//!
//! // y[i] = x[i] * x[i]: 100 threads, so 4 warps, the last one with lanes 0-3 launched.
//! launch(100, async |w: &Warp<'_>| {
//!     let i = w.global_id() as usize;
//!     ys.store(i, xs.load(i) * xs.load(i));
//! })
//! .unwrap();
//! assert_eq!(y.to_vec()[99], 99 * 99);
//!
//! // Per-thread results come back directly with `map`; here each thread reduces its warp.
//! let sums = Grid::new(64)
//!     .cpu_threads(2)
//!     .map(async |w: &Warp<'_>| w.redux_add(xs.load(w.global_id() as usize)).await)
//!     .unwrap();
//! assert_eq!(sums[0], (0..32).sum::<u32>());
//! assert_eq!(sums[63], (32..64).sum::<u32>());
//! ```
//!
//! # How blocks run
//!
//! Like a GPU, a launch keeps a bounded number of blocks *resident* ([`Grid::resident_blocks`],
//! 8 by default: think of SMs times blocks per SM) and starts the next block when one finishes,
//! in block order. On each CPU thread the warps of the resident blocks run interleaved: a warp
//! runs until a scheduling point (it waits at a CTA barrier, exits, or suspends at an atomic or
//! a volatile load), and the [`Schedule`] picks what runs next. A warp waiting at a barrier lets
//! the others run; a spin-wait on memory that another lane, warp or block writes completes, as
//! independent thread scheduling guarantees on sm_70 and later; and a wait on a block that can
//! never become resident (the earlier blocks all wait for it) is reported as a forward-progress
//! deadlock, because a GPU hangs there.
//!
//! # Errors
//!
//! A launch returns the error of the **lowest-numbered block that failed** (on one CPU thread,
//! the first failure); its report names the warp, the block, and the schedule, which
//! [`Grid::schedule`] replays. A lane panicking (an out-of-range buffer index, say) is such an
//! error, reported as [`WarpError::LanePanicked`] with the lane. After an error, which other warps
//! ran, and so what the buffers hold, is unspecified.
//!
//! # Several CPU threads
//!
//! [`Grid::cpu_threads`] runs blocks on several OS threads (scoped threads taking batches of
//! consecutive blocks from a shared queue, in increasing order; a batch is an eighth of a
//! thread's share of the blocks left, at most 64, so that the threads run out of work together),
//! each thread with its share of the resident slots. Each block runs entirely on one thread, so
//! everything inside a block is exactly as with one thread. What changes is the interleaving of
//! blocks, which is visible only through global memory: atomics on one element from different
//! blocks are applied in an order that depends on scheduling, as on a GPU. With one thread (the
//! default) everything, atomic order included, is deterministic for a given schedule.
//!
//! The kernel must be [`Sync`] to be shared between threads (the free function [`launch`], which is
//! always sequential, does not ask for it). Its futures are not sent anywhere: each is created,
//! polled and dropped on one thread.

use core::fmt;
use core::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::block::{block_report, BlockCtx, Barriers};
use crate::error::{BlockReport, WarpError};
use crate::exec::Executor;
use crate::geom::Dim3;
use crate::handle::{Warp, FULL_MASK};
use crate::schedule::{Reason, Schedule, Scheduler};
use crate::shared::SHARED_LIMIT;
use crate::warp::{Lanes, Outs, Regs, Step, WarpPos, WarpRun};

/// Runs `kernel` on `threads` threads (`ceil(threads / 32)` warps, each its own block of 32) one
/// after another, with the default [`Executor`]. The same as `Grid::new(threads).run(kernel)`
/// except that the kernel need not be [`Sync`].
///
/// ```
/// use warp_runtime::grid::launch;
/// use warp_runtime::{GlobalBuffer, Warp};
///
/// let total = GlobalBuffer::<u64>::zeroed(1);
/// let t = total.slice();
/// launch(1000, async |w: &Warp<'_>| {
///     t.atomic_add(0, w.global_id()).await;
/// })
/// .unwrap();
/// assert_eq!(total.to_vec(), [999 * 1000 / 2]);
/// ```
pub fn launch<K>(threads: u64, kernel: K) -> Result<(), WarpError>
where
    K: AsyncFn(&Warp<'_>),
{
    let grid = Grid::new(threads);
    let mut blocks = 0..grid.block_count();
    let races = grid.races_of_launch();
    grid.worker(&kernel, &mut || blocks.next().map(|b| (b, ())), &|_: &mut (), _, _| {}, grid.resident, None, races.as_ref(), None, None).map_err(|(_, e)| e)?;
    races.map_or(Ok(()), |r| r.result())
}

/// The shape of a launch and how it runs: the grid and block sizes, dynamic shared memory, how
/// many blocks are resident, how many CPU threads run them, the schedule, and the [`Executor`]
/// (target, lane order) each warp runs under.
///
/// ```
/// use warp_runtime::grid::Grid;
/// use warp_runtime::{Executor, GlobalBuffer, LaneOrder, Warp};
///
/// let hist = GlobalBuffer::<u32>::zeroed(4);
/// let h = hist.slice();
/// Grid::new(1000)
///     .cpu_threads(2)
///     .executor(Executor::new().order(LaneOrder::Seeded(7)))
///     .run(async |w: &Warp<'_>| {
///         h.atomic_add(w.global_id() as usize % 4, 1).await;
///     })
///     .unwrap();
/// assert_eq!(hist.to_vec(), [250; 4]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// Blocks in the grid (`%nctaid`).
    grid: Dim3,
    /// Threads in a block (`%ntid`).
    block: Dim3,
    /// `Grid::new`: the threads launched (the last block is partial); `None` for `Grid::blocks`.
    threads: Option<u64>,
    /// Bytes of dynamic shared memory per block.
    shared_bytes: u32,
    /// Blocks resident at once.
    resident: usize,
    /// OS threads that run blocks; at least 1.
    cpu_threads: usize,
    /// Each warp runs under this executor (its target and lane order).
    executor: Executor,
    /// How warps and blocks interleave.
    schedule: Schedule,
    /// Scheduling points in a row at which warps only spin before the launch is reported as
    /// making no progress.
    spin_limit: u64,
    /// The cluster shape in blocks (1 x 1 x 1: no clusters), and whether the launch gave one.
    cluster: Dim3,
    explicit_cluster: bool,
}

/// The lowest resident block (the one a launch's error names) and the report of every resident
/// block, from the slots' blocks and their warps' runs (`wpb` per slot).
fn resident_reports<S>(slots: &[Option<(u64, S)>], runs: &[WarpRun<'_>], wpb: usize) -> (u64, Vec<BlockReport>) {
    let block = slots.iter().filter_map(|s| s.as_ref().map(|(b, _)| *b)).min().unwrap_or(0);
    let reports = (0..slots.len()).filter(|&s| slots[s].is_some()).map(|s| block_report(&runs[s * wpb..(s + 1) * wpb])).collect();
    (block, reports)
}

/// How many blocks are resident by default.
pub const DEFAULT_RESIDENT_BLOCKS: usize = 8;
/// How many scheduling points in a row may pass with every running warp spinning (re-reading
/// memory nobody writes, with nothing else happening) before a launch reports a forward-progress
/// deadlock.
pub const DEFAULT_SPIN_LIMIT: u64 = 20_000;

/// How a grid starts the warps of an entry kernel in its warp-wide form ([`Grid::run_entry`]),
/// its types erased: whether a lane's offer is the kernel's form (`Direct::of::<E, A, ()>`),
/// whether every launched lane's arguments agree for it, and those arguments (`*const [A; 32]`,
/// the same in every lane).
#[derive(Clone, Copy)]
pub(crate) struct EntryStart {
    pub(crate) of: fn(&crate::wide::Direct) -> bool,
    /// `agrees_of::<A>`.
    pub(crate) agrees: unsafe fn(&crate::wide::Direct, *const (), u32) -> bool,
    pub(crate) args: *const (),
}

// SAFETY: `args` points to `[A; 32]` with `A: Copy + Sync`, which `run_entry` keeps alive and
// unchanged for the launch; the workers only read it.
unsafe impl Send for EntryStart {}
// SAFETY: as above.
unsafe impl Sync for EntryStart {}

/// `Direct::agrees` for arguments `args` (`*const [A; 32]`) of the lanes of `launched`.
///
/// # Safety
/// `direct.of::<_, A, _>()` holds and `args` points to a `[A; 32]`.
unsafe fn agrees_of<A>(direct: &crate::wide::Direct, args: *const (), launched: u32) -> bool {
    // SAFETY: the caller's contract.
    direct.agrees(unsafe { &*(args as *const [A; 32]) }, launched)
}

impl Grid {
    /// A launch of `threads` threads on one CPU thread with the default [`Executor`]: blocks of 32
    /// threads (one warp each), the last block partial when `threads` is not a multiple of 32.
    pub fn new(threads: u64) -> Grid {
        let blocks = threads.div_ceil(32).min(u32::MAX as u64) as u32;
        Grid { threads: Some(threads), ..Grid::blocks(blocks, 32) }
    }

    /// A launch of `grid` blocks of `block` threads each (CUDA's `<<<grid, block>>>`), in one to
    /// three dimensions: `Grid::blocks(64, 256)`, `Grid::blocks((8, 8), (16, 16))`.
    ///
    /// A block has at most 1024 threads; a launch with a larger block, or an empty one, fails
    /// with [`WarpError::Launch`] when it runs.
    pub fn blocks(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Grid {
        Grid {
            grid: grid.into(),
            block: block.into(),
            threads: None,
            shared_bytes: 0,
            resident: DEFAULT_RESIDENT_BLOCKS,
            cpu_threads: 1,
            executor: Executor::new(),
            schedule: Schedule::InOrder,
            spin_limit: DEFAULT_SPIN_LIMIT,
            cluster: Dim3::new(1, 1, 1),
            explicit_cluster: false,
        }
    }

    /// Groups the blocks into clusters of `dims` blocks (CUDA's cluster dimension launch
    /// attribute; sm_90). Each dimension of the grid must be a multiple of the cluster's, and a
    /// cluster holds at most 8 blocks (the portable limit). Every block of a cluster is resident
    /// at once, on one CPU thread, so that it can use the others' shared memory
    /// ([`crate::cluster`]); a launch keeps at least one cluster resident.
    ///
    /// ```
    /// use warp_runtime::{Dim3, Executor, Grid, Warp};
    /// let sm90 = Executor::new().target("sm_90".parse().unwrap());
    /// let ranks = Grid::blocks(8, 32).cluster(4).executor(sm90).map(async |w: &Warp<'_>| (w.clusterid().x, w.cluster_ctarank())).unwrap();
    /// assert_eq!(ranks[32 * 6], (1, 2)); // block 6 is rank 2 of cluster 1
    /// ```
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Grid {
        self.cluster = dims.into();
        self.explicit_cluster = true;
        self
    }

    /// The cluster shape (1 x 1 x 1 without clusters).
    pub fn cluster_dim(&self) -> Dim3 {
        self.cluster
    }

    /// Blocks per cluster.
    fn cluster_size(&self) -> usize {
        self.cluster.count().max(1) as usize
    }

    /// The order in which blocks start: cluster by cluster, each cluster's blocks by rank.
    fn cluster_key(&self, block: u64) -> (u64, u64) {
        let (c, id) = (self.cluster, self.grid.index_of(block));
        let n = Dim3::new(self.grid.x / c.x.max(1), self.grid.y / c.y.max(1), self.grid.z / c.z.max(1));
        let cluster = n.rank_of(Dim3::new(id.x / c.x.max(1), id.y / c.y.max(1), id.z / c.z.max(1)));
        (cluster, c.rank_of(Dim3::new(id.x % c.x.max(1), id.y % c.y.max(1), id.z % c.z.max(1))))
    }

    /// Gives every block `bytes` of dynamic shared memory (CUDA's third launch parameter), which
    /// the kernel views with [`Warp::dynamic_shared`].
    pub fn dynamic_shared_bytes(mut self, bytes: u32) -> Grid {
        self.shared_bytes = bytes;
        self
    }

    /// Keeps at most `n` blocks resident at once (at least 1): a GPU's SMs times the blocks each
    /// holds. A kernel whose blocks wait for later blocks needs enough of them.
    pub fn resident_blocks(mut self, n: usize) -> Grid {
        self.resident = n.max(1);
        self
    }

    /// Runs blocks on `n` OS threads (0 counts as 1). `std::thread::available_parallelism()` is
    /// the usual choice for speed; 1 (the default) makes the order of atomics deterministic.
    pub fn cpu_threads(mut self, n: usize) -> Grid {
        self.cpu_threads = n.max(1);
        self
    }

    /// Runs each warp under `executor`: its target, lane order, lane stack, time limit and
    /// isolation. It replaces the whole executor, so call it before [`time_limit`](Self::time_limit)
    /// and [`isolated`](Self::isolated), which set those on the current one.
    pub fn executor(mut self, executor: Executor) -> Grid {
        self.executor = executor;
        self
    }

    /// Interleaves warps and blocks by `schedule`; a report's schedule replays it.
    pub fn schedule(mut self, schedule: Schedule) -> Grid {
        self.schedule = schedule;
        self
    }

    /// How many scheduling points in a row may pass with every running warp spinning before the
    /// launch reports that it makes no progress (default [`DEFAULT_SPIN_LIMIT`]).
    pub fn spin_limit(mut self, points: u64) -> Grid {
        self.spin_limit = points.max(1);
        self
    }

    /// Ends a launch that takes longer than `limit` with
    /// [`WarpError::TimeLimit`], which shows every resident block's
    /// lanes (default [`DEFAULT_TIME_LIMIT`](crate::DEFAULT_TIME_LIMIT); `None` for no
    /// limit). The launch's executor carries it: this is
    /// [`Executor::time_limit`](crate::Executor::time_limit) for the whole launch.
    pub fn time_limit(mut self, limit: Option<std::time::Duration>) -> Grid {
        self.executor = self.executor.time_limit(limit);
        self
    }

    /// Runs the launch first in a child process: see
    /// [`Executor::isolated`](crate::Executor::isolated), which this sets on the launch's executor.
    pub fn isolated(mut self, isolated: bool) -> Grid {
        self.executor = self.executor.isolated(isolated);
        self
    }

    /// Checks every memory access for data races: see
    /// [`Executor::races`](crate::Executor::races), which this sets on the launch's executor.
    pub fn races(mut self, on: bool) -> Grid {
        self.executor = self.executor.races(on);
        self
    }

    /// Records each launch's steps into `tracer`: every warp's, or those
    /// [`Tracer::warps`](crate::trace::Tracer::warps) selects. See
    /// [`Executor::trace`](crate::Executor::trace), which this sets on the launch's executor.
    pub fn trace(mut self, tracer: &crate::trace::Tracer) -> Grid {
        self.executor = self.executor.trace(tracer);
        self
    }

    /// The race detector of one launch, when it runs.
    fn races_of_launch(&self) -> Option<std::sync::Arc<crate::race::RunRaces>> {
        let lockstep = !self.executor.current_target().independent_scheduling();
        self.executor.current_races().then(|| crate::race::RunRaces::new(self.grid, self.block, self.cluster, lockstep))
    }

    /// In an isolated launch, the child's run first.
    fn probe(&self, child: impl FnOnce(&Grid) -> bool) -> Result<(), WarpError> {
        match self.executor.isolation(self.schedule) {
            Some(launch) => crate::isolate::probe(launch, || child(&(*self).isolated(false))),
            None => Ok(()),
        }
    }

    /// The grid's size in blocks (`%nctaid`).
    pub fn grid_dim(&self) -> Dim3 {
        self.grid
    }

    /// A block's size in threads (`%ntid`).
    pub fn block_dim(&self) -> Dim3 {
        self.block
    }

    /// The bytes of dynamic shared memory per block.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// The schedule.
    pub fn current_schedule(&self) -> Schedule {
        self.schedule
    }

    /// The number of threads launched.
    pub fn threads(&self) -> u64 {
        self.threads.unwrap_or(self.block_count() * self.block_size())
    }

    /// The number of blocks.
    pub fn block_count(&self) -> u64 {
        self.grid.count()
    }

    /// Threads per block.
    pub fn block_size(&self) -> u64 {
        self.block.count()
    }

    /// Warps per block: `ceil(block_size / 32)`.
    pub fn warps_per_block(&self) -> u64 {
        self.block_size().div_ceil(32)
    }

    /// The number of warps.
    pub fn warps(&self) -> u64 {
        self.block_count() * self.warps_per_block()
    }

    /// The lanes launched in warp `warp` of the launch (numbered block by block): all 32 except
    /// in a partial warp.
    pub fn launched_mask(&self, warp: u64) -> u32 {
        let wpb = self.warps_per_block().max(1);
        let (block, w) = (warp / wpb, warp % wpb);
        let mut n = self.block_size().saturating_sub(32 * w).min(32);
        if let Some(threads) = self.threads {
            n = n.min(threads.saturating_sub(block * self.block_size() + 32 * w));
        }
        if n >= 32 {
            FULL_MASK
        } else {
            (1u32 << n) - 1
        }
    }

    /// Runs `kernel` on every thread of the grid.
    pub fn run<K>(&self, kernel: K) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) + Sync,
    {
        self.probe(|plain| plain.run_in_process(&kernel).is_ok())?;
        self.run_in_process(kernel)
    }

    fn run_in_process<K>(&self, kernel: K) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) + Sync,
    {
        self.drive(&kernel, (0..self.block_count()).map(|b| (b, ())), |_, _, _| {}, None)
    }

    /// Runs the entry kernel `kernel` on every thread of the grid, each thread passing it `args`
    /// (its parameters after the handle: the one, or a tuple of them) through `start`, which
    /// makes a thread's future (`|w| kernel(w, ..).await`). What `run(start)` does, except
    /// that a warp whose first lane offers the kernel's warp-wide form as its first step runs
    /// that form for all its lanes at once, made from `args`, without the other lanes' futures
    /// (as `Executor::run_with` does for one warp). An entry kernel's type calls this
    /// (`EntryKernel::run_cpu`).
    #[doc(hidden)]
    pub fn run_entry<E, A, K>(&self, kernel: E, args: A, start: K) -> Result<(), WarpError>
    where
        E: Copy,
        A: Copy + Sync,
        K: AsyncFn(&Warp<'_>) + Sync,
    {
        let _ = kernel;
        let args = [args; 32];
        let entry = EntryStart { of: |d| d.of::<E, A, ()>(), agrees: agrees_of::<A>, args: &args as *const [A; 32] as *const () };
        self.probe(|plain| plain.drive(&start, (0..plain.block_count()).map(|b| (b, ())), |_, _, _| {}, Some(entry)).is_ok())?;
        self.drive(&start, (0..self.block_count()).map(|b| (b, ())), |_, _, _| {}, Some(entry))
    }

    /// Runs `kernel` on every thread of the grid and returns each thread's result, indexed by
    /// `block_rank * block_size + thread_rank` (for `Grid::new`, the global thread id).
    pub fn map<K, R>(&self, kernel: K) -> Result<Vec<R>, WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        R: Send,
    {
        self.probe(|plain| plain.map_in_process(&kernel).is_ok())?;
        self.map_in_process(kernel)
    }

    fn map_in_process<K, R>(&self, kernel: K) -> Result<Vec<R>, WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        R: Send,
    {
        let n = usize::try_from(self.threads()).map_err(|_| self.launch_error(format!("{} threads do not fit in memory for their results", self.threads())))?;
        let mut outs: Vec<Option<R>> = Vec::new();
        outs.try_reserve_exact(n).map_err(|_| self.launch_error(format!("no memory for the results of {n} threads")))?;
        outs.resize_with(n, || None);
        let bs = self.block_size() as usize;
        self.drive(&kernel, (0..).zip(outs.chunks_mut(bs.max(1))), |chunk: &mut &mut [Option<R>], warp, results| {
            for (slot, r) in chunk.iter_mut().skip(32 * warp as usize).zip(results) {
                *slot = r;
            }
        }, None)?;
        // Blocks that `clusterlaunchcontrol.try_cancel` cancelled never ran: they have no results.
        if let Some(i) = outs.iter().position(Option::is_none) {
            let block = i as u64 / self.block_size().max(1);
            return Err(self.launch_error(format!(
                "block {} was cancelled by `clusterlaunchcontrol.try_cancel` and never ran, so its threads have no results: launch with `run`",
                self.grid.index_of(block)
            )));
        }
        Ok(outs.into_iter().map(|r| r.expect("every launched thread returned")).collect())
    }

    /// Runs `check` under `runs` schedules of this grid's kind (seeds `0..runs`; an in-order grid
    /// explores PCT with depth 3, [`Schedule::pct`]) and returns the first failure with the schedule
    /// that produced it: [`Grid::schedule`] with that schedule replays it.
    ///
    /// `check` receives the grid to launch and returns `Err` for a failure: a launch's error, or
    /// a wrong result it found.
    ///
    /// ```
    /// use warp_runtime::{Grid, GlobalBuffer, Schedule, Warp};
    ///
    /// // Two blocks race for one slot without an atomic: some schedules lose an increment.
    /// let found = Grid::blocks(2, 32).schedule(Schedule::Random { seed: 0 }).explore(50, |grid| {
    ///     let counter = GlobalBuffer::<u32>::zeroed(1);
    ///     let c = counter.slice();
    ///     grid.run(async |w: &Warp<'_>| {
    ///         if w.lane_id() == 0 {
    ///             let seen = c.load_volatile(0).await;
    ///             c.store_volatile(0, seen + 1);
    ///         }
    ///     })
    ///     .map_err(|e| e.to_string())?;
    ///     if counter.to_vec()[0] == 2 { Ok(()) } else { Err(format!("lost an increment: {:?}", counter.to_vec())) }
    /// });
    /// let failure = found.unwrap_err();
    /// assert!(failure.error.contains("lost an increment"));
    /// ```
    pub fn explore<E>(&self, runs: u64, mut check: impl FnMut(Grid) -> Result<(), E>) -> Result<(), Explored<E>> {
        let base = match self.schedule {
            Schedule::InOrder => Schedule::pct(0, 3),
            other => other,
        };
        // PCT draws its change points from the scheduling points a run takes, which the runs
        // themselves tell (as shuttle's PctScheduler learns its step bound).
        let mut horizon = 0;
        crate::schedule::take_points();
        for seed in 0..runs {
            let mut schedule = base.with_seed(seed);
            if let (Schedule::Pct { horizon: h, .. }, true) = (&mut schedule, horizon > 0) {
                *h = horizon;
            }
            let result = check(self.schedule(schedule));
            horizon = horizon.max(crate::schedule::take_points());
            if let Err(error) = result {
                return Err(Explored { schedule, runs: seed + 1, error });
            }
        }
        Ok(())
    }

    fn launch_error(&self, what: String) -> WarpError {
        WarpError::Launch { what }
    }

    /// Checks the launch's shape.
    fn validate(&self) -> Result<(), WarpError> {
        let size = self.block_size();
        if self.threads != Some(0) && (size == 0 || self.block_count() == 0) {
            // CUDA: `cudaErrorInvalidConfiguration`. (`Grid::new(0)` launches nothing.)
            return Err(self.launch_error(format!("an empty launch: a grid of {} blocks of {} threads", self.grid, self.block)));
        }
        if size > 1024 {
            return Err(self.launch_error(format!("a block of {} = {size} threads; a block has at most 1024", self.block)));
        }
        if self.shared_bytes as usize > SHARED_LIMIT {
            return Err(self.launch_error(format!("{} bytes of dynamic shared memory per block; a block may use at most {SHARED_LIMIT}", self.shared_bytes)));
        }
        if self.explicit_cluster {
            let (c, g) = (self.cluster, self.grid);
            let target = self.executor.current_target();
            if target.sm < 90 {
                return Err(self.launch_error(format!("a launch with clusters of {c} blocks on {target}: clusters need sm_90 or higher")));
            }
            if c.count() == 0 || c.count() > 8 {
                return Err(self.launch_error(format!("clusters of {c} = {} blocks; a cluster has 1 to 8 blocks (the portable limit)", c.count())));
            }
            if g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0 {
                return Err(self.launch_error(format!("a grid of {g} blocks is not a whole number of clusters of {c}")));
            }
            if self.threads.is_some() {
                return Err(self.launch_error("clusters need a launch of whole blocks: use `Grid::blocks`".into()));
            }
        }
        Ok(())
    }

    /// Runs every block of `blocks` (block rank, and where its results go, in increasing rank)
    /// and hands each warp's results to `store`; returns the lowest-ranked block's error.
    fn drive<K, R, S, I>(&self, kernel: &K, blocks: I, store: impl Fn(&mut S, u32, [Option<R>; 32]) + Sync, entry: Option<EntryStart>) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        I: Iterator<Item = (u64, S)> + Send,
        S: Send,
    {
        let tracer = crate::trace::RunTracer::begin(self.executor.tracer_id());
        let result = self.drive_traced(kernel, blocks, store, tracer.as_ref(), entry);
        if let Some(tracer) = tracer {
            tracer.finish(result.as_ref().err());
        }
        result
    }

    fn drive_traced<K, R, S, I>(
        &self,
        kernel: &K,
        blocks: I,
        store: impl Fn(&mut S, u32, [Option<R>; 32]) + Sync,
        tracer: Option<&crate::trace::RunTracer>,
        entry: Option<EntryStart>,
    ) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        I: Iterator<Item = (u64, S)> + Send,
        S: Send,
    {
        self.validate()?;
        if self.block_count() == 0 {
            return Ok(());
        }
        if self.cluster_size() > 1 {
            // Cluster by cluster: each worker takes whole clusters, which run together.
            let mut sorted: Vec<(u64, S)> = blocks.collect();
            sorted.sort_by_key(|(b, _)| self.cluster_key(*b));
            return self.drive_blocks(kernel, sorted.into_iter(), store, tracer, entry);
        }
        self.drive_blocks(kernel, blocks, store, tracer, entry)
    }

    fn drive_blocks<K, R, S, I>(
        &self,
        kernel: &K,
        blocks: I,
        store: impl Fn(&mut S, u32, [Option<R>; 32]) + Sync,
        tracer: Option<&crate::trace::RunTracer>,
        entry: Option<EntryStart>,
    ) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        I: Iterator<Item = (u64, S)> + Send,
        S: Send,
    {
        let mut blocks = blocks;
        // Lane futures live on the heap here; the stack holds what lanes run between warp
        // instructions, and each warp's results on their way out (`[Option<R>; 32]`, moved
        // through several temporaries of the worker's frame in a debug build: with 4 KiB
        // results, 1.5 MiB overflowed and 1.75 MiB did not).
        let footprint = crate::footprint::warp_footprint(kernel);
        let stack = crate::stack::needed(self.executor.current_lane_stack(), crate::stack::RESULT_COPIES * footprint.results, footprint.lane_future);
        // A programmatic dependent launch's grids share one detector, which reports at the end.
        let shared = PDL.with(|p| p.borrow().as_ref().map(|r| r.races.clone())).flatten();
        let races = shared.clone().or_else(|| self.races_of_launch());
        let races = races.as_ref();
        let result = |races: Option<&std::sync::Arc<crate::race::RunRaces>>| if shared.is_some() { Ok(()) } else { races.map_or(Ok(()), |r| r.result()) };
        if self.cpu_threads == 1 || self.block_count() <= 1 {
            crate::stack::with_stack(stack, || self.worker(kernel, &mut || blocks.next(), &store, self.resident, None, races, tracer, entry)).map_err(|(_, e)| e)?;
            return result(races);
        }

        // Workers take batches of consecutive blocks from `queue` in increasing order. After a
        // failure at block k, blocks above k are not started and blocks below k still run, so the
        // error kept (the lowest block) does not depend on the number of threads.
        //
        // Batches shrink as the queue drains (guided scheduling): an eighth of a thread's share of
        // what is left, at most MAX_BATCH blocks, at least one. A fixed batch of 64 left one
        // thread running its last batch alone while the others had finished: 317 us of a 12 ms
        // launch of 4,096 `reduce_u32_entry` warps on 2 threads.
        const MAX_BATCH: u64 = 64;
        let total = self.block_count();
        // More CPU threads than blocks would have nothing to do.
        let cpu_threads = (self.cpu_threads as u64).min(total) as usize;
        let threads = cpu_threads as u64;
        let queue = Mutex::new(Queue { blocks, taken: 0 });
        let lowest_failed = AtomicU64::new(u64::MAX);
        let error: Mutex<Option<(u64, WarpError)>> = Mutex::new(None);
        let progress = AtomicU64::new(0);
        let csize = self.cluster_size();
        let resident = (self.resident / cpu_threads).max(1);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let worker = || {
            let mut batch: Vec<(u64, S)> = Vec::new();
            let mut next = || {
                if batch.is_empty() {
                    let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
                    let n = (total.saturating_sub(queue.taken) / threads.saturating_mul(8)).clamp(1, MAX_BATCH).next_multiple_of(csize as u64);
                    queue.taken += n;
                    batch.extend(queue.blocks.by_ref().take(n as usize));
                    batch.reverse();
                }
                let (b, s) = batch.pop()?;
                let (failed, stopped) = (lowest_failed.load(Ordering::Relaxed), stop.load(Ordering::Relaxed));
                if csize == 1 {
                    return (b <= failed && !stopped).then_some((b, s));
                }
                // Clusters start whole: the check is at each cluster's first block, by cluster.
                let (cluster, rank) = self.cluster_key(b);
                if rank == 0 && (stopped || failed != u64::MAX && cluster > self.cluster_key(failed).0) {
                    batch.clear();
                    return None;
                }
                Some((b, s))
            };
            if let Err((block, e)) = self.worker(kernel, &mut next, &store, resident, Some(&progress), races, tracer, entry) {
                lowest_failed.fetch_min(block, Ordering::Relaxed);
                let mut slot = error.lock().unwrap_or_else(|e| e.into_inner());
                if slot.as_ref().is_none_or(|(b, _)| block < *b) {
                    *slot = Some((block, e));
                }
            }
        };
        // A thread the OS refuses ends the launch with a report rather than a panic: the threads
        // already started stop taking blocks.
        let spawn_error = std::thread::scope(|scope| {
            for k in 1..cpu_threads {
                let builder = std::thread::Builder::new().name(format!("warpkit-grid-{k}")).stack_size(stack);
                if let Err(e) = builder.spawn_scoped(scope, worker) {
                    stop.store(true, Ordering::Relaxed);
                    return Some(format!("could not start CPU thread {k} of {cpu_threads}: {e}"));
                }
            }
            crate::stack::with_stack(stack, worker);
            None
        });
        if let Some(what) = spawn_error {
            return Err(self.launch_error(what));
        }
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => result(races),
        }
    }

    /// One CPU thread's share of a launch: runs the blocks `next` hands out, at most `resident`
    /// at a time, interleaving their warps by the schedule. `progress` is the launch's shared
    /// progress counter when several threads run it.
    fn worker<K, R, S>(
        &self,
        kernel: &K,
        next: &mut dyn FnMut() -> Option<(u64, S)>,
        store: &(impl Fn(&mut S, u32, [Option<R>; 32]) + ?Sized),
        resident: usize,
        progress: Option<&AtomicU64>,
        races: Option<&std::sync::Arc<crate::race::RunRaces>>,
        tracer: Option<&crate::trace::RunTracer>,
        entry: Option<EntryStart>,
    ) -> Result<(), (u64, WarpError)>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.validate().map_err(|e| (0, e))?;
        if self.block_count() == 0 {
            return Ok(());
        }
        crate::warp::install_panic_capture();
        let wpb = self.warps_per_block() as usize;
        // Slots come in groups of a cluster's blocks (one block each without clusters).
        let csize = self.cluster_size();
        let nslots = (resident.min(self.block_count().min(usize::MAX as u64) as usize).max(1) / csize).max(1) * csize;
        let ntasks = nslots * wpb;
        let target = self.executor.current_target();

        // Storage, in borrowing order: blocks, registers (which point to their block), handles
        // (which borrow registers), then lane futures (which borrow handles). Nothing here moves
        // or grows once a future exists; slots are reused block after block.
        let ctxs: Vec<BlockCtx> = (0..nslots).map(|_| BlockCtx::new(self.shared_bytes as usize)).collect();
        let regs: Vec<Regs> = (0..ntasks).map(|t| Regs::new(WarpPos::single(0), &ctxs[t / wpb])).collect();
        let handles: Vec<[Warp<'_>; 32]> = regs.iter().map(|r| core::array::from_fn(|l| Warp::new(r, l as u32))).collect();
        let mut lanes: Pin<Box<[Lanes<_>]>> = Box::into_pin((0..ntasks).map(|_| Lanes::new()).collect::<Box<[_]>>());
        let mut outs: Vec<Outs<R>> = (0..ntasks).map(|_| Outs::new()).collect();
        let (wide, limit, simd) = (self.executor.current_wide(), self.executor.current_time_limit(), self.executor.current_simd());
        // The launch's clock, which warp-wide forms read too (each run keeps a copy).
        let deadline = crate::exec::Deadline::start(limit);
        let mut runs: Vec<WarpRun<'_>> = regs
            .iter()
            .map(|r| {
                let mut run = WarpRun::new(r, target, self.executor.current_order(), 0);
                run.wide(wide, deadline, simd);
                run
            })
            .collect();
        let mut bars: Vec<Barriers> = (0..nslots).map(|_| Barriers::new(wpb as u32, target.independent_scheduling())).collect();
        let mut slots: Vec<Option<(u64, S)>> = (0..nslots).map(|_| None).collect();
        // Per task: whether it can be stepped.
        let mut runnable = vec![false; ntasks];
        let mut sched = Scheduler::new(self.schedule, ntasks);

        // `clusterlaunchcontrol.try_cancel` takes the next cluster that has not started: the
        // blocks `next` would hand out.
        let next = core::cell::RefCell::new(next);
        let cancel = || -> Option<u64> {
            let mut next = next.try_borrow_mut().ok()?;
            let (first, _) = (*next)()?;
            for _ in 1..csize {
                let _ = (*next)();
            }
            Some(first)
        };
        for c in &ctxs {
            c.cluster.set_cancel(&cancel);
        }
        // The contexts outlive `cancel`: their pointers to it are cleared first.
        struct ClearCancel<'a>(&'a [BlockCtx]);
        impl Drop for ClearCancel<'_> {
            fn drop(&mut self) {
                self.0.iter().for_each(|c| c.cluster.clear_cancel());
            }
        }
        let _clear = ClearCancel(&ctxs);
        let mut pending = true;
        let mut active = 0usize;
        let mut current: Option<usize> = None;
        let mut reason = Reason::Blocked;
        let mut stalls = 0u64;
        let mut stall_since = (progress.map_or(0, |p| p.load(Ordering::Relaxed)), Instant::now());
        let mut clock = crate::exec::CLOCK_EVERY;

        let result = (|| -> Result<(), (u64, WarpError)> {
            loop {
                // Admit blocks into free slots: all at once for interleaving schedules; in order,
                // one when nothing is resident, or when the resident warps spin (a block may wait
                // for a later one). Waiting at barriers is no reason: only a block's own warps
                // complete its barriers.
                while pending && active < nslots && (self.schedule.fills_eagerly() || active == 0 || stalls > 0) {
                    let Some(group) = (0..nslots / csize).find(|g| slots[g * csize..(g + 1) * csize].iter().all(Option::is_none)) else { break };
                    for k in 0..csize {
                        let handed = (*next.borrow_mut())();
                        match handed {
                            None => {
                                pending = false;
                                break;
                            }
                            Some((block, sink)) => {
                                // A cluster's blocks come in rank order; its slot is its rank.
                                let slot = group * csize + if csize > 1 { self.cluster_key(block).1 as usize } else { k };
                                self.admit(block, slot, wpb, &ctxs[group * csize..(group + 1) * csize], &ctxs, &regs, &mut runs, &mut bars, &mut runnable, &mut sched, races, tracer);
                                slots[slot] = Some((block, sink));
                                active += 1;
                                stalls = 0;
                            }
                        }
                    }
                }
                if active == 0 {
                    return Ok(());
                }
                let Some(t) = sched.pick(ntasks, current, reason, |t| runnable[t]) else {
                    // Every warp of every resident block waits at a barrier that can never
                    // complete (a barrier is completed only by its own block's warps).
                    let slot = (0..nslots).find(|&s| slots[s].is_some()).expect("an active slot");
                    let block = slots[slot].as_ref().map_or(0, |(b, _)| *b);
                    return Err((block, bars[slot].never_completes(&runs[slot * wpb..(slot + 1) * wpb])));
                };
                current = Some(t);
                let (slot, w) = (t / wpb, t % wpb);
                let block = slots[slot].as_ref().map_or(0, |(b, _)| *b);
                // Run warp `t` up to its next scheduling point.
                let _current = crate::mem::Current::enter(&regs[t]);
                loop {
                    // The clock, every `CLOCK_EVERY` warp steps (a warp may loop on warp
                    // instructions without ever reaching a scheduling point).
                    clock -= 1;
                    if clock == 0 {
                        clock = crate::exec::CLOCK_EVERY;
                        if let Some((d, elapsed)) = deadline.as_ref().and_then(|d| Some((d, d.passed()?))) {
                            let (block, blocks) = resident_reports(&slots, &runs, wpb);
                            let detail = format!(
                                "{active} blocks resident{}; the last {stalls} scheduling points only spun",
                                if self.cpu_threads > 1 { " on this CPU thread" } else { "" }
                            );
                            return Err((block, WarpError::TimeLimit { limit: d.limit(), elapsed, detail, blocks }));
                        }
                    }
                    let handles = &handles[t];
                    let start = &mut |l: u32| kernel(&handles[l as usize]);
                    // An entry kernel's warp starts in its form where its first lane offers it.
                    let step = match entry.filter(|_| !runs[t].has_started()) {
                        Some(e) => runs[t].first_step_entry(lanes_at(lanes.as_mut(), t), start, &mut outs[t], &e).map(|s| s.unwrap_or(Step::Done)),
                        None => runs[t].step(lanes_at(lanes.as_mut(), t), start, &mut outs[t]),
                    };
                    let step = match step {
                        Ok(step) => step,
                        // A warp that finds a barrier misused reports its own lanes; the report
                        // shows every warp of the block.
                        Err(WarpError::Barrier { rule, barrier, detail, .. }) => {
                            let report = Box::new(block_report(&runs[slot * wpb..(slot + 1) * wpb]));
                            return Err((block, WarpError::Barrier { rule, barrier, detail, report }));
                        }
                        Err(e) => return Err((block, e)),
                    };
                    match step {
                        Step::Running => {}
                        Step::Yield { spinning } => {
                            reason = Reason::Yield { spinning };
                            if spinning {
                                stalls += 1;
                            } else {
                                stalls = 0;
                                if let Some(p) = progress {
                                    p.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            break;
                        }
                        Step::Barrier => {
                            stalls = 0;
                            let block_runs = &mut runs[slot * wpb..(slot + 1) * wpb];
                            bars[slot].arrive(w, block_runs).map_err(|e| (block, e))?;
                            for (i, r) in block_runs.iter().enumerate() {
                                runnable[slot * wpb + i] = r.is_runnable();
                            }
                            if !runnable[t] {
                                reason = Reason::Blocked;
                                break;
                            }
                        }
                        Step::Waiting => {
                            runnable[t] = false;
                            reason = Reason::Blocked;
                            break;
                        }
                        Step::Done => {
                            stalls = 0;
                            runnable[t] = false;
                            reason = Reason::Blocked;
                            let results = outs[t].take();
                            if let Some((_, sink)) = slots[slot].as_mut() {
                                store(sink, w as u32, results);
                            }
                            let block_runs = &mut runs[slot * wpb..(slot + 1) * wpb];
                            bars[slot].warp_exited(w, block_runs).map_err(|e| (block, e))?;
                            for (i, r) in block_runs.iter().enumerate() {
                                runnable[slot * wpb + i] = r.is_runnable();
                            }
                            if block_runs.iter().all(|r| r.finished()) {
                                ctxs[slot].cluster.done.set(true);
                                // The block's clocks first: the dependent may start at once after.
                                ctxs[slot].races.finish(&regs[slot * wpb..(slot + 1) * wpb]);
                                pdl_block_done(&ctxs[slot]);
                                // A cluster's slots are freed together, when its last block
                                // finishes: until then the others may still use this block's
                                // shared memory (reported: it has exited).
                                let g = slot / csize * csize;
                                if ctxs[g..g + csize].iter().all(|c| c.cluster.done.get()) {
                                    for s in g..g + csize {
                                        if slots[s].take().is_some() {
                                            active -= 1;
                                        }
                                    }
                                }
                                if let Some(p) = progress {
                                    p.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            break;
                        }
                    }
                }
                if stalls >= self.spin_limit {
                    // In order, a block waiting for a later block may need it resident.
                    if pending && active < nslots && !self.schedule.fills_eagerly() {
                        continue;
                    }
                    // With several CPU threads, another thread's blocks may still write.
                    if let Some(p) = progress {
                        let now = p.load(Ordering::Relaxed);
                        if now != stall_since.0 || stall_since.1.elapsed() < Duration::from_secs(1) {
                            if now != stall_since.0 {
                                stall_since = (now, Instant::now());
                            }
                            std::thread::yield_now();
                            continue;
                        }
                    }
                    let (block, reports) = resident_reports(&slots, &runs, wpb);
                    let detail = format!(
                        "for {} scheduling points in a row every running warp only re-read memory that nothing wrote; {active} blocks are resident (at most {nslots}{}), and {}",
                        stalls,
                        if self.cpu_threads > 1 { " on this CPU thread" } else { "" },
                        if pending { "later blocks cannot start until one of them finishes" } else { "no other block is left to write it" }
                    );
                    return Err((block, WarpError::ForwardProgress { detail, blocks: reports }));
                }
            }
        })();
        if result.is_err() {
            // Lanes stopped mid-kernel are dropped here, under the panic guard: a kernel local
            // whose `Drop` panics must not reach the host.
            for t in 0..ntasks {
                lanes_at(lanes.as_mut(), t).drop_all();
            }
        }
        result
    }

    /// Puts block `block` into slot `slot`: fresh registers, barriers and shared memory.
    #[allow(clippy::too_many_arguments)]
    fn admit<'r>(
        &self,
        block: u64,
        slot: usize,
        wpb: usize,
        cluster: &[BlockCtx],
        ctxs: &[BlockCtx],
        regs: &'r [Regs],
        runs: &mut [WarpRun<'r>],
        bars: &mut [Barriers],
        runnable: &mut [bool],
        sched: &mut Scheduler,
        races: Option<&std::sync::Arc<crate::race::RunRaces>>,
        tracer: Option<&crate::trace::RunTracer>,
    ) {
        ctxs[slot].arena.reset();
        ctxs[slot].races.start(races, block);
        ctxs[slot].arena.set_race_generation(ctxs[slot].races.generation());
        let rank = if cluster.len() > 1 { self.cluster_key(block).1 as u32 } else { 0 };
        ctxs[slot].cluster.start(cluster, rank, &regs[slot * wpb..(slot + 1) * wpb]);
        bars[slot].reset();
        let ctaid = self.grid.index_of(block);
        for w in 0..wpb {
            let t = slot * wpb + w;
            let warp = block * wpb as u64 + w as u64;
            regs[t].reset(WarpPos {
                ctaid,
                ntid: self.block,
                nctaid: self.grid,
                warp_in_block: w as u32,
                warp,
                warps_in_block: wpb as u32,
                cluster: self.cluster,
                explicit_cluster: self.explicit_cluster,
            });
            let mut run = WarpRun::new(&regs[t], self.executor.current_target(), self.executor.current_order(), self.launched_mask(warp));
            // The launch's deadline, which the slot's previous run held.
            run.traced(tracer).wide(self.executor.current_wide(), runs[t].deadline, self.executor.current_simd());
            run.schedule = self.schedule;
            runs[t] = run;
            runnable[t] = runs[t].is_runnable();
            sched.renew(t);
        }
    }
}

std::thread_local! {
    /// The programmatic dependent launch the grid running on this thread belongs to.
    static PDL: core::cell::RefCell<Option<PdlRole>> = const { core::cell::RefCell::new(None) };
}

/// The state the two grids of a programmatic dependent launch share.
pub(crate) struct PdlState {
    /// Primary blocks that have triggered (`launch_dependents`) or completed.
    ready: AtomicU64,
    /// The primary grid has finished (completed or failed).
    done: std::sync::atomic::AtomicBool,
}

/// This thread's grid in a programmatic dependent launch.
#[derive(Clone)]
struct PdlRole {
    state: std::sync::Arc<PdlState>,
    races: Option<std::sync::Arc<crate::race::RunRaces>>,
    dependent: bool,
}

/// Whether the grid running on this thread is a programmatic dependent launch's dependent.
pub(crate) fn pdl_dependent_here() -> bool {
    PDL.with(|p| p.borrow().as_ref().is_some_and(|r| r.dependent))
}

/// `griddepcontrol.launch_dependents` by a thread of `block` (this thread's grid).
pub(crate) fn pdl_trigger(block: &BlockCtx) {
    PDL.with(|p| {
        if let Some(r) = p.borrow().as_ref().filter(|r| !r.dependent) {
            if !block.cluster.pdl_triggered.replace(true) {
                r.state.ready.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
}

/// `block` (of this thread's grid) has finished.
fn pdl_block_done(block: &BlockCtx) {
    PDL.with(|p| {
        if let Some(r) = p.borrow().as_ref().filter(|r| !r.dependent) {
            if !block.cluster.pdl_triggered.replace(true) {
                r.state.ready.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
}

/// Whether `griddepcontrol.wait` by the dependent grid running on this thread may return: the
/// primary grid has finished (always, outside such a launch). `None` while it runs, with how
/// far it has got.
pub(crate) fn pdl_wait_ready() -> Option<u64> {
    PDL.with(|p| match p.borrow().as_ref().filter(|r| r.dependent) {
        Some(r) if !r.state.done.load(Ordering::SeqCst) => Some(r.state.ready.load(Ordering::SeqCst)),
        _ => None,
    })
}

/// Sets this thread's role for as long as it lives.
struct PdlGuard;
impl PdlGuard {
    fn enter(role: PdlRole) -> PdlGuard {
        PDL.with(|p| *p.borrow_mut() = Some(role));
        PdlGuard
    }
}
impl Drop for PdlGuard {
    fn drop(&mut self) {
        PDL.with(|p| *p.borrow_mut() = None);
    }
}

/// A programmatic dependent launch (PDL, sm_90): `dependent` runs after `primary` in one stream
/// with `cudaLaunchAttributeProgrammaticStreamSerialization`, so that it may start before the
/// primary grid has completed, once every primary block has executed
/// [`griddepcontrol_launch_dependents`](crate::Warp::griddepcontrol_launch_dependents) or
/// completed; its [`griddepcontrol_wait`](crate::Warp::griddepcontrol_wait) waits until the
/// primary grid has completed and its memory operations are visible (PTX ISA 9.7.13.13).
///
/// On the CPU the two grids run on two threads, each grid on one: the dependent starts once
/// every primary block has triggered or completed, runs alongside the rest of the primary grid,
/// and its `griddepcontrol_wait` suspends until the primary grid has completed. The race
/// detector checks the dependent grid's accesses against every order a GPU allows: its threads
/// start knowing what the primary blocks that never triggered did (they completed before it
/// could start), and only `griddepcontrol_wait` orders the rest of the primary grid before them.
/// So a dependent that reads the primary's output before its wait is a race, reported with both
/// accesses, whatever this run read. The interleaving of the two grids depends on the OS.
///
/// ```
/// use warp_runtime::grid::{launch_dependent, Grid};
/// use warp_runtime::{Executor, GlobalBuffer, Target, Warp, WarpError};
///
/// let a = GlobalBuffer::<u32>::zeroed(64);
/// let b = GlobalBuffer::<u32>::zeroed(64);
/// let (sa, sb) = (a.slice(), b.slice());
/// let sm90 = Grid::blocks(2, 32).executor(Executor::new().target(Target::SM_90)).races(true);
/// let primary = async |w: &Warp<'_>| {
///     let i = w.global_id() as usize;
///     sa.store(i, 3 * i as u32);
///     w.griddepcontrol_launch_dependents().await;
/// };
/// // Correct: the dependent waits before it reads.
/// launch_dependent(&sm90, &primary, &sm90, async |w: &Warp<'_>| {
///     let i = w.global_id() as usize;
///     w.griddepcontrol_wait().await;
///     sb.store(i, sa.load(63 - i) + 1);
/// })
/// .unwrap();
/// assert_eq!(b.to_vec()[0], 3 * 63 + 1);
/// // Broken: it reads first. On a GPU it may read zeros; here the detector reports it.
/// let err = launch_dependent(&sm90, &primary, &sm90, async |w: &Warp<'_>| {
///     let i = w.global_id() as usize;
///     let early = sa.load(63 - i);
///     w.griddepcontrol_wait().await;
///     sb.store(i, early);
/// })
/// .unwrap_err();
/// assert!(matches!(err, WarpError::Race { .. }));
/// assert!(err.to_string().contains("griddepcontrol.wait"));
/// ```
pub fn launch_dependent<K1, K2, R1, R2>(primary: &Grid, k1: K1, dependent: &Grid, k2: K2) -> Result<(), WarpError>
where
    K1: AsyncFn(&Warp<'_>) -> R1 + Sync,
    K2: AsyncFn(&Warp<'_>) -> R2 + Sync,
{
    for (g, which) in [(primary, "primary"), (dependent, "dependent")] {
        let target = g.executor.current_target();
        if target.sm < 90 {
            return Err(g.launch_error(format!("a programmatic dependent launch on {target} ({which} grid): griddepcontrol needs sm_90 or higher")));
        }
    }
    // Each grid on one CPU thread: the launch's role is this thread's.
    let (primary, dependent) = ((*primary).cpu_threads(1), (*dependent).cpu_threads(1));
    let races = primary.executor.current_races().then(|| {
        let lockstep = !primary.executor.current_target().independent_scheduling();
        crate::race::RunRaces::new_primary(primary.grid, primary.block, primary.cluster, lockstep)
    });
    let state = std::sync::Arc::new(PdlState { ready: AtomicU64::new(0), done: std::sync::atomic::AtomicBool::new(false) });
    let n = primary.block_count();
    let role = |dependent| PdlRole { state: state.clone(), races: races.clone(), dependent };
    let (first, second) = std::thread::scope(|scope| {
        let primary_role = role(false);
        let (state, k1) = (&state, &k1);
        let run_primary = move || {
            let _role = PdlGuard::enter(primary_role);
            let r = primary.drive(k1, (0..n).map(|b| (b, ())), |_, _, _| {}, None);
            state.done.store(true, Ordering::SeqCst);
            r
        };
        let handle = match std::thread::Builder::new().name("warpkit-pdl-primary".into()).spawn_scoped(scope, run_primary) {
            Ok(h) => h,
            Err(e) => return (Err(primary.launch_error(format!("could not start the primary grid's CPU thread: {e}"))), Ok(())),
        };
        // The dependent may start once every primary block has triggered or completed.
        while state.ready.load(Ordering::SeqCst) < n && !state.done.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_micros(20));
        }
        if let Some(r) = &races {
            r.start_dependent(n.min(u32::MAX as u64) as u32, dependent.grid, dependent.block);
        }
        let second = {
            let _role = PdlGuard::enter(role(true));
            dependent.drive(&k2, (0..dependent.block_count()).map(|b| (b, ())), |_, _, _| {}, None)
        };
        let first = handle.join().unwrap_or_else(|_| Err(primary.launch_error("the primary grid's CPU thread panicked".into())));
        (first, second)
    });
    first?;
    second?;
    races.map_or(Ok(()), |r| r.result())
}

/// Task `t`'s lane futures.
fn lanes_at<F>(lanes: Pin<&mut [Lanes<F>]>, t: usize) -> Pin<&mut Lanes<F>> {
    // SAFETY: structural pinning of a slice element; the element is never moved out.
    unsafe { lanes.map_unchecked_mut(|s| &mut s[t]) }
}

/// The blocks not yet taken by a worker, and how many have been taken.
struct Queue<I> {
    blocks: I,
    taken: u64,
}

/// The first failing run of [`Grid::explore`].
#[derive(Clone, Debug)]
pub struct Explored<E> {
    /// The schedule that failed: [`Grid::schedule`] with it replays the run.
    pub schedule: Schedule,
    /// How many runs were made (the failing one included).
    pub runs: u64,
    /// What `check` returned.
    pub error: E,
}

impl<E: fmt::Display> fmt::Display for Explored<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "run {} of the exploration failed under {} (replay with `.schedule({})`):\n{}", self.runs, self.schedule, self.schedule, self.error)
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for Explored<E> {}
