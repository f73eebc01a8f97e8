//! `mbarrier` objects (9.7.13.15) on the CPU: phases, arrivals and tx-counts against the spec's
//! formulas and the H100's answers, warp-collective arrivals, `pending_count`, and each
//! undefined case reported with its rule.

use warp_runtime::{
    Executor, GlobalBuffer, Grid, LaneFault, LaneState, MbarrierRule, Target, Warp, WarpError, WaitsFor,
};

fn mbar_fault(err: &WarpError) -> (u32, MbarrierRule, String) {
    match err {
        WarpError::Memory { lane, fault: LaneFault::Mbarrier { rule, detail, .. }, .. } => (*lane, *rule, detail.clone()),
        other => panic!("expected an mbarrier report, got: {other}"),
    }
}

#[test]
fn a_block_arrives_and_waits_each_phase_and_sees_the_writes_before_the_arrivals() {
    // 4 warps, 3 rounds: each thread writes its slot, arrives, waits for the phase, then reads
    // its neighbour's slot. The arrivals release and the successful waits acquire, so the race
    // detector (on) finds nothing, and every value is the round's.
    let out = GlobalBuffer::<u32>::zeroed(128);
    let o = out.slice();
    Grid::blocks(1, 128)
        .races(true)
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            let data = w.shared_array::<u32, 128>();
            let t = w.thread_rank() as usize;
            if t == 0 {
                bar.mbarrier_init(0, 128).await;
            }
            w.sync_threads().await;
            let mut sum = 0;
            for round in 0..3u32 {
                data.store(t, round * 1000 + t as u32);
                let state = bar.mbarrier_arrive(0).await;
                while !bar.mbarrier_test_wait(0, state).await {}
                // The parity form agrees: phase 2 * round (even) is complete, and phase
                // 2 * round + 1 cannot be until this thread arrives again.
                assert!(bar.mbarrier_test_wait_parity(0, 0).await);
                assert!(!bar.mbarrier_test_wait_parity(0, 1).await);
                sum += data.load((t + 1) % 128);
                // Nobody overwrites `data` before everyone has read it.
                let state = bar.mbarrier_arrive(0).await;
                while !bar.mbarrier_test_wait(0, state).await {}
            }
            o.store(t, sum);
        })
        .unwrap();
    let want: Vec<u32> = (0..128).map(|t| (0..3).map(|r| r * 1000 + ((t + 1) % 128)).sum()).collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn a_warps_arrivals_are_one_arrive_on_and_get_one_state() {
    // H100: 32 lanes of one instruction on a barrier of 64 get the same state, and a barrier of
    // 16 traps (one arrive-on of 32).
    let states = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 64).await;
            }
            w.syncwarp().await;
            let a = bar.mbarrier_arrive(0).await;
            let b = bar.mbarrier_arrive(0).await;
            (a.0, b.0, bar.mbarrier_test_wait(0, a).await)
        })
        .unwrap();
    assert!(states.iter().all(|s| *s == states[0]), "{states:x?}");
    assert_ne!(states[0].0, states[0].1);
    assert!(states[0].2, "the second instruction completed phase 0");
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 16).await;
            }
            w.syncwarp().await;
            bar.mbarrier_arrive(0).await;
        })
        .unwrap_err();
    let (lane, rule, detail) = mbar_fault(&err);
    assert_eq!((lane, rule), (16, MbarrierRule::TooManyArrivals), "{err}");
    assert!(detail.contains("arrive with 17 in all") && detail.contains("16 pending"), "{err}");
}

#[test]
fn no_complete_states_give_each_lanes_pending_count_in_lane_order() {
    // H100: init 1000; lane l arrives .noComplete with l + 1; pending_count of lane l's state is
    // 1000 - sum(j + 1 for j < l).
    let counts = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1000).await;
            }
            w.syncwarp().await;
            bar.mbarrier_arrive_no_complete(0, w.lane_id() + 1).await.pending_count()
        })
        .unwrap();
    let want: Vec<u32> = (0..32).map(|l| 1000 - (0..l).map(|j| j + 1).sum::<u32>()).collect();
    assert_eq!(counts.to_vec(), want);
    // A .noComplete arrival that completes the phase is undefined.
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_arrive_no_complete(0, 1).await;
            }
        })
        .unwrap_err();
    assert_eq!(mbar_fault(&err).1, MbarrierRule::NoCompleteCompleted, "{err}");
    // pending_count of a plain arrival's state is undefined.
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 2).await;
                bar.mbarrier_arrive(0).await.pending_count();
            }
        })
        .unwrap_err();
    assert_eq!(mbar_fault(&err).1, MbarrierRule::PendingCountToken, "{err}");
}

#[test]
fn tx_counts_hold_a_phase_until_the_bytes_complete() {
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() != 0 {
                return [false; 4];
            }
            bar.mbarrier_init(0, 1).await;
            let s = bar.mbarrier_arrive_expect_tx(0, 256).await;
            let a = bar.mbarrier_try_wait(0, s).await;
            bar.mbarrier_complete_tx(0, 200).await;
            let b = bar.mbarrier_try_wait_parity(0, 0).await;
            bar.mbarrier_complete_tx(0, 56).await;
            let c = bar.mbarrier_try_wait(0, s).await;
            // complete_tx ahead of expect_tx: the tx-count goes negative, and the expect_tx that
            // brings it back completes the phase (H100).
            bar.mbarrier_complete_tx(0, 8).await;
            bar.mbarrier_arrive(0).await;
            bar.mbarrier_expect_tx(0, 8).await;
            let d = bar.mbarrier_test_wait_parity(0, 1).await;
            [a, b, c, d]
        })
        .unwrap();
    assert_eq!(r[0], [false, false, true, true]);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_expect_tx(0, 1 << 20).await;
            }
        })
        .unwrap_err();
    assert_eq!(mbar_fault(&err).1, MbarrierRule::TxOutOfRange, "{err}");
}

#[test]
fn arrive_drop_lowers_the_expected_count() {
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 32).await;
            }
            w.syncwarp().await;
            // Lanes 16..32 leave; phase 0 completes with everyone's arrival, and phase 1 needs
            // only lanes 0..16.
            let s = if w.lane_id() < 16 { bar.mbarrier_arrive(0).await } else { bar.mbarrier_arrive_drop(0).await };
            while !bar.mbarrier_test_wait(0, s).await {}
            if w.lane_id() < 16 {
                let s = bar.mbarrier_arrive(0).await;
                while !bar.mbarrier_test_wait(0, s).await {}
            }
            bar.mbarrier_test_wait_parity(0, 1).await
        })
        .unwrap();
    assert!(r.iter().all(|&done| done));
}

#[test]
fn use_before_init_init_in_use_and_use_after_inval_are_reported() {
    let run = |k: u32| {
        Executor::new()
            .run(async move |w: &Warp<'_>| {
                let bar = w.shared_array::<u64, 1>();
                if w.lane_id() != 0 {
                    return;
                }
                match k {
                    0 => {
                        bar.mbarrier_arrive(0).await;
                    }
                    1 => {
                        bar.mbarrier_init(0, 1).await;
                        bar.mbarrier_init(0, 1).await;
                    }
                    2 => {
                        bar.mbarrier_init(0, 1).await;
                        bar.mbarrier_inval(0).await;
                        bar.mbarrier_test_wait_parity(0, 0).await;
                    }
                    3 => {
                        // inval, then init again: defined.
                        bar.mbarrier_init(0, 1).await;
                        bar.mbarrier_inval(0).await;
                        bar.mbarrier_init(0, 2).await;
                        bar.mbarrier_arrive(0).await;
                    }
                    _ => {
                        bar.mbarrier_init(0, 0).await;
                    }
                }
            })
            .map(|_| ())
    };
    assert_eq!(mbar_fault(&run(0).unwrap_err()).1, MbarrierRule::NotInitialized);
    let err = run(1).unwrap_err();
    assert_eq!(mbar_fault(&err).1, MbarrierRule::InitInUse);
    assert!(err.to_string().contains("invalidate the mbarrier object using mbarrier.inval first"), "{err}");
    assert_eq!(mbar_fault(&run(2).unwrap_err()).1, MbarrierRule::NotInitialized);
    run(3).unwrap();
    assert_eq!(mbar_fault(&run(4).unwrap_err()).1, MbarrierRule::CountOutOfRange);
}

#[test]
fn a_state_two_phases_old_and_a_parity_over_one_are_reported() {
    let run = |k: u32| {
        Executor::new()
            .run(async move |w: &Warp<'_>| {
                let bar = w.shared_array::<u64, 1>();
                if w.lane_id() != 0 {
                    return;
                }
                bar.mbarrier_init(0, 1).await;
                let t0 = bar.mbarrier_arrive(0).await;
                assert!(bar.mbarrier_test_wait(0, t0).await);
                let _t1 = bar.mbarrier_arrive(0).await;
                if k == 0 {
                    // Phase 2 now: t0 is of phase 0.
                    bar.mbarrier_test_wait(0, t0).await;
                } else {
                    bar.mbarrier_test_wait_parity(0, 2).await;
                }
            })
            .map(|_| ())
    };
    let err = run(0).unwrap_err();
    let (_, rule, detail) = mbar_fault(&err);
    assert_eq!(rule, MbarrierRule::StaleState, "{err}");
    assert!(detail.contains("phase 0, 2 phases before the current phase 2"), "{err}");
    assert_eq!(mbar_fault(&run(1).unwrap_err()).1, MbarrierRule::BadParity);
}

#[test]
fn an_arrival_before_any_wait_saw_the_previous_phase_is_reported() {
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_arrive(0).await;
                bar.mbarrier_arrive(0).await;
            }
        })
        .unwrap_err();
    let (_, rule, detail) = mbar_fault(&err);
    assert_eq!(rule, MbarrierRule::NoWaitBetweenPhases, "{err}");
    assert!(detail.contains("phase 1 before any wait returned true for phase 0"), "{err}");
}

#[test]
fn consumers_waiting_on_a_phase_the_producer_moved_past_are_a_deadlock_showing_each_threads_phase() {
    // The gallery's parity bug: the producer (lane 0) runs two phases ahead, waiting as the rule
    // asks; the consumers then wait for parity 0, which is the current phase's: it never
    // completes, and a GPU hangs.
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1).await;
                for _ in 0..2 {
                    let s = bar.mbarrier_arrive(0).await;
                    while !bar.mbarrier_test_wait(0, s).await {}
                }
            }
            w.syncwarp().await;
            if w.lane_id() != 0 {
                while !bar.mbarrier_try_wait_parity(0, 0).await {}
            }
        })
        .unwrap_err();
    let WarpError::Deadlock { report, .. } = &err else { panic!("{err}") };
    let text = err.to_string();
    for l in 1..32 {
        let LaneState::AtMemory(wait) = &report.lanes[l] else { panic!("lane {l}: {text}") };
        let view = wait.mbarrier.expect("an mbarrier wait shows the barrier");
        assert_eq!(view.waits_for, WaitsFor::Parity(0));
        assert_eq!((view.phase, view.pending, view.expected), (2, 1, 1));
    }
    assert!(text.contains("waits for the phase of parity 0 to complete; the barrier is in phase 2 (parity 0), 1 of 1 arrivals pending"), "{text}");
}

#[test]
fn an_arrival_not_ordered_after_the_init_is_a_race() {
    let err = Grid::blocks(1, 64)
        .races(true)
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.thread_rank() == 0 {
                bar.mbarrier_init(0, 64).await;
            }
            // Missing: w.sync_threads().await;
            if w.thread_rank() / 32 == 1 {
                bar.mbarrier_arrive(0).await;
            }
        })
        .unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert_eq!([races[0].first.op, races[0].second.op], ["mbarrier.init", "mbarrier.arrive"], "{err}");
}

#[test]
fn each_form_is_gated_to_its_target() {
    let err = Executor::new()
        .target(Target::SM_70)
        .run(async |w: &Warp<'_>| {
            w.shared_array::<u64, 1>().mbarrier_init(0, 1).await;
        })
        .unwrap_err();
    assert!(matches!(&err, WarpError::Memory { fault: LaneFault::Unsupported { min: "sm_80", .. }, .. }), "{err}");
    let err = Executor::new()
        .target("sm_80".parse().unwrap())
        .run(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 32).await;
                bar.mbarrier_try_wait_parity(0, 0).await;
            }
        })
        .unwrap_err();
    assert!(matches!(&err, WarpError::Memory { fault: LaneFault::Unsupported { min: "sm_90", .. }, .. }), "{err}");
}

#[test]
fn a_plain_access_to_a_live_object_is_reported_and_allowed_after_inval() {
    let run = |inval: bool| {
        Executor::new().run(async move |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 2>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(1, 1).await;
                if inval {
                    bar.mbarrier_inval(1).await;
                }
                bar.store(1, 7);
                // Element 0 is not an object: plain accesses to it are fine either way.
                bar.store(0, 1);
            }
        })
    };
    let err = run(false).unwrap_err();
    let (_, rule, detail) = mbar_fault(&err);
    assert_eq!(rule, MbarrierRule::PlainAccess, "{err}");
    assert!(detail.contains("st.shared"), "{err}");
    run(true).unwrap();
}

/// `cp.async` and `cp.async.mbarrier.arrive` (9.7.13.15.15): the copies land, a barrier that
/// tracks them (without `.noinc`: count unchanged; with it: one more arrival per thread)
/// completes only with every thread's arrival, and its wait orders the copies (the race detector
/// is on); a misaligned copy and a tracking arrival on nothing are reported.
#[test]
fn cp_async_copies_complete_through_tracking_mbarriers() {
    let x: Vec<u32> = (0..64 * 7).map(|i| i * 3 + 1).collect();
    let input = GlobalBuffer::from_slice(&x);
    let out = GlobalBuffer::<u32>::zeroed(64 * 3);
    let (xs, o) = (input.slice(), out.slice());
    Grid::blocks(1, 64)
        .executor(Executor::new().target(Target::SM_80))
        .races(true)
        .run(async |w: &Warp<'_>| {
            let (s, bars) = (w.shared_array::<u32, 448>(), w.shared_array::<u64, 2>());
            let t = w.thread_rank() as usize;
            if t == 0 {
                bars.mbarrier_init(0, 64).await;
                bars.mbarrier_init(1, 128).await;
            }
            w.sync_threads().await;
            s.cp_async::<1>(t, xs, t).await;
            s.cp_async::<2>(64 + 2 * t, xs, 64 + 2 * t).await;
            bars.cp_async_mbarrier_arrive(0).await;
            bars.cp_async_mbarrier_arrive_noinc(1).await;
            let s0 = bars.mbarrier_arrive(0).await;
            let s1 = bars.mbarrier_arrive(1).await;
            while !bars.mbarrier_test_wait(0, s0).await {}
            while !bars.mbarrier_test_wait(1, s1).await {}
            let n = (t + 1) % 64;
            o.store(t, s.load(n));
            o.store(64 + t, s.load(64 + 2 * n + 1));
            s.cp_async::<4>(192 + 4 * t, xs, 192 + 4 * t).await;
            w.cp_async_commit_group();
            w.cp_async_wait_group::<0>();
            w.cp_async_wait_all();
            w.sync_threads().await;
            o.store(128 + t, s.load(192 + 4 * n + 3));
        })
        .unwrap();
    let got = out.to_vec();
    for t in 0..64 {
        let n = (t + 1) % 64;
        assert_eq!([got[t], got[64 + t], got[128 + t]], [x[n], x[64 + 2 * n + 1], x[192 + 4 * n + 3]]);
    }
    // A barrier counting `.noinc` tracking arrivals (64 = 32 threads x 2) completes with them,
    // and never without them.
    let run = |track: bool| {
        Grid::blocks(1, 32)
            .executor(Executor::new().target(Target::SM_80))
            .spin_limit(500)
            .run(async |w: &Warp<'_>| {
                let bars = w.shared_array::<u64, 1>();
                if w.thread_rank() == 0 {
                    bars.mbarrier_init(0, 64).await;
                }
                w.sync_threads().await;
                if track {
                    bars.cp_async_mbarrier_arrive_noinc(0).await;
                }
                let s = bars.mbarrier_arrive(0).await;
                while !bars.mbarrier_test_wait(0, s).await {}
            })
    };
    run(true).unwrap();
    let err = run(false).unwrap_err();
    assert!(matches!(err, WarpError::ForwardProgress { .. }), "{err}");
    // The classic bug: commit, then `sync_threads` without `cp_async_wait_group`: another
    // thread reads the destination before the copy is complete (here never written: reported).
    let err = Grid::blocks(1, 64)
        .executor(Executor::new().target(Target::SM_80))
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            s.cp_async::<1>(t, xs, t).await;
            w.cp_async_commit_group();
            w.sync_threads().await;
            let _ = s.load(63 - t);
        })
        .unwrap_err();
    assert!(err.to_string().contains("which no thread of the block has written"), "{err}");
    // With the wait, and the destination written before, a read of a later copy without its
    // wait is a race with the copy's write.
    let err = Grid::blocks(1, 64)
        .executor(Executor::new().target(Target::SM_80))
        .races(true)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            s.cp_async::<1>(t, xs, t).await;
            w.cp_async_wait_all();
            w.sync_threads().await;
            s.cp_async::<1>(t, xs, 64 + t).await; // the next tile, into the same buffer
            w.cp_async_commit_group();
            w.sync_threads().await; // no wait_group before it
            let _ = s.load(63 - t);
            w.cp_async_wait_group::<0>();
        })
        .unwrap_err();
    assert!(matches!(err, WarpError::Race { .. }), "{err}");
    // A copy of 8 bytes to a 4-byte aligned place.
    let err = Grid::blocks(1, 32)
        .executor(Executor::new().target(Target::SM_80))
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            s.cp_async::<2>(1 + 2 * w.lane_id() as usize, xs, 0).await;
        })
        .unwrap_err();
    let (_, rule, _) = mbar_fault(&err);
    assert_eq!(rule, MbarrierRule::CopyAlignment);
    // cp.async is sm_80.
    let err = Grid::blocks(1, 32)
        .executor(Executor::new().target(Target::SM_70))
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            s.cp_async::<1>(w.lane_id() as usize, xs, 0).await;
        })
        .unwrap_err();
    assert!(err.to_string().contains("cp.async"), "{err}");
}

/// `try_wait` with a `suspendTimeHint` answers as `try_wait` does (the hint bounds how long the
/// GPU may suspend the thread; the CPU answers at once).
#[test]
fn try_wait_with_a_time_hint_answers_as_try_wait() {
    let out = Grid::blocks(1, 32)
        .executor(Executor::new().target(Target::SM_90))
        .map(async |w: &Warp<'_>| {
            let bar = w.shared_array::<u64, 1>();
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 32).await;
            }
            w.syncwarp().await;
            let before = bar.mbarrier_try_wait_parity_hint(0, 0, 1000).await;
            let state = bar.mbarrier_arrive(0).await;
            w.syncwarp().await;
            let after = (bar.mbarrier_try_wait_parity_hint(0, 0, 1000).await, bar.mbarrier_try_wait_hint(0, state, 0).await);
            (before, after, bar.mbarrier_try_wait_parity(0, 0).await)
        })
        .unwrap();
    assert!(out.iter().all(|&r| r == (false, (true, true), true)), "{out:?}");
}
