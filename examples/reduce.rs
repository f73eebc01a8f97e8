//! Warp reduction: sum, min and max over the 32 lanes of a warp, two ways.
//!
//! * The `shfl.sync.down` tree of the CUDA samples and CUB's `WarpReduceShfl`: five steps, each
//!   adding the value of the lane `offset` above. It works for every type a shuffle moves, so it is
//!   the form for `f32` and `f64`. As in CUB's partial-warp reduction, operand `c` of the shuffle
//!   clamps the source lane to `last_lane`: a lane whose source would lie past the last valid lane
//!   gets the predicate false and adds nothing, so a warp with fewer than 32 lanes never reads a
//!   lane that was not launched.
//! * `redux.sync` (sm_80, `__reduce_add_sync` and friends): one instruction for `u32` and `i32`.
//!   `f32` has only `redux.sync.min/max` (sm_100a) and no `add`; `f64` has none.
//!
//! Float semantics of the tree, defined here and checked by `tests/examples.rs`:
//! * sum: the additions happen in the tree's order (lane 0 adds lane 16, then 8, ...), so the
//!   result is that of the pairwise order, not of a left-to-right loop; any NaN input (or
//!   `inf + -inf`) gives a NaN, with no promise about its payload.
//! * min/max: IEEE 754-2019 `minimumNumber`/`maximumNumber`: NaN inputs are skipped (the result is
//!   NaN only when every input is) and `-0.0 < +0.0`. These are the rules of
//!   `redux.sync.min/max.f32` without `.NaN`, and they make the result independent of the order.
//!
//! Run it: `cargo run --example reduce`.

use warpkit::prelude::*;
use warpkit::WarpValue;

/// The shuffle-down tree over lanes `0..=last_lane` of the warp; the result is in lane 0.
/// `op` must be associative and commutative.
#[warp_kernel]
pub fn tree_reduce<T, F>(w: &Warp, x: T, last_lane: u32, op: F) -> T
where
    T: WarpValue,
    F: Fn(T, T) -> T,
{
    let mut v = x;
    let mut offset = 16;
    while offset > 0 {
        // shfl.sync.down.b32 d|p, v, offset, last_lane: `c` = last_lane is the clamp.
        let (other, in_range) = w.shfl(ShflMode::Down, v, offset, last_lane);
        if in_range {
            v = op(v, other);
        }
        offset /= 2;
    }
    v
}

/// Sum, min and max of the `u32` values of lanes `0..=last_lane`, by the tree (in lane 0, then
/// broadcast) and by `redux.sync` (in every lane).
#[warp_kernel]
pub fn reduce_u32(w: &Warp, x: u32, last_lane: u32) -> ([u32; 3], [u32; 3]) {
    let sum = tree_reduce(w, x, last_lane, u32::wrapping_add);
    let min = tree_reduce(w, x, last_lane, u32::min);
    let max = tree_reduce(w, x, last_lane, u32::max);
    let tree = [w.shfl_idx(sum, 0), w.shfl_idx(min, 0), w.shfl_idx(max, 0)];
    (tree, [w.redux_add(x), w.redux_min(x), w.redux_max(x)])
}

/// [`reduce_u32`] for `i32`: `redux.sync.add.s32` wraps, `.min/.max.s32` compare as signed.
#[warp_kernel]
pub fn reduce_i32(w: &Warp, x: i32, last_lane: u32) -> ([i32; 3], [i32; 3]) {
    let sum = tree_reduce(w, x, last_lane, i32::wrapping_add);
    let min = tree_reduce(w, x, last_lane, i32::min);
    let max = tree_reduce(w, x, last_lane, i32::max);
    let tree = [w.shfl_idx(sum, 0), w.shfl_idx(min, 0), w.shfl_idx(max, 0)];
    (tree, [w.redux_add(x), w.redux_min(x), w.redux_max(x)])
}

/// Sum, min and max of `f32` values by the tree, and min/max by `redux.sync.{min,max}.f32`
/// (sm_100a), which has the same NaN and signed-zero rules as [`min_number_f32`].
#[warp_kernel]
pub fn reduce_f32(w: &Warp, x: f32, last_lane: u32) -> ([f32; 3], [f32; 2]) {
    let sum = tree_reduce(w, x, last_lane, |a: f32, b: f32| a + b);
    let min = tree_reduce(w, x, last_lane, min_number_f32);
    let max = tree_reduce(w, x, last_lane, max_number_f32);
    let tree = [w.shfl_idx(sum, 0), w.shfl_idx(min, 0), w.shfl_idx(max, 0)];
    (tree, [w.redux_min(x), w.redux_max(x)])
}

/// Sum, min and max of `f64` values by the tree (each shuffle moves two 32-bit words).
#[warp_kernel]
pub fn reduce_f64(w: &Warp, x: f64, last_lane: u32) -> [f64; 3] {
    let sum = tree_reduce(w, x, last_lane, |a: f64, b: f64| a + b);
    let min = tree_reduce(w, x, last_lane, min_number_f64);
    let max = tree_reduce(w, x, last_lane, max_number_f64);
    [w.shfl_idx(sum, 0), w.shfl_idx(min, 0), w.shfl_idx(max, 0)]
}

/// The last launched lane of warp `warp` in a grid of `n` threads: 31, or less in a partial last
/// warp. The trees below use it as the clamp, so they never read a lane that was not launched.
#[inline(always)]
pub fn last_lane(n: usize, warp: u64) -> u32 {
    (n - 1 - warp as usize * 32).min(31) as u32
}

// GPU entry points: one thread per element of `input` (the last warp may be partial); thread `i`
// reduces its warp and writes what it got to `out[k * i ..]`. `gpu/` runs them on a GPU and in
// the CPU runtime and compares `out`.

/// `out[6i..6i + 6]`: [`reduce_u32`]'s tree sum/min/max, then `redux.sync` sum/min/max.
#[warp_kernel(entry)]
pub fn reduce_u32_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let (tree, redux) = reduce_u32(w, input.load(i), last_lane(input.len(), w.warp_index()));
    for k in 0..3 {
        out.store(6 * i + k, tree[k]);
        out.store(6 * i + 3 + k, redux[k]);
    }
}

/// `out[6i..6i + 6]`: [`reduce_i32`]'s tree sum/min/max, then `redux.sync` sum/min/max.
#[warp_kernel(entry)]
pub fn reduce_i32_entry(w: &Warp, input: GlobalSlice<'_, i32>, out: GlobalSlice<'_, i32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let (tree, redux) = reduce_i32(w, input.load(i), last_lane(input.len(), w.warp_index()));
    for k in 0..3 {
        out.store(6 * i + k, tree[k]);
        out.store(6 * i + 3 + k, redux[k]);
    }
}

/// `out[5i..5i + 5]`: [`reduce_f32`]'s tree sum/min/max, then `redux` min/max (below sm_100a the
/// handle's fallback, which computes what `redux.sync.{min,max}.f32` does).
#[warp_kernel(entry)]
pub fn reduce_f32_entry(w: &Warp, input: GlobalSlice<'_, f32>, out: GlobalSlice<'_, f32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let (tree, redux) = reduce_f32(w, input.load(i), last_lane(input.len(), w.warp_index()));
    for k in 0..3 {
        out.store(5 * i + k, tree[k]);
    }
    out.store(5 * i + 3, redux[0]);
    out.store(5 * i + 4, redux[1]);
}

/// `out[3i..3i + 3]`: [`reduce_f64`]'s tree sum/min/max.
#[warp_kernel(entry)]
pub fn reduce_f64_entry(w: &Warp, input: GlobalSlice<'_, f64>, out: GlobalSlice<'_, f64>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let r = reduce_f64(w, input.load(i), last_lane(input.len(), w.warp_index()));
    for k in 0..3 {
        out.store(3 * i + k, r[k]);
    }
}

macro_rules! min_max_number {
    ($($t:ty: $min:ident, $max:ident;)*) => {$(
        /// IEEE 754-2019 `minimumNumber`: a NaN operand is skipped, and `-0.0 < +0.0`.
        pub fn $min(a: $t, b: $t) -> $t {
            if a.is_nan() || b < a || (b == a && b.is_sign_negative()) { b } else { a }
        }
        /// IEEE 754-2019 `maximumNumber`: a NaN operand is skipped, and `+0.0 > -0.0`.
        pub fn $max(a: $t, b: $t) -> $t {
            if a.is_nan() || b > a || (b == a && b.is_sign_positive()) { b } else { a }
        }
    )*};
}
min_max_number! {
    f32: min_number_f32, max_number_f32;
    f64: min_number_f64, max_number_f64;
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    // A full warp of u32 whose sum wraps, then a partial warp of 20 lanes.
    let x: [u32; 32] = core::array::from_fn(|l| (l as u32 + 1).wrapping_mul(2_654_435_761));
    let out = Executor::new().run_with(&x, async |w: &Warp<'_>, x| reduce_u32(w, x, 31).await).unwrap();
    let expect = [x.iter().fold(0u32, |a, &b| a.wrapping_add(b)), *x.iter().min().unwrap(), *x.iter().max().unwrap()];
    println!("u32, 32 lanes: {:?} ...", &x[..6]);
    println!("  shfl_down tree  sum/min/max = {:?}", out[0].0);
    println!("  redux.sync      sum/min/max = {:?}", out[0].1);
    println!("  sequential      sum/min/max = {expect:?}  {}", verdict(out[0].0 == expect && out[0].1 == expect));

    let y: [i32; 32] = core::array::from_fn(|l| (l as i32 - 12) * 1_000_003);
    let n = 20;
    let out = Executor::new().run_partial((1 << n) - 1, async |w: &Warp<'_>| reduce_i32(w, y[w.lane_id() as usize], n - 1).await).unwrap();
    let valid = &y[..n as usize];
    let expect = [valid.iter().fold(0i32, |a, &b| a.wrapping_add(b)), *valid.iter().min().unwrap(), *valid.iter().max().unwrap()];
    let (tree, redux) = out[0].unwrap();
    println!("i32, partial warp of {n} lanes (lanes {n}-31 not launched): {:?} ...", &valid[..4]);
    println!("  shfl_down tree  sum/min/max = {tree:?}");
    println!("  redux.sync      sum/min/max = {redux:?}");
    println!("  sequential      sum/min/max = {expect:?}  {}", verdict(tree == expect && redux == expect));

    let f: [f32; 32] = core::array::from_fn(|l| match l {
        3 => f32::NAN,
        7 => -0.0,
        _ => (l as f32 - 15.5) / 3.0,
    });
    let out = Executor::new().run_with(&f, async |w: &Warp<'_>, x| reduce_f32(w, x, 31).await).unwrap();
    let skip_nan: Vec<f32> = f.iter().copied().filter(|v| !v.is_nan()).collect();
    let min = skip_nan.iter().copied().fold(f32::INFINITY, min_number_f32);
    let max = skip_nan.iter().copied().fold(f32::NEG_INFINITY, max_number_f32);
    println!("f32 with a NaN in lane 3 and -0.0 in lane 7:");
    println!("  shfl_down tree  sum/min/max = {:?}   (NaN propagates through +, min/max skip it)", out[0].0);
    println!("  redux.sync            min/max = {:?}", out[0].1);
    println!("  sequential            min/max = {:?}  {}", [min, max], verdict(out[0].0[1..] == [min, max] && out[0].1 == [min, max] && out[0].0[0].is_nan()));

    let d: [f64; 32] = core::array::from_fn(|l| 1.0 / (l as f64 + 1.0));
    let out = Executor::new().run_with(&d, async |w: &Warp<'_>, x| reduce_f64(w, x, 31).await).unwrap();
    let seq: f64 = d.iter().sum();
    println!("f64 harmonic series H(32):");
    println!("  shfl_down tree  sum/min/max = {:?}", out[0]);
    println!("  sequential sum              = {seq:?} (differs only by rounding: {:.1e})", (out[0][0] - seq).abs());
}

#[cfg(not(target_arch = "nvptx64"))]
fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "MISMATCH" }
}
