//! Each undefined-behaviour class of the runtime, triggered from `#[warp_kernel]` code: the
//! report's call site must be the user's intrinsic call (file, line and column), which the macro
//! keeps by rewriting the call in place.

#[path = "common/both.rs"]
mod both;
use both::both;
use warpkit::prelude::*;
use warpkit::{BarrierRule, LaneState, Site};

const SOURCE: &str = include_str!("diagnostics.rs");

/// The 1-based column of the method name in `call` (such as `"w.shfl_down("`) on `line`.
fn column_of(line: u32, call: &str) -> u32 {
    let text = SOURCE.lines().nth(line as usize - 1).expect("line in this file");
    let at = text.find(call).unwrap_or_else(|| panic!("`{call}` on line {line}: {text}"));
    (at + call.find('.').expect("a method call") + 2) as u32
}

/// Asserts that `site` is `call` on `line` of this file.
fn assert_site(site: Site, line: u32, call: &str) {
    assert!(site.file().ends_with("diagnostics.rs"), "{site}");
    assert_eq!((site.line(), site.column()), (line, column_of(line, call)), "{site}");
}

fn waiting_site(state: &LaneState) -> Site {
    match state {
        LaneState::Waiting { site, .. } => site,
        other => panic!("not waiting: {other}"),
    }
}

#[warp_kernel]
fn not_in_mask(w: &Warp) -> u32 {
    w.group(0x1).ballot(true)
}
const NOT_IN_MASK_LINE: u32 = line!() - 2;

/// "The behavior of vote.sync is undefined if the executing thread is not in the membermask."
#[test]
fn not_in_membermask_reports_the_call_site() {
    let err = both().run(not_in_mask).unwrap_err();
    let WarpError::NotInMembermask { lanes, report, .. } = &err else { panic!("{err}") };
    assert_eq!(lanes.0, !1);
    assert_site(waiting_site(&report.lanes[5]), NOT_IN_MASK_LINE, ".ballot(");
    assert!(err.to_string().contains(&format!("diagnostics.rs:{NOT_IN_MASK_LINE}:")), "{err}");
}

#[warp_kernel]
fn read_exited(w: &Warp) -> u32 {
    if w.lane_id() < 16 {
        return w.shfl_down(1u32, 16);
    }
    0
}
const READ_EXITED_LINE: u32 = line!() - 4;

/// "Sourcing from an inactive thread or one not in membermask is undefined."
#[test]
fn invalid_shfl_source_reports_the_call_site() {
    let err = both().run(read_exited).unwrap_err();
    let WarpError::InvalidShflSource { faults, report, .. } = &err else { panic!("{err}") };
    assert_eq!(faults.len(), 16);
    assert!(faults.iter().all(|f| f.exited && f.source == f.lane + 16));
    assert_site(waiting_site(&report.lanes[0]), READ_EXITED_LINE, "w.shfl_down(");
}

#[warp_kernel]
fn divergent(w: &Warp) -> u32 {
    if w.lane_id() < 16 {
        w.ballot(true)
    } else {
        w.any(true) as u32
    }
}
const DIVERGENT_LINE: u32 = line!() - 5;

/// Lanes of one membermask at different instructions: none can complete.
#[test]
fn divergent_reports_both_call_sites() {
    let err = both().run(divergent).unwrap_err();
    let WarpError::Divergent { conflicts, report } = &err else { panic!("{err}") };
    assert!(!conflicts.is_empty());
    assert_site(waiting_site(&report.lanes[0]), DIVERGENT_LINE, "w.ballot(");
    assert_site(waiting_site(&report.lanes[31]), DIVERGENT_LINE + 2, "w.any(");
}

#[warp_kernel]
fn two_sites(w: &Warp) -> u32 {
    if w.lane_id() < 16 {
        w.ballot(true)
    } else {
        w.ballot(false)
    }
}
const TWO_SITES_LINE: u32 = line!() - 5;

/// "For .target sm_6x or below, all threads in membermask must execute the same vote
/// instruction in convergence."
#[test]
fn not_converged_on_sm_60_reports_both_call_sites() {
    let err = both().target(Target::SM_60).run(two_sites).unwrap_err();
    let WarpError::NotConverged { report, .. } = &err else { panic!("{err}") };
    assert_site(waiting_site(&report.lanes[3]), TWO_SITES_LINE, "w.ballot(");
    assert_site(waiting_site(&report.lanes[20]), TWO_SITES_LINE + 2, "w.ballot(");
    // The same kernel is fine with independent thread scheduling.
    assert_eq!(both().run(two_sites).unwrap()[0], 0xffff);
}

#[warp_kernel]
fn cycle(w: &Warp) {
    // Lane 0 waits for 1, lane 1 for 2, lane 2 for 0: no two lanes name each other.
    let mask = match w.lane_id() {
        0 => 0b011,
        1 => 0b110,
        2 => 0b101,
        _ => return,
    };
    w.group(mask).syncwarp();
}
const CYCLE_LINE: u32 = line!() - 2;

/// Nothing can complete and no two lanes disagree: a deadlock.
#[test]
fn deadlock_reports_the_waiting_call_sites() {
    let err = both().run(cycle).unwrap_err();
    let WarpError::Deadlock { waiting, edges, report } = &err else { panic!("{err}") };
    assert_eq!(waiting.0, 0b111);
    assert_eq!(edges.len(), 3);
    for lane in 0..3 {
        assert_site(waiting_site(&report.lanes[lane]), CYCLE_LINE, ".syncwarp(");
    }
}

#[warp_kernel]
fn panics(w: &Warp) -> u32 {
    let v = w.shfl_xor(w.lane_id(), 1);
    if w.lane_id() == 5 {
        panic!("lane five gives up");
    }
    v
}
const PANIC_LINE: u32 = line!() - 4;

/// A panicking lane is reported with its id and location; the host does not abort.
#[test]
fn lane_panicked_reports_the_lane_and_location() {
    let err = both().run(panics).unwrap_err();
    let WarpError::LanePanicked { lane, message, location, .. } = &err else { panic!("{err}") };
    assert_eq!((*lane, message.as_str()), (5, "lane five gives up"));
    assert!(location.ends_with(&format!("diagnostics.rs:{PANIC_LINE}:9")), "{location}");
}

#[warp_kernel]
fn groups(w: &Warp) -> u32 {
    w.match_any(w.lane_id() / 4)
}
const GROUPS_LINE: u32 = line!() - 2;

/// `match.sync` requires sm_70 (and has no fallback; `elect` and `redux` below their targets are
/// the handle's fallbacks, which compute the same results).
#[test]
fn unsupported_reports_the_call_site() {
    let err = both().target(Target::SM_60).run(groups).unwrap_err();
    let WarpError::Unsupported { report, .. } = &err else { panic!("{err}") };
    assert_site(waiting_site(&report.lanes[0]), GROUPS_LINE, "w.match_any(");
}

#[warp_kernel]
fn legacy(w: &Warp) -> u32 {
    w.vote_legacy(VoteMode::Ballot, true)
}
const LEGACY_LINE: u32 = line!() - 2;

/// "Support for vote instruction without a .sync qualifier is removed in PTX ISA version 6.4
/// for .target sm_70 or higher."
#[test]
fn vote_removed_reports_the_call_site() {
    let err = both().run(legacy).unwrap_err();
    let WarpError::VoteRemoved { report, .. } = &err else { panic!("{err}") };
    assert_site(waiting_site(&report.lanes[0]), LEGACY_LINE, "w.vote_legacy(");
}

#[warp_kernel]
fn inner(w: &Warp, x: u32) -> u32 {
    w.shfl_down(x, 8)
}
const INNER_LINE: u32 = line!() - 2;

#[warp_kernel]
fn outer(w: &Warp) -> u32 {
    if w.lane_id() >= 24 {
        return 0;
    }
    inner(w, 1)
}

/// Through a helper, the site is the intrinsic in the helper, not the helper's call.
#[test]
fn sites_inside_helpers_point_at_the_helper_intrinsic() {
    let err = both().run(outer).unwrap_err();
    let WarpError::InvalidShflSource { report, .. } = &err else { panic!("{err}") };
    assert_site(waiting_site(&report.lanes[0]), INNER_LINE, "w.shfl_down(");
}

/// A user's extension of the handle: a plain method, which cannot await, issues `bar.warp.sync`
/// and drops it. `#[warp_kernel]` sees only `w.sync_then_lane()`, a plain method call.
trait SyncThenLane {
    fn sync_then_lane(&self) -> u32;
}

impl SyncThenLane for Warp<'_> {
    #[allow(clippy::let_underscore_future)] // the misuse under test
    fn sync_then_lane(&self) -> u32 {
        let _ = self.syncwarp();
        self.lane_id()
    }
}
const SYNC_THEN_LANE_LINE: u32 = line!() - 4;

#[warp_kernel]
fn unawaited_then_another(w: &Warp) -> u32 {
    let lane = w.sync_then_lane();
    lane + w.ballot(true)
}

#[warp_kernel]
fn unawaited_then_return(w: &Warp) -> u32 {
    w.sync_then_lane()
}

/// An instruction issued and never awaited (here behind a plain method the macro cannot see
/// into) is reported with its own call site, whether the lane then issues another instruction
/// (whose post replaces the first in the lane's registers) or returns with it pending.
#[test]
fn unawaited_instruction_reports_its_call_site() {
    let errs = [both().run(unawaited_then_another).unwrap_err(), both().run(unawaited_then_return).unwrap_err()];
    for err in &errs {
        let WarpError::NotAwaited { lanes, unawaited, .. } = err else { panic!("{err}") };
        assert_eq!(lanes.0, u32::MAX);
        let [u] = unawaited.as_slice() else { panic!("one site: {err}") };
        assert_eq!(u.lanes.0, u32::MAX);
        assert_eq!(u.op.to_string(), "bar.warp.sync");
        assert_site(u.site, SYNC_THEN_LANE_LINE, "self.syncwarp(");
        assert!(err.to_string().contains(&format!("`bar.warp.sync` called at {} by lanes 0-31 was never awaited", u.site)), "{err}");
    }
}

// ---- a helper's instruction is one instruction per call ----

#[warp_kernel]
fn xor_one(w: &Warp, v: u32) -> u32 {
    w.shfl_xor(v, 1)
}
const XOR_ONE_LINE: u32 = line!() - 2;

#[warp_kernel]
fn xor_in_both_arms(w: &Warp) -> u32 {
    if w.lane_id() % 2 == 0 { xor_one(w, 1) } else { xor_one(w, 2) }
}

/// "For .target sm_6x or below, all threads in membermask must execute the same shfl.sync
/// instruction in convergence": a helper called from both arms is two `shfl.sync` instructions
/// on a GPU (one inlined copy per call), so the full-mask shuffle is not converged there, though
/// both arms wait at the same line of the helper.
#[test]
fn sm_60_a_helper_called_from_both_arms_is_not_converged() {
    let err = both().target(Target::SM_60).run(xor_in_both_arms).unwrap_err();
    let WarpError::NotConverged { lanes, report, .. } = &err else { panic!("{err}") };
    assert_eq!(lanes.0, u32::MAX);
    assert_site(waiting_site(&report.lanes[0]), XOR_ONE_LINE, "w.shfl_xor(");
    assert_site(waiting_site(&report.lanes[1]), XOR_ONE_LINE, "w.shfl_xor(");
    // With independent thread scheduling the two instructions complete together.
    let out = both().target(Target::SM_70).run(xor_in_both_arms).unwrap();
    assert_eq!((out[0], out[1]), (2, 1));
}

#[warp_kernel]
fn sync_helper(w: &Warp) {
    w.sync_threads();
}

#[warp_kernel]
fn sync_helper_in_both_arms(w: &Warp) {
    if w.lane_id() % 2 == 0 {
        sync_helper(w);
    } else {
        sync_helper(w);
    }
}

#[warp_kernel]
fn sync_helper_per_warp(w: &Warp) {
    if w.warp_in_block() == 0 {
        sync_helper(w);
    } else {
        sync_helper(w);
    }
}

/// `bar.sync` is `barrier.sync.aligned`: "all threads in CTA will execute the same barrier{.cta}
/// instruction". A helper's `__syncthreads()` called from two places is two instructions, within
/// a warp or across warps.
#[test]
fn a_barrier_helper_called_from_two_places_is_two_barriers() {
    for err in [Grid::blocks(1, 64).run(sync_helper_in_both_arms).unwrap_err(), Grid::blocks(1, 64).run(sync_helper_per_warp).unwrap_err()] {
        let WarpError::Barrier { rule, detail, .. } = &err else { panic!("{err}") };
        assert_eq!(*rule, BarrierRule::AlignedDifferentSites, "{err}");
        assert!(detail.contains("the same call site reached through other warp-function calls"), "{detail}");
    }
    // Called from one place, it is one barrier.
    Grid::blocks(1, 64).run(sync_helper).unwrap();
}

#[warp_kernel]
fn ballot_after_return(w: &Warp, keep: u32) -> u32 {
    if w.lane_id() < keep {
        return 0;
    }
    w.ballot(true)
}
const BALLOT_AFTER_RETURN_LINE: u32 = line!() - 2;

/// PIConGPU issue 2514's shape: part of the warp has returned and a full-mask `__ballot_sync`
/// follows. "For .target sm_6x or below, all threads in membermask must execute the same vote.sync
/// instruction in convergence": the threads that returned never execute it. On sm_70 the vote
/// waits only for "all non-exited threads corresponding to membermask".
#[test]
fn sm_60_full_mask_ballot_after_lanes_returned() {
    let err = both().target(Target::SM_60).run(async |w: &Warp<'_>| ballot_after_return(w, 16).await).unwrap_err();
    let WarpError::NotConverged { mask, lanes, report, .. } = &err else { panic!("{err}") };
    assert_eq!((*mask, lanes.0), (u32::MAX, 0xffff_0000));
    assert_eq!(report.lanes[0], LaneState::Exited);
    assert_site(waiting_site(&report.lanes[16]), BALLOT_AFTER_RETURN_LINE, "w.ballot(");
    // No lane returned: converged.
    assert_eq!(both().target(Target::SM_60).run(async |w: &Warp<'_>| ballot_after_return(w, 0).await).unwrap()[5], u32::MAX);
    assert_eq!(both().target(Target::SM_70).run(async |w: &Warp<'_>| ballot_after_return(w, 16).await).unwrap()[16], 0xffff_0000);
}
