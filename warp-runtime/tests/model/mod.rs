//! The plain reference model the acceptance tests compare the runtime against.
//!
//! Written from the PTX ISA text in `shared/spec/` alone; it does not call
//! `warp_runtime::semantics`. Each function quotes the sentence it follows.
#![allow(dead_code)]

use warp_runtime::{ShflMode, VoteMode};

/// Lanes of a mask, lowest first.
pub fn bits(mask: u32) -> Vec<u32> {
    (0..32).filter(|l| mask >> l & 1 == 1).collect()
}

/// `shfl.sync` source lane and predicate, from the PTX pseudo-code:
///
/// ```text
/// lane[4:0] = [Thread].laneid; bval[4:0] = b[4:0]; cval[4:0] = c[4:0]; segmask[4:0] = c[12:8];
/// maxLane = (lane & segmask) | (cval & ~segmask); minLane = (lane & segmask);
/// up: j = lane - bval; pval = (j >= maxLane);   down: j = lane + bval; pval = (j <= maxLane);
/// bfly: j = lane ^ bval; pval = (j <= maxLane); idx: j = minLane | (bval[4:0] & ~segmask[4:0]); pval = (j <= maxLane);
/// if (!pval) j = lane;
/// ```
pub fn shfl_src(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = i64::from(lane & 31);
    let bval = i64::from(b % 32);
    let cval = i64::from(c % 32);
    let segmask = i64::from((c / 256) % 32);
    let not_seg = 31 - segmask; // ~segmask restricted to 5 bits
    let max_lane = (lane & segmask) | (cval & not_seg);
    let min_lane = lane & segmask;
    let (j, p) = match mode {
        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
        ShflMode::Idx => (min_lane | (bval & not_seg), (min_lane | (bval & not_seg)) <= max_lane),
    };
    if p {
        assert!((0..32).contains(&j));
        (j as u32, true)
    } else {
        (lane as u32, false)
    }
}

/// CUDA's `c` operand for `__shfl_*_sync(.., width)`: `((32 - width) << 8)` for up, `| 0x1f` for
/// the others (from the CUDA headers `__shfl_up_sync` / `__shfl_down_sync` / ...).
pub fn cuda_c(mode: ShflMode, width: u32) -> u32 {
    let seg = (32 - width) << 8;
    match mode {
        ShflMode::Up => seg,
        _ => seg | 0x1f,
    }
}

/// CUDA's documented width behaviour, written without the pseudo-code: lanes are split into
/// segments of `width`; up/down read `delta` lanes away within the segment (else own value);
/// xor reads `lane ^ m` unless that lies in a later segment; idx reads lane `src % width` of the
/// segment.
pub fn cuda_width_src(mode: ShflMode, lane: u32, b: u32, width: u32) -> (u32, bool) {
    let base = lane / width * width;
    let b = b % 32;
    match mode {
        ShflMode::Up => {
            if lane >= base + b {
                (lane - b, true)
            } else {
                (lane, false)
            }
        }
        ShflMode::Down => {
            if lane + b < base + width {
                (lane + b, true)
            } else {
                (lane, false)
            }
        }
        ShflMode::Bfly => {
            let j = lane ^ b;
            if j < base + width {
                (j, true)
            } else {
                (lane, false)
            }
        }
        ShflMode::Idx => (base + b % width, true),
    }
}

/// Per-participant result of one shfl: `(source, p)`; and the participants whose p is true
/// but whose source is not a participant ("Sourcing from an inactive thread or one not in
/// membermask is undefined").
pub fn shfl_route(mode: ShflMode, b: &[u32; 32], c: &[u32; 32], participants: u32) -> ([(u32, bool); 32], Vec<(u32, u32)>) {
    let mut out = [(0, false); 32];
    let mut bad = Vec::new();
    for l in bits(participants) {
        let (j, p) = shfl_src(mode, l, b[l as usize], c[l as usize]);
        out[l as usize] = (j, p);
        if p && participants >> j & 1 == 0 {
            bad.push((l, j));
        }
    }
    (out, bad)
}

/// `vote.sync` over the non-exited lanes of membermask (`participants`), predicates `preds`:
/// ".all: True if source predicate is True for all non-exited threads in membermask";
/// ".any: True if source predicate is True for some thread in membermask";
/// ".uni: True if source predicate has the same value in all non-exited threads in membermask";
/// ".ballot: copies the predicate from each thread in membermask into the corresponding bit
/// position ... A thread not specified in membermask will contribute a 0".
pub fn vote(mode: VoteMode, preds: u32, participants: u32) -> u32 {
    let ps: Vec<bool> = bits(participants).into_iter().map(|l| preds >> l & 1 == 1).collect();
    match mode {
        VoteMode::All => ps.iter().all(|&p| p) as u32,
        VoteMode::Any => ps.iter().any(|&p| p) as u32,
        VoteMode::Uni => (ps.iter().all(|&p| p) || ps.iter().all(|&p| !p)) as u32,
        VoteMode::Ballot => bits(participants).into_iter().filter(|&l| preds >> l & 1 == 1).map(|l| 1u32 << l).sum(),
    }
}

/// `match.any`: "d is set to mask of non-exited threads in membermask that have same value of
/// operand a".
pub fn match_any(values: &[u64; 32], participants: u32, lane: u32) -> u32 {
    bits(participants).into_iter().filter(|&o| values[o as usize] == values[lane as usize]).map(|o| 1u32 << o).sum()
}

/// `match.all`: "d is set to mask corresponding to non-exited threads in membermask if all
/// non-exited threads in membermask have same value of operand a; otherwise d is set to 0";
/// p likewise.
pub fn match_all(values: &[u64; 32], participants: u32) -> (u32, bool) {
    let ls = bits(participants);
    let same = ls.iter().all(|&o| values[o as usize] == values[ls[0] as usize]);
    if same {
        (participants, true)
    } else {
        (0, false)
    }
}

/// Integer redux ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    AddU,
    AddS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
}

pub const INT_OPS: [IntOp; 9] = [IntOp::AddU, IntOp::AddS, IntOp::MinU, IntOp::MinS, IntOp::MaxU, IntOp::MaxS, IntOp::And, IntOp::Or, IntOp::Xor];

/// `redux.sync` on integers: ".add result is truncated to 32 bits"; .s32 compares signed.
pub fn redux_int(op: IntOp, values: &[u32; 32], participants: u32) -> u32 {
    let vs: Vec<u32> = bits(participants).into_iter().map(|l| values[l as usize]).collect();
    match op {
        IntOp::AddU | IntOp::AddS => (vs.iter().map(|&v| u64::from(v)).sum::<u64>() % (1u64 << 32)) as u32,
        IntOp::MinU => *vs.iter().min().unwrap(),
        IntOp::MaxU => *vs.iter().max().unwrap(),
        IntOp::MinS => vs.iter().map(|&v| v as i32).min().unwrap() as u32,
        IntOp::MaxS => vs.iter().map(|&v| v as i32).max().unwrap() as u32,
        IntOp::And => vs.iter().fold(!0, |a, &v| a & v),
        IntOp::Or => vs.iter().fold(0, |a, &v| a | v),
        IntOp::Xor => vs.iter().fold(0, |a, &v| a ^ v),
    }
}

pub const CANONICAL_NAN: u32 = 0x7fff_ffff;

/// `a < b` on non-NaN f32 with "+0.0 > -0.0".
fn f32_less(a: f32, b: f32) -> bool {
    if a == 0.0 && b == 0.0 {
        a.is_sign_negative() && b.is_sign_positive()
    } else {
        a < b
    }
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32`: ".abs: the absolute value of the input is
/// considered"; ".NaN: result is canonical NaN if the input ... from any participating thread is
/// NaN"; "In the absence of .NaN qualifier, only non-NaN values are considered ... and the result
/// will be canonical NaN when all inputs are NaNs"; "+0.0 > -0.0". Returns bits.
pub fn redux_f32(max: bool, abs: bool, nan: bool, values: &[u32; 32], participants: u32) -> u32 {
    let mut xs: Vec<f32> = bits(participants)
        .into_iter()
        .map(|l| {
            let bits = values[l as usize];
            f32::from_bits(if abs { bits & 0x7fff_ffff } else { bits })
        })
        .collect();
    if nan && xs.iter().any(|x| x.is_nan()) {
        return CANONICAL_NAN;
    }
    xs.retain(|x| !x.is_nan());
    let Some(&first) = xs.first() else { return CANONICAL_NAN };
    let mut best = first;
    for &x in &xs[1..] {
        let better = if max { f32_less(best, x) } else { f32_less(x, best) };
        if better {
            best = x;
        }
    }
    best.to_bits()
}

/// A random partition of the 32 lanes into membermasks: lane `l` belongs to group `ids[l]`.
pub fn partition_masks(ids: &[u8; 32]) -> [u32; 32] {
    core::array::from_fn(|l| (0..32).filter(|&o| ids[o] == ids[l]).map(|o| 1u32 << o).sum())
}
