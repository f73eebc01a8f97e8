//! Warp-wide forms in blocks (issue 15's blocks part): a kernel with CTA barriers, shared arrays
//! and plain loads and stores gets a warp-wide form that suspends at each barrier, one future in
//! its block's scheduler, as the per-lane executor's lanes suspend there. Each launch runs both
//! ways (the per-lane executor is the reference) and must give the same values and the same
//! reports; the sequential results are checked too, and each kernel meant to run warp-wide is
//! checked to.

use warpkit::prelude::*;

/// The outcome of launching `kernel` over `grid` under `ex`, per lane and warp-wide: equal values,
/// or reports that print the same (a time limit's elapsed time aside). Returns the warp-wide
/// outcome and how many warp-wide runs it made.
fn grid_both<R: PartialEq + core::fmt::Debug + Send>(
    grid: &Grid,
    ex: Executor,
    kernel: impl AsyncFn(&Warp<'_>) -> R + Sync + Copy,
) -> (Result<Vec<R>, WarpError>, u64) {
    // One CPU thread: the count of warp-wide runs is the calling thread's.
    let grid = grid.cpu_threads(1);
    let per_lane = grid.executor(ex.wide(false)).map(kernel);
    let before = warpkit::wide_runs();
    let wide = grid.executor(ex.wide(true)).map(kernel);
    let runs = warpkit::wide_runs() - before;
    match (&per_lane, &wide) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the warp-wide values differ from the per-lane executor's"),
        (Err(WarpError::TimeLimit { .. }), Err(WarpError::TimeLimit { .. })) => {}
        (a, b) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "the warp-wide report differs from the per-lane executor's"),
    }
    (wide, runs)
}

fn data(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect()
}

// ---- a block's sum, a barrier's reduction, a neighbour's value.

/// A block's sum through shared memory: each warp's sum (`redux`) to a shared slot, a barrier,
/// then each warp's lanes read the slots and add them (`redux` again); `bar.red.popc` over a
/// per-lane predicate; each thread's neighbour across the block, written before the first
/// barrier.
#[warp_kernel]
fn block_total(w: &Warp, x: u32) -> (u32, u32, u32) {
    let partials = w.shared_array::<u32, 32>();
    let values = w.shared_array::<u32, 1024>();
    let t = w.thread_rank() as usize;
    let warps = w.block_size().div_ceil(32) as usize;
    let mine = w.redux_add(x);
    if w.lane_id() == 0 {
        partials.store(w.warp_in_block() as usize, mine);
    }
    values.store(t, x);
    w.sync_threads();
    let l = w.lane_id() as usize;
    let total = w.redux_add(if l < warps { partials.load(l) } else { 0 });
    let odd = w.sync_threads_count(x % 2 == 1);
    let n = w.block_size() as usize;
    let neighbour = values.load((t + 1) % n);
    (total, odd, neighbour)
}

#[test]
fn block_sums_suspend_at_barriers() {
    let d = data(1024);
    for (blocks, size) in [(1u32, 32u32), (2, 64), (3, 96), (1, 1024), (2, 80)] {
        for order in [LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Seeded(7)] {
            let d = &d;
            let (out, runs) = grid_both(&Grid::blocks(blocks, size), Executor::new().order(order), async |w: &Warp<'_>| {
                block_total(w, d[w.global_id() as usize]).await
            });
            let out = out.unwrap();
            assert_eq!(runs, (blocks * size.div_ceil(32)) as u64, "every warp runs warp-wide");
            for (i, &(total, odd, neighbour)) in out.iter().enumerate() {
                let b = i / size as usize;
                let xs = &d[b * size as usize..][..size as usize];
                assert_eq!(total, xs.iter().fold(0u32, |a, &v| a.wrapping_add(v)), "thread {i}");
                assert_eq!(odd, xs.iter().filter(|&&v| v % 2 == 1).count() as u32);
                assert_eq!(neighbour, xs[(i % size as usize + 1) % size as usize]);
            }
        }
    }
}

// ---- a block scan in shared memory: a uniform loop with two barriers per turn.

/// Hillis-Steele inclusive scan over the block, in shared memory: each turn reads the value
/// `step` threads below, waits, adds, and waits again. Also `sync_threads_and`/`_or` at the end.
#[warp_kernel]
fn block_scan(w: &Warp, x: u32) -> (u32, bool, bool) {
    let s = w.shared_array::<u32, 256>();
    let t = w.thread_rank() as usize;
    let n = w.block_size() as usize;
    s.store(t, x);
    w.sync_threads();
    for step in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let below = if t >= step && step < n { s.load(t - step) } else { 0 };
        w.sync_threads();
        let v = s.load(t).wrapping_add(below);
        s.store(t, v);
        w.bar_sync(0);
    }
    let all_small = w.sync_threads_and(x < u32::MAX / 2);
    let any_zero = w.sync_threads_or(x % 7 == 0);
    (s.load(t), all_small, any_zero)
}

#[test]
fn a_block_scan_loops_over_barriers() {
    let d = data(512);
    for (blocks, size) in [(2u32, 256u32), (1, 200), (4, 33)] {
        let d = &d;
        let (out, runs) = grid_both(&Grid::blocks(blocks, size), Executor::new(), async |w: &Warp<'_>| block_scan(w, d[w.global_id() as usize]).await);
        let out = out.unwrap();
        assert!(runs > 0);
        for b in 0..blocks as usize {
            let xs = &d[b * size as usize..][..size as usize];
            let mut acc = 0u32;
            for (t, &x) in xs.iter().enumerate() {
                acc = acc.wrapping_add(x);
                let (v, all_small, any_zero) = out[b * size as usize + t];
                assert_eq!(v, acc, "block {b} thread {t}");
                assert_eq!(all_small, xs.iter().all(|&x| x < u32::MAX / 2));
                assert_eq!(any_zero, xs.iter().any(|&x| x % 7 == 0));
            }
        }
    }
}

// ---- producer and consumer warps on a named barrier (`bar.arrive` / `bar.sync a, b`).

/// Warp 0 writes a slot per thread and arrives at barrier 1 without waiting; warp 1 waits there
/// and reads. The branch is on a vote, so it is uniform in each warp.
#[warp_kernel]
fn produce_consume(w: &Warp, x: u32) -> u32 {
    let s = w.shared_array::<u32, 32>();
    let producer = w.all(w.warp_in_block() == 0);
    let mut got = 0;
    if producer {
        s.store(w.lane_id() as usize, x * 3);
        w.bar_arrive(1, 64);
    } else {
        w.bar_sync_count(1, 64);
        got = s.load(31 - w.lane_id() as usize);
    }
    got
}

#[test]
fn producer_and_consumer_warps_meet_at_a_named_barrier() {
    let d = data(128);
    let d = &d;
    let (out, runs) = grid_both(&Grid::blocks(2, 64), Executor::new(), async |w: &Warp<'_>| produce_consume(w, d[w.global_id() as usize]).await);
    let out = out.unwrap();
    assert_eq!(runs, 4);
    for b in 0..2 {
        for l in 0..32 {
            assert_eq!(out[b * 64 + l], 0);
            assert_eq!(out[b * 64 + 32 + l], d[b * 64 + 31 - l] * 3);
        }
    }
}

// ---- reports: each the same both ways.

/// Warp 0 waits at barrier 0, warp 1 at barrier 1: neither completes.
#[warp_kernel]
fn crossed_barriers(w: &Warp, x: u32) -> u32 {
    let first = w.all(w.warp_in_block() == 0);
    if first {
        w.bar_sync(0);
    } else {
        w.bar_sync(1);
    }
    x
}

/// The lanes of each warp name different barriers.
#[warp_kernel]
fn split_barrier(w: &Warp, x: u32) -> u32 {
    w.bar_sync(w.lane_id() % 2);
    x
}

/// Half of each warp returns before the barrier; thread 37 panics after it.
#[warp_kernel]
fn returns_then_panics(w: &Warp, x: u32) -> u32 {
    if w.lane_id() >= 16 {
        return x;
    }
    w.sync_threads();
    if w.thread_rank() == 37 {
        panic!("thread 37 after the barrier");
    }
    x + 1
}

/// Every thread writes shared slot 0, without a barrier between the warps' stores: a race.
#[warp_kernel]
fn racy_slot(w: &Warp, x: u32) -> u32 {
    let s = w.shared_array::<u32, 1>();
    s.store(0, x);
    w.sync_threads();
    s.load(0)
}

/// A shared array read past its end after a barrier.
#[warp_kernel]
fn out_of_bounds(w: &Warp, _x: u32) -> u32 {
    let s = w.shared_array::<u32, 40>();
    w.sync_threads();
    s.load(w.thread_rank() as usize)
}

/// A uniform loop with a barrier that never ends.
#[warp_kernel]
fn endless_barriers(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let turns = u32::MAX;
    let mut k = 0;
    while k < turns {
        w.sync_threads();
        v = w.shfl_xor(v, 1);
        k += 1;
    }
    v
}

#[test]
fn barrier_reports_are_the_same_warp_wide() {
    let d = data(128);
    let d = &d;
    let grid = Grid::blocks(2, 64);
    let (r, runs) = grid_both(&grid, Executor::new(), async |w: &Warp<'_>| crossed_barriers(w, d[w.global_id() as usize]).await);
    assert!(r.is_err() && runs > 0, "{r:?}");
    let (r, runs) = grid_both(&grid, Executor::new(), async |w: &Warp<'_>| split_barrier(w, d[w.global_id() as usize]).await);
    assert!(r.is_err() && runs > 0, "{r:?}");
    let (r, runs) = grid_both(&grid, Executor::new(), async |w: &Warp<'_>| returns_then_panics(w, d[w.global_id() as usize]).await);
    assert!(matches!(r, Err(WarpError::LanePanicked { lane: 5, .. })) && runs > 0, "{r:?}");
    let (r, runs) = grid_both(&grid, Executor::new().races(true), async |w: &Warp<'_>| racy_slot(w, d[w.global_id() as usize]).await);
    assert!(r.is_err() && runs > 0, "{r:?}");
    let (r, runs) = grid_both(&grid, Executor::new(), async |w: &Warp<'_>| out_of_bounds(w, d[w.global_id() as usize]).await);
    assert!(r.is_err() && runs > 0, "{r:?}");
    let limit = Some(std::time::Duration::from_millis(200));
    let (r, runs) = grid_both(&grid, Executor::new().time_limit(limit), async |w: &Warp<'_>| endless_barriers(w, d[w.global_id() as usize]).await);
    assert!(matches!(r, Err(WarpError::TimeLimit { .. })) && runs > 0, "{r:?}");
}

// ---- a single warp's run: its block is the warp.

#[test]
fn a_single_warp_with_barriers_runs_warp_wide() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 5 + 1);
    let per_lane = Executor::new().wide(false).run_with(&x, block_total).unwrap();
    let before = warpkit::wide_runs();
    let wide = Executor::new().run_with(&x, block_total).unwrap();
    assert_eq!(warpkit::wide_runs() - before, 1);
    assert_eq!(per_lane, wide);
    let sum = x.iter().sum::<u32>();
    assert!(wide.iter().enumerate().all(|(l, &(t, odd, n))| t == sum && odd == 16 && n == x[(l + 1) % 32]));
}

// ---- what keeps the per-lane form: a spin on a plain load.

/// Warp 1 spins on a flag warp 0 sets; the loop has no barrier, so a warp-wide form, which would
/// run it to its end before warp 0 got a turn, is not made.
#[warp_kernel]
fn spin_on_flag(w: &Warp, x: u32) -> u32 {
    let flag = w.shared_array::<u32, 1>();
    let setter = w.all(w.warp_in_block() == 0);
    if setter {
        flag.store_release(0, 1, Scope::Cta);
    } else {
        while flag.load(0) == 0 {}
    }
    w.sync_threads();
    x
}

#[test]
fn a_spin_on_a_plain_load_keeps_the_per_lane_form() {
    let (r, runs) = grid_both(&Grid::blocks(1, 64), Executor::new().races(false), async |w: &Warp<'_>| spin_on_flag(w, w.thread_rank()).await);
    assert_eq!(r.unwrap(), (0..64).collect::<Vec<u32>>());
    assert_eq!(runs, 0);
}

// ---- the review's findings (each failed before its fix).

/// The common guard before a barrier: a whole warp past `n` returns before it.
#[warp_kernel]
fn guarded(w: &Warp, n: u32) -> u32 {
    let t = w.thread_rank();
    if t >= n {
        return 0;
    }
    w.sync_threads();
    t + 1
}

#[test]
fn a_warp_whose_lanes_all_return_before_a_barrier_keeps_its_results() {
    let (r, runs) = grid_both(&Grid::blocks(1, 64), Executor::new(), async |w: &Warp<'_>| guarded(w, 32).await);
    assert_eq!(r.unwrap(), (0..64).map(|t| if t < 32 { t + 1 } else { 0 }).collect::<Vec<u32>>());
    assert_eq!(runs, 2);
    let before = warpkit::wide_runs();
    let per_lane = Executor::new().wide(false).run_with(&[0u32; 32], guarded).unwrap();
    let wide = Executor::new().run_with(&[0u32; 32], guarded).unwrap();
    assert_eq!(warpkit::wide_runs() - before, 1);
    assert_eq!((per_lane, wide), ([0; 32], [0; 32]));
}

/// Forty loads of the other warp's slots in one stretch, then a store: with races off the values
/// depend on how the lanes' accesses interleave, and with races on the report lists the pairs.
/// Per lane, no load of a kernel with a warp-wide form pauses (on sm_70+), as in the form.
#[warp_kernel]
fn many_loads(w: &Warp, x: u32) -> u32 {
    let s = w.shared_array::<u32, 64>();
    let t = w.thread_rank() as usize;
    s.store(t, x);
    w.sync_threads();
    let mut acc = 0u32;
    for i in 0..40usize {
        acc = acc.wrapping_add(s.load((t + 32 + i) % 64));
    }
    s.store(t, acc);
    w.sync_threads();
    s.load(t)
}

/// Warp 1 polls a flag warp 0 sets, a few times (a short loop, which a form may hold).
#[warp_kernel]
fn bounded_poll(w: &Warp, x: u32) -> u32 {
    let flag = w.shared_array::<u32, 1>();
    if w.thread_rank() == 0 {
        flag.store(0, 0);
    }
    w.sync_threads();
    let setter = w.all(w.warp_in_block() == 0);
    let mut seen = 0u32;
    if setter {
        flag.store(0, 1);
    } else {
        for i in 0..50u32 {
            if flag.load(0) == 1 {
                seen = i + 1;
                break;
            }
        }
    }
    w.sync_threads();
    x + seen
}

#[test]
fn racing_loads_interleave_alike_both_ways() {
    for races in [false, true] {
        for order in [LaneOrder::Ascending, LaneOrder::Seeded(3)] {
            let ex = Executor::new().races(races).order(order);
            let (r, runs) = grid_both(&Grid::blocks(1, 64), ex, async |w: &Warp<'_>| many_loads(w, w.thread_rank() + 1).await);
            assert_eq!(runs, 2);
            assert_eq!(r.is_err(), races, "{r:?}");
            let (r, runs) = grid_both(&Grid::blocks(1, 64), ex, async |w: &Warp<'_>| bounded_poll(w, w.thread_rank()).await);
            assert_eq!(runs, 2);
            assert_eq!(r.is_err(), races, "{r:?}");
        }
    }
}

/// A spin whose load sits in a bounded `for` inside an unbounded `while`.
#[warp_kernel]
fn nested_spin(w: &Warp, x: u32) -> u32 {
    let flag = w.shared_array::<u32, 1>();
    if w.thread_rank() == 0 {
        flag.store(0, 0);
    }
    w.sync_threads();
    let setter = w.all(w.warp_in_block() == 0);
    if setter {
        flag.store(0, 1);
    } else {
        let mut done = false;
        while !done {
            for _ in 0..1 {
                if flag.load(0) == 1 {
                    done = true;
                }
            }
        }
    }
    w.sync_threads();
    x
}

#[test]
fn a_spin_inside_a_bounded_loop_keeps_the_per_lane_form() {
    let ex = Executor::new().races(false).time_limit(Some(std::time::Duration::from_secs(10)));
    let (r, runs) = grid_both(&Grid::blocks(1, 64), ex, async |w: &Warp<'_>| nested_spin(w, w.thread_rank()).await);
    assert_eq!(r.unwrap(), (0..64).collect::<Vec<u32>>());
    assert_eq!(runs, 0);
}

// ---- the second review's findings: loops that could wait for another warp keep the per-lane
// form, whose loads let the writer run (a barrier in the loop is no help when it completes
// within the warp, nor a long range).

/// Warp 1 polls a flag warp 0 sets, passing a barrier of its own warp at each turn.
#[warp_kernel]
fn spin_past_own_barrier(w: &Warp, setter: u32) -> u32 {
    let flag = w.shared_array::<u32, 1>();
    if w.thread_rank() == 0 {
        flag.store(0, 0);
    }
    w.sync_threads();
    let sets = w.all(w.warp_in_block() == setter);
    let mut turns = 0u32;
    if sets {
        flag.store(0, 1);
    } else {
        let mut done = false;
        while !done {
            let seen = w.all(flag.load(0) == 1);
            w.bar_sync_count(1, 32);
            done = seen;
            turns += 1;
        }
    }
    w.sync_threads();
    turns.min(1)
}

/// Warp 1 polls a flag warp 0 sets, up to a million times.
#[warp_kernel]
fn long_poll(w: &Warp, setter: u32) -> u32 {
    let flag = w.shared_array::<u32, 1>();
    if w.thread_rank() == 0 {
        flag.store(0, 0);
    }
    w.sync_threads();
    let sets = w.all(w.warp_in_block() == setter);
    let mut seen = 0u32;
    if sets {
        flag.store(0, 1);
    } else {
        for i in 0..1_000_000u32 {
            if flag.load(0) == 1 {
                seen = i + 1;
                break;
            }
        }
    }
    w.sync_threads();
    (seen > 0) as u32
}

#[test]
fn waits_for_another_warp_keep_the_per_lane_form() {
    let ex = Executor::new().races(false).time_limit(Some(std::time::Duration::from_secs(20)));
    for setter in [0, 1] {
        let (r, runs) = grid_both(&Grid::blocks(1, 64), ex, async |w: &Warp<'_>| spin_past_own_barrier(w, setter).await);
        let r = r.unwrap();
        assert_eq!(runs, 0);
        assert!(r.iter().enumerate().all(|(t, &v)| v == (t / 32 != setter as usize) as u32), "{r:?}");
        let (r, runs) = grid_both(&Grid::blocks(1, 64), ex, async |w: &Warp<'_>| long_poll(w, setter).await);
        assert_eq!(runs, 0);
        // The poller sees the flag: it pauses at every 32nd load, and the setter runs.
        assert!(r.unwrap().iter().enumerate().all(|(t, &v)| v == (t / 32 != setter as usize) as u32));
    }
}

// ---- uniform parameters: a loop bound or a branch on a parameter is uniform when every lane
// passed the same value (the offer checks; otherwise the kernel runs per lane).

/// `rounds` barriers and shuffles.
#[warp_kernel]
fn rounds_of(w: &Warp, x: u32, rounds: u32) -> u32 {
    let mut v = x;
    let mut k = 0;
    while k < rounds {
        w.sync_threads();
        v = v.wrapping_add(w.shfl_xor(v, 1));
        k += 1;
    }
    v
}

/// `n` shuffles: the kernel's only parameter, for a direct run.
#[warp_kernel]
fn xor_rounds(w: &Warp, n: u32) -> u32 {
    let mut v = w.lane_id();
    for _ in 0..n {
        let other = w.shfl_xor(v, 3);
        v = v.wrapping_mul(3) ^ other;
    }
    v
}

#[test]
fn a_parameter_every_lane_passes_alike_is_uniform() {
    let reference = |rounds: u32| -> Vec<u32> {
        (0..64u32)
            .map(|t| {
                let mut v: [u32; 32] = core::array::from_fn(|l| (t / 32) * 32 + l as u32);
                for _ in 0..rounds {
                    v = core::array::from_fn(|l| v[l].wrapping_add(v[l ^ 1]));
                }
                v[t as usize % 32]
            })
            .collect()
    };
    for rounds in [0, 1, 5] {
        let (r, runs) = grid_both(&Grid::blocks(1, 64), Executor::new(), async |w: &Warp<'_>| rounds_of(w, w.thread_rank(), rounds).await);
        assert_eq!(r.unwrap(), reference(rounds));
        assert_eq!(runs, 2);
    }
    // Lanes that pass different bounds: per lane, both ways (a barrier some lanes skip).
    let (r, runs) = grid_both(&Grid::blocks(1, 64), Executor::new(), async |w: &Warp<'_>| rounds_of(w, 1, w.lane_id() % 2).await);
    assert!(r.is_err(), "{r:?}");
    assert_eq!(runs, 0);
    // A direct run takes the form only when every lane's argument is the same.
    for args in [[4u32; 32], core::array::from_fn(|l| (l % 2) as u32)] {
        let per_lane = Executor::new().wide(false).run_with(&args, xor_rounds);
        let before = warpkit::wide_runs();
        let wide = Executor::new().run_with(&args, xor_rounds);
        assert_eq!(warpkit::wide_runs() - before, (args[0] == args[1]) as u64);
        assert_eq!(format!("{per_lane:?}"), format!("{wide:?}"));
    }
}

/// A parameter taken for uniform and counted down at the uniform level; another shadowed by a
/// per-lane value (which stays per lane: no form).
#[warp_kernel]
fn count_down(w: &Warp, x: u32, mut n: u32) -> u32 {
    let mut v = x;
    while n > 0 {
        v = v.wrapping_add(w.shfl_down(v, 1));
        n -= 1;
    }
    v
}

#[warp_kernel]
fn shadowed(w: &Warp, x: u32, n: u32) -> u32 {
    let n = n + w.lane_id() % 2;
    let mut v = x;
    for _ in 0..n {
        v = w.shfl_xor(v, 1);
    }
    v
}

#[test]
fn uniform_parameters_counted_down_or_shadowed() {
    let (r, runs) = grid_both(&Grid::blocks(1, 32), Executor::new(), async |w: &Warp<'_>| count_down(w, w.lane_id(), 3).await);
    assert_eq!(runs, 1);
    let mut v: [u32; 32] = core::array::from_fn(|l| l as u32);
    for _ in 0..3 {
        v = core::array::from_fn(|l| v[l].wrapping_add(if l < 31 { v[l + 1] } else { v[l] }));
    }
    assert_eq!(r.unwrap(), v.to_vec());
    let (r, runs) = grid_both(&Grid::blocks(1, 32), Executor::new(), async |w: &Warp<'_>| shadowed(w, w.lane_id(), 2).await);
    assert_eq!(runs, 0);
    assert!(r.is_err(), "lanes loop 2 and 3 times: {r:?}");
}

// ---- the third review's findings (each failed before its fix; both older than the uniform
// parameters, which made them easy to reach).

/// Lane 0 changes `n` through a `ref mut` binding: `n` is per lane after all.
#[allow(irrefutable_let_patterns)]
#[warp_kernel]
fn ref_mut_param(w: &Warp, x: u32, mut n: u32) -> u32 {
    let mut v = x;
    for _ in 0..n {
        v = w.shfl_xor(v, 1);
    }
    if w.lane_id() == 0 {
        match n {
            ref mut m => *m += 100,
        }
    }
    if let ref mut m = n {
        *m += w.lane_id();
    }
    v + n
}

/// A uniform condition that panics: the first live lane's panic, as per lane.
#[warp_kernel]
fn div_cond(w: &Warp, x: u32, d: u32) -> u32 {
    let mut v = x;
    if 10 / d > 1 {
        v = w.shfl_xor(v, 1);
    }
    let mut k = 0;
    while k < 8 / (d - k) {
        v = w.shfl_xor(v, 2);
        k += 1;
    }
    for _ in 0..d + 1 {
        v = w.shfl_xor(v, 4);
    }
    v
}

#[test]
fn ref_mut_bindings_and_panicking_uniform_conditions() {
    let grid = Grid::blocks(1, 32);
    let (r, _) = grid_both(&grid, Executor::new(), async |w: &Warp<'_>| ref_mut_param(w, w.lane_id(), 1).await);
    let r = r.unwrap();
    assert_eq!(r[0], 1 + 101);
    assert!((1..32).all(|l| r[l] == (l as u32 ^ 1) + 1 + l as u32), "{r:?}");
    for order in [LaneOrder::Ascending, LaneOrder::Descending] {
        for d in [0, 3, u32::MAX] {
            let (r, runs) = grid_both(&grid, Executor::new().order(order), async |w: &Warp<'_>| div_cond(w, w.lane_id(), d).await);
            assert!(matches!(r, Err(WarpError::LanePanicked { .. })), "d = {d}: {r:?}");
            assert_eq!(runs, 1);
        }
    }
}

/// Thread 37 panics in the stretch that ends at `sync_threads` (whose requests the form posts
/// for every lane at once): the lanes before it in the lane order wait at the barrier.
#[warp_kernel]
fn panics_before_sync(w: &Warp, x: u32) -> u32 {
    let s = w.shared_array::<u32, 64>();
    s.store(w.thread_rank() as usize, x);
    if w.thread_rank() == 37 {
        panic!("thread 37 before the barrier");
    }
    w.sync_threads();
    s.load(63 - w.thread_rank() as usize)
}

#[test]
fn a_panic_before_a_barrier_the_form_posts_at_once() {
    for order in [LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Seeded(5)] {
        let (r, runs) = grid_both(&Grid::blocks(1, 64), Executor::new().order(order), async |w: &Warp<'_>| panics_before_sync(w, w.thread_rank()).await);
        assert!(matches!(r, Err(WarpError::LanePanicked { lane: 5, .. })), "{r:?}");
        assert_eq!(runs, 2);
    }
    let (r, _) = grid_both(&Grid::blocks(2, 64), Executor::new(), async |w: &Warp<'_>| panics_before_sync(w, 1000 + w.thread_rank()).await);
    assert!(r.is_err());
}

// ---- a barrier after a form's calls, met by a warp that ran per lane.

#[warp_kernel]
fn pair_total(w: &Warp, x: u32) -> u32 {
    x.wrapping_add(w.shfl_xor(x, 1))
}

/// Calls a warp function in its form (`enter_calls`/`leave_calls` around it), then shuffles
/// when `bias` (taken for uniform: the branch holds an instruction) says so.
#[warp_kernel]
fn biased_total(w: &Warp, x: u32, bias: u32) -> u32 {
    let mut s = pair_total(w, x);
    if bias > 3 {
        s = s.wrapping_add(w.shfl_xor(s, 2));
    }
    s.wrapping_add(bias)
}

/// One warp runs `biased_total` warp-wide (its lanes pass one `bias`), the other per lane (its
/// lanes pass two, and the offer is declined); then both meet at one barrier, which compares
/// their lanes' call paths: the form's calls must leave the paths as they found them.
#[test]
fn a_barrier_after_a_forms_calls_meets_a_warp_that_ran_per_lane() {
    let d = data(64);
    let grid = Grid::blocks(1, 64);
    let kernel = async |w: &Warp<'_>| {
        let bias = if w.warp_in_block() == 0 { 4 } else { 4 + w.lane_id() % 2 };
        let s = biased_total(w, d[w.global_id() as usize], bias).await;
        w.sync_threads().await;
        s
    };
    // A caller runs per lane until its call sites have seen their callees' forms run.
    for _ in 0..3 {
        let _ = grid_both(&grid, Executor::new(), kernel);
    }
    let (out, runs) = grid_both(&grid, Executor::new(), kernel);
    let out = out.expect("the warps meet at the barrier");
    assert_eq!(runs, 3, "warp 0's biased_total and pair_total forms, and warp 1's pair_total's");
    for (t, s) in out.iter().enumerate() {
        let (warp, lane) = (t / 32, t % 32);
        let bias = if warp == 0 { 4 } else { 4 + lane as u32 % 2 };
        let pair = |l: usize| d[32 * warp + l].wrapping_add(d[32 * warp + (l ^ 1)]);
        assert_eq!(*s, pair(lane).wrapping_add(pair(lane ^ 2)).wrapping_add(bias), "thread {t}");
    }
}

// ---- a block kernel written inside a `macro_rules!` macro.

/// `block_scan`'s loop, and a ticket from a global counter between two barriers, with every
/// name (the handle, the shared array, the loop's counter, the variables, the slice) from the
/// macro's arguments: the form's own identifiers resolve as those names do.
macro_rules! block_scan_named {
    ($name:ident, $w:ident, $s:ident, $t:ident, $step:ident, $below:ident, $v:ident, $c:ident, $x:ident) => {
        #[warp_kernel]
        fn $name($w: &Warp, $x: u32, $c: GlobalSlice<'_, u32>) -> (u32, u32) {
            let $s = $w.shared_array::<u32, 128>();
            let $t = $w.thread_rank() as usize;
            $s.store($t, $x);
            $w.sync_threads();
            for $step in [1usize, 2, 4, 8, 16, 32, 64] {
                let $below = if $t >= $step { $s.load($t - $step) } else { 0 };
                $w.sync_threads();
                let $v = $s.load($t).wrapping_add($below);
                $s.store($t, $v);
                $w.sync_threads();
            }
            // Between two barriers (as an atomic must be, for the form). The counter runs on
            // across launches: each takes 256 tickets.
            $w.sync_threads();
            let ticket = $c.atomic_add(0, 1) % 256;
            $w.sync_threads();
            ($s.load($t), ticket)
        }
    };
}

block_scan_named!(scan_named, warp, cells, me, stride, lower, sum, counter, input);

#[test]
fn a_macro_made_block_kernel_runs_warp_wide() {
    let d = data(256);
    let (blocks, size) = (2u32, 128u32);
    let counter = GlobalBuffer::<u32>::zeroed(1);
    let c = counter.slice();
    let d = &d;
    let (out, runs) = grid_both(&Grid::blocks(blocks, size), Executor::new().races(false), async |w: &Warp<'_>| {
        scan_named(w, d[w.global_id() as usize], c).await
    });
    let out = out.unwrap();
    assert_eq!(runs, (blocks * size / 32) as u64, "every warp runs warp-wide");
    let mut tickets: Vec<u32> = out.iter().map(|&(_, t)| t).collect();
    tickets.sort_unstable();
    assert_eq!(tickets, (0..256).collect::<Vec<u32>>());
    for b in 0..blocks as usize {
        let mut acc = 0u32;
        for t in 0..size as usize {
            acc = acc.wrapping_add(d[b * size as usize + t]);
            assert_eq!(out[b * size as usize + t].0, acc, "block {b} thread {t}");
        }
    }
}
