//! The race detector: each racy kernel is reported with both accesses; its fixed twin runs clean.

use warp_runtime::{Executor, GlobalBuffer, Grid, RaceKind, Scope, Warp, WarpError};

fn races(e: WarpError) -> Vec<warp_runtime::Race> {
    match e {
        WarpError::Race { races, .. } => races,
        other => panic!("expected a race report, got: {other}"),
    }
}

#[test]
fn lanes_storing_to_one_element_race() {
    let out = GlobalBuffer::<u32>::zeroed(1);
    let o = out.slice();
    let err = Executor::new().races(true).run(async |w: &Warp<'_>| o.store(0, w.lane_id())).unwrap_err();
    let text = err.to_string();
    let r = races(err);
    assert_eq!(r.len(), 1, "{text}");
    assert_eq!(r[0].kind, RaceKind::IntraWarp);
    assert_eq!((r[0].first.lane, r[0].second.lane), (0, 1), "{text}");
    assert!(r[0].first.write && r[0].second.write);
    assert_eq!((r[0].first.value, r[0].second.value), (0, 1));
    assert_eq!(r[0].count, 31, "{text}");
    assert!(text.contains("no barrier can order the threads of one instruction"), "{text}");
}

#[test]
fn lanes_storing_to_their_own_elements_do_not_race() {
    let out = GlobalBuffer::<u32>::zeroed(32);
    let o = out.slice();
    Executor::new().races(true).run(async |w: &Warp<'_>| o.store(w.lane_id() as usize, w.lane_id())).unwrap();
}

#[test]
fn syncwarp_orders_a_neighbour_read() {
    let out = GlobalBuffer::<u32>::zeroed(32);
    let o = out.slice();
    // Without `bar.warp.sync`: lane l reads what lane l+1 writes.
    let err = Executor::new()
        .races(true)
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            o.store(l, l as u32);
            o.load((l + 1) % 32)
        })
        .unwrap_err();
    let r = races(err);
    assert_eq!(r[0].kind, RaceKind::IntraWarp);
    Executor::new()
        .races(true)
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            o.store(l, l as u32);
            w.syncwarp().await;
            o.load((l + 1) % 32)
        })
        .unwrap();
}

#[test]
fn lost_update_is_reported() {
    let out = GlobalBuffer::<u32>::zeroed(1);
    let o = out.slice();
    let err = Executor::new()
        .races(true)
        .run(async |w: &Warp<'_>| {
            let v = o.load(0);
            w.syncwarp().await;
            o.store(0, v + 1);
        })
        .unwrap_err();
    let r = races(err);
    assert!(r.iter().all(|r| r.first.write && r.second.write), "{r:?}");
    // The atomic twin does not race.
    Executor::new().races(true).run(async |_w: &Warp<'_>| o.atomic_add(0, 1).await).unwrap();
}

#[test]
fn shared_memory_needs_sync_threads() {
    let input = GlobalBuffer::from_slice(&(0..64u32).collect::<Vec<_>>());
    let output = GlobalBuffer::<u32>::zeroed(64);
    let (x, y) = (input.slice(), output.slice());
    let err = Grid::blocks(1, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            let tile = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            tile.store(t, 0);
            w.sync_threads().await;
            tile.store(t, x.load(t));
            // The missing `__syncthreads()`: warp 0 reads element 63 before warp 1 writes it.
            y.store(t, tile.load(63 - t));
        })
        .unwrap_err();
    let text = err.to_string();
    let r = races(err);
    assert_eq!(r[0].kind, RaceKind::IntraBlock, "{text}");
    assert!(text.contains("__syncthreads()"), "{text}");
    Grid::blocks(1, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            let tile = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            tile.store(t, x.load(t));
            w.sync_threads().await;
            y.store(t, tile.load(63 - t));
        })
        .unwrap();
}

/// The message-passing litmus test across two blocks: block 0 writes data and then a flag;
/// block 1 waits for the flag and reads the data. `publish` and `wait` are the flag's store and
/// load; `Ok` when they synchronize.
fn message_passing(
    publish: impl Fn(&warp_runtime::GlobalSlice<'_, u32>) + Sync,
    wait: impl AsyncFn(&Warp<'_>, &warp_runtime::GlobalSlice<'_, u32>) -> u32 + Sync,
) -> Result<u32, WarpError> {
    let data = GlobalBuffer::<u32>::zeroed(1);
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let out = GlobalBuffer::<u32>::zeroed(1);
    let (d, f, o) = (data.slice(), flag.slice(), out.slice());
    Grid::blocks(2, 1).races(true).run(async |w: &Warp<'_>| {
        if w.ctaid().x == 0 {
            d.store(0, 42);
            publish(&f);
        } else {
            while wait(w, &f).await == 0 {}
            o.store(0, d.load(0));
        }
    })?;
    Ok(out.to_vec()[0])
}

#[test]
fn message_passing_with_release_and_acquire_is_clean() {
    let got = message_passing(|f| f.store_release(0, 1, Scope::Gpu), async |_, f| f.load_acquire(0, Scope::Gpu).await).unwrap();
    assert_eq!(got, 42);
}

#[test]
fn message_passing_with_fences_around_relaxed_accesses_is_clean() {
    // The release and acquire patterns of the memory model: fence; st.relaxed / ld.relaxed; fence.
    let data = GlobalBuffer::<u32>::zeroed(1);
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let (d, f) = (data.slice(), flag.slice());
    Grid::blocks(2, 1)
        .races(true)
        .run(async |w: &Warp<'_>| {
            if w.ctaid().x == 0 {
                d.store(0, 42);
                w.fence_acq_rel(Scope::Gpu);
                f.store_relaxed(0, 1, Scope::Gpu);
            } else {
                while f.load_relaxed(0, Scope::Gpu).await == 0 {}
                w.fence_acq_rel(Scope::Gpu);
                assert_eq!(d.load(0), 42);
            }
        })
        .unwrap();
    // CUDA's `__threadfence()` and a volatile flag: the same patterns at `.gpu` and `.sys`.
    let (d, f) = (data.slice(), flag.slice());
    f.atomic_exch(0, 0).value();
    Grid::blocks(2, 1)
        .races(true)
        .run(async |w: &Warp<'_>| {
            if w.ctaid().x == 0 {
                d.store(0, 7);
                w.threadfence();
                f.store_volatile(0, 1);
            } else {
                while f.load_volatile(0).await == 0 {}
                w.threadfence();
                assert_eq!(d.load(0), 7);
            }
        })
        .unwrap();
}

#[test]
fn message_passing_with_a_relaxed_flag_races_on_the_data() {
    let err = message_passing(|f| f.store_relaxed(0, 1, Scope::Gpu), async |_, f| f.load_relaxed(0, Scope::Gpu).await).unwrap_err();
    let text = err.to_string();
    let r = races(err);
    assert_eq!(r.len(), 1, "{text}");
    assert_eq!(r[0].kind, RaceKind::InterBlock);
    assert_eq!((r[0].first.op, r[0].second.op), ("st.global", "ld.global"), "{text}");
    assert_eq!((r[0].first.block.x, r[0].second.block.x), (0, 1));
    assert_eq!(r[0].second.value, 42);
}

#[test]
fn message_passing_at_cta_scope_across_blocks_names_the_scope() {
    let err = message_passing(|f| f.store_release(0, 1, Scope::Cta), async |_, f| f.load_acquire(0, Scope::Cta).await).unwrap_err();
    let text = err.to_string();
    let r = races(err);
    // The flag's own accesses are strong but their scopes do not include the other block: they
    // race too, and the data race names the scope.
    assert!(r.iter().any(|r| r.first.op == "st.global" && r.second.op == "ld.global"), "{text}");
    assert!(text.contains("`.cta` scope"), "{text}");
}

#[test]
fn strong_accesses_of_one_scope_do_not_race() {
    // Relaxed stores and loads of a counter by every lane: strong, morally strong, no race.
    let c = GlobalBuffer::<u32>::zeroed(1);
    let s = c.slice();
    Executor::new()
        .races(true)
        .run(async |w: &Warp<'_>| {
            s.store_relaxed(0, w.lane_id(), Scope::Gpu);
            s.load_relaxed(0, Scope::Cta).await
        })
        .unwrap();
    // A plain store against a relaxed load races.
    let err = Executor::new()
        .races(true)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                s.store(0, 5);
            } else {
                s.load_relaxed(0, Scope::Gpu).await;
            }
        })
        .unwrap_err();
    assert_eq!(races(err)[0].kind, RaceKind::IntraWarp);
}

#[test]
fn ordered_accesses_need_sm70() {
    let c = GlobalBuffer::<u32>::zeroed(1);
    let s = c.slice();
    let err = Executor::new().target(warp_runtime::Target::SM_60).run(async |_w: &Warp<'_>| s.load_acquire(0, Scope::Gpu).await).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, WarpError::Memory { fault: warp_runtime::LaneFault::Unsupported { min: "sm_70", .. }, .. }), "{text}");
    let err = Executor::new().target(warp_runtime::Target::new(80, warp_runtime::ArchSuffix::None)).run(async |w: &Warp<'_>| w.fence_sc(Scope::Cluster)).unwrap_err();
    assert!(err.to_string().contains("`fence.sc` at"), "{err}");
    // `membar` exists everywhere.
    Executor::new().target(warp_runtime::Target::SM_60).run(async |w: &Warp<'_>| w.membar_gl()).unwrap();
}

#[test]
fn a_narrow_scope_or_plain_access_after_many_atomics_races() {
    // Every thread of 4 blocks adds to one counter at `.gpu` scope: no race, however many are
    // concurrent (the location's list of concurrent atomics is skipped for such accesses).
    let c = GlobalBuffer::<u32>::zeroed(1);
    let s = c.slice();
    Grid::blocks(4, 64)
        .races(true)
        .run(async |_w: &Warp<'_>| {
            s.atomic_add(0, 1).await;
        })
        .unwrap();
    assert_eq!(c.to_vec(), [256]);
    // One `.cta`-scope atomic of the last block among them is not morally strong with the other
    // blocks' atomics: it races with one of them. (Its block's first thread: a location keeps the
    // last 32 concurrent atomics, which by the block's last thread are all its own block's.)
    let err = Grid::blocks(4, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            if w.block_rank() == 3 && w.thread_rank() == 0 {
                s.atomic_add_with(0, 1, warp_runtime::Sem::Relaxed, Scope::Cta)
                    .await;
            } else {
                s.atomic_add(0, 1).await;
            }
        })
        .unwrap_err();
    let text = err.to_string();
    let r = races(err);
    assert!(
        r.iter()
            .any(|r| r.second.block.x == 3 && r.first.block.x != 3),
        "{text}"
    );
    // So does a plain load after them.
    let err = Grid::blocks(4, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            s.atomic_add(0, 1).await;
            if w.block_rank() == 3 && w.thread_rank() == 0 {
                let _ = s.load(0);
            }
        })
        .unwrap_err();
    let text = err.to_string();
    assert!(
        races(err)
            .iter()
            .any(|r| [r.first.op, r.second.op] == ["atom.add", "ld.global"]
                || [r.first.op, r.second.op] == ["ld.global", "atom.add"]),
        "{text}"
    );
}

#[test]
fn warps_ordered_by_two_release_counters_in_turn_do_not_race() {
    // Each round every thread writes its slot, adds 1 to counter A with `.release` and spins on
    // A with `.acquire` until all have; reads its neighbour's slot; then the same on counter B,
    // so that nobody overwrites a slot before everyone has read it. Every access is ordered.
    // (A lane skipped an acquire whose clock had been allocated where the clock it acquired last
    // had been freed, and reported a race.)
    let out = GlobalBuffer::<u32>::zeroed(64);
    let o = out.slice();
    Grid::blocks(1, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            let data = w.shared_array::<u32, 64>();
            let a = w.shared_array::<u32, 1>();
            let b = w.shared_array::<u32, 1>();
            let t = w.thread_rank() as usize;
            if t == 0 {
                a.store(0, 0);
                b.store(0, 0);
            }
            w.sync_threads().await;
            let mut sum = 0;
            for round in 0..3u32 {
                data.store(t, round * 1000 + t as u32);
                a.atomic_add_with(0, 1, warp_runtime::Sem::Release, Scope::Cta).await;
                while a.load_acquire(0, Scope::Cta).await < 64 * (round + 1) {}
                sum += data.load((t + 1) % 64);
                b.atomic_add_with(0, 1, warp_runtime::Sem::Release, Scope::Cta).await;
                while b.load_acquire(0, Scope::Cta).await < 64 * (round + 1) {}
            }
            o.store(t, sum);
        })
        .unwrap();
    let want: Vec<u32> = (0..64).map(|t| (0..3).map(|r| r * 1000 + (t + 1) % 64).sum()).collect();
    assert_eq!(out.to_vec(), want);
}
