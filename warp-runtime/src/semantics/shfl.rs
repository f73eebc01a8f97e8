//! `shfl.sync`: exchange a 32-bit register between lanes.
//!
//! The PTX pseudo-code, which this module follows line by line:
//!
//! ```text
//! lane[4:0] = [Thread].laneid;   bval[4:0] = b[4:0];   cval[4:0] = c[4:0];   segmask[4:0] = c[12:8];
//! maxLane = (lane & segmask) | (cval & ~segmask);      minLane = (lane & segmask);
//! .up:   j = lane - bval;  pval = (j >= maxLane);
//! .down: j = lane + bval;  pval = (j <= maxLane);
//! .bfly: j = lane ^ bval;  pval = (j <= maxLane);
//! .idx:  j = minLane | (bval[4:0] & ~segmask[4:0]);  pval = (j <= maxLane);
//! if (!pval) j = lane;  d = SourceA[j];  p = pval;
//! ```
//!
//! `b` is taken modulo 32 in every mode (measured on an H100: `.up` with `b = 32` returns the
//! lane's own value with `p` true).

use super::lanes;

/// The four `shfl.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: read from `lane - b`.
    Up,
    /// `.down`: read from `lane + b`.
    Down,
    /// `.bfly`: read from `lane ^ b`.
    Bfly,
    /// `.idx`: read from lane `b` of the segment.
    Idx,
}

impl ShflMode {
    /// The PTX mode qualifier without its dot: `up`, `down`, `bfly`, `idx`.
    pub const fn name(self) -> &'static str {
        match self {
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Bfly => "bfly",
            ShflMode::Idx => "idx",
        }
    }
}

/// The source lane `j` and the predicate `pval` of one lane, exactly as the PTX pseudo-code
/// computes them. When `pval` is false, `j` is the lane itself ("if (!pval) j = lane").
#[inline]
pub const fn source_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = lane & 0x1f;
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = ((lane & segmask) | (cval & !segmask)) as i32;
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane)
        }
    };
    if pval {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// The `c` operand that CUDA's `__shfl_*_sync(mask, var, lane_or_delta, width)` passes for a
/// sub-warp `width`: the segment mask `32 - width` in `c[12:8]`, and the clamp `0x1f` for
/// `.down`/`.bfly`/`.idx` or `0` for `.up`.
///
/// `width` must be a power of two in `1..=32`; other values give what CUDA's headers compute,
/// which is not a meaningful segment.
#[inline]
pub const fn width_c(mode: ShflMode, width: u32) -> u32 {
    let seg = (32u32.wrapping_sub(width) & 0x1f) << 8;
    match mode {
        ShflMode::Up => seg,
        _ => seg | 0x1f,
    }
}

/// Where each participating lane reads from, and its predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShflRoute {
    /// `src[lane]`: the lane whose `a` this lane receives (itself when its predicate is false).
    /// Entries of lanes that do not participate are their own lane id.
    pub src: [u8; 32],
    /// Bit `lane` is the predicate `p` of that lane.
    pub pred: u32,
    /// Participating lanes whose predicate is true and whose source lane does not participate:
    /// "sourcing from an inactive thread or one not in membermask is undefined".
    pub undefined: u32,
}

/// Routes one `shfl.sync` for the lanes in `participants` with per-lane operands `b` and `c`.
///
/// `participants` are the lanes that execute this instruction together: the non-exited lanes of
/// its membermask. A lane may only source a participant (a lane that is active at the
/// instruction and in membermask); other sources are flagged in [`ShflRoute::undefined`].
pub fn route(mode: ShflMode, b: &[u32; 32], c: &[u32; 32], participants: u32) -> ShflRoute {
    let mut src: [u8; 32] = core::array::from_fn(|l| l as u8);
    let mut pred = 0;
    let mut undefined = 0;
    for lane in lanes(participants) {
        let (j, p) = source_lane(mode, lane, b[lane as usize], c[lane as usize]);
        src[lane as usize] = j as u8;
        if p {
            pred |= 1 << lane;
            if participants & (1 << j) == 0 {
                undefined |= 1 << lane;
            }
        }
    }
    ShflRoute { src, pred, undefined }
}

/// Applies a route to 32-bit (or wider, moved as several 32-bit words with the same route)
/// values: `d[lane] = a[src[lane]]` for every participant.
pub fn apply<T: Copy + Default>(route: &ShflRoute, a: &[T; 32], participants: u32) -> [T; 32] {
    let mut d = [T::default(); 32];
    for lane in lanes(participants) {
        d[lane as usize] = a[route.src[lane as usize] as usize];
    }
    d
}

/// A full-warp shuffle in which every lane has the same `b` and `c` (immediate operands, or
/// uniform registers): writes `d` for all 32 lanes and returns `p`. Every source is a
/// participant, so nothing is undefined. Equal to [`route`] then [`apply`] with all lanes
/// participating (a test checks it); the whole-warp segments CUDA uses (`c = 0x1f`, or `0` for
/// `.up`) become shifted copies, other segments go through [`route`] and [`apply`].
#[inline]
pub fn converged(mode: ShflMode, a: &[u64; 32], b: u32, c: u32, d: &mut [u64; 32]) -> u32 {
    let bval = (b & 0x1f) as usize;
    let whole_warp = match mode {
        ShflMode::Up => c & 0x1f1f == 0,
        _ => c & 0x1f1f == 0x1f,
    };
    if whole_warp {
        return match mode {
            ShflMode::Up => {
                // j = lane - b, p = j >= 0: lanes b.. read lane - b, lower lanes keep their own.
                d[..bval].copy_from_slice(&a[..bval]);
                d[bval..].copy_from_slice(&a[..32 - bval]);
                !0u32 << bval
            }
            ShflMode::Down => {
                // j = lane + b, p = j <= 31: lanes ..32-b read lane + b, the rest keep their own.
                d[..32 - bval].copy_from_slice(&a[bval..]);
                d[32 - bval..].copy_from_slice(&a[32 - bval..]);
                (!0u32).checked_shr(bval as u32).unwrap_or(0)
            }
            ShflMode::Bfly => {
                for (lane, d) in d.iter_mut().enumerate() {
                    *d = a[lane ^ bval];
                }
                !0
            }
            ShflMode::Idx => {
                *d = [a[bval]; 32];
                !0
            }
        };
    }
    // Other segments are rare with a full membermask (`*_sync` with a width, raw `c`): route them.
    let route = route(mode, &[b; 32], &[c; 32], !0);
    *d = apply(&route, a, !0);
    route.pred
}

/// A shuffle that every lane executes with the same `b` and `c`, each lane with its own segment
/// of `c` as its membermask (the lanes whose ids agree with it on `c[12:8]`: a tile's, when the
/// segment is a power-of-two width): writes `d` for all 32 lanes and returns `p`, or `None` when
/// a lane's source lies outside its segment, a lane not in its membermask (undefined: left to
/// [`route`], whose caller reports it). Equal to [`route`] then [`apply`] for each segment's
/// lanes as participants (a test checks it).
#[inline]
pub fn segmented(mode: ShflMode, a: &[u64; 32], b: u32, c: u32, d: &mut [u64; 32]) -> Option<u32> {
    let segmask = (c >> 8) & 0x1f;
    let (mut pred, mut outside) = (0u32, 0u32);
    let mut src = [0u8; 32];
    // The loop once per mode, each with the mode a constant (the pseudo-code's `match` folds).
    let mut each = |mode: ShflMode| {
        for lane in 0..32u32 {
            let (j, p) = source_lane(mode, lane, b, c);
            src[lane as usize] = j as u8;
            pred |= (p as u32) << lane;
            outside |= (((j ^ lane) & segmask != 0) as u32) << lane;
        }
    };
    match mode {
        ShflMode::Up => each(ShflMode::Up),
        ShflMode::Down => each(ShflMode::Down),
        ShflMode::Bfly => each(ShflMode::Bfly),
        ShflMode::Idx => each(ShflMode::Idx),
    }
    if outside != 0 {
        return None;
    }
    for (d, &j) in d.iter_mut().zip(&src) {
        *d = a[j as usize & 31];
    }
    Some(pred)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `segmented` is the general route with each segment's lanes as its participants (the
    /// lanes of the segment of `c[12:8]`, as a tile's membermask names them), for every mode,
    /// every `b` in 0..64, every segment mask and a spread of clamps; `None` exactly where a lane
    /// reads outside its segment.
    #[test]
    fn segmented_equals_route_per_segment() {
        let a: [u64; 32] = core::array::from_fn(|l| 0x1000_0000_0000 * l as u64 + 7 * l as u64);
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in 0..64 {
                for segmask in 0..32u32 {
                    for clamp in [0u32, 0x1f, 0x3, 0x7, 0x10, 0x15] {
                        let c = segmask << 8 | clamp;
                        let (mut expected, mut pred, mut undefined) = ([0u64; 32], 0, 0);
                        for lane in 0..32u32 {
                            let members = (0..32u32).filter(|j| j & segmask == lane & segmask).fold(0u32, |m, j| m | 1 << j);
                            let route = route(mode, &[b; 32], &[c; 32], members);
                            expected[lane as usize] = apply(&route, &a, members)[lane as usize];
                            pred |= route.pred & 1 << lane;
                            undefined |= route.undefined & 1 << lane;
                        }
                        let mut d = [0; 32];
                        let got = segmented(mode, &a, b, c, &mut d);
                        if undefined != 0 {
                            assert_eq!(got, None, "{mode:?} b={b} c={c:#x}");
                        } else {
                            assert_eq!((got, d), (Some(pred), expected), "{mode:?} b={b} c={c:#x}");
                        }
                    }
                }
            }
        }
    }

    /// `converged` is the general route with every lane participating, for every mode, every
    /// `b` in 0..64 and a spread of `c` values that includes CUDA's whole-warp forms.
    #[test]
    fn converged_equals_route_then_apply() {
        let a: [u64; 32] = core::array::from_fn(|l| 0x1000_0000_0000 * l as u64 + 7 * l as u64);
        let cs = [0u32, 0x1f, 0x1f1f, 0x1800, 0x181f, 0x1c07, 0x3, 0x101f, 0x1e1f, 0xffff_ffff, 0x0f, 0x1000];
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in 0..64 {
                for &c in &cs {
                    let route = route(mode, &[b; 32], &[c; 32], u32::MAX);
                    let expected = (apply(&route, &a, u32::MAX), route.pred);
                    let mut d = [0; 32];
                    let pred = converged(mode, &a, b, c, &mut d);
                    assert_eq!((d, pred), expected, "{mode:?} b={b} c={c:#x}");
                }
            }
        }
    }
}
