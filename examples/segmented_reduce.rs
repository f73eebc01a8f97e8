//! Segmented reduction driven by head flags, in the form of CUB's
//! `WarpReduceShfl::SegmentedReduce`: a lane whose flag is set starts a new segment, and after the
//! reduction the first lane of every segment holds that segment's total.
//!
//! 1. `ballot(head)` gives every lane all the flags at once; shifted down by one, bit `i` says
//!    "lane `i` is the last lane of its segment" (the next lane starts one). Masking with
//!    `%lanemask_ge` and taking the lowest set bit gives each lane the last lane of **its**
//!    segment.
//! 2. The shuffle-down tree then uses that lane as the per-lane clamp (`c` operand of
//!    `shfl.sync.down`): a source past the end of the segment leaves the predicate false and adds
//!    nothing, so values never cross a segment boundary.
//!
//! Lane 0 always starts a segment. In a partial warp the last launched lane ends the last one.
//!
//! Run it: `cargo run --example segmented_reduce`.

use warpkit::prelude::*;
use warpkit::WarpValue;

/// The reduction of each head-flagged segment, valid in the segment's first lane, and the
/// segment's index (0 for the segment starting at lane 0).
#[warp_kernel]
pub fn segmented_reduce<T, F>(w: &Warp, x: T, head: bool, op: F) -> (T, u32)
where
    T: WarpValue,
    F: Fn(T, T) -> T,
{
    let heads = w.ballot(head);
    let launched = w.ballot(true);
    let last_launched = 31 - launched.leading_zeros();
    // Bit i: lane i ends a segment. Only flags at or above this lane matter.
    let tails = ((heads >> 1) & w.lanemask_ge()) | 1 << last_launched;
    let last_lane = tails.trailing_zeros();
    let mut v = x;
    let mut offset = 1;
    while offset < 32 {
        let (other, in_segment) = w.shfl(ShflMode::Down, v, offset, last_lane);
        if in_segment {
            v = op(v, other);
        }
        offset *= 2;
    }
    let segment = ((heads | 1) & w.lanemask_le()).count_ones() - 1;
    (v, segment)
}

/// Segmented wrapping sum of `u32` values.
#[warp_kernel]
pub fn segmented_sum_u32(w: &Warp, x: u32, head: bool) -> (u32, u32) {
    segmented_reduce(w, x, head, u32::wrapping_add)
}

/// Segmented maximum of `i32` values.
#[warp_kernel]
pub fn segmented_max_i32(w: &Warp, x: i32, head: bool) -> (i32, u32) {
    segmented_reduce(w, x, head, i32::max)
}

// GPU entry points: one thread per element of `values` (the last warp may be partial); `heads[i]`
// non-zero starts a segment. Thread `i` writes `(its reduction, its segment index)` to
// `out[2i..2i + 2]`: every lane's value, not only the segment heads'.

/// [`segmented_sum_u32`] over a grid.
#[warp_kernel(entry)]
pub fn segmented_sum_u32_entry(w: &Warp, values: GlobalSlice<'_, u32>, heads: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= values.len() {
        return;
    }
    let (v, segment) = segmented_sum_u32(w, values.load(i), heads.load(i) != 0);
    out.store(2 * i, v);
    out.store(2 * i + 1, segment);
}

/// [`segmented_max_i32`] over a grid (the segment index is stored as `i32`).
#[warp_kernel(entry)]
pub fn segmented_max_i32_entry(w: &Warp, values: GlobalSlice<'_, i32>, heads: GlobalSlice<'_, u32>, out: GlobalSlice<'_, i32>) {
    let i = w.global_id() as usize;
    if i >= values.len() {
        return;
    }
    let (v, segment) = segmented_max_i32(w, values.load(i), heads.load(i) != 0);
    out.store(2 * i, v);
    out.store(2 * i + 1, segment as i32);
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    // Rows of a CSR matrix of different lengths laid end to end, one value per lane (32 in all).
    let row_lengths = [3usize, 1, 7, 5, 2, 8, 6];
    let mut args = [(0u32, false); 32];
    let mut lane = 0;
    for (r, &len) in row_lengths.iter().enumerate() {
        for k in 0..len {
            args[lane] = ((r as u32 + 1) * 10 + k as u32, k == 0);
            lane += 1;
        }
    }
    let out = Executor::new().run_with(&args, async |w: &Warp<'_>, (x, head)| segmented_sum_u32(w, x, head).await).unwrap();
    println!("values    {:?}", args.map(|a| a.0));
    println!("heads     {}", args.iter().map(|a| if a.1 { '|' } else { '.' }).collect::<String>());
    println!("segment   {:?}", out.map(|o| o.1));
    let mut start = 0;
    let mut ok = true;
    for (s, &len) in row_lengths.iter().enumerate() {
        let expect: u32 = args[start..start + len].iter().map(|a| a.0).sum();
        ok &= out[start].0 == expect;
        println!("segment {s} (lanes {start}-{}): warp result {:4}, sequential {:4}", start + len - 1, out[start].0, expect);
        start += len;
    }
    println!("all segments match: {ok}");

    // Segmented max with a segment per 4 lanes, over a partial warp of 26 lanes.
    let vals: [i32; 32] = core::array::from_fn(|l| ((l as i32 * 53) % 41) - 20);
    let out = Executor::new()
        .run_partial((1 << 26) - 1, async |w: &Warp<'_>| {
            let l = w.lane_id();
            segmented_max_i32(w, vals[l as usize], l % 4 == 0).await
        })
        .unwrap();
    println!("partial warp of 26 lanes, max of each group of 4: {:?}", (0..26).step_by(4).map(|l| out[l].unwrap().0).collect::<Vec<_>>());
    println!("sequential:                                       {:?}", vals[..26].chunks(4).map(|c| *c.iter().max().unwrap()).collect::<Vec<_>>());
}
