//! End-to-end kernels written with `#[warp_kernel]`, run on the lockstep runtime, each compared
//! lane by lane with a plain sequential reference.

// The code `#[warp_kernel]` adds (the warp-wide forms) must not trip lints a crate may deny:
// the forms' `allow(warnings)` does not override a lint denied by name.
#![deny(unused_parens, unused_imports, unused_variables)]

#[path = "common/both.rs"]
mod both;
use both::both;
use warpkit::prelude::*;

const LANES: [u32; 32] = {
    let mut l = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        l[i] = i as u32;
        i += 1;
    }
    l
};

/// Some per-lane input that is not just the lane id.
fn input(lane: u32) -> u32 {
    lane.wrapping_mul(2_654_435_761).rotate_left(7) % 1000
}

fn inputs() -> [u32; 32] {
    LANES.map(input)
}

// ---------------------------------------------------------------- shuffles

#[warp_kernel]
fn shuffles(w: &Warp, x: u32) -> [u32; 4] {
    [w.shfl_up(x, 3), w.shfl_down(x, 5), w.shfl_xor(x, 6), w.shfl_idx(x, 17)]
}

/// "shfl.sync.up: j = lane - b; if j < minLane, the lane keeps its own value" (and the other
/// three modes) over the whole warp.
#[test]
fn shfl_convenience_forms_read_the_lane_the_mode_names() {
    let x = inputs();
    let out = both().run(async |w: &Warp<'_>| shuffles(w, x[w.lane_id() as usize]).await).unwrap();
    for l in 0..32usize {
        let up = if l >= 3 { x[l - 3] } else { x[l] };
        let down = if l + 5 < 32 { x[l + 5] } else { x[l] };
        assert_eq!(out[l], [up, down, x[l ^ 6], x[17]], "lane {l}");
    }
}

#[warp_kernel]
fn shuffles_pred(w: &Warp, x: u64) -> [(u64, bool); 4] {
    [w.shfl_up_pred(x, 1), w.shfl_down_pred(x, 1), w.shfl_xor_pred(x, 31), w.shfl_idx_pred(x, 0)]
}

/// 8-byte values move as two 32-bit shuffles; the predicate says whether the source was in range.
#[test]
fn shfl_pred_forms_return_the_in_range_predicate_for_8_byte_values() {
    let x = LANES.map(|l| (l as u64) << 40 | 0xdead_0000 | l as u64);
    let out = both().run(async |w: &Warp<'_>| shuffles_pred(w, x[w.lane_id() as usize]).await).unwrap();
    for l in 0..32usize {
        let up = if l >= 1 { (x[l - 1], true) } else { (x[l], false) };
        let down = if l < 31 { (x[l + 1], true) } else { (x[l], false) };
        assert_eq!(out[l], [up, down, (x[l ^ 31], true), (x[0], true)], "lane {l}");
    }
}

#[warp_kernel]
fn shuffles_sync(w: &Warp, x: f32) -> [f32; 4] {
    let m = FULL_MASK;
    [w.shfl_up_sync(m, x, 1, 8), w.shfl_down_sync(m, x, 2, 8), w.shfl_xor_sync(m, x, 4, 8), w.shfl_idx_sync(m, x, 3, 8)]
}

/// CUDA's `width` argument: every shuffle stays inside its segment of 8 lanes.
#[test]
fn shfl_sync_forms_stay_inside_their_width_segment() {
    let x = LANES.map(|l| l as f32 * 1.5);
    let out = both().run(async |w: &Warp<'_>| shuffles_sync(w, x[w.lane_id() as usize]).await).unwrap();
    for l in 0..32usize {
        let base = l & !7;
        let r = l - base;
        let up = if r >= 1 { x[l - 1] } else { x[l] };
        let down = if r + 2 < 8 { x[l + 2] } else { x[l] };
        assert_eq!(out[l], [up, down, x[l ^ 4], x[base + 3]], "lane {l}");
    }
}

#[warp_kernel]
fn raw_shfl(w: &Warp, x: i32) -> (i32, bool) {
    // b = 33 acts as b = 1 (b[4:0]); c = 0x1f: one segment of 32 lanes.
    w.shfl(ShflMode::Down, x, 33, 0x1f)
}

/// The raw form keeps any `b`: "bval = b[4:0]".
#[test]
fn raw_shfl_uses_b_modulo_32() {
    let out = both().run(async |w: &Warp<'_>| raw_shfl(w, -(w.lane_id() as i32)).await).unwrap();
    for l in 0..32i32 {
        let expect = if l < 31 { (-(l + 1), true) } else { (-l, false) };
        assert_eq!(out[l as usize], expect, "lane {l}");
    }
}

#[warp_kernel]
fn tile_sum(w: &Warp, x: u32) -> (u32, u32, u32) {
    let t = w.tile(4);
    let mut v = x;
    let mut offset = t.width() / 2;
    while offset > 0 {
        v += t.shfl_xor(v, offset);
        offset /= 2;
    }
    (v, t.rank(), t.membermask())
}

/// A tile's shuffles use its segment and its lanes as membermask.
#[test]
fn tiles_reduce_within_their_lanes() {
    let x = inputs();
    let out = both().run(async |w: &Warp<'_>| tile_sum(w, x[w.lane_id() as usize]).await).unwrap();
    for l in 0..32usize {
        let base = l & !3;
        let sum: u32 = x[base..base + 4].iter().sum();
        assert_eq!(out[l], (sum, (l % 4) as u32, 0xf << base), "lane {l}");
    }
}

// ---------------------------------------------------------------- votes

#[warp_kernel]
fn votes(w: &Warp, p: bool) -> (u32, bool, bool, bool, bool, bool, u32) {
    (w.ballot(p), w.all(p), w.any(p), w.uni(p), w.none(p), w.not_all(p), w.vote(VoteMode::Ballot, p, true))
}

fn vote_reference(preds: [bool; 32]) -> (u32, bool, bool, bool, bool, bool, u32) {
    let ballot = (0..32).filter(|&l| preds[l]).fold(0u32, |m, l| m | 1 << l);
    (ballot, ballot == u32::MAX, ballot != 0, ballot == 0 || ballot == u32::MAX, ballot == 0, ballot != u32::MAX, !ballot)
}

/// "vote.sync.ballot.b32: bit i of d is the predicate of lane i"; `.all`, `.any`, `.uni`, and the
/// negated source `{!}a`.
#[test]
fn votes_agree_with_the_ballot_reference() {
    for preds in [LANES.map(|l| l % 3 == 0), [true; 32], [false; 32], LANES.map(|l| l == 31)] {
        let out = both().run(async |w: &Warp<'_>| votes(w, preds[w.lane_id() as usize]).await).unwrap();
        assert!(out.iter().all(|&o| o == vote_reference(preds)), "{preds:?}");
    }
}

#[warp_kernel]
fn legacy_vote(w: &Warp) -> u32 {
    w.vote_legacy(VoteMode::Ballot, w.lane_id() < 5)
}

/// The deprecated `vote.ballot` without `.sync` exists below sm_70.
#[test]
fn vote_legacy_runs_on_sm_60() {
    let out = both().target(Target::SM_60).run(legacy_vote).unwrap();
    assert!(out.iter().all(|&b| b == 0b1_1111));
}

// ---------------------------------------------------------------- match

#[warp_kernel]
fn matches(w: &Warp, x: u32, y: u64) -> (u32, (u32, bool), u32, (u32, bool)) {
    (w.match_any(x), w.match_all(x), w.match_any(y), w.match_all(y))
}

/// "match.any.sync: d is the mask of lanes whose a equals this lane's"; `match.all` gives the
/// membermask and true only when all values are equal; `.b64` compares all 64 bits.
#[test]
fn match_any_and_all_group_equal_values() {
    let x = LANES.map(|l| l % 5);
    // Lanes differ only in the high word: `.b64` must see the difference.
    let y = LANES.map(|l| ((l % 2) as u64) << 32 | 7);
    let out = both()
        .run(async |w: &Warp<'_>| matches(w, x[w.lane_id() as usize], y[w.lane_id() as usize]).await)
        .unwrap();
    for l in 0..32usize {
        let same_x = (0..32).filter(|&k| x[k] == x[l]).fold(0u32, |m, k| m | 1 << k);
        let same_y = (0..32).filter(|&k| y[k] == y[l]).fold(0u32, |m, k| m | 1 << k);
        assert_eq!(out[l], (same_x, (0, false), same_y, (0, false)), "lane {l}");
    }
    let out = both().run(async |w: &Warp<'_>| matches(w, 9, 1 << 40).await).unwrap();
    assert!(out.iter().all(|&o| o == (u32::MAX, (u32::MAX, true), u32::MAX, (u32::MAX, true))));
}

// ---------------------------------------------------------------- redux

#[warp_kernel]
fn redux_ints(w: &Warp, u: u32, i: i32) -> [u32; 8] {
    [
        w.redux_add(u),
        w.redux_add(i) as u32,
        w.redux_min(u),
        w.redux_max(u),
        w.redux_min(i) as u32,
        w.redux_max(i) as u32,
        w.redux_and(u) ^ w.redux_or(u),
        w.redux_xor(i) as u32,
    ]
}

/// `redux.sync.add` wraps; `.min/.max.s32` compare as signed; `.and/.or/.xor.b32` are bitwise.
#[test]
fn redux_integer_forms_match_the_sequential_fold() {
    let u = LANES.map(|l| input(l).wrapping_mul(0x0100_0001) | 0x8000_0000);
    let i = LANES.map(|l| input(l) as i32 - 500);
    let out = both()
        .run(async |w: &Warp<'_>| redux_ints(w, u[w.lane_id() as usize], i[w.lane_id() as usize]).await)
        .unwrap();
    let expect = [
        u.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
        i.iter().fold(0i32, |a, &b| a.wrapping_add(b)) as u32,
        *u.iter().min().unwrap(),
        *u.iter().max().unwrap(),
        *i.iter().min().unwrap() as u32,
        *i.iter().max().unwrap() as u32,
        u.iter().fold(u32::MAX, |a, &b| a & b) ^ u.iter().fold(0, |a, &b| a | b),
        i.iter().fold(0i32, |a, &b| a ^ b) as u32,
    ];
    assert!(out.iter().all(|o| *o == expect), "{:?} != {expect:?}", out[0]);
}

#[warp_kernel]
fn redux_floats(w: &Warp, x: f32) -> [f32; 8] {
    [
        w.redux_min(x),
        w.redux_max(x),
        w.redux_min_abs(x),
        w.redux_max_abs(x),
        w.redux_min_nan(x),
        w.redux_max_nan(x),
        w.redux_min_abs_nan(x),
        w.redux_f32(x, FloatRedux { max: true, abs: true, nan: true }),
    ]
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32`: without `.NaN`, NaN inputs are skipped; with it, any
/// NaN input gives the canonical NaN.
#[test]
fn redux_f32_forms_skip_or_propagate_nan() {
    let x = LANES.map(|l| (l as f32 - 20.5) * if l % 2 == 0 { 1.0 } else { -1.0 });
    let out = both().run(async |w: &Warp<'_>| redux_floats(w, x[w.lane_id() as usize]).await).unwrap();
    let min = x.iter().copied().fold(f32::INFINITY, f32::min);
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let amin = x.iter().map(|v| v.abs()).fold(f32::INFINITY, f32::min);
    let amax = x.iter().map(|v| v.abs()).fold(f32::NEG_INFINITY, f32::max);
    assert!(out.iter().all(|o| *o == [min, max, amin, amax, min, max, amin, amax]), "{:?}", out[0]);

    let with_nan = LANES.map(|l| if l == 7 { f32::NAN } else { l as f32 });
    let out = both().run(async |w: &Warp<'_>| redux_floats(w, with_nan[w.lane_id() as usize]).await).unwrap();
    let canonical = f32::from_bits(0x7fff_ffff);
    for o in out {
        assert_eq!((o[0], o[1], o[2], o[3]), (0.0, 31.0, 0.0, 31.0));
        assert!(o[4..].iter().all(|v| v.to_bits() == canonical.to_bits()), "{o:?}");
    }
}

// ---------------------------------------------------------------- activemask, syncwarp, elect, lane masks

#[warp_kernel]
fn branches(w: &Warp) -> (u32, u32) {
    let lane = w.lane_id();
    if lane % 3 == 1 {
        let active = w.activemask();
        w.group(active).syncwarp();
        (active, w.group(active).redux_add(lane))
    } else {
        let active = w.activemask();
        (active, w.group(active).redux_add(lane))
    }
}

/// "activemask inside `if lane % k == r` returns exactly the lanes of the branch taken", and a
/// group over that mask reduces over just those lanes (intrinsics in both arms, partial masks).
#[test]
fn divergent_if_with_partial_masks_in_both_arms() {
    let out = both().run(branches).unwrap();
    let taken = (0..32).filter(|l| l % 3 == 1).fold(0u32, |m, l| m | 1 << l);
    let sum = |mask: u32| (0..32).filter(|l| mask >> l & 1 == 1).sum::<u32>();
    for l in 0..32 {
        let mask = if taken >> l & 1 == 1 { taken } else { !taken };
        assert_eq!(out[l], (mask, sum(mask)), "lane {l}");
    }
}

#[warp_kernel]
fn elect_and_lanemasks(w: &Warp) -> ((u32, bool), (u32, bool), [u32; 5]) {
    let odd = w.group(0xaaaa_aaaa);
    let (leader, me) = w.elect();
    let odd_elect = if w.lane_id() % 2 == 1 { odd.elect() } else { (99, false) };
    ((leader, me), odd_elect, [w.lanemask_eq(), w.lanemask_lt(), w.lanemask_le(), w.lanemask_gt(), w.lanemask_ge()])
}

/// "elect.sync elects the lowest-numbered lane of membermask"; `%lanemask_*` registers.
#[test]
fn elect_picks_the_lowest_lane_and_lane_masks_match_their_definition() {
    let out = both().run(elect_and_lanemasks).unwrap();
    for l in 0..32u32 {
        let bit = 1u32 << l;
        let odd = if l % 2 == 1 { (1, l == 1) } else { (99, false) };
        let masks = [bit, bit - 1, (bit - 1) | bit, !((bit - 1) | bit), !(bit - 1)];
        assert_eq!(out[l as usize], ((0, l == 0), odd, masks), "lane {l}");
    }
}

// ---------------------------------------------------------------- control flow

#[warp_kernel]
fn per_lane_trip_count(w: &Warp) -> Vec<u32> {
    // Lane l iterates l % 4 times; each iteration counts the lanes still in the loop.
    let mut seen = Vec::new();
    let mut i = 0;
    while i < w.lane_id() % 4 {
        let active = w.activemask();
        seen.push(w.group(active).redux_add(1));
        i += 1;
    }
    seen
}

/// Loops whose trip count differs per lane: lanes that left the loop are not in `activemask`.
#[test]
fn loops_with_per_lane_trip_counts() {
    let out = both().run(per_lane_trip_count).unwrap();
    for l in 0..32u32 {
        let expect: Vec<u32> = (0..l % 4).map(|i| (0..32).filter(|k| k % 4 > i).count() as u32).collect();
        assert_eq!(out[l as usize], expect, "lane {l}");
    }
}

#[warp_kernel]
fn early_exit(w: &Warp, x: u32) -> Option<u32> {
    if x >= 16 {
        return None;
    }
    // The lanes that returned have exited: a full-mask instruction completes without them.
    let ballot = w.ballot(true);
    Some(ballot + w.redux_add(x))
}

/// "wait until all non-exited threads in membermask have executed" the instruction.
#[test]
fn early_exit_of_some_lanes() {
    let out = both().run(async |w: &Warp<'_>| early_exit(w, w.lane_id()).await).unwrap();
    for l in 0..32u32 {
        assert_eq!(out[l as usize], (l < 16).then_some(0xffff + (0..16).sum::<u32>()), "lane {l}");
    }
}

#[derive(Debug, PartialEq, Clone, Copy)]
struct Stats {
    rounds: u32,
    total: u32,
}

#[derive(Debug, PartialEq)]
struct Overflow(u32);

/// Intrinsics in conditions, match scrutinees, loop headers, compound assignments, labelled
/// loops with `break` values and `continue`, `?`, blocks as expressions, structs and tuples.
#[warp_kernel]
fn control_flow(w: &Warp, data: &[u32], limit: u32) -> Result<Stats, Overflow> {
    let lane = w.lane_id();
    let mut x = data[lane as usize];
    let mut rounds = 0;
    // Loop header: runs while some lane still has a value above 10.
    while w.any(x > 10) {
        x /= 2;
        rounds += 1;
    }
    let total = 'outer: loop {
        let mut acc = 0u32;
        for off in [16, 8, 4, 2, 1] {
            if off == 4 && w.all(lane < 64) {
                acc += w.shfl_xor(x, off);
                continue;
            }
            acc += w.shfl_xor(x, off);
        }
        // Match scrutinee.
        match w.ballot(acc > limit) {
            0 => break 'outer acc,
            mask => {
                let shadow = { w.redux_or(mask) };
                if shadow != 0 {
                    return Err(Overflow(mask));
                }
            }
        }
    };
    let checked = check_total(w, total)?;
    Ok(Stats { rounds, total: checked })
}

#[warp_kernel]
fn check_total(w: &Warp, total: u32) -> Result<u32, Overflow> {
    if w.match_all(total).1 { Ok(total) } else { Err(Overflow(0)) }
}

#[test]
fn control_flow_forms_all_work() {
    let data: Vec<u32> = (0..32).map(|l| (l * 7) % 40).collect();
    let out = both().run(async |w: &Warp<'_>| control_flow(w, &data, 1000).await).unwrap();
    let mut x = data.clone();
    let mut rounds = 0;
    while x.iter().any(|&v| v > 10) {
        x.iter_mut().for_each(|v| *v /= 2);
        rounds += 1;
    }
    // acc is the sum over the five lanes differing from this one in one bit.
    let acc: Vec<u32> = (0..32).map(|l| [16, 8, 4, 2, 1].iter().map(|&off| x[l ^ off]).sum()).collect();
    assert!(acc.iter().any(|&a| a != acc[0]) && rounds == 2);
    // Every lane's `acc` differs, so `uni` fails and `?` propagates the error from the helper.
    assert!(out.iter().all(|o| *o == Err(Overflow(0))));
    // A limit every lane exceeds takes the early `return` in the match arm.
    let out = both().run(async |w: &Warp<'_>| control_flow(w, &data, 0).await).unwrap();
    assert!(out.iter().all(|o| *o == Err(Overflow(u32::MAX))));
    // Equal values everywhere: `uni` holds and the total comes back.
    let same = vec![6u32; 32];
    let out = both().run(async |w: &Warp<'_>| control_flow(w, &same, 1000).await).unwrap();
    assert!(out.iter().all(|o| *o == Ok(Stats { rounds: 0, total: 30 })));
}

// ---------------------------------------------------------------- helpers calling helpers

#[warp_kernel]
fn warp_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    v += w.shfl_xor(v, 16);
    v += w.shfl_xor(v, 8);
    v += w.shfl_xor(v, 4);
    v += w.shfl_xor(v, 2);
    v += w.shfl_xor(v, 1);
    v
}

/// Inclusive scan; the lanes whose source is out of range add nothing (CUB's predicate use).
#[warp_kernel]
pub fn inclusive_scan(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut offset = 1;
    while offset < 32 {
        let (up, valid) = w.shfl_up_pred(v, offset);
        if valid {
            v += up;
        }
        offset *= 2;
    }
    v
}

/// Normalised prefix: scan divided by the total (helpers calling helpers).
#[warp_kernel]
fn prefix_share<T>(w: &Warp, x: T) -> (u32, u32)
where
    T: Into<u32> + Copy,
{
    let total = warp_sum(w, x.into());
    let prefix = inclusive_scan(w, x.into());
    (prefix, total)
}

#[test]
fn helpers_calling_helpers_with_generics() {
    let x: [u16; 32] = LANES.map(|l| (input(l) % 100) as u16);
    let out = both().run(async |w: &Warp<'_>| prefix_share(w, x[w.lane_id() as usize]).await).unwrap();
    let total: u32 = x.iter().map(|&v| v as u32).sum();
    for l in 0..32 {
        let prefix: u32 = x[..=l].iter().map(|&v| v as u32).sum();
        assert_eq!(out[l], (prefix, total), "lane {l}");
    }
}

/// A reducer with state, as an `impl` block with warp methods.
struct Histogram<'d> {
    bins: u32,
    data: &'d [u32],
}

impl<'d> Histogram<'d> {
    /// How many lanes' values fall in this lane's bin.
    #[warp_kernel]
    fn count(&self, w: &Warp, bin: u32) -> Option<u32> {
        let value = self.data[w.lane_id() as usize] % self.bins;
        let peers = w.match_any(value);
        let bin_lanes = w.ballot(value == bin);
        Self::check(w, peers)?;
        Some(bin_lanes.count_ones())
    }

    #[warp_kernel]
    fn check(w: &Warp, peers: u32) -> Option<u32> {
        // An associated warp fn (no `self`) called as `Self::check(w, ..)`.
        if w.all(peers != 0) { Some(peers) } else { None }
    }

    #[warp_kernel]
    fn all_bins(&self, w: &Warp) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        for bin in 0..self.bins {
            out.push(self.count(w, bin)?);
        }
        Some(out)
    }
}

impl Histogram<'_> {
    fn reference(&self) -> Vec<u32> {
        (0..self.bins).map(|b| self.data.iter().filter(|&&v| v % self.bins == b).count() as u32).collect()
    }
}

#[test]
fn warp_methods_in_impl_blocks() {
    let data = inputs();
    let h = Histogram { bins: 5, data: &data };
    let out = both().run(async |w: &Warp<'_>| h.all_bins(w).await).unwrap();
    assert!(out.iter().all(|o| o.as_deref() == Some(&h.reference()[..])));
}

// ---------------------------------------------------------------- ordinary calls stay ordinary

struct Ballot;
impl Ballot {
    fn ballot(&self, p: bool) -> u32 {
        p as u32 * 7
    }
}

#[warp_kernel]
fn ordinary_calls(w: &Warp, data: &[u32]) -> (bool, u32, u32, u32, u32) {
    let any_big = data.iter().any(|&v| v > 900);
    let smaller = w.lane_id().min(3);
    let mine = Ballot.ballot(true);
    let shadowed = {
        // A local named like the handle shadows it: this is the user's `ballot`.
        let w = Ballot;
        w.ballot(true)
    };
    let h = w; // an alias is a handle too
    (any_big, smaller, mine, shadowed, h.ballot(true))
}

/// `iter.any`, `a.min(b)` and a user's own `ballot` are not warp instructions: the receiver
/// decides, not the name.
#[test]
fn ordinary_calls_stay_ordinary() {
    let data = inputs();
    let out = both().run(async |w: &Warp<'_>| ordinary_calls(w, &data).await).unwrap();
    let any_big = data.iter().any(|&v| v > 900);
    for l in 0..32u32 {
        assert_eq!(out[l as usize], (any_big, l.min(3), 7, 7, u32::MAX), "lane {l}");
    }
}

/// A tile handle passed on to a helper by reference.
#[warp_kernel]
fn tiled(w: &Warp, x: u32) -> u32 {
    let t = w.tile(8);
    warp_sum_tile(&t, x) + warp_sum_tile(&w.tile(16), 0)
}

#[warp_kernel]
fn warp_sum_tile(t: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut off = t.width() / 2;
    while off > 0 {
        v += t.shfl_down(v, off);
        off /= 2;
    }
    t.shfl_idx(v, 0)
}

#[test]
fn tile_handles_pass_to_helpers() {
    let x = inputs();
    let out = both().run(async |w: &Warp<'_>| tiled(w, x[w.lane_id() as usize]).await).unwrap();
    for l in 0..32 {
        let base = l & !7;
        assert_eq!(out[l], x[base..base + 8].iter().sum::<u32>(), "lane {l}");
    }
}

/// A `#[warp_kernel]` fn with only the handle parameter is itself a kernel for `Executor::run`.
#[warp_kernel]
fn lane_sum(w: &Warp) -> u32 {
    warp_sum(w, w.lane_id())
}

#[warp_kernel]
fn lane_count(w: &Warp) -> u32 {
    w.redux_add(1u32)
}

#[test]
fn a_warp_fn_is_a_kernel() {
    assert_eq!(both().run(lane_sum).unwrap(), [496; 32]);
    // A partial warp: the lanes that were never launched count as exited.
    let partial = both().run_partial(0xff, lane_count).unwrap();
    assert_eq!(partial[0], Some(8));
    assert_eq!(partial[8], None);
}

// ---------------------------------------------------------------- blocks

/// CUB's BlockReduce shape with `#[warp_kernel]`: a warp reduction, the warp totals in a shared
/// array, `__syncthreads`, and the first warp reducing them. Barriers and the shared array need
/// no `.await` or declaration beyond the call.
#[warp_kernel]
fn block_sum(w: &Warp, x: u32) -> u32 {
    let totals = w.shared_array::<u32, 32>();
    let warp_total = w.redux_add(x);
    if w.lane_id() == 0 {
        totals.store(w.warp_in_block() as usize, warp_total);
    }
    w.sync_threads();
    let warps = w.block_size().div_ceil(32);
    let mine = if w.lane_id() < warps { totals.load(w.lane_id() as usize) } else { 0 };
    w.redux_add(mine)
}

#[test]
fn a_block_reduction_with_shared_memory_and_sync_threads() {
    for block in [32u32, 100, 256, 1024] {
        let x: Vec<u32> = (0..3 * block).map(input).collect();
        let input = GlobalBuffer::from_slice(&x);
        let xs = input.slice();
        let out = Grid::blocks(3, block)
            .map(async |w: &Warp<'_>| block_sum(w, xs.load((w.block_rank() as u32 * block + w.thread_rank()) as usize)).await)
            .unwrap();
        for (b, chunk) in x.chunks(block as usize).enumerate() {
            let want: u32 = chunk.iter().sum();
            assert!(out[b * block as usize..(b + 1) * block as usize].iter().all(|&s| s == want), "block {b} of {block}");
        }
    }
}

/// Atomics and volatile loads are awaited by the macro like warp instructions, whatever their
/// receiver: a parameter, a field, a shared array. A spin-wait on a flag another warp sets then
/// completes.
struct Flags<'g> {
    ready: GlobalSlice<'g, u32>,
}

#[warp_kernel]
fn hand_off(w: &Warp, flags: &Flags<'_>, counts: GlobalSlice<'_, u32>) -> u32 {
    let local = w.shared_array::<u32, 1>();
    if w.thread_rank() == 0 {
        local.store(0, 0);
    }
    w.sync_threads();
    local.atomic_add(0, 1);
    if w.warp_in_block() == 1 {
        counts.atomic_add(0, 1);
        if w.lane_id() == 0 {
            flags.ready.atomic_exch(0, 1);
        }
        0
    } else {
        let mut spins = 0;
        while flags.ready.load_volatile(0) == 0 {
            spins += 1;
        }
        spins
    }
}

#[test]
fn memory_operations_are_awaited_and_spin_waits_complete() {
    let ready = GlobalBuffer::<u32>::zeroed(1);
    let counts = GlobalBuffer::<u32>::zeroed(1);
    let flags = Flags { ready: ready.slice() };
    let c = counts.slice();
    for schedule in [Schedule::InOrder, Schedule::Random { seed: 3 }, Schedule::pct(5, 2)] {
        ready.slice().store(0, 0);
        counts.slice().store(0, 0);
        let out = Grid::blocks(1, 64).schedule(schedule).map(async |w: &Warp<'_>| hand_off(w, &flags, c).await).unwrap();
        assert_eq!(counts.to_vec(), [32], "{schedule}");
        assert!(out[32..].iter().all(|&s| s == 0), "{schedule}");
        assert!(out[..32].iter().all(|&s| s == out[0]), "warp 0's lanes spin together: {schedule}");
    }
}

/// A divergent `__syncthreads` written with `#[warp_kernel]` is reported with the user's two
/// call sites.
#[warp_kernel]
fn divergent_sync(w: &Warp) {
    if w.lane_id() % 2 == 0 {
        w.sync_threads();
    } else {
        w.sync_threads();
    }
}

#[test]
fn a_divergent_sync_threads_names_both_call_sites() {
    let err = Grid::blocks(1, 64).run(divergent_sync).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("an aligned barrier is reached by one warp's threads from different barrier instructions"), "{text}");
    let sites: Vec<_> = text.lines().filter(|l| l.contains("waiting at `bar.sync`")).collect();
    assert!(sites.len() >= 2 && sites.iter().all(|l| l.contains("tests/kernels.rs")), "{text}");
}

/// A formatting macro may take a handle by itself (it is only formatted); a macro that is given
/// the handle otherwise is a compile error (`tests/ui/context/handle-passed-to-user-macro.rs`).
#[warp_kernel]
fn describe(w: &Warp) -> String {
    let t = w.tile(8);
    assert!(t.width() == 8, "{:?}", t);
    format!("{:?} {:?}", w, w.tile(8))
}

#[test]
fn a_handle_can_be_formatted_in_a_kernel() {
    let out = both().run(describe).unwrap();
    assert!(out[3].starts_with("Warp { lane: 3,") && out[3].ends_with("width: 8 }"), "{}", out[3]);
}

// ---------------------------------------------------------------- helpers: one instruction per call

// On a GPU a warp function is inlined at each call, so a helper's instruction called from two
// places is two instructions: lanes reaching it through different calls do not execute it
// together. Each expectation below is the plain rule, "`activemask` returns the lanes executing
// this instruction together" (PTX: "activemask queries predicated-on active threads from the
// executing warp"; on the H100, `activemask` in `if lane % k == r { .. } else { .. }` returned
// exactly the lanes of the arm taken), with one instruction per call of the helper.

/// `{ k : pred(k) }` as a mask.
fn lanes_where(pred: impl Fn(u32) -> bool) -> u32 {
    (0..32).filter(|&k| pred(k)).fold(0, |m, k| m | 1 << k)
}

#[warp_kernel]
fn am(w: &Warp) -> u32 {
    w.activemask()
}

#[warp_kernel]
fn am_in_both_arms(w: &Warp) -> u32 {
    if w.lane_id() % 2 == 0 { am(w) } else { am(w) }
}

/// The issue-13 shape: the helper from both arms of an `if` returns each arm's lanes
/// (0x55555555 to even lanes, 0xaaaaaaaa to odd ones), as the two inlined copies do on a GPU.
#[test]
fn a_helper_called_from_both_arms_is_two_instructions() {
    for target in [Target::SM_60, Target::SM_70, Target::SM_90] {
        let out = both().target(target).run(am_in_both_arms).unwrap();
        for l in 0..32 {
            assert_eq!(out[l], if l % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa }, "lane {l} on {target}");
        }
    }
}

#[warp_kernel]
fn legacy_ballot(w: &Warp) -> u32 {
    w.vote_legacy(VoteMode::Ballot, true)
}

#[warp_kernel]
fn legacy_ballot_in_both_arms(w: &Warp) -> u32 {
    if w.lane_id() < 12 { legacy_ballot(w) } else { legacy_ballot(w) }
}

/// The deprecated `vote` (no membermask) "performs a reduction of the source predicate across
/// all active threads in a warp": through a helper called from both arms, each arm's threads.
#[test]
fn a_legacy_vote_helper_called_from_both_arms_votes_per_arm() {
    let out = both().target(Target::SM_60).run(legacy_ballot_in_both_arms).unwrap();
    for l in 0..32 {
        assert_eq!(out[l], if l < 12 { 0x0000_0fff } else { 0xffff_f000 }, "lane {l}");
    }
}

/// The mask of the lanes at this call, and the `tag` of the lowest of them: lanes of two calls
/// taken for one instruction would mix tags.
#[warp_kernel]
fn tagged(w: &Warp, tag: u32) -> (u32, u32) {
    let m = w.activemask();
    (m, w.group(m).shfl_idx(tag, m.trailing_zeros()))
}

#[warp_kernel]
fn twice_in_one_arm(w: &Warp) -> [(u32, u32); 2] {
    if w.lane_id() < 8 {
        [tagged(w, 1), tagged(w, 2)]
    } else {
        // Two instructions more first (as many as `tagged` has): this arm's first call comes
        // when the other arm makes its second.
        w.group(0xffff_ff00).syncwarp();
        w.group(0xffff_ff00).syncwarp();
        [tagged(w, 1), tagged(w, 2)]
    }
}

/// A helper called twice in a row from one arm is two instructions, executed in order, neither
/// of them the other arm's calls: lanes 0-7 make their second call while lanes 8-31 make their
/// first (same instruction inside the helper, reached through different calls).
#[test]
fn a_helper_called_twice_in_one_arm_is_two_instructions_in_order() {
    for target in [Target::SM_70, Target::SM_90] {
        let out = both().target(target).run(twice_in_one_arm).unwrap();
        for l in 0..32 {
            let arm = if l < 8 { 0x0000_00ff } else { 0xffff_ff00 };
            assert_eq!(out[l], [(arm, 1), (arm, 2)], "lane {l} on {target}");
        }
    }
}

#[warp_kernel]
fn am_in_a_loop(w: &Warp) -> Vec<u32> {
    let lane = w.lane_id();
    let mut seen = Vec::new();
    for _ in 0..lane % 4 {
        seen.push(if lane % 2 == 0 { am(w) } else { am(w) });
    }
    seen
}

/// In a loop whose trip count differs per lane (lane `l` iterates `l % 4` times), iteration `i`
/// of each arm's call is executed by the lanes of that arm still in the loop.
#[test]
fn a_helper_called_in_a_loop_is_one_instruction_per_call_site() {
    let out = both().run(am_in_a_loop).unwrap();
    for l in 0..32u32 {
        let want: Vec<u32> = (0..l % 4).map(|i| lanes_where(|k| k % 4 > i && k % 2 == l % 2)).collect();
        assert_eq!(out[l as usize], want, "lane {l}");
    }
}

#[warp_kernel]
fn am_by_quarter(w: &Warp) -> u32 {
    if w.lane_id() / 2 % 2 == 0 { am(w) } else { am(w) }
}

#[warp_kernel]
fn nested_helpers(w: &Warp) -> u32 {
    if w.lane_id() % 2 == 0 { am_by_quarter(w) } else { am_by_quarter(w) }
}

/// A helper calling a helper: four inlined copies of the `activemask`, one for each pair of
/// arms, each executed by the lanes congruent mod 4.
#[test]
fn nested_helpers_are_one_instruction_per_call_path() {
    let out = both().run(nested_helpers).unwrap();
    for l in 0..32u32 {
        assert_eq!(out[l as usize], 0x1111_1111 << (l % 4), "lane {l}");
    }
}

#[warp_kernel]
fn full_ballot(w: &Warp, p: bool) -> u32 {
    w.ballot(p)
}

#[warp_kernel]
fn after_the_arms(w: &Warp) -> (u32, u32, u32) {
    let arm = if w.lane_id() % 2 == 0 { am(w) } else { am(w) };
    (arm, am(w), full_ballot(w, w.lane_id() < 3))
}

/// A call's path ends when the helper returns: below sm_70 "a warp that diverged reconverges" at
/// the end of the `if`, and after it the helpers' instructions are executed by the whole warp
/// (a full-mask `vote.sync` in a helper is converged, not two instructions).
#[test]
fn a_calls_path_ends_when_the_helper_returns() {
    for target in [Target::SM_60, Target::SM_90] {
        let out = both().target(target).run(after_the_arms).unwrap();
        for l in 0..32 {
            let arm = if l % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa };
            assert_eq!(out[l], (arm, u32::MAX, 0b111), "lane {l} on {target}");
        }
    }
}
