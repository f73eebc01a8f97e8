//! Launch geometry: `%tid`, `%ntid`, `%ctaid`, `%nctaid` for grids and blocks of one to three
//! dimensions, threads numbered x fastest, warps of 32 consecutive thread ranks, and a partial
//! last warp in a block.

use warp_runtime::{Dim3, Grid, Warp, WarpError};

/// Every thread of a `(3, 2)` grid of `(5, 4, 2)` blocks sees its position: the reference numbers
/// blocks and threads x fastest (`rank = x + nx * (y + ny * z)`), and `map` returns thread
/// `block_rank * block_size + thread_rank`.
#[test]
fn every_thread_sees_its_position_in_three_dimensions() {
    let (grid, block) = (Dim3::new(3, 2, 1), Dim3::new(5, 4, 2));
    let out = Grid::blocks((3, 2), (5, 4, 2))
        .map(async |w: &Warp<'_>| (w.tid(), w.ntid(), w.ctaid(), w.nctaid(), w.thread_rank(), w.warp_in_block(), w.lane_id(), w.block_rank(), w.block_size()))
        .unwrap();
    assert_eq!(out.len(), 6 * 40);
    for b in 0..6u32 {
        let ctaid = Dim3::new(b % 3, b / 3, 0);
        for r in 0..40u32 {
            let tid = Dim3::new(r % 5, r / 5 % 4, r / 20);
            let got = out[(40 * b + r) as usize];
            assert_eq!(got, (tid, block, ctaid, grid, r, r / 32, r % 32, b as u64, 40), "block {b}, thread {r}");
        }
    }
}

/// A block of 40 threads has a partial second warp of 8 lanes: the others are never launched,
/// so the warp's instructions see 8 participants.
#[test]
fn a_block_size_that_is_not_a_multiple_of_32_has_a_partial_last_warp() {
    let out = Grid::blocks(2, 40).map(async |w: &Warp<'_>| (w.warp_in_block(), w.activemask().await, w.redux_add(1u32).await)).unwrap();
    assert!(out[..32].iter().all(|&r| r == (0, u32::MAX, 32)));
    assert!(out[32..40].iter().all(|&r| r == (1, 0xff, 8)));
    assert_eq!(out[40], (0, u32::MAX, 32), "block 1 starts again at warp 0");
}

/// `Grid::new(threads)` keeps its one-dimensional shape: blocks of 32 threads, the last one
/// partial, `global_id` the thread's index.
#[test]
fn grid_new_is_blocks_of_one_warp() {
    let g = Grid::new(70);
    assert_eq!((g.grid_dim(), g.block_dim(), g.block_count(), g.warps()), (Dim3::new(3, 1, 1), Dim3::new(32, 1, 1), 3, 3));
    assert_eq!(g.launched_mask(2), 0x3f);
    let out = g.map(async |w: &Warp<'_>| (w.global_id(), w.ctaid().x, w.tid().x, w.warp_index())).unwrap();
    assert_eq!(out.len(), 70);
    for (i, &(gid, b, t, warp)) in out.iter().enumerate() {
        assert_eq!((gid, b, t, warp), (i as u64, i as u32 / 32, i as u32 % 32, i as u64 / 32));
    }
}

/// `warp_index` counts the warps of the launch block by block, and `global_id` is
/// `%ctaid.x * %ntid.x + %tid.x`.
#[test]
fn warp_index_and_global_id_in_a_blocked_launch() {
    let out = Grid::blocks(3, 96).map(async |w: &Warp<'_>| (w.warp_index(), w.global_id())).unwrap();
    for (i, &(warp, gid)) in out.iter().enumerate() {
        assert_eq!((warp, gid), (i as u64 / 32, i as u64));
    }
}

/// A block of more than 1024 threads cannot be launched (CUDA: `cudaErrorInvalidConfiguration`);
/// nor can an empty grid of blocks. `Grid::new(0)` launches nothing.
#[test]
fn launches_that_a_gpu_refuses_are_errors() {
    let err = Grid::blocks(1, (32, 33)).run(async |_: &Warp<'_>| {}).unwrap_err();
    assert!(matches!(&err, WarpError::Launch { what } if what.contains("1056 threads")), "{err}");
    let err = Grid::blocks((4, 0), 32).run(async |_: &Warp<'_>| {}).unwrap_err();
    assert!(matches!(err, WarpError::Launch { .. }), "{err}");
    assert_eq!(Grid::new(0).map(async |_: &Warp<'_>| 1u32).unwrap(), Vec::<u32>::new());
}
