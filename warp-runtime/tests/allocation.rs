//! The executor allocates nothing per step: lane futures live in a fixed array, requests and
//! results in fixed per-lane registers. Checked with a global allocator that counts the
//! allocations of the calling thread (the test harness allocates on its own threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use warp_runtime::{Executor, Warp};

struct Counting;

std::thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
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
