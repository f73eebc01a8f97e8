//! Host-side sizes and thread counts that cannot be honoured are an `Err`, never an abort or an
//! overflow (issue 13).

use warp_runtime::{GlobalBuffer, Grid, Warp, WarpError};

/// `Grid::map` over 2^40 threads needs terabytes for its results: a launch error, before any
/// thread runs.
#[test]
fn results_that_do_not_fit_in_memory_are_a_launch_error() {
    let err = Grid::new(1 << 40).map(async |w: &Warp<'_>| w.lane_id()).unwrap_err();
    match err {
        WarpError::Launch { what } => assert!(what.contains("results"), "{what}"),
        other => panic!("expected a launch error, got {other}"),
    }
}

/// More CPU threads than the machine could ever start (2^61; 8 x that overflows a u64) run the
/// launch on at most one thread per block, with the right result.
#[test]
fn absurd_cpu_thread_counts_run_on_one_thread_per_block() {
    let counts = GlobalBuffer::<u32>::zeroed(64);
    let c = counts.slice();
    Grid::blocks(64, 32)
        .cpu_threads(1 << 61)
        .run(async |w: &Warp<'_>| {
            c.atomic_add(w.block_rank() as usize, 1).await;
        })
        .unwrap();
    assert_eq!(counts.to_vec(), vec![32; 64]);
}

/// A kernel whose lanes return `[u32; 1024]`: 4 KiB a lane, 128 KiB of results and more in lane
/// futures, moved through several temporaries in a debug build. On a 2 MiB thread (a test
/// thread's size) this overflowed the stack and aborted the whole test binary; through
/// `Grid::map` it passed on one CPU thread and aborted on two (2 MiB workers). Runs now grow the
/// stack to what the kernel's types need.
#[test]
fn large_lane_results_do_not_overflow_a_small_stack() {
    let kernel = async |w: &Warp<'_>| -> [u32; 1024] {
        let v = w.shfl_xor(w.lane_id(), 1).await;
        core::array::from_fn(|i| v + i as u32)
    };
    let check = |out: &[[u32; 1024]]| {
        for (t, row) in out.iter().enumerate() {
            let partner = (t as u32 % 32) ^ 1;
            assert!(row.iter().enumerate().all(|(i, &x)| x == partner + i as u32), "thread {t}");
        }
    };
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let out = warp_runtime::Executor::new().run(kernel).unwrap();
            check(&out);
            for threads in [1, 2] {
                let out = Grid::new(128).cpu_threads(threads).map(kernel).unwrap();
                check(&out);
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
