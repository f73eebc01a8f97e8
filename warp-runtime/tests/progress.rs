//! Forward progress and schedules: spin-waits between lanes, warps and blocks complete as they do
//! on sm_70+ hardware (independent thread scheduling), waits on blocks that can never become
//! resident are reported, and the schedules that interleave warps and blocks replay from their
//! seeds.

use warp_runtime::{Dim3, Executor, GlobalBuffer, Grid, LaneOrder, LaneState, Schedule, Scope, Warp, WarpError};

const SCHEDULES: [Schedule; 5] = [
    Schedule::InOrder,
    Schedule::Random { seed: 1 },
    Schedule::Random { seed: 2 },
    Schedule::pct(1, 2),
    Schedule::pct(3, 4),
];

/// Lane 0 spins on a flag that lane 31 sets later, with no warp instruction between: in the
/// default lane order lane 0 runs first, so the spin must let lane 31 run.
#[test]
fn a_lane_spinning_on_another_lane_of_its_warp_completes() {
    for order in [LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Seeded(5)] {
        let flag = GlobalBuffer::<u32>::zeroed(1);
        let f = flag.slice();
        let out = Executor::new()
            .order(order)
            .run(async |w: &Warp<'_>| {
                if w.lane_id() == 0 {
                    let mut spins = 0u32;
                    while f.load_relaxed(0, Scope::Cta).await == 0 {
                        spins += 1;
                    }
                    spins
                } else {
                    if w.lane_id() == 31 {
                        f.store_relaxed(0, 1, Scope::Cta);
                    }
                    0
                }
            })
            .unwrap();
        assert!(out[0] <= 1, "{order:?}: lane 0 spun {} times", out[0]);
    }
}

/// Warp k waits for warp k + 1 of its block: the chain completes from the last warp back.
#[test]
fn warps_of_a_block_waiting_on_each_other_complete() {
    for schedule in SCHEDULES {
        let flags = GlobalBuffer::<u32>::zeroed(9);
        let f = flags.slice();
        let out = Grid::blocks(1, 256)
            .schedule(schedule)
            .map(async |w: &Warp<'_>| {
                let k = w.warp_in_block() as usize;
                if k < 7 {
                    while f.load_volatile(k + 1).await == 0 {}
                }
                if w.lane_id() == 0 {
                    f.store_volatile(k, k as u32 + 1);
                }
                // Lane 0 wrote it: the other lanes read it after a `__syncwarp()`.
                w.syncwarp().await;
                f.load_volatile(k).await
            })
            .unwrap();
        assert!((0..256).all(|t| out[t] == (t / 32 + 1) as u32), "{schedule}");
    }
}

/// The same chain polled the way look-back polls: a few lanes read, and the warp decides with a
/// `vote.any` whose other lanes hold a fixed predicate. The vote completes at every turn, but
/// nothing new is read or written: the warp is spinning, so PCT lowers it and in-order moves on
/// (this hung under PCT before: the vote counted as progress).
#[test]
fn a_polling_loop_with_a_vote_in_it_completes() {
    for schedule in SCHEDULES.into_iter().chain([Schedule::pct(0x5eed_0006, 3), Schedule::pct(7, 1)]) {
        let flags = GlobalBuffer::<u32>::zeroed(9);
        let f = flags.slice();
        let out = Grid::blocks(1, 256)
            .schedule(schedule)
            .map(async |w: &Warp<'_>| {
                let k = w.warp_in_block() as usize;
                let reads = k < 7 && w.lane_id() < 4;
                let mut ready = !reads || f.load_volatile(k + 1).await != 0;
                while w.any(!ready).await {
                    ready = !reads || f.load_volatile(k + 1).await != 0;
                }
                if w.lane_id() == 0 {
                    f.store_volatile(k, k as u32 + 1);
                }
                w.syncwarp().await;
                f.load_volatile(k).await
            })
            .unwrap();
        assert!((0..256).all(|t| out[t] == (t / 32 + 1) as u32), "{schedule}");
    }
}

/// That polling loop waiting for a flag nobody sets: reported as a deadlock, not a hang, on every
/// schedule.
#[test]
fn a_polling_loop_with_a_vote_that_can_never_end_is_reported() {
    for schedule in SCHEDULES {
        let flags = GlobalBuffer::<u32>::zeroed(2);
        let f = flags.slice();
        let err = Grid::blocks(1, 64)
            .schedule(schedule)
            .spin_limit(500)
            .run(async |w: &Warp<'_>| {
                let reads = w.lane_id() < 4;
                let mut ready = !reads || f.load_volatile(1).await != 0;
                while w.any(!ready).await {
                    ready = !reads || f.load_volatile(1).await != 0;
                }
            })
            .unwrap_err();
        let WarpError::ForwardProgress { blocks, .. } = &err else { panic!("{schedule}: {err}") };
        let LaneState::AtMemory(wait) = blocks[0].warps[0].lanes[0] else { panic!("{err}") };
        assert_eq!((wait.op, wait.index, wait.value), ("ld.volatile", 1, 0), "{schedule}");
    }
}

/// Block b waits for a flag that block b + 1 sets: every block must be resident at once.
#[test]
fn a_wait_on_a_later_block_completes_when_it_can_be_resident() {
    for schedule in SCHEDULES {
        for cpu_threads in [1, 2] {
            let flags = GlobalBuffer::<u32>::zeroed(7);
            let f = flags.slice();
            Grid::blocks(6, 64)
                .resident_blocks(6)
                .cpu_threads(cpu_threads)
                .schedule(schedule)
                .run(async |w: &Warp<'_>| {
                    let b = w.ctaid().x as usize;
                    if b < 5 {
                        while f.load_volatile(b + 1).await == 0 {}
                    }
                    w.sync_threads().await;
                    if w.thread_rank() == 0 {
                        f.store_volatile(b, 1);
                    }
                })
                .unwrap();
            assert_eq!(flags.to_vec()[..6], [1; 6], "{schedule}, {cpu_threads} CPU threads");
        }
    }
}

/// The same wait with fewer resident blocks than the chain needs: the GPU hangs, and the run
/// reports a forward-progress deadlock naming the spinning lanes and what they read.
#[test]
fn a_wait_on_a_block_that_can_never_be_resident_is_reported() {
    let flags = GlobalBuffer::<u32>::zeroed(7);
    let f = flags.slice();
    let err = Grid::blocks(6, 32)
        .resident_blocks(3)
        .spin_limit(2000)
        .run(async |w: &Warp<'_>| {
            let b = w.ctaid().x as usize;
            if b < 5 {
                while f.load_volatile(b + 1).await == 0 {}
            }
            f.store_volatile(b, 1);
        })
        .unwrap_err();
    let WarpError::ForwardProgress { detail, blocks } = &err else { panic!("{err}") };
    assert_eq!(blocks.len(), 3, "{err}");
    assert_eq!(blocks.iter().map(|b| b.block).collect::<Vec<_>>(), [Dim3::new(0, 0, 0), Dim3::new(1, 0, 0), Dim3::new(2, 0, 0)]);
    assert!(detail.contains("3 blocks are resident (at most 3)") && detail.contains("later blocks cannot start"), "{err}");
    let LaneState::AtMemory(wait) = blocks[1].warps[0].lanes[0] else { panic!("{err}") };
    assert_eq!((wait.op, wait.index, wait.value), ("ld.volatile", 2, 0));
    assert!(err.to_string().contains("spinning: `ld.volatile.global` of element 2 read 0x0"), "{err}");
}

/// Decoupled look-back (Merrill & Garland): each block takes its tile from an atomic counter,
/// publishes its aggregate, then waits for its predecessors' prefixes. Tiles taken in order mean
/// a block waits only for blocks that started earlier, so it completes with any number of
/// resident blocks, on any schedule and any number of CPU threads.
#[test]
fn decoupled_look_back_completes_with_any_residency() {
    let n = 64 * 20;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
    let mut want = data.clone();
    for i in 1..n {
        want[i] = want[i - 1].wrapping_add(want[i]);
    }
    for (schedule, resident, cpu_threads) in [
        (Schedule::InOrder, 1, 1),
        (Schedule::Random { seed: 4 }, 3, 1),
        (Schedule::pct(9, 3), 8, 1),
        (Schedule::InOrder, 4, 2),
    ] {
        let input = GlobalBuffer::from_slice(&data);
        let output = GlobalBuffer::<u32>::zeroed(n);
        let tiles = GlobalBuffer::<u32>::zeroed(1);
        // Per tile: 0 = nothing yet, 1 = aggregate available, 2 = inclusive prefix available;
        // the aggregate and the inclusive prefix in their own arrays, each written once.
        let status = GlobalBuffer::<u32>::zeroed(20);
        let aggregates = GlobalBuffer::<u32>::zeroed(20);
        let inclusives = GlobalBuffer::<u32>::zeroed(20);
        let (x, y, ticket, st) = (input.slice(), output.slice(), tiles.slice(), status.slice());
        let (agg, incl) = (aggregates.slice(), inclusives.slice());
        Grid::blocks(20, 64)
            .schedule(schedule)
            .resident_blocks(resident)
            .cpu_threads(cpu_threads)
            .run(async |w: &Warp<'_>| {
                let tile_id = w.shared_array::<u32, 1>();
                let sums = w.shared_array::<u32, 2>();
                let t = w.thread_rank() as usize;
                if t == 0 {
                    tile_id.store(0, ticket.atomic_add(0, 1).await);
                }
                w.sync_threads().await;
                let tile = tile_id.load(0) as usize;
                let v = x.load(64 * tile + t);
                // Inclusive scan within the warp, then across the two warps.
                let mut s = v;
                for d in [1, 2, 4, 8, 16] {
                    let (up, ok) = w.shfl_up_pred(s, d).await;
                    if ok {
                        s = s.wrapping_add(up);
                    }
                }
                if w.lane_id() == 31 {
                    sums.store(w.warp_in_block() as usize, s);
                }
                w.sync_threads().await;
                if w.warp_in_block() == 1 {
                    s = s.wrapping_add(sums.load(0));
                }
                let aggregate = sums.load(0).wrapping_add(sums.load(1));
                let prefix = w.shared_array::<u32, 1>();
                if t == 0 {
                    let mut exclusive = 0u32;
                    if tile == 0 {
                        incl.store(0, aggregate);
                        w.threadfence();
                        st.atomic_exch(0, 2).await;
                    } else {
                        agg.store(tile, aggregate);
                        // The release pattern: a fence, then the flag (CUB's `__threadfence()`).
                        w.threadfence();
                        st.atomic_exch(tile, 1).await;
                        // Look back until a predecessor's inclusive prefix.
                        let mut p = tile - 1;
                        loop {
                            let status = st.load_volatile(p).await;
                            // The acquire pattern: the flag, then a fence.
                            w.threadfence();
                            match status {
                                0 => continue,
                                1 => exclusive = exclusive.wrapping_add(agg.load(p)),
                                _ => {
                                    exclusive = exclusive.wrapping_add(incl.load(p));
                                    break;
                                }
                            }
                            p -= 1;
                        }
                        incl.store(tile, exclusive.wrapping_add(aggregate));
                        w.threadfence();
                        st.atomic_exch(tile, 2).await;
                    }
                    prefix.store(0, exclusive);
                }
                w.sync_threads().await;
                y.store(64 * tile + t, s.wrapping_add(prefix.load(0)));
            })
            .unwrap();
        assert_eq!(output.to_vec(), want, "{schedule}, {resident} resident, {cpu_threads} CPU threads");
    }
}

/// A race-free kernel gives the same results under every schedule, and a schedule replays: the
/// order in which blocks take tickets is the same for the same seed.
#[test]
fn schedules_replay_from_their_seeds() {
    let tickets = |schedule: Schedule| {
        let counter = GlobalBuffer::<u32>::zeroed(1);
        let c = counter.slice();
        Grid::blocks(16, 64).schedule(schedule).map(async |w: &Warp<'_>| if w.thread_rank() == 0 { c.atomic_add(0, 1).await } else { 0 }).unwrap()
    };
    for schedule in SCHEDULES {
        assert_eq!(tickets(schedule), tickets(schedule), "{schedule}");
    }
    // In order, blocks take tickets in block order; another schedule interleaves them.
    let in_order: Vec<u32> = tickets(Schedule::InOrder).chunks(64).map(|b| b[0]).collect();
    assert_eq!(in_order, (0..16).collect::<Vec<_>>());
    let shuffled: Vec<u32> = tickets(Schedule::Random { seed: 11 }).chunks(64).map(|b| b[0]).collect();
    assert_ne!(shuffled, in_order);
}

/// `Grid::explore` runs schedules until one fails and returns it; replaying that schedule fails
/// the same way.
#[test]
fn explore_finds_a_lost_update_and_its_schedule_replays_it() {
    let check = |grid: Grid| {
        let counter = GlobalBuffer::<u32>::zeroed(1);
        let c = counter.slice();
        grid.run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                // Read, then write back one more: not atomic across warps (both accesses are
                // strong, so this is no data race: an update is lost, but only in some schedules).
                let seen = c.load_volatile(0).await;
                c.store_volatile(0, seen + 1);
            }
        })
        .map_err(|e| e.to_string())?;
        let got = counter.to_vec()[0];
        if got == 4 {
            Ok(())
        } else {
            Err(format!("{got} increments of 4"))
        }
    };
    let grid = Grid::blocks(2, 64);
    check(grid).expect("in order, each warp finishes before the next: no update is lost");
    let found = grid.schedule(Schedule::pct(0, 2)).explore(100, check).unwrap_err();
    assert!(found.error.contains("increments of 4"), "{}", found.error);
    assert_eq!(check(grid.schedule(found.schedule)).unwrap_err(), found.error, "replay");
    assert!(found.to_string().contains(&format!("{}", found.schedule)));
}

/// Lane 0 waits for a flag that nobody sets, counting its turns in memory: every turn writes, so
/// the spin rule sees progress; the time limit ends it. Lanes 1-31 loop on a `bar.warp.sync` of
/// their own and a store: the report shows each lane's state, and where running lanes last
/// completed a warp instruction.
#[test]
fn a_livelock_that_keeps_writing_ends_at_the_time_limit() {
    static SYNC_LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let mem = GlobalBuffer::<u32>::zeroed(3);
    let m = mem.slice();
    let limit = std::time::Duration::from_millis(300);
    let t0 = std::time::Instant::now();
    let err = Executor::new()
        .time_limit(Some(limit))
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                while m.load_volatile(0).await == 0 {
                    m.atomic_add(1, 1).await;
                }
            } else {
                loop {
                    SYNC_LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
                    w.group(0xffff_fffe).syncwarp().await;
                    m.store(2, w.lane_id());
                }
            }
        })
        .unwrap_err();
    let took = t0.elapsed();
    let WarpError::TimeLimit { limit: l, elapsed, ref blocks, .. } = err else { panic!("{err}") };
    assert_eq!(l, limit);
    assert!(elapsed > limit && took < limit * 20, "ended after {took:?}");
    let report = &blocks[0].warps[0];
    let site_line = SYNC_LINE.load(std::sync::atomic::Ordering::Relaxed);
    for lane in 1..32 {
        match report.lanes[lane] {
            LaneState::Running => {
                let last = report.last_site[lane].unwrap_or_else(|| panic!("lane {lane} has no last site: {err}"));
                assert_eq!((last.file(), last.line()), (file!(), site_line), "{err}");
            }
            LaneState::Waiting { site, .. } => assert_eq!(site.line(), site_line, "{err}"),
            ref other => panic!("lane {lane}: {other}\n{err}"),
        }
    }
    assert!(matches!(report.lanes[0], LaneState::AtMemory(_) | LaneState::Running), "{err}");
    assert!(err.to_string().contains("time limit: the run went on for"), "{err}");
}

/// The same livelock between two blocks of a grid, on one and two CPU threads: the launch ends at
/// its time limit with the resident blocks' reports.
#[test]
fn a_grid_livelock_ends_at_the_time_limit() {
    static BARRIER_LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    for cpu_threads in [1, 2] {
        let mem = GlobalBuffer::<u32>::zeroed(2);
        let m = mem.slice();
        let err = Grid::blocks(2, 64)
            .cpu_threads(cpu_threads)
            .time_limit(Some(std::time::Duration::from_millis(200)))
            .run(async |w: &Warp<'_>| {
                BARRIER_LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
                w.sync_threads().await;
                while m.load_volatile(0).await == 0 {
                    m.atomic_add(1, 1).await;
                }
            })
            .unwrap_err();
        let WarpError::TimeLimit { ref blocks, .. } = err else { panic!("{err}") };
        assert!(!blocks.is_empty() && blocks.iter().all(|b| b.warps.len() == 2), "{err}");
        // The last warp instruction each lane completed is the CTA barrier.
        let last = blocks[0].warps[0].last_site[0].expect("a last call site");
        assert_eq!((last.file(), last.line()), (file!(), BARRIER_LINE.load(std::sync::atomic::Ordering::Relaxed)), "{err}");
        // Each lane spins at one of the loop's two operations, or is about to (the warp the
        // clock stopped between two of its steps).
        for lane in blocks.iter().flat_map(|b| &b.warps).flat_map(|w| &w.lanes) {
            match lane {
                LaneState::AtMemory(wait) => assert!(matches!(wait.op, "ld.volatile" | "atom.add"), "{err}"),
                LaneState::Running => {}
                other => panic!("{other}\n{err}"),
            }
        }
        let spinning = blocks.iter().flat_map(|b| &b.warps).flat_map(|w| &w.lanes).filter(|l| matches!(l, LaneState::AtMemory(_))).count();
        assert!(spinning >= 32, "{err}");
    }
}

/// Lanes 1-31 compute with warp instructions among themselves (their membermask leaves lane 0
/// out) while lane 0 polls the flag they set at the end: the work is progress, and lane 0's
/// re-reads do not make the warp spinning (a false deadlock before, found in review).
#[test]
fn lanes_computing_while_another_lane_polls_are_not_spinning() {
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let f = flag.slice();
    let kernel = async |w: &Warp<'_>| {
        if w.lane_id() == 0 {
            while f.load_relaxed(0, Scope::Cta).await == 0 {}
            0u32
        } else {
            let g = w.group(0xffff_fffe);
            let mut v = w.lane_id();
            for _ in 0..25_000 {
                v = v.wrapping_add(g.redux_add(v).await);
            }
            if w.lane_id() == 1 {
                f.store_relaxed(0, 1, Scope::Cta);
            }
            v
        }
    };
    // The same sum of 31 lanes every round, in plain Rust: v' = v + (sum of v over lanes 1-31).
    let mut v: Vec<u32> = (1..32).collect();
    for _ in 0..25_000 {
        let sum = v.iter().fold(0u32, |a, &x| a.wrapping_add(x));
        v.iter_mut().for_each(|x| *x = x.wrapping_add(sum));
    }
    let out = Executor::new().run(kernel).unwrap();
    assert_eq!(out[1..], v[..]);
    flag.slice().store(0, 0);
    let out = Grid::new(32).map(kernel).unwrap();
    assert_eq!(out[1..], v[..]);
}

/// A warp that loops on warp instructions alone never reaches a memory operation: a grid's
/// clock is read at every step, so its time limit ends it as the executor's does.
#[test]
fn a_loop_of_warp_instructions_ends_at_the_time_limit() {
    let limit = std::time::Duration::from_millis(200);
    let err = Executor::new().time_limit(Some(limit)).run(async |w: &Warp<'_>| loop {
        w.syncwarp().await;
    });
    assert!(matches!(err, Err(WarpError::TimeLimit { .. })), "{err:?}");
    for cpu_threads in [1, 2] {
        let err = Grid::blocks(2, 64).cpu_threads(cpu_threads).time_limit(Some(limit)).run(async |w: &Warp<'_>| loop {
            w.syncwarp().await;
            w.sync_threads().await;
        });
        let Err(WarpError::TimeLimit { blocks, .. }) = err else { panic!("{err:?}") };
        assert!(!blocks.is_empty(), "{cpu_threads} CPU threads");
    }
}
