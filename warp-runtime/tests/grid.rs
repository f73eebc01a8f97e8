//! Grid launches: warps over shared global buffers, partial last warps, errors naming their warp,
//! and results that do not depend on the number of CPU threads.

use std::cell::Cell;

use warp_runtime::{launch, Executor, GlobalBuffer, GlobalSlice, Grid, LaneOrder, LaneState, Warp, WarpError};

/// Deterministic test data: ChaCha8, the generator of the runtime's schedules.
fn random_values(n: usize, seed: u64) -> Vec<u32> {
    use rand_chacha::rand_core::{Rng, SeedableRng};
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| r.next_u32()).collect()
}

const BUCKETS: usize = 61;

fn bucket(v: u32) -> usize {
    // Skewed, so that lanes of a warp often share a bucket.
    let r = v % 1000;
    (r * r % 1000) as usize % BUCKETS
}

fn sequential_histogram(values: &[u32]) -> Vec<u32> {
    let mut hist = vec![0; BUCKETS];
    for &v in values {
        hist[bucket(v)] += 1;
    }
    hist
}

/// Every launch configuration the results must not depend on.
fn configurations() -> Vec<Grid> {
    let mut grids = Vec::new();
    for threads in [1, 2, 3] {
        for order in [LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Seeded(11)] {
            grids.push(Grid::new(257).cpu_threads(threads).executor(Executor::new().order(order)));
        }
    }
    grids
}

/// A grid-stride histogram: 257 threads (9 warps, the last with only lane 0 launched) over
/// 10,000 values, one `atom.add` per value.
async fn histogram(w: &Warp<'_>, input: GlobalSlice<'_, u32>, hist: GlobalSlice<'_, u32>, threads: usize) {
    let mut i = w.global_id() as usize;
    while i < input.len() {
        hist.atomic_add(bucket(input.load(i)), 1);
        i += threads;
    }
}

#[test]
fn histogram_over_many_warps_equals_the_sequential_histogram() {
    let values = random_values(10_000, 1);
    let expected = sequential_histogram(&values);
    let input = GlobalBuffer::from_slice(&values);
    for grid in configurations() {
        let hist = GlobalBuffer::<u32>::zeroed(BUCKETS);
        let (inp, h) = (input.slice(), hist.slice());
        grid.run(async |w: &Warp<'_>| histogram(w, inp, h, 257).await).unwrap();
        assert_eq!(hist.to_vec(), expected, "{grid:?}");
    }
}

/// Warp-aggregated atomics: the lanes that are active together group by bucket with
/// `match.any.sync`; the lowest lane of each group adds the group's size with one `atom.add`.
async fn aggregated_histogram(w: &Warp<'_>, input: GlobalSlice<'_, u32>, hist: GlobalSlice<'_, u32>, threads: usize) {
    let mut i = w.global_id() as usize;
    while i < input.len() {
        let b = bucket(input.load(i));
        // In the last iterations only some lanes are still in the loop: use exactly those.
        let active = w.activemask().await;
        let peers = w.group(active).match_any(b as u32).await;
        let leader = peers.trailing_zeros();
        if w.lane_id() == leader {
            hist.atomic_add(b, peers.count_ones());
        }
        i += threads;
    }
}

#[test]
fn warp_aggregated_histogram_equals_the_sequential_histogram() {
    let values = random_values(10_000, 2);
    let expected = sequential_histogram(&values);
    let input = GlobalBuffer::from_slice(&values);
    for grid in configurations() {
        let hist = GlobalBuffer::<u32>::zeroed(BUCKETS);
        let atomics = GlobalBuffer::<u32>::zeroed(1);
        let (inp, h, count) = (input.slice(), hist.slice(), atomics.slice());
        grid.run(async |w: &Warp<'_>| {
            aggregated_histogram(w, inp, h, 257).await;
            if w.lane_id() == 0 {
                count.atomic_add(0, 1);
            }
        })
        .unwrap();
        assert_eq!(hist.to_vec(), expected, "{grid:?}");
        assert_eq!(atomics.to_vec(), [9], "every warp ran once");
    }
}

#[test]
fn warp_aggregation_issues_one_atomic_per_distinct_bucket() {
    // One value per thread; every lane of warp k holds k % 3, so each warp does one atomic.
    let values: Vec<u32> = (0..320).map(|t| t / 32 % 3).collect();
    let input = GlobalBuffer::from_slice(&values);
    let hist = GlobalBuffer::<u32>::zeroed(3);
    let calls = GlobalBuffer::<u32>::zeroed(1);
    let (inp, h, c) = (input.slice(), hist.slice(), calls.slice());
    Grid::new(320)
        .run(async |w: &Warp<'_>| {
            let b = inp.load(w.global_id() as usize);
            let peers = w.match_any(b).await;
            if w.lane_id() == peers.trailing_zeros() {
                h.atomic_add(b as usize, peers.count_ones());
                c.atomic_add(0, 1);
            }
        })
        .unwrap();
    assert_eq!(hist.to_vec(), [128, 96, 96]);
    assert_eq!(calls.to_vec(), [10]);
}

#[test]
fn a_partial_last_warp_launches_only_the_threads_of_the_grid() {
    let grid = Grid::new(257);
    assert_eq!((grid.threads(), grid.warps()), (257, 9));
    assert_eq!(grid.launched_mask(0), u32::MAX);
    assert_eq!(grid.launched_mask(8), 1);
    assert_eq!(Grid::new(64).launched_mask(1), u32::MAX);
    assert_eq!(Grid::new(70).launched_mask(2), 0x3f);

    let out = GlobalBuffer::<u32>::zeroed(9 * 32);
    let o = out.slice();
    Grid::new(257)
        .run(async |w: &Warp<'_>| {
            // `activemask` in the last warp names only lane 0.
            let active = w.activemask().await;
            o.store(w.global_id() as usize, active);
        })
        .unwrap();
    let out = out.to_vec();
    assert!(out[..256].iter().all(|&m| m == u32::MAX));
    assert_eq!(out[256], 1);
    assert!(out[257..].iter().all(|&m| m == 0), "lanes past the grid never ran");
}

#[test]
fn map_returns_each_threads_result_by_global_id() {
    for threads in [1, 2, 4] {
        let ids = Grid::new(1000)
            .cpu_threads(threads)
            .map(async |w: &Warp<'_>| (w.warp_index(), w.lane_id(), w.global_id()))
            .unwrap();
        assert_eq!(ids.len(), 1000);
        for (t, &(warp, lane, id)) in ids.iter().enumerate() {
            assert_eq!((warp, lane, id), (t as u64 / 32, t as u32 % 32, t as u64));
        }
    }
}

#[test]
fn an_empty_grid_runs_nothing() {
    assert_eq!(Grid::new(0).warps(), 0);
    Grid::new(0).cpu_threads(2).run(async |_: &Warp<'_>| unreachable!()).unwrap();
    assert!(Grid::new(0).map(async |_: &Warp<'_>| 1).unwrap().is_empty());
    launch(0, async |_: &Warp<'_>| unreachable!()).unwrap();
}

#[test]
fn launch_runs_warps_in_order_and_accepts_kernels_that_are_not_sync() {
    // A `Cell` makes the kernel !Sync: only the sequential `launch` accepts it.
    let order = Cell::new(Vec::new());
    launch(100, async |w: &Warp<'_>| {
        let mut v = order.take();
        v.push(w.global_id());
        order.set(v);
    })
    .unwrap();
    assert_eq!(order.take(), (0..100).collect::<Vec<_>>(), "warps in index order, lanes ascending");
}

/// The kernel of the error tests: warps 5 and 11 break a rule, each in its own way.
async fn faulty(w: &Warp<'_>) {
    if w.warp_index() == 11 {
        panic!("warp 11 gives up");
    }
    if w.warp_index() == 5 && w.lane_id() < 16 {
        // Lanes 16-31 exit without arriving: lanes 0-15 read them through a full-warp shuffle.
        w.shfl_down(1u32, 16).await;
    }
}

#[test]
fn an_error_names_the_lowest_warp_that_failed_for_any_number_of_threads() {
    for threads in [1, 2, 3, 8] {
        let err = Grid::new(32 * 20).cpu_threads(threads).run(async |w: &Warp<'_>| faulty(w).await).unwrap_err();
        assert!(matches!(err, WarpError::InvalidShflSource { .. }), "{threads} threads: {err}");
        assert_eq!(err.report().unwrap().warp, 5, "{threads} threads");
        assert!(err.to_string().contains("warp 5"), "{err}");
    }
    let err = launch(32 * 20, async |w: &Warp<'_>| faulty(w).await).unwrap_err();
    assert_eq!(err.report().unwrap().warp, 5);
}

#[test]
fn a_panicking_lane_is_reported_with_its_lane_and_warp() {
    for threads in [1, 2] {
        let err = Grid::new(32 * 20)
            .cpu_threads(threads)
            .run(async |w: &Warp<'_>| {
                if w.global_id() == 7 * 32 + 3 {
                    panic!("thread {} gives up", w.global_id());
                }
            })
            .unwrap_err();
        let WarpError::LanePanicked { lane, ref message, .. } = err else { panic!("{err}") };
        assert_eq!((lane, message.as_str()), (3, "thread 227 gives up"));
        assert_eq!(err.report().unwrap().warp, 7);
        assert_eq!(err.report().unwrap().lanes[3], LaneState::Panicked);
    }
}

#[test]
fn results_are_identical_for_one_and_two_cpu_threads() {
    // Order-independent results: each thread's own output, integer sums and min/max.
    let values = random_values(4096 * 32, 3);
    let input = GlobalBuffer::from_slice(&values);
    let run = |threads: usize| {
        let squares = GlobalBuffer::<u64>::zeroed(values.len());
        let stats = GlobalBuffer::from_slice(&[0u64, u64::MAX, 0]);
        let (inp, sq, st) = (input.slice(), squares.slice(), stats.slice());
        let sums = Grid::new(values.len() as u64)
            .cpu_threads(threads)
            .map(async |w: &Warp<'_>| {
                let i = w.global_id() as usize;
                let v = inp.load(i) as u64;
                sq.store(i, v * v);
                st.atomic_add(0, v);
                st.atomic_min(1, v);
                st.atomic_max(2, v);
                w.redux_add(inp.load(i) & 0xffff).await
            })
            .unwrap();
        (squares.to_vec(), stats.to_vec(), sums)
    };
    let one = run(1);
    assert_eq!(one.1[0], values.iter().map(|&v| v as u64).sum::<u64>());
    assert_eq!(one.1[1], values.iter().copied().min().unwrap() as u64);
    assert_eq!(one, run(2));
}
