//! `vote.sync` (all, any, uni, ballot, negated forms) and the deprecated `vote`.

mod model;

use warp_runtime::{Executor, Target, VoteMode, Warp, WarpError, FULL_MASK};

const MODES: [VoteMode; 4] = [VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot];

#[test]
fn ballot_copies_each_lanes_predicate_into_its_bit() {
    // ".ballot: copies the predicate from each thread in membermask into the corresponding bit
    // position of destination register d".
    let r = Executor::new().run(async |w: &Warp<'_>| w.ballot(w.lane_id() % 3 == 0).await).unwrap();
    assert!(r.iter().all(|&b| b == 0x4924_9249), "{r:x?}");
    let r = Executor::new().run(async |w: &Warp<'_>| w.ballot(w.lane_id() == 31).await).unwrap();
    assert!(r.iter().all(|&b| b == 0x8000_0000));
    let r = Executor::new().run(async |w: &Warp<'_>| w.ballot(false).await).unwrap();
    assert!(r.iter().all(|&b| b == 0));
}

#[test]
fn all_any_uni_on_uniform_and_mixed_predicates() {
    // ".all: True if source predicate is True for all non-exited threads in membermask"; ".any:
    // ... for some thread"; ".uni: ... has the same value in all non-exited threads".
    for (name, pred, all, any, uni) in [
        ("all true", (|_| true) as fn(u32) -> bool, true, true, true),
        ("all false", |_| false, false, false, true),
        ("one true", |l| l == 17, false, true, false),
        ("one false", |l| l != 0, false, true, false),
        ("half", |l| l < 16, false, true, false),
    ] {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let p = pred(w.lane_id());
                (w.all(p).await, w.any(p).await, w.uni(p).await)
            })
            .unwrap();
        assert!(r.iter().all(|&x| x == (all, any, uni)), "{name}: {:?}", r[0]);
    }
}

#[test]
fn none_and_not_all_negate_the_predicate() {
    // "Negate the source predicate to compute .none" (via .all) / ".not_all" (via .any).
    for (name, pred, none, not_all) in [
        ("all true", (|_| true) as fn(u32) -> bool, false, false),
        ("all false", |_| false, true, true),
        ("one true", |l| l == 4, false, true),
    ] {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let p = pred(w.lane_id());
                (w.none(p).await, w.not_all(p).await)
            })
            .unwrap();
        assert!(r.iter().all(|&x| x == (none, not_all)), "{name}: {:?}", r[0]);
    }
}

#[test]
fn vote_with_mode_and_negate_flag_matches_model() {
    // "vote.sync.mode.pred d, {!}a, membermask": the {!} negates a before the reduction.
    let preds = [0u32, FULL_MASK, 0x0000_0001, 0x8000_0000, 0xdead_beef, 0x7fff_ffff];
    for mode in MODES {
        for negate in [false, true] {
            for &pm in &preds {
                let r = Executor::new()
                    .run(async |w: &Warp<'_>| w.vote(mode, pm >> w.lane_id() & 1 == 1, negate).await)
                    .unwrap();
                let eff = if negate { !pm } else { pm };
                let want = model::vote(mode, eff, FULL_MASK);
                assert!(r.iter().all(|&x| x == want), "{mode:?} negate={negate} preds={pm:#x}: got {:#x} want {want:#x}", r[0]);
            }
        }
    }
    // Hand-derived: ballot of !a over 0xdead_beef.
    let r = Executor::new().run(async |w: &Warp<'_>| w.vote(VoteMode::Ballot, 0xdead_beef_u32 >> w.lane_id() & 1 == 1, true).await).unwrap();
    assert_eq!(r[0], 0x2152_4110);
}

#[test]
fn disjoint_groups_vote_at_once() {
    // "threads participating in this instruction" are the membermask: even and odd lanes vote
    // separately, each group over its own lanes only.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let mask = if w.lane_id() % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa };
            let g = w.group(mask);
            let p = w.lane_id() % 4 < 2; // lanes 0,1,4,5,...
            (g.ballot(p).await, g.all(p).await, g.any(p).await, g.uni(w.lane_id() % 2 == 1).await)
        })
        .unwrap();
    for l in 0..32 {
        // Even lanes: p true at 0,4,8,...; odd lanes: p true at 1,5,9,...
        let want = if l % 2 == 0 { (0x1111_1111, false, true, true) } else { (0x2222_2222, false, true, true) };
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn lanes_outside_membermask_contribute_zero_to_ballot() {
    // "A thread not specified in membermask will contribute a 0 for its entry".
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let mask = if w.lane_id() < 12 { 0x0000_0fff } else { 0xffff_f000 };
            w.group(mask).ballot(true).await
        })
        .unwrap();
    for l in 0..32 {
        assert_eq!(r[l], if l < 12 { 0x0000_0fff } else { 0xffff_f000 }, "lane {l}");
    }
    // A group of lanes 3 and 9 only, predicates true everywhere; the rest vote on their own.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let mask = if w.lane_id() == 3 || w.lane_id() == 9 { 0x208 } else { !0x208 };
            w.group(mask).ballot(true).await
        })
        .unwrap();
    assert_eq!(r[3], 0x208);
    assert_eq!(r[9], 0x208);
    assert_eq!(r[0], !0x208);
}

#[test]
fn exited_lanes_are_excluded_from_all_and_uni() {
    // ".all: True if source predicate is True for all non-exited threads in membermask";
    // ".uni: ... same value in all non-exited threads in membermask".
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() >= 20 {
                return None;
            }
            Some((w.all(true).await, w.uni(true).await, w.none(false).await, w.ballot(true).await, w.any(false).await))
        })
        .unwrap();
    for l in 0..20 {
        assert_eq!(r[l], Some((true, true, true, 0x000f_ffff, false)), "lane {l}");
    }
    // The surviving lanes are mixed: .all false, .uni false.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() % 2 == 1 {
                return None;
            }
            let p = w.lane_id() != 6;
            Some((w.all(p).await, w.uni(p).await, w.ballot(p).await))
        })
        .unwrap();
    assert_eq!(r[0], Some((false, false, 0x5555_5515)));
}

#[test]
fn partial_warp_votes_over_launched_lanes() {
    // Lanes never launched are not active: they take no part in .all/.uni and contribute 0.
    let r = Executor::new()
        .run_partial(0x00ff_00ff, async |w: &Warp<'_>| (w.all(true).await, w.uni(w.lane_id() < 8).await, w.ballot(true).await))
        .unwrap();
    for l in 0..32 {
        let want = (0x00ff_00ffu32 >> l & 1 == 1).then_some((true, false, 0x00ff_00ff));
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn vote_sync_converged_on_sm_60() {
    // sm_6x: "all threads in membermask must execute the same vote.sync instruction in
    // convergence": a converged warp is fine.
    let r = Executor::new().target(Target::SM_60).run(async |w: &Warp<'_>| w.ballot(w.lane_id() >= 30).await).unwrap();
    assert!(r.iter().all(|&b| b == 0xc000_0000));
}

#[test]
fn legacy_vote_on_sm_60_acts_over_lanes_executing_it_together() {
    // Deprecated vote: "Performs a reduction of the source predicate across all active threads in
    // a warp"; "An inactive thread in warp will contribute a 0 for its entry".
    let r = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            if l < 8 {
                (
                    w.vote_legacy(VoteMode::Ballot, true).await,
                    w.vote_legacy(VoteMode::All, true).await,
                    w.vote_legacy(VoteMode::Any, l == 3).await,
                    w.vote_legacy(VoteMode::Uni, false).await,
                )
            } else {
                (
                    w.vote_legacy(VoteMode::Ballot, l % 2 == 0).await,
                    w.vote_legacy(VoteMode::All, l % 2 == 0).await,
                    w.vote_legacy(VoteMode::Any, false).await,
                    w.vote_legacy(VoteMode::Uni, l > 8).await,
                )
            }
        })
        .unwrap();
    for l in 0..32 {
        let want = if l < 8 { (0x0000_00ff, 1, 1, 1) } else { (0x5555_5500, 0, 0, 0) };
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn legacy_vote_with_exited_lanes_on_sm_60() {
    // "An inactive thread in warp will contribute a 0 for its entry when participating in
    // vote.ballot.b32".
    let r = Executor::new()
        .target(Target::SM_60)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 4 {
                return None;
            }
            Some((w.vote_legacy(VoteMode::Ballot, true).await, w.vote_legacy(VoteMode::All, w.lane_id() > 3).await))
        })
        .unwrap();
    assert_eq!(r[4], Some((0xffff_fff0, 1)));
    assert_eq!(r[0], None);
}

#[test]
fn legacy_vote_is_removed_on_sm_70_and_later() {
    // "Support for vote instruction without a .sync qualifier is removed in PTX ISA version 6.4
    // for .target sm_70 or higher."
    for target in [Target::SM_70, Target::SM_80, Target::SM_90, Target::SM_100A] {
        let err = Executor::new()
            .target(target)
            .run(async |w: &Warp<'_>| w.vote_legacy(VoteMode::Any, true).await)
            .unwrap_err();
        match &err {
            WarpError::VoteRemoved { op, target: t, lanes, .. } => {
                assert_eq!(*op, warp_runtime::Op::VoteLegacy(VoteMode::Any));
                assert_eq!(*t, target);
                assert_eq!(lanes.0, FULL_MASK);
            }
            other => panic!("{target}: expected VoteRemoved, got {other:?}"),
        }
        let text = err.to_string();
        assert!(text.contains("PTX ISA version 6.4"), "{text}");
        assert!(text.contains("sm_70 or higher"), "{text}");
        assert!(text.contains(&target.to_string()), "{text}");
    }
}
