//! Properties of every instruction family against the plain model in `model/mod.rs`, over random
//! membermask partitions (disjoint groups running at once), predicates, operands, values, partial
//! warps and lanes that return before the instruction.

mod model;

use model::{bits, partition_masks, shfl_route, IntOp, INT_OPS};
use proptest::array::uniform32;
use proptest::prelude::*;
use warp_runtime::{Executor, FloatRedux, ShflFault, ShflMode, VoteMode, Warp, WarpError, FULL_MASK};

const MODES: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
const VOTE_MODES: [VoteMode; 4] = [VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot];

/// Group ids: one group, two, four, or up to 32 small groups.
fn ids() -> impl Strategy<Value = [u8; 32]> {
    prop_oneof![Just([0u8; 32]), uniform32(0u8..2), uniform32(0u8..4), uniform32(0u8..32)]
}

/// Launched lanes: usually all, sometimes a random partial warp.
fn launched() -> impl Strategy<Value = u32> {
    prop_oneof![3 => Just(FULL_MASK), 1 => any::<u32>()]
}

/// Lanes that return before the instruction: none, few, or many.
fn exits() -> impl Strategy<Value = u32> {
    prop_oneof![2 => Just(0u32), 1 => (any::<u32>(), any::<u32>()).prop_map(|(a, b)| a & b), 1 => any::<u32>()]
}

/// `c` operands: 13-bit, full 32-bit, or CUDA width values.
fn c_operands() -> impl Strategy<Value = [u32; 32]> {
    prop_oneof![
        uniform32(0u32..0x2000),
        uniform32(any::<u32>()),
        (0usize..4, 0u32..6).prop_map(|(m, k)| [model::cuda_c(MODES[m], 1 << k); 32]),
    ]
}

fn b_operands() -> impl Strategy<Value = [u32; 32]> {
    prop_oneof![uniform32(any::<u32>()), uniform32(0u32..40), (0u32..64).prop_map(|b| [b; 32])]
}

/// Lanes that are active at the instruction.
fn alive(launched: u32, exits: u32) -> u32 {
    launched & !exits
}

type ShflOut = Result<[Option<(u64, bool)>; 32], WarpError>;

fn run_shfl(mode: ShflMode, wide: bool, masks: &[u32; 32], launched: u32, exits: u32, a: &[u64; 32], b: &[u32; 32], c: &[u32; 32]) -> ShflOut {
    Executor::new().run_partial(launched, async |w: &Warp<'_>| {
        let l = w.lane_id() as usize;
        if exits >> l & 1 == 1 {
            return None;
        }
        let g = w.group(masks[l]);
        Some(if wide {
            let (d, p) = g.shfl(mode, a[l], b[l], c[l]).await;
            (d, p)
        } else {
            let (d, p) = g.shfl(mode, a[l] as u32, b[l], c[l]).await;
            (u64::from(d), p)
        })
    })
    .map(|r| r.map(Option::flatten))
}

/// The model's faults of every group: `(lane, source, not_in_mask, exited, launched)`, by group mask.
fn model_faults(mode: ShflMode, masks: &[u32; 32], launched: u32, live: u32, b: &[u32; 32], c: &[u32; 32]) -> Vec<(u32, Vec<ShflFault>)> {
    let mut groups: Vec<u32> = bits(live).into_iter().map(|l| masks[l as usize]).collect();
    groups.sort();
    groups.dedup();
    groups
        .into_iter()
        .map(|m| {
            let (_, bad) = shfl_route(mode, b, c, m & live);
            let faults = bad.into_iter().map(|(lane, source)| ShflFault { lane, source, not_in_mask: m >> source & 1 == 0, exited: live >> source & 1 == 0, launched: launched >> source & 1 == 1 }).collect();
            (m, faults)
        })
        .collect()
}

fn expected_shfl(mode: ShflMode, wide: bool, masks: &[u32; 32], live: u32, a: &[u64; 32], b: &[u32; 32], c: &[u32; 32]) -> [Option<(u64, bool)>; 32] {
    core::array::from_fn(|l| {
        if live >> l & 1 == 0 {
            return None;
        }
        let (route, _) = shfl_route(mode, b, c, masks[l] & live);
        let (j, p) = route[l];
        let v = a[j as usize];
        Some((if wide { v } else { v & 0xffff_ffff }, p))
    })
}

/// An f32 bit pattern: zeros, infinities, NaNs of every sign and payload, small values that
/// collide, or random bits.
fn special_f32(kind: u8, r: u32) -> u32 {
    match kind {
        0 => 0,
        1 => 0x8000_0000,
        2 => 0x7f80_0000,
        3 => 0xff80_0000,
        4 => 0x7fc0_0000,
        5 => 0xffc0_0000,
        6 => 0x7f80_0001 + r % 0x7f_ffff, // positive NaN payloads
        7 => 0xff80_0001 + r % 0x7f_ffff, // negative NaN payloads
        8 => (((r % 4) as f32) - 1.5).to_bits(),
        _ => r,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1536))]

    /// Valid shuffles (every lane with p true sources a participant) give the model's values.
    #[test]
    fn shfl_valid_matches_model(
        mode in 0usize..4, wide: bool, ids in ids(), launched in launched(), exits in exits(),
        a in uniform32(any::<u64>()), b in b_operands(), c in c_operands(),
    ) {
        let mode = MODES[mode];
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        // Repair lanes whose source would be invalid: b = 0 (mod 32) reads the lane itself, and
        // for .idx a full segment mask makes j = lane.
        let (mut b, mut c) = (b, c);
        for (m, faults) in model_faults(mode, &masks, launched, live, &b, &c) {
            let _ = m;
            for f in faults {
                b[f.lane as usize] &= !31;
                if mode == ShflMode::Idx {
                    c[f.lane as usize] |= 0x1f00;
                }
            }
        }
        prop_assert!(model_faults(mode, &masks, launched, live, &b, &c).iter().all(|(_, f)| f.is_empty()));
        let got = run_shfl(mode, wide, &masks, launched, exits, &a, &b, &c);
        prop_assert!(got.is_ok(), "{:?}", got.err());
        prop_assert_eq!(got.unwrap(), expected_shfl(mode, wide, &masks, live, &a, &b, &c));
    }

    /// The runtime reports InvalidShflSource exactly when some participant's source is not a
    /// participant, with exactly the faults of one offending group.
    #[test]
    fn shfl_invalid_source_reported_exactly_when_model_says(
        mode in 0usize..4, wide: bool, ids in ids(), launched in launched(), exits in exits(),
        a in uniform32(any::<u64>()), b in b_operands(), c in c_operands(),
    ) {
        let mode = MODES[mode];
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let model = model_faults(mode, &masks, launched, live, &b, &c);
        let got = run_shfl(mode, wide, &masks, launched, exits, &a, &b, &c);
        if model.iter().all(|(_, f)| f.is_empty()) {
            prop_assert!(got.is_ok(), "{:?}", got.err());
            prop_assert_eq!(got.unwrap(), expected_shfl(mode, wide, &masks, live, &a, &b, &c));
        } else {
            match got {
                Err(WarpError::InvalidShflSource { faults, .. }) => {
                    prop_assert!(!faults.is_empty());
                    let group = masks[faults[0].lane as usize];
                    let mut want = model.iter().find(|(m, _)| *m == group).unwrap().1.clone();
                    let mut faults = faults;
                    faults.sort_by_key(|f| f.lane);
                    want.sort_by_key(|f| f.lane);
                    prop_assert_eq!(faults, want);
                }
                other => prop_assert!(false, "expected InvalidShflSource, got {:?}", other.map(|_| ())),
            }
        }
    }

    /// The CUDA-style forms on tiles: up/down/idx never leave the tile; xor with bits above the
    /// width reads an earlier tile, outside the tile's membermask: undefined, and reported.
    #[test]
    fn tile_shfl_forms_match_model(mode in 0usize..4, k in 0u32..6, b in uniform32(any::<u32>()), a in uniform32(any::<u32>())) {
        let mode = MODES[mode];
        let width = 1u32 << k;
        let got = Executor::new().run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            let t = w.tile(width);
            match mode {
                ShflMode::Up => t.shfl_up_pred(a[l], b[l]).await,
                ShflMode::Down => t.shfl_down_pred(a[l], b[l]).await,
                ShflMode::Bfly => t.shfl_xor_pred(a[l], b[l]).await,
                ShflMode::Idx => t.shfl_idx_pred(a[l], b[l]).await,
            }
        });
        let c = [model::cuda_c(mode, width); 32];
        let masks: [u32; 32] = core::array::from_fn(|l| {
            let base = l as u32 / width * width;
            (((1u64 << width) - 1) as u32) << base
        });
        let bad: Vec<u32> = (0..32u32).filter(|&l| {
            let (j, p) = model::shfl_src(mode, l, b[l as usize], c[0]);
            p && masks[l as usize] >> j & 1 == 0
        }).collect();
        if bad.is_empty() {
            let got = got.unwrap();
            for l in 0..32u32 {
                let (j, p) = model::shfl_src(mode, l, b[l as usize], c[0]);
                prop_assert_eq!(got[l as usize], (a[j as usize], p), "lane {}", l);
            }
        } else {
            prop_assert_eq!(mode, ShflMode::Bfly);
            // Each tile's shuffle is its own instruction; the run stops at the first undefined one
            // (the tile of the lowest faulting lane), and its report names exactly that tile's
            // faulting lanes, with their sources.
            let Err(WarpError::InvalidShflSource { faults, .. }) = got else {
                return Err(TestCaseError::fail(format!("expected InvalidShflSource, got {got:?}")));
            };
            let reported: Vec<(u32, u32)> = faults.iter().map(|f| (f.lane, f.source)).collect();
            let first_tile = masks[bad[0] as usize];
            let expected: Vec<(u32, u32)> = bad
                .iter()
                .filter(|&&l| masks[l as usize] == first_tile)
                .map(|&l| (l, model::shfl_src(mode, l, b[l as usize], c[0]).0))
                .collect();
            prop_assert_eq!(reported, expected);
        }
    }

    /// `__shfl_*_sync(FULL_MASK, v, b, width)` follows CUDA's documented width behaviour.
    #[test]
    fn sync_forms_full_mask_match_cuda_width_rule(k in 0u32..6, b in uniform32(any::<u32>()), a in uniform32(any::<i32>())) {
        let width = 1u32 << k;
        let got = Executor::new().run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            [
                w.shfl_up_sync(FULL_MASK, a[l], b[l], width).await,
                w.shfl_down_sync(FULL_MASK, a[l], b[l], width).await,
                w.shfl_xor_sync(FULL_MASK, a[l], b[l], width).await,
                w.shfl_idx_sync(FULL_MASK, a[l], b[l], width).await,
            ]
        }).unwrap();
        for l in 0..32u32 {
            for (i, mode) in MODES.into_iter().enumerate() {
                let (j, _) = model::cuda_width_src(mode, l, b[l as usize], width);
                prop_assert_eq!(got[l as usize][i], a[j as usize], "{:?} lane {} width {}", mode, l, width);
            }
        }
    }

    /// vote.sync on disjoint groups with exits and partial warps.
    #[test]
    fn vote_matches_model(ids in ids(), launched in launched(), exits in exits(), preds: u32, negate: u32, modes in uniform32(0usize..4)) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            // One mode per group (the group's lowest lane picks it), each lane its own {!}.
            let mode = VOTE_MODES[modes[masks[l].trailing_zeros() as usize]];
            Some(w.group(masks[l]).vote(mode, preds >> l & 1 == 1, negate >> l & 1 == 1).await)
        }).unwrap();
        for l in 0..32usize {
            let want = (live >> l & 1 == 1).then(|| {
                let mode = VOTE_MODES[modes[masks[l].trailing_zeros() as usize]];
                model::vote(mode, preds ^ negate, masks[l] & live)
            });
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// The named vote forms agree with the model too.
    #[test]
    fn named_vote_forms_match_model(ids in ids(), launched in launched(), exits in exits(), preds: u32) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            let g = w.group(masks[l]);
            let p = preds >> l & 1 == 1;
            Some((g.all(p).await, g.any(p).await, g.uni(p).await, g.ballot(p).await, g.none(p).await, g.not_all(p).await))
        }).unwrap();
        for l in 0..32usize {
            let m = masks[l] & live;
            let want = (live >> l & 1 == 1).then(|| (
                model::vote(VoteMode::All, preds, m) == 1,
                model::vote(VoteMode::Any, preds, m) == 1,
                model::vote(VoteMode::Uni, preds, m) == 1,
                model::vote(VoteMode::Ballot, preds, m),
                model::vote(VoteMode::All, !preds, m) == 1,
                model::vote(VoteMode::Any, !preds, m) == 1,
            ));
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// match.any / match.all on b32 and b64 values from a small alphabet (so that matches occur),
    /// including values that differ only in the high word.
    #[test]
    fn match_matches_model(ids in ids(), launched in launched(), exits in exits(), lo in uniform32(0u64..3), hi in uniform32(0u64..3), wide in uniform32(any::<bool>())) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let wide_of = |l: usize| wide[masks[l].trailing_zeros() as usize];
        let vals: [u64; 32] = core::array::from_fn(|l| if wide_of(l) { hi[l] << 32 | lo[l] } else { hi[l] << 16 | lo[l] });
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            let g = w.group(masks[l]);
            Some(if wide_of(l) {
                (g.match_any(vals[l]).await, g.match_all(vals[l] as i64).await)
            } else {
                (g.match_any(vals[l] as u32).await, g.match_all(f32::from_bits(vals[l] as u32)).await)
            })
        }).unwrap();
        for l in 0..32usize {
            let m = masks[l] & live;
            let want = (live >> l & 1 == 1).then(|| (model::match_any(&vals, m, l as u32), model::match_all(&vals, m)));
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// Integer and bitwise redux.sync, one operation per group.
    #[test]
    fn redux_int_matches_model(ids in ids(), launched in launched(), exits in exits(), vals in prop_oneof![uniform32(any::<u32>()), uniform32(0u32..8), uniform32(0x7fff_fffcu32..0x8000_0004)], ops in uniform32(0usize..9)) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let op_of = |l: usize| INT_OPS[ops[masks[l].trailing_zeros() as usize]];
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            let g = w.group(masks[l]);
            let x = vals[l];
            Some(match op_of(l) {
                IntOp::AddU => g.redux_add(x).await,
                IntOp::AddS => g.redux_add(x as i32).await as u32,
                IntOp::MinU => g.redux_min(x).await,
                IntOp::MinS => g.redux_min(x as i32).await as u32,
                IntOp::MaxU => g.redux_max(x).await,
                IntOp::MaxS => g.redux_max(x as i32).await as u32,
                IntOp::And => g.redux_and(x).await,
                IntOp::Or => g.redux_or(x as i32).await as u32,
                IntOp::Xor => g.redux_xor(x).await,
            })
        }).unwrap();
        for l in 0..32usize {
            let want = (live >> l & 1 == 1).then(|| model::redux_int(op_of(l), &vals, masks[l] & live));
            prop_assert_eq!(got[l].flatten(), want, "lane {} op {:?}", l, op_of(l));
        }
    }

    /// f32 redux.sync with every qualifier combination over special and random values.
    #[test]
    fn redux_f32_matches_model(
        ids in ids(), launched in launched(), exits in exits(),
        vals in uniform32((0u8..10, any::<u32>()).prop_map(|(k, r)| special_f32(k, r))),
        quals in uniform32(0u8..8),
    ) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let q_of = |l: usize| {
            let q = quals[masks[l].trailing_zeros() as usize];
            FloatRedux { max: q & 1 != 0, abs: q & 2 != 0, nan: q & 4 != 0 }
        };
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            Some(w.group(masks[l]).redux_f32(f32::from_bits(vals[l]), q_of(l)).await.to_bits())
        }).unwrap();
        for l in 0..32usize {
            let q = q_of(l);
            let want = (live >> l & 1 == 1).then(|| model::redux_f32(q.max, q.abs, q.nan, &vals, masks[l] & live));
            prop_assert_eq!(got[l].flatten(), want, "lane {} {:?}", l, q);
        }
    }

    /// elect.sync: the lowest non-exited lane of each membermask leads.
    #[test]
    fn elect_matches_model(ids in ids(), launched in launched(), exits in exits()) {
        let masks = partition_masks(&ids);
        let live = alive(launched, exits);
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            Some(w.group(masks[l]).elect().await)
        }).unwrap();
        for l in 0..32usize {
            let want = (live >> l & 1 == 1).then(|| {
                let leader = bits(masks[l] & live)[0];
                (leader, leader == l as u32)
            });
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// activemask: lanes taking the same one of four branches see exactly each other.
    #[test]
    fn activemask_is_the_branch_taken(branch in uniform32(0u8..4), launched in launched(), exits in exits()) {
        let live = alive(launched, exits);
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            Some(match branch[l] {
                0 => w.activemask().await,
                1 => w.activemask().await,
                2 => w.activemask().await,
                _ => w.activemask().await,
            })
        }).unwrap();
        for l in 0..32usize {
            let want = (live >> l & 1 == 1).then(|| (0..32).filter(|&o| branch[o] == branch[l] && live >> o & 1 == 1).map(|o| 1u32 << o).sum::<u32>());
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// Two steps with different partitions and lanes returning in between: a ballot on one
    /// partition, then a sum of the ballots on another, over the lanes still running.
    #[test]
    fn two_steps_with_exits_between(ids1 in ids(), ids2 in ids(), launched in launched(), exits1 in exits(), exits2 in exits(), preds: u32) {
        let (m1, m2) = (partition_masks(&ids1), partition_masks(&ids2));
        let live1 = alive(launched, exits1);
        let live2 = live1 & !exits2;
        let got = Executor::new().run_partial(launched, async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits1 >> l & 1 == 1 {
                return None;
            }
            let ballot = w.group(m1[l]).ballot(preds >> l & 1 == 1).await;
            if exits2 >> l & 1 == 1 {
                return Some((ballot, None));
            }
            Some((ballot, Some(w.group(m2[l]).redux_add(ballot.count_ones()).await)))
        }).unwrap();
        let ballot_of = |l: usize| model::vote(VoteMode::Ballot, preds, m1[l] & live1);
        for l in 0..32usize {
            let want = (live1 >> l & 1 == 1).then(|| {
                let sum = (live2 >> l & 1 == 1).then(|| bits(m2[l] & live2).into_iter().map(|o| ballot_of(o as usize).count_ones()).sum::<u32>());
                (ballot_of(l), sum)
            });
            prop_assert_eq!(got[l].flatten(), want, "lane {}", l);
        }
    }

    /// "Results of warp instructions never depend on" the lane polling order.
    #[test]
    fn results_do_not_depend_on_lane_order(ids in ids(), launched in launched(), exits in exits(), a in uniform32(any::<u32>()), b in uniform32(0u32..32), seed: u64) {
        let masks = partition_masks(&ids);
        let kernel = async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            if exits >> l & 1 == 1 {
                return None;
            }
            let g = w.group(masks[l]);
            let m = g.match_any(a[l] % 4).await;
            let s = g.redux_add(a[l]).await;
            let (e, p) = g.elect().await;
            // .idx with a full segment mask reads the lane itself: always valid.
            let (v, q) = g.shfl(ShflMode::Idx, a[l] ^ s, b[l], 0x1f00).await;
            Some((m, s, e, p, v, q, w.activemask().await))
        };
        let base = Executor::new().run_partial(launched, kernel).unwrap();
        for order in [warp_runtime::LaneOrder::Descending, warp_runtime::LaneOrder::Seeded(seed)] {
            let other = Executor::new().order(order).run_partial(launched, kernel).unwrap();
            prop_assert_eq!(other, base, "{:?}", order);
        }
    }
}
