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
