//! Each class of undefined behaviour produces its report: the variant, the lanes at fault, every
//! lane's state (with the call site of waiting lanes), and the PTX rule in the message.

use std::cell::Cell;

use warp_runtime::{Conflict, Executor, LaneOrder, LaneState, Op, ShflFault, ShflMode, Target, VoteMode, WaitEdge, Warp, WarpError, FULL_MASK};

/// Asserts that `state` is `Waiting` at `op` with `mask`, called at `line` of this file.
#[track_caller]
fn assert_waiting(state: &LaneState, op: Op, mask: u32, line: u32) {
    match state {
        LaneState::Waiting { op: o, mask: m, site } => {
            assert_eq!((*o, *m), (op, mask), "waiting state");
            assert_eq!(site.file(), file!(), "site file");
            assert_eq!(site.line(), line, "site line");
        }
        other => panic!("expected Waiting at {op} with {mask:#x}, got {other:?}"),
    }
}

// ---- (1) executing lane not in membermask ----

#[test]
fn lane_not_in_membermask_is_reported() {
    // "The behavior of vote.sync is undefined if the executing thread is not in the membermask."
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let f = w.group(1).ballot(true); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::NotInMembermask { op, lanes, report } = &err else { panic!("expected NotInMembermask, got {err:?}") };
    assert_eq!(*op, Op::Vote(VoteMode::Ballot));
    assert_eq!(lanes.0, 0xffff_fffe);
    for l in [0usize, 1, 5, 31] {
        assert_waiting(&report.lanes[l], Op::Vote(VoteMode::Ballot), 1, line.get());
    }
    assert_eq!(err.report().unwrap().lanes, report.lanes);
    let text = err.to_string();
    assert!(text.contains("The behavior of vote.sync is undefined if the executing thread is not in the membermask."), "{text}");
    assert!(text.contains("lanes 1-31"), "{text}");
}

#[test]
fn one_lane_outside_its_own_shfl_membermask() {
    // "membermask: executing thread must be set in mask, else undefined" (shfl.sync).
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let f = w.group(0x7fff_ffff).shfl_down(1u32, 1); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::NotInMembermask { op, lanes, report } = &err else { panic!("expected NotInMembermask, got {err:?}") };
    assert_eq!(*op, Op::Shfl { mode: ShflMode::Down, words: 1 });
    assert_eq!(lanes.0, 0x8000_0000);
    assert_waiting(&report.lanes[31], *op, 0x7fff_ffff, line.get());
    assert!(err.to_string().contains("The behavior of shfl.sync is undefined if the executing thread is not in the membermask."), "{err}");
    assert!(err.to_string().contains("lane 31 "), "{err}");
}

#[test]
fn redux_and_syncwarp_outside_membermask() {
    // Same rule for redux.sync and bar.warp.sync.
    let err = Executor::new().run(async |w: &Warp<'_>| w.group(0xffff_fff0).redux_add(1u32).await).unwrap_err();
    assert!(matches!(&err, WarpError::NotInMembermask { op: Op::Redux(..), lanes, .. } if lanes.0 == 0xf), "{err:?}");
    assert!(err.to_string().contains("The behavior of redux.sync is undefined"), "{err}");
    let err = Executor::new().run(async |w: &Warp<'_>| w.group(0).syncwarp().await).unwrap_err();
    assert!(matches!(&err, WarpError::NotInMembermask { op: Op::BarWarpSync, lanes, .. } if lanes.0 == FULL_MASK), "{err:?}");
    assert!(err.to_string().contains("The behavior of bar.warp.sync is undefined"), "{err}");
}

// ---- (2) shfl from an invalid source ----

const SHFL_RULE: &str = "Sourcing from an inactive thread or one not in membermask is undefined.";

#[test]
fn shfl_from_exited_lane() {
    // "Sourcing from an inactive thread ... is undefined": lanes 16-31 have returned.
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() >= 16 {
                return 0;
            }
            let f = w.shfl_down(w.lane_id(), 16); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::InvalidShflSource { op, faults, report } = &err else { panic!("expected InvalidShflSource, got {err:?}") };
    assert_eq!(*op, Op::Shfl { mode: ShflMode::Down, words: 1 });
    let want: Vec<ShflFault> = (0..16).map(|l| ShflFault { lane: l, source: l + 16, not_in_mask: false, exited: true, launched: true }).collect();
    assert_eq!(*faults, want);
    assert_waiting(&report.lanes[3], *op, FULL_MASK, line.get());
    assert_eq!(report.lanes[20], LaneState::Exited);
    let text = err.to_string();
    assert!(text.contains(SHFL_RULE), "{text}");
    assert!(text.contains("lane 3 reads lane 19, which has exited"), "{text}");
}

#[test]
fn shfl_from_inactive_lane_of_partial_warp() {
    let err = Executor::new()
        .run_partial(0x0000_ffff, async |w: &Warp<'_>| w.shfl_xor(5u64, 16).await)
        .unwrap_err();
    let WarpError::InvalidShflSource { op, faults, report } = &err else { panic!("expected InvalidShflSource, got {err:?}") };
    assert_eq!(*op, Op::Shfl { mode: ShflMode::Bfly, words: 2 });
    assert_eq!(faults.len(), 16);
    assert!(faults.iter().all(|f| f.source == f.lane + 16 && f.exited && !f.launched && !f.not_in_mask), "{faults:?}");
    assert_eq!(report.lanes[16], LaneState::Inactive);
    assert!(err.to_string().contains("lane 0 reads lane 16, which was never launched (it lies past the end of a partial warp)"), "{err}");
    assert!(err.to_string().contains(SHFL_RULE));
}

#[test]
fn shfl_from_lane_not_in_membermask() {
    // "Sourcing from ... one not in membermask is undefined": lane 20 is live but in the other group.
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let v = w.lane_id() * 10;
            if w.lane_id() < 16 {
                w.group(0x0000_ffff).shfl_idx(v, 20).await
            } else {
                w.group(0xffff_0000).shfl_idx(v, 16).await
            }
        })
        .unwrap_err();
    let WarpError::InvalidShflSource { faults, .. } = &err else { panic!("expected InvalidShflSource, got {err:?}") };
    let want: Vec<ShflFault> = (0..16).map(|l| ShflFault { lane: l, source: 20, not_in_mask: true, exited: false, launched: true }).collect();
    assert_eq!(*faults, want);
    assert!(err.to_string().contains("lane 0 reads lane 20, which is not in membermask"), "{err}");
}

#[test]
fn shfl_faults_name_each_reason() {
    // Lanes 0-7 shuffle with membermask 0xff; lane 5 (in mask) and lane 30 (not in mask) have
    // exited; lane 9 is live but not in mask; lane 2 reads lane 3, which is fine.
    let b = |l: u32| match l {
        0 => 5,
        1 => 9,
        2 => 3,
        3 => 30,
        _ => l,
    };
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            if l == 5 || l == 30 {
                return 0;
            }
            if l < 8 {
                w.group(0xff).shfl(ShflMode::Idx, l, b(l), 0x1f).await.0
            } else {
                w.group(!0xff).syncwarp().await;
                0
            }
        })
        .unwrap_err();
    let WarpError::InvalidShflSource { op, faults, .. } = &err else { panic!("expected InvalidShflSource, got {err:?}") };
    assert_eq!(*op, Op::Shfl { mode: ShflMode::Idx, words: 1 });
    let mut got = faults.clone();
    got.sort_by_key(|f| f.lane);
    assert_eq!(
        got,
        vec![
            ShflFault { lane: 0, source: 5, not_in_mask: false, exited: true, launched: true },
            ShflFault { lane: 1, source: 9, not_in_mask: true, exited: false, launched: true },
            ShflFault { lane: 3, source: 30, not_in_mask: true, exited: true, launched: true },
        ]
    );
    let text = err.to_string();
    assert!(text.contains("lane 3 reads lane 30, which has exited and is not in membermask"), "{text}");
}

#[test]
fn shfl_with_false_predicate_reads_nothing() {
    // "if (!pval) j = lane": an out-of-range lane copies its own value; no invalid source.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() >= 16 {
                return 0;
            }
            w.shfl_down_sync(FULL_MASK, w.lane_id() + 100, 1, 16).await
        })
        .unwrap();
    for l in 0..15 {
        assert_eq!(r[l], l as u32 + 101);
    }
    assert_eq!(r[15], 115);
}

// ---- (3) divergence ----

const SAME_RULE: &str = "with the same qualifiers and same membermask value";

#[test]
fn lanes_of_one_membermask_at_different_instructions() {
    // "wait until all non-exited threads in membermask have executed vote.sync with the same
    // qualifiers and same membermask value".
    let err = Executor::new()
        .run(async |w: &Warp<'_>| if w.lane_id() < 16 { w.ballot(true).await } else { w.any(true).await as u32 })
        .unwrap_err();
    let WarpError::Divergent { conflicts, report } = &err else { panic!("expected Divergent, got {err:?}") };
    assert_eq!(conflicts.len(), 256, "each (lane < 16, other >= 16) pair once");
    assert!(conflicts.iter().all(|c| c.lane < 16 && c.other >= 16 && c.mask == FULL_MASK && c.other_mask == FULL_MASK));
    assert!(conflicts.contains(&Conflict { lane: 0, op: Op::Vote(VoteMode::Ballot), mask: FULL_MASK, other: 16, other_op: Op::Vote(VoteMode::Any), other_mask: FULL_MASK }));
    assert!(matches!(report.lanes[20], LaneState::Waiting { op: Op::Vote(VoteMode::Any), .. }));
    let text = err.to_string();
    assert!(text.contains(SAME_RULE), "{text}");
    // The 256 pairs are summarised as one line per disagreeing (instruction, membermask) pair.
    assert!(text.contains("lanes 0-15 wait at `vote.sync.ballot.b32` with membermask 0xffffffff; lanes 16-31 of that mask wait at `vote.sync.any.pred` with membermask 0xffffffff\n"), "{text}");
}

#[test]
fn lanes_with_different_membermasks() {
    // Lane 0 votes with {0,1}, lanes 1 and 2 with {0,1,2}: lanes 0 and 1 name each other but
    // disagree on the membermask.
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            if l > 2 {
                return 0;
            }
            let f = w.group(if l == 0 { 0b011 } else { 0b111 }).ballot(true); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::Divergent { conflicts, report } = &err else { panic!("expected Divergent, got {err:?}") };
    let ballot = Op::Vote(VoteMode::Ballot);
    assert_eq!(*conflicts, vec![Conflict { lane: 0, op: ballot, mask: 0b011, other: 1, other_op: ballot, other_mask: 0b111 }]);
    assert_waiting(&report.lanes[0], ballot, 0b011, line.get());
    assert_waiting(&report.lanes[2], ballot, 0b111, line.get());
    assert_eq!(report.lanes[3], LaneState::Exited);
}

#[test]
fn sm_60_same_instruction_from_two_call_sites_is_not_converged() {
    // sm_6x: "all threads in membermask must execute the same vote.sync instruction in convergence".
    let kernel = async |w: &Warp<'_>| if w.lane_id() < 16 { w.ballot(true).await } else { w.ballot(true).await };
    let err = Executor::new().target(Target::SM_60).run(kernel).unwrap_err();
    let WarpError::NotConverged { op, mask, lanes, target, report } = &err else { panic!("expected NotConverged, got {err:?}") };
    assert_eq!((*op, *mask, lanes.0, *target), (Op::Vote(VoteMode::Ballot), FULL_MASK, FULL_MASK, Target::SM_60));
    assert_eq!(report.target, Target::SM_60);
    let text = err.to_string();
    assert!(text.contains("For .target sm_6x or below, all threads in membermask must execute the same vote.sync instruction in convergence"), "{text}");
    // sm_70's independent thread scheduling allows it.
    let r = Executor::new().target(Target::SM_70).run(kernel).unwrap();
    assert!(r.iter().all(|&b| b == FULL_MASK));
}

#[test]
fn sm_60_shfl_and_syncwarp_from_two_call_sites() {
    let err = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| if w.lane_id() % 2 == 0 { w.shfl_xor(1u32, 1).await } else { w.shfl_xor(2u32, 1).await })
        .unwrap_err();
    assert!(matches!(&err, WarpError::NotConverged { op: Op::Shfl { mode: ShflMode::Bfly, words: 1 }, .. }), "{err:?}");
    assert!(err.to_string().contains("same shfl.sync instruction in convergence"), "{err}");
    let err = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| if w.lane_id() == 0 { w.syncwarp().await } else { w.syncwarp().await })
        .unwrap_err();
    assert!(matches!(&err, WarpError::NotConverged { op: Op::BarWarpSync, .. }), "{err:?}");
    // Disjoint membermasks from two call sites are fine on sm_60: each is converged.
    let r = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| if w.lane_id() < 16 { w.group(0xffff).ballot(true).await } else { w.group(0xffff_0000).ballot(w.lane_id() == 31).await })
        .unwrap();
    assert_eq!((r[0], r[16]), (0xffff, 0x8000_0000));
}

// ---- (3, sm_6x) lanes of the membermask that exited ----
//
// PTX ISA, `shfl.sync`, `vote.sync` and `bar.warp.sync`: "For .target sm_6x or below, all threads
// in membermask must execute the same [instruction] in convergence ... Otherwise, the behavior
// is undefined." An exited thread executes nothing, so a membermask naming one is undefined
// there, unlike on sm_70 and later, where each instruction waits only for "all non-exited
// threads corresponding to membermask". (The CTA barriers' sm_6x rule excepts exited threads in
// so many words: "All threads in warp (except for those have exited) must execute barrier{.cta}
// instruction in convergence"; see `barriers.rs`.) PIConGPU issue 2514: `__ballot_sync(0xFFFFFFFF,
// ..)` where part of the warp is elsewhere; the fix names `__activemask()` instead.

/// Asserts `err` is the sm_6x convergence report for `op` with the full membermask, executed by
/// lanes 16-31, with lanes 0-15 exited.
#[track_caller]
fn assert_exited_in_mask(err: &WarpError, op: Op, base: &str) {
    let WarpError::NotConverged { op: o, mask, lanes, target, report } = err else { panic!("expected NotConverged, got {err:?}") };
    assert_eq!((*o, *mask, lanes.0, *target), (op, FULL_MASK, 0xffff_0000, Target::SM_60));
    assert!(report.lanes[..16].iter().all(|s| *s == LaneState::Exited), "{err}");
    assert!(matches!(report.lanes[16], LaneState::Waiting { op: o, mask: FULL_MASK, .. } if o == op), "{err}");
    let rule = format!("For .target sm_6x or below, all threads in membermask must execute the same {base} instruction in convergence");
    assert!(err.to_string().contains(&rule), "{err}");
}

#[test]
fn sm_60_full_mask_after_half_the_warp_returned() {
    // `if lane < 16 { return; }`, then a full-mask shuffle, vote and `__syncwarp()`.
    let shfl = async |w: &Warp<'_>| {
        if w.lane_id() < 16 {
            return 0;
        }
        w.shfl_down(w.lane_id(), 1).await
    };
    let ballot = async |w: &Warp<'_>| {
        if w.lane_id() < 16 {
            return 0;
        }
        w.ballot(true).await
    };
    let syncwarp = async |w: &Warp<'_>| {
        if w.lane_id() < 16 {
            return 0;
        }
        w.syncwarp().await;
        1
    };
    let sm_60 = Executor::new().target(Target::SM_60);
    assert_exited_in_mask(&sm_60.run(shfl).unwrap_err(), Op::Shfl { mode: ShflMode::Down, words: 1 }, "shfl.sync");
    assert_exited_in_mask(&sm_60.run(ballot).unwrap_err(), Op::Vote(VoteMode::Ballot), "vote.sync");
    assert_exited_in_mask(&sm_60.run(syncwarp).unwrap_err(), Op::BarWarpSync, "bar.warp.sync");
    // sm_70 and later: "wait until all non-exited threads corresponding to membermask have
    // executed" it. Lane 31's `.down` source is out of range: it keeps its own value.
    for target in [Target::SM_70, Target::SM_90] {
        let ex = Executor::new().target(target);
        let r = ex.run(shfl).unwrap();
        assert_eq!(r[..16], [0; 16]);
        assert!((16..32).all(|l| r[l] == if l < 31 { l as u32 + 1 } else { 31 }), "{r:?}");
        let r = ex.run(ballot).unwrap();
        assert!(r[16..].iter().all(|&b| b == 0xffff_0000), "{r:?}");
        assert_eq!(ex.run(syncwarp).unwrap()[16..], [1; 16]);
    }
}

#[test]
fn sm_60_full_mask_in_one_arm_while_the_other_arm_returns() {
    // The converse: the lanes of one arm exit while the other arm's full-mask instruction
    // expects them, whether they exit at once or after an instruction of their own.
    let at_once = async |w: &Warp<'_>| if w.lane_id() < 16 { 0 } else { w.ballot(true).await };
    let later = async |w: &Warp<'_>| {
        if w.lane_id() < 16 {
            w.group(0x0000_ffff).syncwarp().await;
            0
        } else {
            w.ballot(true).await
        }
    };
    let sm_60 = Executor::new().target(Target::SM_60);
    assert_exited_in_mask(&sm_60.run(at_once).unwrap_err(), Op::Vote(VoteMode::Ballot), "vote.sync");
    assert_exited_in_mask(&sm_60.run(later).unwrap_err(), Op::Vote(VoteMode::Ballot), "vote.sync");
    for target in [Target::SM_70, Target::SM_90] {
        for r in [Executor::new().target(target).run(at_once).unwrap(), Executor::new().target(target).run(later).unwrap()] {
            assert!(r[..16].iter().all(|&b| b == 0) && r[16..].iter().all(|&b| b == 0xffff_0000), "{r:?} on {target}");
        }
    }
}

#[test]
fn sm_60_membermask_of_the_active_lanes_after_an_exit() {
    // PIConGPU's fix: the membermask is `activemask()`, the lanes still running. "Only threads
    // belonging to some membermask can be active" and all of them execute it: converged.
    let r = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 16 {
                return (0, 0);
            }
            let active = w.activemask().await;
            (active, w.group(active).ballot(w.lane_id() % 2 == 0).await)
        })
        .unwrap();
    assert!(r[..16].iter().all(|&v| v == (0, 0)));
    assert!(r[16..].iter().all(|&v| v == (0xffff_0000, 0x5555_0000)), "{r:?}");
}

#[test]
fn sm_60_full_mask_in_a_partial_warp() {
    // A partial warp's missing lanes are not active threads either: the full membermask names
    // threads that never execute the vote; the membermask of the launched lanes is converged.
    let sm_60 = Executor::new().target(Target::SM_60);
    let err = sm_60.run_partial(0xff, async |w: &Warp<'_>| w.ballot(true).await).unwrap_err();
    let WarpError::NotConverged { mask, lanes, .. } = &err else { panic!("expected NotConverged, got {err:?}") };
    assert_eq!((*mask, lanes.0), (FULL_MASK, 0xff));
    let r = sm_60.run_partial(0xff, async |w: &Warp<'_>| w.group(0xff).ballot(true).await).unwrap();
    assert_eq!(r[0], Some(0xff));
    // sm_70: the lanes never launched count as exited.
    assert_eq!(Executor::new().target(Target::SM_70).run_partial(0xff, async |w: &Warp<'_>| w.ballot(true).await).unwrap()[7], Some(0xff));
}

// ---- (4) deadlock ----

#[test]
fn three_lane_wait_cycle_is_a_deadlock() {
    // Lane 0 shuffles with {0,1}, lane 1 votes with {1,2}, lane 2 syncs with {2,0}: each waits
    // for a lane that waits elsewhere, and no pair names each other.
    let lines = [Cell::new(0), Cell::new(0), Cell::new(0)];
    let err = Executor::new()
        .run(async |w: &Warp<'_>| match w.lane_id() {
            0 => {
                let f = w.group(0b011).shfl_idx(1u32, 1); lines[0].set(line!());
                f.await
            }
            1 => {
                let f = w.group(0b110).ballot(true); lines[1].set(line!());
                f.await
            }
            2 => {
                let f = w.group(0b101).syncwarp(); lines[2].set(line!());
                f.await;
                0
            }
            _ => 0,
        })
        .unwrap_err();
    let WarpError::Deadlock { waiting, edges, report } = &err else { panic!("expected Deadlock, got {err:?}") };
    assert_eq!(waiting.0, 0b111);
    let mut e = edges.clone();
    e.sort_by_key(|e| e.lane);
    assert_eq!(e, vec![WaitEdge { lane: 0, waits_for: 1 }, WaitEdge { lane: 1, waits_for: 2 }, WaitEdge { lane: 2, waits_for: 0 }]);
    assert_waiting(&report.lanes[0], Op::Shfl { mode: ShflMode::Idx, words: 1 }, 0b011, lines[0].get());
    assert_waiting(&report.lanes[1], Op::Vote(VoteMode::Ballot), 0b110, lines[1].get());
    assert_waiting(&report.lanes[2], Op::BarWarpSync, 0b101, lines[2].get());
    assert!(report.lanes[3..].iter().all(|s| *s == LaneState::Exited));
    let text = err.to_string();
    assert!(text.contains("deadlock"), "{text}");
    assert!(text.contains("lane 2 waits for lane 0"), "{text}");
}

#[test]
fn lane_blocked_on_foreign_future_deadlocks_the_warp() {
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 5 {
                std::future::pending::<()>().await;
            }
            let f = w.syncwarp(); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::Deadlock { waiting, edges, report } = &err else { panic!("expected Deadlock, got {err:?}") };
    assert_eq!(waiting.0, FULL_MASK);
    assert_eq!(edges.len(), 31);
    assert!(edges.iter().all(|e| e.waits_for == 5 && e.lane != 5));
    assert_eq!(report.lanes[5], LaneState::Blocked);
    assert_waiting(&report.lanes[6], Op::BarWarpSync, FULL_MASK, line.get());
    assert!(err.to_string().contains("lane 0 waits for lane 5"), "{err}");
}

// ---- (5) a lane panics ----

#[test]
fn lane_panic_is_reported_and_the_host_continues() {
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let b = w.ballot(true).await;
            line.set(line!()); if w.lane_id() == 7 { panic!("boom in lane {}", w.lane_id()); }
            b
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, message, location, report } = &err else { panic!("expected LanePanicked, got {err:?}") };
    assert_eq!(*lane, 7);
    assert_eq!(message, "boom in lane 7");
    assert!(location.starts_with(&format!("{}:{}:", file!(), line.get())), "{location}");
    assert_eq!(report.lanes[7], LaneState::Panicked);
    assert!(err.to_string().contains("lane 7 panicked at"), "{err}");
    // The host goes on: a second kernel runs normally, and a later panic reports its own lane.
    let r = Executor::new().run(async |w: &Warp<'_>| w.redux_add(w.lane_id()).await).unwrap();
    assert!(r.iter().all(|&s| s == 496));
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 30 {
                panic!("second");
            }
            w.lane_id()
        })
        .unwrap_err();
    assert!(matches!(&err, WarpError::LanePanicked { lane: 30, message, .. } if message == "second"), "{err:?}");
}

#[test]
fn invalid_tile_width_panics_in_the_lane() {
    let err = Executor::new().run(async |w: &Warp<'_>| w.tile(3).rank()).unwrap_err();
    let WarpError::LanePanicked { lane, message, .. } = &err else { panic!("expected LanePanicked, got {err:?}") };
    assert_eq!(*lane, 0);
    assert!(message.contains("tile width 3 is not a power of two"), "{message}");
}

// ---- (6) an instruction the target lacks ----

fn unsupported(err: &WarpError) -> (Op, Target, u32) {
    match err {
        WarpError::Unsupported { op, target, lanes, .. } => (*op, *target, lanes.0),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn match_on_sm_60_requires_sm_70() {
    // match.sync: "Requires sm_70 or higher."
    let err = Executor::new().target(Target::SM_60).run(async |w: &Warp<'_>| w.match_any(1u32).await).unwrap_err();
    assert_eq!(unsupported(&err), (Op::MatchAny { b64: false }, Target::SM_60, FULL_MASK));
    assert!(err.to_string().contains("requires sm_70 or higher"), "{err}");
    let err = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| if w.lane_id() < 4 { w.group(0xf).match_all(1u64).await.1 } else { false })
        .unwrap_err();
    assert_eq!(unsupported(&err), (Op::MatchAll { b64: true }, Target::SM_60, 0xf));
    assert!(Executor::new().target(Target::SM_70).run(async |w: &Warp<'_>| w.match_any(1u32).await).is_ok());
}

/// Below sm_80 the handle's `redux` is its fallback (one `vote.sync.ballot` and a `shfl.sync.idx`
/// tree, as the nvptx64 build compiles it), which computes what `redux.sync` does: the CPU model of
/// an sm_70 GPU gives the instruction's results, not `Unsupported`. The reference is the sum,
/// minimum and xor over the lanes that take part, written out.
#[test]
fn redux_below_sm_80_is_the_fallback_with_the_instructions_results() {
    for target in [Target::SM_70, Target::SM_80] {
        let out = Executor::new()
            .target(target)
            .run(async |w: &Warp<'_>| {
                let x = w.lane_id() * 7 + 3;
                let g = w.group(0x0f0f_0f0f);
                if w.lane_id() & 4 == 0 {
                    (g.redux_add(x).await, g.redux_min(-(x as i32)).await, g.redux_xor(x).await)
                } else {
                    (0, 0, 0)
                }
            })
            .unwrap();
        let lanes: Vec<u32> = (0..32).filter(|l| 0x0f0f_0f0fu32 >> l & 1 == 1).collect();
        let sum: u32 = lanes.iter().map(|l| l * 7 + 3).sum();
        let min = lanes.iter().map(|l| -((l * 7 + 3) as i32)).min().unwrap();
        let xor = lanes.iter().fold(0, |a, l| a ^ (l * 7 + 3));
        assert_eq!(out[0], (sum, min, xor), "{target}");
        assert_eq!(out[27], (sum, min, xor), "{target}");
        assert_eq!(Op::Redux(warp_runtime::ReduxOp::Add, warp_runtime::ReduxType::U32).fallback().is_some(), true);
    }
}

/// Below sm_90 the handle's `elect` is one `vote.sync.ballot`: the lowest non-exited lane of the
/// membermask, which is what `elect.sync` elects on an H100.
#[test]
fn elect_below_sm_90_elects_the_lowest_lane() {
    for target in [Target::SM_70, Target::SM_80, Target::SM_90] {
        let out = Executor::new()
            .target(target)
            .run_partial(0xffff_fff0, async |w: &Warp<'_>| {
                if 0xfff0_fff0u32 >> w.lane_id() & 1 == 1 {
                    Some(w.group(0xfff0_fff0).elect().await)
                } else {
                    None
                }
            })
            .unwrap();
        assert_eq!(out[4], Some(Some((4, true))), "{target}");
        assert_eq!(out[20], Some(Some((4, false))), "{target}");
        assert_eq!(out[17], Some(None), "{target}");
    }
}

/// Below sm_100a the handle's `.f32` redux is a shuffle tree with the spec's rules: "+0.0 > -0.0",
/// `.abs`, NaN inputs skipped. On every target it gives the same results.
#[test]
fn f32_redux_below_sm_100a_is_the_fallback() {
    for t in [Target::SM_90, "sm_100".parse().unwrap(), "sm_90a".parse().unwrap(), "sm_120a".parse().unwrap(), Target::SM_100A, "sm_100f".parse().unwrap()] {
        let r = Executor::new().target(t).run(async |w: &Warp<'_>| w.redux_max_abs(-(w.lane_id() as f32)).await).unwrap();
        assert!(r.iter().all(|x| *x == 31.0), "{t}");
        let r = Executor::new()
            .target(t)
            .run(async |w: &Warp<'_>| w.redux_min(if w.lane_id() == 3 { f32::NAN } else if w.lane_id() == 5 { -0.0 } else { 0.0 }).await)
            .unwrap();
        assert!(r.iter().all(|x| x.to_bits() == (-0.0f32).to_bits()), "{t}: NaN skipped, -0.0 < +0.0");
    }
}

#[test]
fn target_parsing_and_display() {
    use warp_runtime::ArchSuffix;
    assert_eq!("sm_100a".parse::<Target>(), Ok(Target::SM_100A));
    assert_eq!("sm_60".parse::<Target>(), Ok(Target::SM_60));
    assert_eq!("sm_90".parse::<Target>(), Ok(Target::SM_90));
    assert_eq!("sm_100f".parse::<Target>(), Ok(Target::new(100, ArchSuffix::F)));
    assert_eq!("sm_90a".parse::<Target>(), Ok(Target::new(90, ArchSuffix::A)));
    for bad in ["", "sm_", "sm_a", "90", "SM_90", "sm_9x", "sm_90af", "sm_-90", "sm_ 90", "sm_20"] {
        let e = bad.parse::<Target>().unwrap_err();
        assert!(e.to_string().contains(&format!("`{bad}` is not a target")), "{bad}: {e}");
    }
    for t in ["sm_60", "sm_70", "sm_80", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120"] {
        assert_eq!(t.parse::<Target>().unwrap().to_string(), t);
    }
    assert_eq!(Target::default(), Target::SM_100A);
}

// ---- report details ----

#[test]
fn panic_report_shows_exited_running_and_waiting_lanes() {
    // Ascending order: lanes 0-6 returned before lane 7 panicked; lanes 8-31 were resumed from
    // the ballot but not polled yet.
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            w.ballot(true).await;
            if w.lane_id() == 7 {
                panic!("seven");
            }
        })
        .unwrap_err();
    let report = err.report().unwrap();
    assert_eq!(report.lanes[0], LaneState::Exited);
    assert_eq!(report.lanes[6], LaneState::Exited);
    assert_eq!(report.lanes[7], LaneState::Panicked);
    assert_eq!(report.lanes[8], LaneState::Running);
    // Descending order: lanes 31-1 reached the barrier before lane 0 panicked.
    let line = Cell::new(0);
    let err = Executor::new()
        .order(warp_runtime::LaneOrder::Descending)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                panic!("zero");
            }
            let f = w.syncwarp(); line.set(line!());
            f.await
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane: 0, report, .. } = &err else { panic!("expected LanePanicked in lane 0, got {err:?}") };
    assert_waiting(&report.lanes[5], Op::BarWarpSync, FULL_MASK, line.get());
    assert_waiting(&report.lanes[31], Op::BarWarpSync, FULL_MASK, line.get());
}

#[test]
fn report_is_labelled_with_the_warp_index() {
    let err = Executor::new().warp_index(7).run(async |w: &Warp<'_>| w.group(0).ballot(true).await).unwrap_err();
    assert_eq!(err.report().unwrap().warp, 7);
    assert!(err.to_string().contains("warp 7"), "{err}");
    let r = Executor::new().warp_index(3).run(async |w: &Warp<'_>| (w.warp_index(), w.global_id())).unwrap();
    assert_eq!(r[5], (3, 3 * 32 + 5));
}

#[test]
fn panic_after_a_nested_run_in_the_same_lane_keeps_its_message() {
    // A lane may run a warp of its own (a host-side helper); its later panic is still reported
    // with its message and location.
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 2 {
                let inner = Executor::new().run(async |v: &Warp<'_>| v.ballot(true).await).unwrap();
                assert_eq!(inner[0], FULL_MASK);
                line.set(line!()); panic!("outer lane {}", w.lane_id());
            }
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, message, location, .. } = &err else { panic!("expected LanePanicked, got {err:?}") };
    assert_eq!(*lane, 2);
    assert_eq!(message, "outer lane 2");
    assert!(location.starts_with(&format!("{}:{}:", file!(), line.get())), "{location}");
}

#[test]
fn intrinsic_issued_but_never_awaited_is_reported() {
    // Lane 4 issues a ballot, drops it and returns: the report names the ballot's call site.
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 4 {
                let _ = w.ballot(true); line.set(line!());
                return 0;
            }
            0
        })
        .unwrap_err();
    let WarpError::NotAwaited { lanes, unawaited, .. } = &err else { panic!("expected NotAwaited, got {err:?}") };
    assert_eq!(lanes.0, 1 << 4);
    let [u] = unawaited.as_slice() else { panic!("one unawaited site: {err}") };
    assert_eq!((u.lanes.0, u.op), (1 << 4, Op::Vote(VoteMode::Ballot)));
    assert_eq!((u.site.file(), u.site.line()), (file!(), line.get()));
    assert!(err.to_string().contains(&format!("`vote.sync.ballot.b32` called at {}:{}:", file!(), line.get())), "{err}");
}

#[test]
fn intrinsic_issued_twice_reports_the_first_call_site() {
    // Every lane issues `bar.warp.sync` without awaiting it, then awaits a ballot: the second
    // post replaces the first in the lane's registers, and the report still names the first.
    let line = Cell::new(0);
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            let _ = w.syncwarp(); line.set(line!());
            w.ballot(true).await
        })
        .unwrap_err();
    let WarpError::NotAwaited { lanes, unawaited, .. } = &err else { panic!("expected NotAwaited, got {err:?}") };
    assert_eq!(lanes.0, FULL_MASK);
    let [u] = unawaited.as_slice() else { panic!("one unawaited site: {err}") };
    assert_eq!((u.lanes.0, u.op), (FULL_MASK, Op::BarWarpSync));
    assert_eq!((u.site.file(), u.site.line()), (file!(), line.get()));
}

// ---- found in review: executor edge cases ----

/// A future that is pending once and then ready, like a cooperative yield.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            std::task::Poll::Pending
        }
    }
}

#[test]
fn a_lane_that_yields_outside_warp_instructions_is_resumed_not_reported() {
    // Lanes 0-15 yield twice before the vote; the others wait at the vote for them.
    let out = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 16 {
                YieldOnce(false).await;
                YieldOnce(false).await;
            }
            w.ballot(w.lane_id() % 3 == 0).await
        })
        .unwrap();
    assert_eq!(out, [0x4924_9249; 32]);
}

#[test]
fn many_unawaited_intrinsics_are_reported_however_many() {
    // 256 posts must not wrap the per-lane post counter back to "posted once".
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            for _ in 0..256 {
                let _ = w.ballot(true);
            }
        })
        .unwrap_err();
    let WarpError::NotAwaited { lanes, .. } = &err else { panic!("expected NotAwaited, got {err:?}") };
    assert_eq!(lanes.0, FULL_MASK);
}

/// Panics when dropped.
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("drop of a kernel local panicked");
    }
}

#[test]
fn a_panicking_drop_in_a_stopped_lane_does_not_reach_the_host() {
    // Lane 3 panics; the other lanes hold a PanicOnDrop across their wait and are dropped when
    // the run stops. The run returns the lane panic; the host process goes on. (Lane 3 holds no
    // guard: a Drop that panics while its own thread unwinds aborts any Rust program.)
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 3 {
                panic!("lane three");
            }
            let guard = PanicOnDrop;
            w.syncwarp().await;
            std::mem::forget(guard);
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, message, .. } = &err else { panic!("expected LanePanicked, got {err:?}") };
    assert_eq!((*lane, message.as_str()), (3, "lane three"));
    assert_eq!(Executor::new().run(async |w: &Warp<'_>| w.ballot(true).await).unwrap(), [FULL_MASK; 32]);
}

#[test]
fn a_shuffle_width_that_is_not_a_power_of_two_is_reported() {
    // CUDA leaves such widths undefined; the run reports them as a panic in the lane.
    for width in [0, 3, 64] {
        let err = Executor::new()
            .run(async |w: &Warp<'_>| w.shfl_down_sync(FULL_MASK, 1u32, 1, width).await)
            .unwrap_err();
        let WarpError::LanePanicked { lane, message, location, .. } = &err else { panic!("expected LanePanicked, got {err:?}") };
        assert_eq!(*lane, 0);
        assert_eq!(message, &format!("shuffle width {width} is not a power of two in 1..=32"));
        assert!(location.contains("diagnostics.rs"), "{location}");
    }
}

/// A kernel that panics while making a lane's future (a plain closure returning a future, not an
/// `async` one) is that lane's panic: the lanes started before it are dropped, the host goes on.
#[test]
fn a_panic_while_starting_a_lane_is_reported_for_that_lane() {
    let err = Executor::new()
        .run(|w: &Warp<'_>| {
            assert!(w.lane_id() != 5, "no future for lane {}", w.lane_id());
            core::future::ready(w.lane_id())
        })
        .unwrap_err();
    match err {
        WarpError::LanePanicked { lane, ref message, ref report, .. } => {
            assert_eq!(lane, 5);
            assert_eq!(message, "no future for lane 5");
            // Lanes 0..5 started and returned at once; 6.. never started.
            assert!(report.lanes[..5].iter().all(|s| *s == LaneState::Exited), "{err}");
            assert_eq!(report.lanes[5], LaneState::Panicked);
            assert!(report.lanes[6..].iter().all(|s| *s == LaneState::Running), "{err}");
        }
        other => panic!("expected a lane panic, got {other}"),
    }
}

/// A failure that depends on the order lanes run in (here: whichever lane runs first claims a slot,
/// and only lane 0 may) names that order in its report, so that it can be replayed (issue 13).
#[test]
fn an_order_dependent_report_names_the_lane_order() {
    for order in [LaneOrder::Descending, LaneOrder::Seeded(7)] {
        let claimed = Cell::new(None::<u32>);
        let err = Executor::new()
            .order(order)
            .run(async |w: &Warp<'_>| {
                // Whichever lane runs first claims the slot; only lane 0 may.
                if claimed.get().is_none() {
                    claimed.set(Some(w.lane_id()));
                    assert_eq!(w.lane_id(), 0, "lane {} claimed the slot first", w.lane_id());
                }
                w.lane_id()
            })
            .unwrap_err();
        let report = err.report().expect("a lane report");
        assert_eq!(report.lane_order, order);
        let text = err.to_string();
        let named = match order {
            LaneOrder::Descending => "lanes polled in descending order".to_string(),
            LaneOrder::Seeded(s) => format!("LaneOrder::Seeded({s})"),
            LaneOrder::Ascending => unreachable!(),
        };
        assert!(text.contains(&named), "{text}");
    }
    // In the default order lane 0 runs first, and the same kernel passes.
    let claimed = Cell::new(None::<u32>);
    let ok = Executor::new().run(async |w: &Warp<'_>| {
        if claimed.get().is_none() {
            claimed.set(Some(w.lane_id()));
            assert_eq!(w.lane_id(), 0);
        }
    });
    assert!(ok.is_ok());
}
