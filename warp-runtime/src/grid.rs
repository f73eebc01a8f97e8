//! Launching a grid of many warps.
//!
//! A launch of `n` threads runs `ceil(n / 32)` warps of one kernel. Warp `k` holds threads
//! `32k .. 32k + 32`, so a lane finds its thread with [`Warp::global_id`] (`32 * warp_index +
//! lane_id`); in the last warp, lanes past `n` are not launched (they are inactive from the start,
//! like the threads past the end of a CUDA grid). Warps share nothing but what the kernel
//! captures: typically [`GlobalSlice`](crate::GlobalSlice)s of input and output buffers.
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
//! # Errors
//!
//! A launch returns the error of the **lowest-numbered warp that failed**; its
//! [`Report::warp`](crate::Report::warp) is that warp's index. A lane panicking (an out-of-range
//! buffer index, say) is such an error, reported as [`WarpError::LanePanicked`] with the lane.
//! After an error, which other warps ran, and so what the buffers hold, is unspecified.
//!
//! # Several CPU threads
//!
//! [`Grid::cpu_threads`] runs warps on several OS threads (scoped threads taking batches of
//! consecutive warps from a shared queue, in increasing order; a batch is an eighth of a
//! thread's share of the warps left, at most 64 warps, so that the threads run out of work
//! together). Each warp still runs entirely on one thread in lockstep,
//! so everything inside a warp is exactly as with one thread. What changes is the interleaving of
//! warps, which is visible only through global memory: atomics on one element from different warps
//! are applied in an order that depends on scheduling, as on a GPU. Kernels whose results do not
//! depend on that order (histograms, integer sums, min/max, each thread writing its own element)
//! give identical results for any number of threads. With one thread (the default) warps run in
//! increasing index and everything, atomic order included, is deterministic.
//!
//! The kernel must be [`Sync`] to be shared between threads (the free function [`launch`], which is
//! always sequential, does not ask for it). Its futures are not sent anywhere: each is created,
//! polled and dropped on one thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::WarpError;
use crate::exec::Executor;
use crate::handle::{Warp, FULL_MASK};

/// Runs `kernel` on `threads` threads (`ceil(threads / 32)` warps) one warp after another, with
/// the default [`Executor`]. The same as `Grid::new(threads).run(kernel)` except that the kernel
/// need not be [`Sync`].
///
/// ```
/// use warp_runtime::grid::launch;
/// use warp_runtime::{GlobalBuffer, Warp};
///
/// let total = GlobalBuffer::<u64>::zeroed(1);
/// let t = total.slice();
/// launch(1000, async |w: &Warp<'_>| {
///     t.atomic_add(0, w.global_id());
/// })
/// .unwrap();
/// assert_eq!(total.to_vec(), [999 * 1000 / 2]);
/// ```
pub fn launch<K>(threads: u64, kernel: K) -> Result<(), WarpError>
where
    K: AsyncFn(&Warp<'_>),
{
    let grid = Grid::new(threads);
    for warp in 0..grid.warps() {
        grid.run_warp(warp, &kernel)?;
    }
    Ok(())
}

/// A launch configuration: how many threads, how many CPU threads run their warps, and the
/// [`Executor`] (target, lane order) each warp runs under.
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
///         h.atomic_add(w.global_id() as usize % 4, 1);
///     })
///     .unwrap();
/// assert_eq!(hist.to_vec(), [250; 4]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// The number of threads launched; the last warp is partial unless it is a multiple of 32.
    threads: u64,
    /// OS threads that run warps; at least 1.
    cpu_threads: usize,
    /// Each warp runs under this executor, with its own warp index.
    executor: Executor,
}

impl Grid {
    /// A launch of `threads` threads on one CPU thread with the default [`Executor`].
    pub fn new(threads: u64) -> Grid {
        Grid { threads, cpu_threads: 1, executor: Executor::new() }
    }

    /// Runs warps on `n` OS threads (0 counts as 1). `std::thread::available_parallelism()` is
    /// the usual choice for speed; 1 (the default) makes the order of atomics deterministic.
    pub fn cpu_threads(mut self, n: usize) -> Grid {
        self.cpu_threads = n.max(1);
        self
    }

    /// Runs each warp under `executor` (its target and lane order; the warp index is set per warp).
    pub fn executor(mut self, executor: Executor) -> Grid {
        self.executor = executor;
        self
    }

    /// The number of threads launched.
    pub fn threads(&self) -> u64 {
        self.threads
    }

    /// The number of warps: `ceil(threads / 32)`.
    pub fn warps(&self) -> u64 {
        self.threads.div_ceil(32)
    }

    /// The lanes launched in warp `warp`: all 32 except in a partial last warp.
    pub fn launched_mask(&self, warp: u64) -> u32 {
        let first = warp * 32;
        let n = self.threads.saturating_sub(first).min(32);
        if n == 32 {
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
        self.drive(&kernel, (0..self.warps()).map(|w| (w, ())), |_, _| {})
    }

    /// Runs `kernel` on every thread of the grid and returns each thread's result, indexed by
    /// global thread id.
    pub fn map<K, R>(&self, kernel: K) -> Result<Vec<R>, WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        R: Send,
    {
        let n = usize::try_from(self.threads).expect("the thread count fits in usize");
        let mut outs: Vec<Option<R>> = Vec::with_capacity(n);
        outs.resize_with(n, || None);
        self.drive(&kernel, outs.chunks_mut(32).zip(0..).map(|(chunk, w)| (w, chunk)), |chunk, warp_outs| {
            for (slot, r) in chunk.iter_mut().zip(warp_outs) {
                *slot = r;
            }
        })?;
        Ok(outs.into_iter().map(|r| r.expect("every launched thread returned")).collect())
    }

    /// Runs warp `warp` alone.
    fn run_warp<K, R>(&self, warp: u64, kernel: &K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        self.executor.warp_index(warp).run_partial(self.launched_mask(warp), kernel)
    }

    /// Runs every warp of `warps` (warp index, and where its results go, in increasing index) and
    /// hands each warp's results to `store`; returns the lowest-indexed warp's error.
    fn drive<K, R, S, I>(&self, kernel: &K, warps: I, store: impl Fn(&mut S, [Option<R>; 32]) + Sync) -> Result<(), WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Sync,
        I: Iterator<Item = (u64, S)> + Send,
        S: Send,
    {
        if self.cpu_threads == 1 || self.warps() <= 1 {
            for (warp, mut sink) in warps {
                store(&mut sink, self.run_warp(warp, kernel)?);
            }
            return Ok(());
        }

        // Workers take batches of consecutive warps from `queue` in increasing order. After a
        // failure at warp k, warps above k are skipped and warps below k still run, so the error
        // kept (the lowest index) does not depend on the number of threads.
        //
        // Batches shrink as the queue drains (guided scheduling): an eighth of a thread's share of
        // what is left, at most MAX_BATCH warps, at least one. A fixed batch of 64 left one thread
        // running its last batch alone while the others had finished: 317 us of a 12 ms launch of
        // 4,096 `reduce_u32_entry` warps on 2 threads. The queue lock is taken a few hundred
        // times per launch at most, which costs nothing next to running the warps.
        const MAX_BATCH: u64 = 64;
        let total = self.warps();
        let threads = self.cpu_threads as u64;
        let queue = Mutex::new(Queue { warps, taken: 0 });
        let lowest_failed = AtomicU64::new(u64::MAX);
        let error: Mutex<Option<(u64, WarpError)>> = Mutex::new(None);
        let worker = || {
            let mut taken = Vec::with_capacity(MAX_BATCH as usize);
            loop {
                taken.clear();
                {
                    let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
                    let batch = (total.saturating_sub(queue.taken) / (8 * threads)).clamp(1, MAX_BATCH);
                    queue.taken += batch;
                    taken.extend(queue.warps.by_ref().take(batch as usize));
                }
                if taken.is_empty() {
                    return;
                }
                for (warp, sink) in taken.iter_mut() {
                    let warp = *warp;
                    if warp > lowest_failed.load(Ordering::Relaxed) {
                        return;
                    }
                    match self.run_warp(warp, kernel) {
                        Ok(outs) => store(sink, outs),
                        Err(e) => {
                            lowest_failed.fetch_min(warp, Ordering::Relaxed);
                            let mut slot = error.lock().unwrap_or_else(|e| e.into_inner());
                            if slot.as_ref().is_none_or(|(w, _)| warp < *w) {
                                *slot = Some((warp, e));
                            }
                            return;
                        }
                    }
                }
            }
        };
        std::thread::scope(|scope| {
            for _ in 1..self.cpu_threads {
                scope.spawn(worker);
            }
            worker();
        });
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// The warps not yet taken by a worker, and how many have been taken.
struct Queue<I> {
    warps: I,
    taken: u64,
}
