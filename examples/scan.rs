//! Inclusive and exclusive warp scans in the shape of CUB's `WarpScanShfl`: `log2(width)` steps of
//! `shfl.sync.up`, each combining the value of the lane `offset` below **only when the
//! instruction's predicate says that source lane was in range**. No identity element is needed for
//! the inclusive scan, so the same code scans with `+`, `max`, or any associative operator.
//!
//! The exclusive scan shifts the inclusive one up by one lane; the first lane of each segment
//! (whose predicate is false) takes the initial value instead.
//!
//! On a tile (`w.tile(8)`, `w.tile(16)`), every shuffle uses the tile's segment (`c` operand) and
//! membermask, so one warp scans four (or two) independent sequences at once.
//!
//! Run it: `cargo run --example scan`.

use warpkit::prelude::*;
use warpkit::WarpValue;

/// Inclusive scan of `x` with `op` over the lanes of `t`'s segment (the whole warp, or a tile).
#[warp_kernel]
pub fn inclusive_scan<T, F>(t: &Warp, x: T, op: F) -> T
where
    T: WarpValue,
    F: Fn(T, T) -> T,
{
    let mut v = x;
    let mut offset = 1;
    while offset < t.width() {
        let (up, in_range) = t.shfl_up_pred(v, offset);
        if in_range {
            v = op(up, v);
        }
        offset *= 2;
    }
    v
}

/// Inclusive and exclusive scans; the exclusive one starts every segment at `init`.
#[warp_kernel]
pub fn scans<T, F>(t: &Warp, x: T, init: T, op: F) -> (T, T)
where
    T: WarpValue,
    F: Fn(T, T) -> T,
{
    let inclusive = inclusive_scan(t, x, &op);
    let (prev, in_range) = t.shfl_up_pred(inclusive, 1);
    (inclusive, if in_range { prev } else { init })
}

/// Prefix sums (wrapping) over the whole warp: `(inclusive, exclusive)`.
#[warp_kernel]
pub fn prefix_sum_u32(w: &Warp, x: u32) -> (u32, u32) {
    scans(w, x, 0, u32::wrapping_add)
}

/// Running maximum over the whole warp: `(inclusive, exclusive)`, the exclusive one starting at
/// `i32::MIN`.
#[warp_kernel]
pub fn running_max_i32(w: &Warp, x: i32) -> (i32, i32) {
    scans(w, x, i32::MIN, i32::max)
}

/// Prefix sums within tiles of 8 and of 16 lanes: `[(inclusive, exclusive) in the 8-lane tile,
/// (inclusive, exclusive) in the 16-lane tile]`.
#[warp_kernel]
pub fn tile_prefix_sums(w: &Warp, x: u32) -> [(u32, u32); 2] {
    let t8 = w.tile(8);
    let t16 = w.tile(16);
    [scans(&t8, x, 0, u32::wrapping_add), scans(&t16, x, 0, u32::wrapping_add)]
}

/// Prefix sums of `f64` values (two-word shuffles), inclusive only.
#[warp_kernel]
pub fn prefix_sum_f64(w: &Warp, x: f64) -> f64 {
    inclusive_scan(w, x, |a: f64, b: f64| a + b)
}

// GPU entry points: one thread per element of `input` (the last warp may be partial; every
// shuffle reads a lower lane, which was launched); thread `i` writes its results to `out`.

/// `out[6i..6i + 6]`: [`prefix_sum_u32`] (inclusive, exclusive), then [`tile_prefix_sums`] (tiles
/// of 8, then of 16).
#[warp_kernel(entry)]
pub fn scan_u32_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let x = input.load(i);
    let (inclusive, exclusive) = prefix_sum_u32(w, x);
    let tiles = tile_prefix_sums(w, x);
    let r = [inclusive, exclusive, tiles[0].0, tiles[0].1, tiles[1].0, tiles[1].1];
    for k in 0..6 {
        out.store(6 * i + k, r[k]);
    }
}

/// `out[2i..2i + 2]`: [`running_max_i32`] (inclusive, exclusive).
#[warp_kernel(entry)]
pub fn scan_i32_entry(w: &Warp, input: GlobalSlice<'_, i32>, out: GlobalSlice<'_, i32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let (inclusive, exclusive) = running_max_i32(w, input.load(i));
    out.store(2 * i, inclusive);
    out.store(2 * i + 1, exclusive);
}

/// `out[i]`: [`prefix_sum_f64`].
#[warp_kernel(entry)]
pub fn scan_f64_entry(w: &Warp, input: GlobalSlice<'_, f64>, out: GlobalSlice<'_, f64>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    out.store(i, prefix_sum_f64(w, input.load(i)));
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: [u32; 32] = core::array::from_fn(|l| (l as u32 * 7 + 3) % 10);
    let out = Executor::new().run_with(&x, prefix_sum_u32).unwrap();
    let mut acc = 0;
    let reference: Vec<(u32, u32)> = x.iter().map(|&v| { acc += v; (acc, acc - v) }).collect();
    println!("input                  {:?}", x);
    println!("inclusive prefix sum   {:?}", out.map(|o| o.0));
    println!("exclusive prefix sum   {:?}", out.map(|o| o.1));
    println!("matches the sequential scan: {}", out.iter().zip(&reference).all(|(a, b)| a == b));

    let tiles = Executor::new().run_with(&x, tile_prefix_sums).unwrap();
    println!("inclusive, tiles of 8  {:?}", tiles.map(|o| o[0].0));
    println!("exclusive, tiles of 8  {:?}", tiles.map(|o| o[0].1));
    println!("inclusive, tiles of 16 {:?}", tiles.map(|o| o[1].0));

    let y: [i32; 32] = core::array::from_fn(|l| ((l as i32 * 37) % 23) - 11);
    let out = Executor::new().run_with(&y, running_max_i32).unwrap();
    println!("i32 input              {:?}", y);
    println!("running max            {:?}", out.map(|o| o.0));
    println!("exclusive running max  {:?}", out.map(|o| o.1).map(|m| if m == i32::MIN { "MIN".to_string() } else { m.to_string() }));

    // A partial warp: 21 lanes launched. Every shuffle reads a lower lane, which was launched.
    let out = Executor::new().run_partial((1 << 21) - 1, async |w: &Warp<'_>| prefix_sum_u32(w, x[w.lane_id() as usize]).await).unwrap();
    println!("partial warp of 21 lanes, inclusive: {:?}", out.iter().flatten().map(|o| o.0).collect::<Vec<_>>());
}
