//! The executor allocates nothing per step: lane futures live in a fixed array, requests and
//! results in fixed per-lane registers. Checked with a global allocator that counts the
//! allocations of the calling thread (the test harness allocates on its own threads), and, for
//! launches on several CPU threads, of all threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use warp_runtime::{Executor, GlobalBuffer, GlobalSlice, Grid, Warp};

struct Counting;

std::thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Allocations of every thread, the harness's included.
static ALL_THREADS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        ALL_THREADS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A kernel of `steps` shuffles, votes and reductions, some lanes diverging and exiting early.
fn run(steps: u32) -> u32 {
    let out = Executor::new()
        .run(async |w: &Warp<'_>| {
            let mut v = w.lane_id();
            for i in 0..steps {
                v = v.wrapping_add(w.shfl_down(v, i % 32).await);
                if w.lane_id() % 2 == 0 {
                    v ^= w.group(0x5555_5555).ballot(v & 1 == 1).await;
                } else {
                    v = v.wrapping_add(w.group(0xaaaa_aaaa).redux_add(v).await);
                }
            }
            v
        })
        .expect("defined behaviour");
    out[0]
}

#[test]
fn a_run_allocates_nothing_however_many_steps() {
    run(1); // first use: the panic-capture hook is installed once per process
    for steps in [1, 10, 200] {
        let n = allocations_during(|| {
            std::hint::black_box(run(steps));
        });
        assert_eq!(n, 0, "{steps} steps allocated {n} times");
    }
}

#[test]
fn the_counter_sees_allocations() {
    // The check above can fail: a Vec allocates and is counted.
    let n = allocations_during(|| {
        std::hint::black_box(vec![1u8; 100]);
    });
    assert!(n >= 1);
}

/// A grid of `warps` warps, each running `steps` rounds of shuffles, ballots and group reductions
/// (lanes diverging by parity) and storing one value per thread.
fn launch(warps: u64, steps: u32, cpu_threads: usize, out: GlobalSlice<'_, u32>) {
    Grid::new(32 * warps)
        .cpu_threads(cpu_threads)
        .run(async |w: &Warp<'_>| {
            let mut v = w.global_id() as u32;
            for i in 0..steps {
                v = v.wrapping_add(w.shfl_xor(v, i % 32).await);
                if w.lane_id() % 2 == 0 {
                    v ^= w.group(0x5555_5555).ballot(v & 1 == 1).await;
                } else {
                    v = v.wrapping_add(w.group(0xaaaa_aaaa).redux_add(v).await);
                }
            }
            out.store(w.global_id() as usize, v);
        })
        .expect("defined behaviour");
}

/// On one CPU thread every warp runs on the calling thread, and a launch allocates nothing at all,
/// however many warps and steps.
#[test]
fn a_grid_launch_on_one_cpu_thread_allocates_nothing() {
    let out = GlobalBuffer::<u32>::zeroed(32 * 64);
    launch(1, 1, 1, out.slice()); // first use: the panic-capture hook
    for (warps, steps) in [(1, 1), (64, 1), (64, 100)] {
        let n = allocations_during(|| launch(warps, steps, 1, out.slice()));
        assert_eq!(n, 0, "{warps} warps of {steps} steps allocated {n} times");
    }
}

/// On several CPU threads a launch may allocate to start its worker threads: a number that
/// depends on the number of CPU threads only. Asserted: the allocations of all threads during a
/// launch are the same for 8 warps of 1 step and for 64 warps of 100 steps (so none is per warp or
/// per step), and at most 8 per CPU thread. Other tests of this binary allocate concurrently, so
/// each figure is the least of five launches.
#[test]
fn a_grid_launch_on_several_cpu_threads_allocates_per_cpu_thread_only() {
    let out = GlobalBuffer::<u32>::zeroed(32 * 64);
    launch(1, 1, 1, out.slice());
    for cpu_threads in [2, 3] {
        let fewest = |warps, steps| {
            (0..5)
                .map(|_| {
                    let before = ALL_THREADS.load(Ordering::SeqCst);
                    launch(warps, steps, cpu_threads, out.slice());
                    ALL_THREADS.load(Ordering::SeqCst) - before
                })
                .min()
                .unwrap()
        };
        let (small, large) = (fewest(8, 1), fewest(64, 100));
        assert_eq!(small, large, "{cpu_threads} CPU threads: 8 warps x 1 step allocated {small} times, 64 warps x 100 steps {large}");
        assert!(large <= 8 * cpu_threads, "{cpu_threads} CPU threads: {large} allocations");
    }
}
