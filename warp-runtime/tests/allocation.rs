//! The executor allocates nothing per step: lane futures live in a fixed array, requests and
//! results in fixed per-lane registers; a single warp's run allocates nothing at all, a grid
//! launch only its block slots, once. Checked with a global allocator that counts the
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
    // The race detector allocates shadow state and clocks as a run goes: these figures are for
    // runs without it (release builds, or `races(false)`).
    let out = Executor::new()
        .races(false)
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
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
        .races(false)
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

/// Grid launches are measured one at a time: the tests of this binary run on parallel threads,
/// and the several-thread test counts every thread's allocations.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// On one CPU thread every warp runs on the calling thread, and a launch allocates its block slots
/// once (the resident blocks' registers, lane futures and barriers, reused block after block):
/// the same number of allocations for 1 warp of 1 step as for 64 warps of 100 steps, none per
/// warp or per step.
#[test]
fn a_grid_launch_on_one_cpu_thread_allocates_per_launch_only() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = GlobalBuffer::<u32>::zeroed(32 * 64);
    launch(1, 1, 1, out.slice()); // first use: the panic-capture hook
    let counts: Vec<usize> = [(1, 1), (64, 1), (64, 100)].iter().map(|&(warps, steps)| allocations_during(|| launch(warps, steps, 1, out.slice()))).collect();
    assert!(counts.iter().all(|&n| n == counts[0]), "1x1, 64x1, 64x100 warps x steps allocated {counts:?} times");
    assert!(counts[0] <= 16, "{} allocations per launch", counts[0]);
}

/// On several CPU threads a launch may allocate to start its worker threads and their block slots:
/// a number that depends on the number of CPU threads only. Asserted: the allocations of all
/// threads during a launch are the same for 8 warps of 1 step and for 64 warps of 100 steps (so
/// none is per warp or per step; starting the OS threads varies by one or two), and at most 24 per
/// CPU thread. Other tests of this binary allocate concurrently, so
/// each figure is the least of five launches.
#[test]
fn a_grid_launch_on_several_cpu_threads_allocates_per_cpu_thread_only() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
        // Starting OS threads allocates one or two times more on some runs than on others.
        assert!(small.abs_diff(large) <= 2, "{cpu_threads} CPU threads: 8 warps x 1 step allocated {small} times, 64 warps x 100 steps {large}");
        assert!(large <= 24 * cpu_threads, "{cpu_threads} CPU threads: {large} allocations");
    }
}


