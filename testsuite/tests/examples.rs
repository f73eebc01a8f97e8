//! Every example's kernels against a plain sequential reference, on random inputs (proptest),
//! partial warps and adversarial values.

// The code `#[warp_kernel]` adds (the warp-wide forms) must not trip lints a crate may deny:
// the forms' `allow(warnings)` does not override a lint denied by name.
#![deny(unused_parens, unused_imports, unused_variables)]

use proptest::prelude::*;
use warpkit::prelude::*;
use warpkit::{launch, BarrierRule, GlobalBuffer, Grid, LaneState, Schedule};

#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code)]
#[path = "../../examples/compact.rs"]
mod compact;
#[allow(dead_code)]
#[path = "../../examples/histogram.rs"]
mod histogram;
#[allow(dead_code)]
#[path = "../../examples/radix_rank.rs"]
mod radix_rank;
#[allow(dead_code)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;
#[allow(dead_code)]
#[path = "../../examples/search.rs"]
mod search;
#[allow(dead_code)]
#[path = "../../examples/bug_gallery.rs"]
mod bug_gallery;
#[allow(dead_code)]
#[path = "../../examples/block_reduce.rs"]
mod block_reduce;
#[allow(dead_code)]
#[path = "../../examples/block_scan.rs"]
mod block_scan;
#[allow(dead_code)]
#[path = "../../examples/block_radix_sort.rs"]
mod block_radix_sort;
#[allow(dead_code)]
#[path = "../../examples/lookback_scan.rs"]
mod lookback_scan;
#[allow(dead_code)]
#[path = "../../examples/pipeline.rs"]
mod pipeline;
#[allow(dead_code)]
#[path = "../../examples/block_compact.rs"]
mod block_compact;
#[allow(dead_code)]
#[path = "../../examples/mbarrier_pipeline.rs"]
mod mbarrier_pipeline;

#[path = "../../examples/litmus.rs"]
mod litmus;

#[path = "../../examples/cluster_reduce.rs"]
mod cluster_reduce;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 96, ..ProptestConfig::default() }
}

/// 32 values, generated on the heap: `proptest::array::uniform32` of a `prop_oneof!` keeps 32
/// large value trees on the stack and overflows a test thread's stack in debug builds.
fn arr32<T: core::fmt::Debug + Clone>(values: impl Strategy<Value = T>) -> impl Strategy<Value = [T; 32]> {
    proptest::collection::vec(values, 32).prop_map(|v| <[T; 32]>::try_from(v).unwrap())
}

/// The mask of lanes `0..n`.
fn launched(n: u32) -> u32 {
    if n == 32 { u32::MAX } else { (1 << n) - 1 }
}

/// 32 values, `n` of them launched (1..=32).
fn warp_of<T: Copy + core::fmt::Debug>(values: impl Strategy<Value = T>) -> impl Strategy<Value = ([T; 32], u32)> {
    (arr32(values), 1..=32u32)
}

/// u32 values with the extremes over-represented.
fn adversarial_u32() -> impl Strategy<Value = u32> {
    prop_oneof![3 => any::<u32>(), 1 => Just(u32::MAX), 1 => Just(0u32), 1 => 0..4u32]
}

fn adversarial_i32() -> impl Strategy<Value = i32> {
    prop_oneof![3 => any::<i32>(), 1 => Just(i32::MIN), 1 => Just(i32::MAX), 1 => -2..2i32]
}

/// f32 values with NaN, signed zeros and infinities over-represented.
fn adversarial_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -1e6f32..1e6,
        1 => Just(f32::NAN),
        1 => Just(-0.0f32),
        1 => Just(0.0f32),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => any::<f32>(),
    ]
}

fn adversarial_f64() -> impl Strategy<Value = f64> {
    prop_oneof![6 => -1e12f64..1e12, 1 => Just(f64::NAN), 1 => Just(-0.0f64), 1 => Just(0.0f64), 1 => any::<f64>()]
}

// ---------------------------------------------------------------- reduce

/// The shuffle-down tree's order of operations over lanes `0..n`, replayed sequentially: what
/// lane 0 holds after offsets 16, 8, 4, 2, 1 with sources past `n - 1` skipped.
fn tree_reference<T: Copy>(x: &[T; 32], n: u32, op: impl Fn(T, T) -> T) -> T {
    let mut v = *x;
    for offset in [16usize, 8, 4, 2, 1] {
        let prev = v;
        for i in 0..32 {
            if i + offset < n as usize {
                v[i] = op(prev[i], prev[i + offset]);
            }
        }
    }
    v[0]
}

/// Equal bit patterns, or both NaN (the NaN payload of the tree is not specified).
fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(config())]

    /// Tree and `redux.sync` agree with the sequential fold on `u32` (wrapping sum) over a partial warp.
    #[test]
    fn reduce_u32_matches_the_fold((x, n) in warp_of(adversarial_u32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| reduce::reduce_u32(w, x[w.lane_id() as usize], n - 1).await).unwrap();
        let v = &x[..n as usize];
        let expect = [v.iter().fold(0u32, |a, &b| a.wrapping_add(b)), *v.iter().min().unwrap(), *v.iter().max().unwrap()];
        for (l, o) in out.iter().enumerate() {
            prop_assert_eq!(*o, (l < n as usize).then_some((expect, expect)), "lane {}", l);
        }
    }

    /// Signed: `redux.sync.min/max.s32` and the tree compare as signed, sums wrap.
    #[test]
    fn reduce_i32_matches_the_fold((x, n) in warp_of(adversarial_i32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| reduce::reduce_i32(w, x[w.lane_id() as usize], n - 1).await).unwrap();
        let v = &x[..n as usize];
        let expect = [v.iter().fold(0i32, |a, &b| a.wrapping_add(b)), *v.iter().min().unwrap(), *v.iter().max().unwrap()];
        prop_assert!(out.iter().flatten().all(|o| *o == (expect, expect)), "{:?} != {:?}", out[0], expect);
    }

    /// f32: the sum is the tree order's sum (NaN if any input is NaN or infinities cancel); min and
    /// max are `minimumNumber`/`maximumNumber` (NaN skipped, -0.0 < +0.0), as is `redux.sync.f32`.
    #[test]
    fn reduce_f32_nan_and_signed_zero_rules((x, n) in warp_of(adversarial_f32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| reduce::reduce_f32(w, x[w.lane_id() as usize], n - 1).await).unwrap();
        let v = &x[..n as usize];
        let sum = tree_reference(&x, n, |a, b| a + b);
        let min = v.iter().copied().reduce(min_number_f32).unwrap();
        let max = v.iter().copied().reduce(max_number_f32).unwrap();
        let (tree, redux) = out[0].unwrap();
        prop_assert!(same_f32(tree[0], sum) && same_f32(tree[1], min) && same_f32(tree[2], max), "{:?} != {:?}", tree, [sum, min, max]);
        if v.iter().any(|f| f.is_nan()) {
            prop_assert!(tree[0].is_nan(), "a NaN input makes the sum NaN");
        }
        if v.iter().all(|f| f.is_nan()) {
            // redux.sync gives the canonical NaN; the tree gives a NaN.
            prop_assert!(redux.iter().all(|r| r.to_bits() == 0x7fff_ffff) && tree[1].is_nan());
        } else {
            prop_assert!(same_f32(redux[0], min) && same_f32(redux[1], max), "{:?} != {:?}", redux, [min, max]);
        }
        prop_assert!(out.iter().flatten().all(|o| o.0.iter().zip(&tree).all(|(a, b)| same_f32(*a, *b))));
    }

    /// f64 moves as two words; same rules as f32.
    #[test]
    fn reduce_f64_matches_the_tree_order((x, n) in warp_of(adversarial_f64())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| reduce::reduce_f64(w, x[w.lane_id() as usize], n - 1).await).unwrap();
        let v = &x[..n as usize];
        let expect = [
            tree_reference(&x, n, |a, b| a + b),
            v.iter().copied().reduce(min_number_f64).unwrap(),
            v.iter().copied().reduce(max_number_f64).unwrap(),
        ];
        let got = out[0].unwrap();
        prop_assert!(got.iter().zip(&expect).all(|(a, b)| same_f64(*a, *b)), "{:?} != {:?}", got, expect);
    }
}

// IEEE 754 minimumNumber/maximumNumber written out here, independently of the example's own
// combiners: a NaN operand is skipped (NaN only if both are), and -0.0 is below +0.0.
macro_rules! min_max_number {
    ($min:ident, $max:ident, $t:ty) => {
        fn $min(a: $t, b: $t) -> $t {
            match (a.is_nan(), b.is_nan()) {
                (true, _) => b,
                (_, true) => a,
                _ if a == b => if a.is_sign_negative() { a } else { b },
                _ => if a < b { a } else { b },
            }
        }
        fn $max(a: $t, b: $t) -> $t {
            match (a.is_nan(), b.is_nan()) {
                (true, _) => b,
                (_, true) => a,
                _ if a == b => if a.is_sign_positive() { a } else { b },
                _ => if a > b { a } else { b },
            }
        }
    };
}
min_max_number!(min_number_f32, max_number_f32, f32);
min_max_number!(min_number_f64, max_number_f64, f64);

#[test]
fn the_reference_min_max_follow_ieee_minimum_number() {
    assert_eq!(min_number_f64(f64::NAN, 2.0), 2.0);
    assert_eq!(max_number_f64(3.0, f64::NAN), 3.0);
    assert!(min_number_f64(0.0, -0.0).is_sign_negative());
    assert!(max_number_f64(-0.0, 0.0).is_sign_positive());
    assert!(min_number_f32(f32::NAN, f32::NAN).is_nan());
    assert_eq!(min_number_f32(-1.5, 1.0), -1.5);
}

/// Without NaNs, the f32 tree sum is close to the left-to-right sum, and signed zeros reduce
/// exactly: the min of {+0, -0} is -0, the max +0, whatever the lanes' order.
#[test]
fn reduce_f32_signed_zeros_and_rounding() {
    let zeros: [f32; 32] = core::array::from_fn(|l| if l % 3 == 1 { -0.0 } else { 0.0 });
    let out = Executor::new().run_with(&zeros, async |w: &Warp<'_>, x| reduce::reduce_f32(w, x, 31).await).unwrap();
    let (tree, redux) = out[0];
    assert_eq!(tree.map(f32::to_bits), [0.0f32.to_bits(), (-0.0f32).to_bits(), 0.0f32.to_bits()]);
    assert_eq!(redux.map(f32::to_bits), [(-0.0f32).to_bits(), 0.0f32.to_bits()]);
    let x: [f32; 32] = core::array::from_fn(|l| 1.0 / (l as f32 + 1.0));
    let out = Executor::new().run_with(&x, async |w: &Warp<'_>, x| reduce::reduce_f32(w, x, 31).await).unwrap();
    assert!((out[0].0[0] - x.iter().sum::<f32>()).abs() < 1e-5);
}

// ---------------------------------------------------------------- scan

fn scan_reference<T: Copy>(x: &[T], init: T, op: impl Fn(T, T) -> T) -> Vec<(T, T)> {
    let mut acc: Option<T> = None;
    x.iter()
        .map(|&v| {
            let excl = acc.unwrap_or(init);
            let incl = acc.map_or(v, |a| op(a, v));
            acc = Some(incl);
            (incl, excl)
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Wrapping prefix sums over a partial warp; lane i's result covers lanes 0..=i.
    #[test]
    fn prefix_sum_matches_the_sequential_scan((x, n) in warp_of(adversarial_u32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| scan::prefix_sum_u32(w, x[w.lane_id() as usize]).await).unwrap();
        let expect = scan_reference(&x[..n as usize], 0, u32::wrapping_add);
        prop_assert_eq!(out.iter().flatten().copied().collect::<Vec<_>>(), expect);
    }

    /// A max-scan needs no identity for the inclusive result; the exclusive one starts at MIN.
    #[test]
    fn running_max_matches_the_sequential_scan((x, n) in warp_of(adversarial_i32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| scan::running_max_i32(w, x[w.lane_id() as usize]).await).unwrap();
        let expect = scan_reference(&x[..n as usize], i32::MIN, i32::max);
        prop_assert_eq!(out.iter().flatten().copied().collect::<Vec<_>>(), expect);
    }

    /// Tiles of 8 and 16 scan independently, also when the last tile is partial.
    #[test]
    fn tile_scans_restart_at_every_tile((x, n) in warp_of(adversarial_u32())) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| scan::tile_prefix_sums(w, x[w.lane_id() as usize]).await).unwrap();
        for (k, width) in [8usize, 16].into_iter().enumerate() {
            let mut expect = Vec::new();
            for tile in x[..n as usize].chunks(width) {
                expect.extend(scan_reference(tile, 0, u32::wrapping_add));
            }
            prop_assert_eq!(out.iter().flatten().map(|o| o[k]).collect::<Vec<_>>(), expect, "width {}", width);
        }
    }

    /// f64 prefix sums in the scan's own order (Kogge-Stone), reproduced exactly.
    #[test]
    fn f64_prefix_sum_matches_the_kogge_stone_order(x in arr32(-1e9f64..1e9)) {
        let out = Executor::new().run_with(&x, scan::prefix_sum_f64).unwrap();
        let mut v = x;
        for offset in [1usize, 2, 4, 8, 16] {
            let prev = v;
            for i in offset..32 {
                v[i] = prev[i - offset] + prev[i];
            }
        }
        prop_assert_eq!(out.map(f64::to_bits), v.map(f64::to_bits));
    }
}

// ---------------------------------------------------------------- segmented reduce

proptest! {
    #![proptest_config(config())]

    /// The first lane of each segment holds the segment's wrapping sum; every lane knows its segment.
    #[test]
    fn segmented_sum_matches_per_segment_sums((x, n) in warp_of(adversarial_u32()), heads in any::<u32>()) {
        let out = Executor::new()
            .run_partial(launched(n), async |w: &Warp<'_>| {
                let l = w.lane_id();
                segmented_reduce::segmented_sum_u32(w, x[l as usize], heads >> l & 1 == 1).await
            })
            .unwrap();
        let starts: Vec<usize> = (0..n as usize).filter(|&l| l == 0 || heads >> l & 1 == 1).collect();
        for (s, &start) in starts.iter().enumerate() {
            let end = starts.get(s + 1).copied().unwrap_or(n as usize);
            let sum = x[start..end].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            prop_assert_eq!(out[start].unwrap().0, sum, "segment {} at lanes {}..{}", s, start, end);
            for o in &out[start..end] {
                prop_assert_eq!(o.unwrap().1, s as u32);
            }
        }
    }

    #[test]
    fn segmented_max_matches_per_segment_maxima((x, n) in warp_of(adversarial_i32()), heads in any::<u32>()) {
        let out = Executor::new()
            .run_partial(launched(n), async |w: &Warp<'_>| {
                let l = w.lane_id();
                segmented_reduce::segmented_max_i32(w, x[l as usize], heads >> l & 1 == 1).await
            })
            .unwrap();
        let starts: Vec<usize> = (0..n as usize).filter(|&l| l == 0 || heads >> l & 1 == 1).collect();
        for (s, &start) in starts.iter().enumerate() {
            let end = starts.get(s + 1).copied().unwrap_or(n as usize);
            prop_assert_eq!(out[start].unwrap().0, *x[start..end].iter().max().unwrap());
        }
    }
}

/// Every lane a head: each segment is one lane. No head but lane 0: one segment of the warp.
#[test]
fn segmented_reduce_extreme_flags() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 3);
    let all = Executor::new().run_with(&x, async |w: &Warp<'_>, v| segmented_reduce::segmented_sum_u32(w, v, true).await).unwrap();
    assert_eq!(all.map(|o| o.0), x);
    let none = Executor::new().run_with(&x, async |w: &Warp<'_>, v| segmented_reduce::segmented_sum_u32(w, v, false).await).unwrap();
    assert_eq!(none[0], (x.iter().sum(), 0));
}

// ---------------------------------------------------------------- compact

proptest! {
    #![proptest_config(config())]

    /// The slots of one warp pack the kept elements in lane order.
    #[test]
    fn compact_warp_slots_pack_in_order((x, n) in warp_of(adversarial_u32()), limit in adversarial_u32()) {
        let out = Executor::new().run_partial(launched(n), async |w: &Warp<'_>| compact::compact_warp(w, x[w.lane_id() as usize], limit).await).unwrap();
        let reference: Vec<u32> = x[..n as usize].iter().copied().filter(|&v| compact::keep(v, limit)).collect();
        let mut packed = vec![None; reference.len()];
        for (l, o) in out.iter().enumerate().take(n as usize) {
            let (slot, kept) = o.unwrap();
            prop_assert_eq!(kept as usize, reference.len());
            if let Some(s) = slot {
                prop_assert!(packed[s as usize].replace(x[l]).is_none(), "slot {} used twice", s);
            }
        }
        prop_assert_eq!(packed.into_iter().map(Option::unwrap).collect::<Vec<_>>(), reference);
    }

    /// A grid of any size: with warps in order (one CPU thread) the output is the sequential filter;
    /// with several threads, the same elements in warp-sized runs whose order may vary.
    #[test]
    fn compact_grid_equals_the_filter(data in proptest::collection::vec(adversarial_u32(), 1..1500), limit in adversarial_u32()) {
        let reference: Vec<u32> = data.iter().copied().filter(|&v| compact::keep(v, limit)).collect();
        for threads in [1, 4] {
            let input = GlobalBuffer::from_slice(&data);
            let output = GlobalBuffer::<u32>::zeroed(data.len());
            let count = GlobalBuffer::<u32>::zeroed(1);
            let (i, o, c) = (input.slice(), output.slice(), count.slice());
            Grid::new(data.len() as u64).cpu_threads(threads).run(async |w: &Warp<'_>| {
                compact::compact_grid(w, i, o, c, limit).await;
            }).unwrap();
            let kept = count.to_vec()[0] as usize;
            let mut got = output.to_vec()[..kept].to_vec();
            if threads == 1 {
                prop_assert_eq!(&got, &reference);
            } else {
                let mut sorted = reference.clone();
                sorted.sort();
                got.sort();
                prop_assert_eq!(got, sorted);
            }
        }
    }
}

// ---------------------------------------------------------------- histogram

fn histogram_reference(data: &[u32], buckets: usize) -> Vec<u32> {
    let mut h = vec![0; buckets];
    for &x in data.iter().filter(|&&x| x != histogram::IGNORE) {
        h[histogram::bucket(x, buckets as u32) as usize] += 1;
    }
    h
}

fn histogram_data() -> impl Strategy<Value = (Vec<u32>, usize)> {
    let value = prop_oneof![4 => 0..64u32, 1 => Just(histogram::IGNORE), 1 => Just(7u32), 1 => any::<u32>()];
    (proptest::collection::vec(value, 1..1200), 1..40usize)
}

proptest! {
    #![proptest_config(config())]

    /// Both leader choices give the sequential histogram, on several CPU threads and lane orders;
    /// there is exactly one atomic per (warp, bucket present in the warp).
    #[test]
    fn histogram_equals_the_sequential_counts((data, buckets) in histogram_data(), seed in any::<u64>()) {
        let reference = histogram_reference(&data, buckets);
        let input = GlobalBuffer::from_slice(&data);
        let (h1, h2) = (GlobalBuffer::<u32>::zeroed(buckets), GlobalBuffer::<u32>::zeroed(buckets));
        let (i, c1, c2) = (input.slice(), h1.slice(), h2.slice());
        let grid = Grid::new(data.len() as u64).cpu_threads(3).executor(Executor::new().order(LaneOrder::Seeded(seed)));
        let leaders = grid.map(async |w: &Warp<'_>| histogram::histogram_elect(w, i, c1).await).unwrap();
        grid.run(async |w: &Warp<'_>| histogram::histogram_ffs(w, i, c2).await).unwrap();
        prop_assert_eq!(&h1.to_vec(), &reference);
        prop_assert_eq!(&h2.to_vec(), &reference);
        let groups: usize = data
            .chunks(32)
            .map(|warp| {
                let mut b: Vec<u32> = warp.iter().filter(|&&x| x != histogram::IGNORE).map(|&x| histogram::bucket(x, buckets as u32)).collect();
                b.sort();
                b.dedup();
                b.len()
            })
            .sum();
        prop_assert_eq!(leaders.iter().filter(|&&l| l).count(), groups);
    }
}

/// All lanes in one bucket: one atomic per warp adds 32; all padding: nothing is counted.
#[test]
fn histogram_all_equal_and_all_ignored() {
    let data = vec![5u32; 100];
    let input = GlobalBuffer::from_slice(&data);
    let hist = GlobalBuffer::<u32>::zeroed(4);
    let (i, h) = (input.slice(), hist.slice());
    let leaders = Grid::new(100).map(async |w: &Warp<'_>| histogram::histogram_elect(w, i, h).await).unwrap();
    assert_eq!(hist.to_vec(), [0, 100, 0, 0]);
    assert_eq!(leaders.iter().filter(|&&l| l).count(), 4);
    let ignored = GlobalBuffer::from_slice(&[histogram::IGNORE; 40]);
    let (i, h) = (ignored.slice(), hist.slice());
    launch(40, async |w: &Warp<'_>| histogram::histogram_ffs(w, i, h).await).unwrap();
    assert_eq!(hist.to_vec(), [0, 100, 0, 0]);
}

// ---------------------------------------------------------------- radix rank

/// Each lane's position after a stable counting sort by the digit at `shift`.
fn stable_positions(keys: &[u32; 32], shift: u32) -> [u32; 32] {
    let mut order: Vec<usize> = (0..32).collect();
    order.sort_by_key(|&l| radix_rank::digit(keys[l], shift));
    let mut pos = [0; 32];
    for (p, &l) in order.iter().enumerate() {
        pos[l] = p as u32;
    }
    pos
}

proptest! {
    #![proptest_config(config())]

    /// Ranks are the stable counting-sort positions, for every digit position, with many duplicate
    /// digits; a partial tile padded with all-ones keys ranks its real keys first.
    #[test]
    fn radix_rank_is_the_stable_position(
        keys in arr32(prop_oneof![any::<u32>(), 0..8u32, Just(u32::MAX)]),
        pass in 0..7u32,
        n in 1..=32usize,
    ) {
        let shift = pass * radix_rank::RADIX_BITS;
        let mut padded = keys;
        padded[n..].fill(u32::MAX);
        let bins = GlobalBuffer::<u32>::zeroed(radix_rank::RADIX as usize);
        let b = bins.slice();
        let ranks = Executor::new().run_with(&padded, async |w: &Warp<'_>, k| radix_rank::radix_rank(w, k, shift, b).await).unwrap();
        prop_assert_eq!(ranks, stable_positions(&padded, shift));
        prop_assert!(ranks[..n].iter().all(|&r| (r as usize) < n || padded[..n].contains(&u32::MAX)));
        prop_assert_eq!(bins.to_vec(), vec![0; radix_rank::RADIX as usize], "bins are left zeroed");
    }

    /// Seven passes of rank-and-scatter sort the keys.
    #[test]
    fn radix_sort_sorts(keys in arr32(prop_oneof![any::<u32>(), 0..4u32])) {
        let bins = GlobalBuffer::<u32>::zeroed(radix_rank::RADIX as usize);
        let exchange = GlobalBuffer::<u32>::zeroed(32);
        let (b, e) = (bins.slice(), exchange.slice());
        let sorted = Executor::new().run_with(&keys, async |w: &Warp<'_>, k| radix_rank::radix_sort(w, k, b, e).await).unwrap();
        let mut reference = keys;
        reference.sort();
        prop_assert_eq!(sorted, reference);
    }
}

/// All 32 keys with the same digit: ranks are the lane ids (one group, one atomic).
#[test]
fn radix_rank_all_equal_digits() {
    let bins = GlobalBuffer::<u32>::zeroed(32);
    let b = bins.slice();
    let ranks = Executor::new().run_with(&[0xabcd_ef17u32; 32], async |w: &Warp<'_>, k| radix_rank::radix_rank(w, k, 0, b).await).unwrap();
    assert_eq!(ranks, core::array::from_fn(|l| l as u32));
}

// ---------------------------------------------------------------- bitonic sort

proptest! {
    #![proptest_config(config())]

    #[test]
    fn bitonic_sort_sorts_keys(keys in arr32(prop_oneof![any::<u32>(), 0..3u32, Just(u32::MAX)])) {
        let sorted = Executor::new().run_with(&keys, bitonic_sort::sort_u32).unwrap();
        let mut reference = keys;
        reference.sort();
        prop_assert_eq!(sorted, reference);
    }

    /// Pairs: keys come out sorted and the multiset of pairs is unchanged (no pair split or
    /// duplicated, even with equal keys).
    #[test]
    fn bitonic_sort_keeps_pairs_together(keys in arr32(prop_oneof![adversarial_i32(), -2..2i32])) {
        let out = Executor::new().run_with(&keys, async |w: &Warp<'_>, k: i32| bitonic_sort::bitonic_sort_pairs(w, k, w.lane_id()).await).unwrap();
        prop_assert!(out.windows(2).all(|p| p[0].0 <= p[1].0), "{:?}", out);
        let mut got: Vec<(i32, u32)> = out.to_vec();
        let mut reference: Vec<(i32, u32)> = keys.iter().copied().zip(0..).collect();
        got.sort();
        reference.sort();
        prop_assert_eq!(got, reference);
    }

    /// The grid sort is a stable sort of each 32-element segment, padding included.
    #[test]
    fn bitonic_grid_sort_is_stable_per_segment(keys in proptest::collection::vec(prop_oneof![0..5u32, Just(u32::MAX), any::<u32>()], 1..200)) {
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        let (kb, vb) = (GlobalBuffer::from_slice(&keys), GlobalBuffer::from_slice(&values));
        let (ks, vs) = (kb.slice(), vb.slice());
        launch(keys.len().div_ceil(32) as u64 * 32, async |w: &Warp<'_>| bitonic_sort::sort_pairs_grid(w, ks, vs).await).unwrap();
        let got: Vec<(u32, u32)> = kb.to_vec().into_iter().zip(vb.to_vec()).collect();
        let pairs: Vec<(u32, u32)> = keys.iter().copied().zip(values).collect();
        let mut reference = Vec::new();
        for chunk in pairs.chunks(32) {
            let mut c = chunk.to_vec();
            c.sort_by_key(|p| p.0);
            reference.extend(c);
        }
        prop_assert_eq!(got, reference);
    }
}

// ---------------------------------------------------------------- search

proptest! {
    #![proptest_config(config())]

    /// The first occurrence (or none), found after `index / lanes + 1` steps (or all steps), by a
    /// full or partial warp.
    #[test]
    fn search_finds_the_first_occurrence(
        data in proptest::collection::vec(0..50u32, 0..400),
        target in 0..60u32,
        members in any::<u32>().prop_filter("a running lane", |&m| m != 0),
    ) {
        let buf = GlobalBuffer::from_slice(&data);
        let d = buf.slice();
        let out = Executor::new().run_partial(members, async |w: &Warp<'_>| search::find_first(w, d, target).await).unwrap();
        let reference = data.iter().position(|&x| x == target);
        let lanes = members.count_ones() as usize;
        let steps = reference.map_or(data.len().div_ceil(lanes), |p| p / lanes + 1) as u32;
        prop_assert!(out.iter().flatten().all(|&o| o == (reference, steps)), "{:?} != {:?}", out.iter().flatten().next(), (reference, steps));
    }
}

/// A match only in the last lane of the last step; no match at all; an empty array.
#[test]
fn search_edge_cases() {
    let mut data = vec![1u32; 96];
    data[95] = 9;
    let buf = GlobalBuffer::from_slice(&data);
    let d = buf.slice();
    let run = |target| Executor::new().run(async |w: &Warp<'_>| search::find_first(w, d, target).await).unwrap()[0];
    assert_eq!(run(9), (Some(95), 3));
    assert_eq!(run(2), (None, 3));
    assert_eq!(run(1), (Some(0), 1));
    let empty = GlobalBuffer::<u32>::zeroed(0);
    let e = empty.slice();
    assert_eq!(Executor::new().run(async |w: &Warp<'_>| search::find_first(w, e, 0).await).unwrap()[0], (None, 0));
}

// ---------------------------------------------------------------- bug gallery

/// cuda-samples #398: lane 0 reads lane 16, outside the one-lane membermask and already exited.
#[test]
fn gallery_reduce7_reads_outside_its_membermask() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let err = Executor::new().run_with(&x, async |w: &Warp<'_>, s| bug_gallery::reduce7_tail(w, s, 32).await).unwrap_err();
    let WarpError::InvalidShflSource { faults, report, .. } = &err else { panic!("{err}") };
    assert_eq!(faults.len(), 1);
    assert_eq!((faults[0].lane, faults[0].source, faults[0].not_in_mask), (0, 16, true));
    assert_eq!(report.lanes_where(|s| matches!(s, LaneState::Exited)).0, !1);
    // With a block of 1024 threads the branch holds every lane and the reduction is defined.
    let ok = Executor::new().run_with(&x, async |w: &Warp<'_>, s| bug_gallery::reduce7_tail(w, s, 1024).await).unwrap();
    assert_eq!(ok[0], (0..32).sum::<u32>());
}

/// CINN #938: in a warp of 20 threads, lanes 4-15 read lanes 20-31, which were never launched.
#[test]
fn gallery_full_mask_tree_reads_lanes_that_do_not_exist() {
    let err = Executor::new().run_partial(launched(20), async |w: &Warp<'_>| bug_gallery::block_reduce_tail(w, 1).await).unwrap_err();
    let WarpError::InvalidShflSource { faults, report, .. } = &err else { panic!("{err}") };
    let readers: Vec<(u32, u32)> = faults.iter().map(|f| (f.lane, f.source)).collect();
    // Lanes 16-19 read past lane 31: out of range, they keep their own value (predicate false).
    assert_eq!(readers, (4..16).map(|l| (l, l + 16)).collect::<Vec<_>>());
    assert!(faults.iter().all(|f| f.exited && !f.not_in_mask));
    assert_eq!(report.lanes_where(|s| matches!(s, LaneState::Inactive)).0, !launched(20));
}

/// moderngpu #36: the two halves wait on overlapping membermasks; lanes 15 and 16 name each other.
#[test]
fn gallery_overlapping_masks_never_complete() {
    let err = Executor::new().run_with(&bug_gallery::neighbourhoods(), bug_gallery::data_as_mask).unwrap_err();
    let WarpError::Divergent { conflicts, report } = &err else { panic!("{err}") };
    assert_eq!(conflicts.len(), 1);
    assert_eq!((conflicts[0].lane, conflicts[0].mask, conflicts[0].other, conflicts[0].other_mask), (15, 0x0001_ffff, 16, 0xffff_8000));
    assert_eq!(report.lanes_where(|s| matches!(s, LaneState::Waiting { .. })).0, u32::MAX);
    // The report's text names both membermasks.
    let text = err.to_string();
    assert!(text.contains("0x0001ffff") && text.contains("0xffff8000"), "{text}");
}


// ---------------------------------------------------------------- blocks

/// Block sizes the block examples run with: warps whole and partial, one warp, the maximum.
fn block_size() -> impl Strategy<Value = u32> {
    prop_oneof![Just(32u32), Just(1024u32), 1u32..=256, (1u32..=32).prop_map(|w| 32 * w)]
}

/// Block sizes that are whole warps.
fn whole_warps() -> impl Strategy<Value = u32> {
    prop_oneof![Just(32u32), Just(1024u32), (1u32..=32).prop_map(|w| 32 * w)]
}

/// Schedules to run the block examples under: the result must not depend on it.
fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![Just(Schedule::InOrder), any::<u64>().prop_map(|seed| Schedule::Random { seed }), (any::<u64>(), 1u32..4).prop_map(|(s, d)| Schedule::pct(s, d))]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// BlockReduce: each block's wrapping sum in `out[b]`, and broadcast to every thread.
    #[test]
    fn block_reduce_sums_each_block(data in proptest::collection::vec(adversarial_u32(), 1..3000), block in block_size(), schedule in schedule()) {
        let blocks = data.len().div_ceil(block as usize);
        let input = GlobalBuffer::from_slice(&data);
        let out = GlobalBuffer::<u32>::zeroed(blocks);
        let all = GlobalBuffer::<u32>::zeroed(data.len());
        let (x, o, a) = (input.slice(), out.slice(), all.slice());
        Grid::blocks(blocks as u32, block).schedule(schedule).run(async |w: &Warp<'_>| block_reduce::block_reduce_entry(w, x, o, a).await).unwrap();
        let want: Vec<u32> = data.chunks(block as usize).map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v))).collect();
        prop_assert_eq!(out.to_vec(), want.clone());
        let broadcast: Vec<u32> = (0..data.len()).map(|i| want[i / block as usize]).collect();
        prop_assert_eq!(all.to_vec(), broadcast);
    }

    /// BlockScan: inclusive and exclusive prefix sums within each block, and the block totals.
    #[test]
    fn block_scan_scans_each_block(data in proptest::collection::vec(adversarial_u32(), 1..3000), block in block_size(), schedule in schedule()) {
        let blocks = data.len().div_ceil(block as usize);
        let input = GlobalBuffer::from_slice(&data);
        let (inc, exc, tot) = (GlobalBuffer::<u32>::zeroed(data.len()), GlobalBuffer::<u32>::zeroed(data.len()), GlobalBuffer::<u32>::zeroed(blocks));
        let (x, i, e, t) = (input.slice(), inc.slice(), exc.slice(), tot.slice());
        Grid::blocks(blocks as u32, block).schedule(schedule).run(async |w: &Warp<'_>| block_scan::block_scan_entry(w, x, i, e, t).await).unwrap();
        let (mut want_inc, mut want_exc, mut want_tot) = (Vec::new(), Vec::new(), Vec::new());
        for chunk in data.chunks(block as usize) {
            let mut run = 0u32;
            for &v in chunk {
                want_exc.push(run);
                run = run.wrapping_add(v);
                want_inc.push(run);
            }
            want_tot.push(run);
        }
        prop_assert_eq!(inc.to_vec(), want_inc);
        prop_assert_eq!(exc.to_vec(), want_exc);
        prop_assert_eq!(tot.to_vec(), want_tot);
    }

    /// Block radix sort: each block's tile sorted (missing keys of a partial tile are u32::MAX).
    #[test]
    fn block_radix_sort_sorts_each_block(data in proptest::collection::vec(adversarial_u32(), 1..2500), block in whole_warps(), schedule in schedule()) {
        let blocks = data.len().div_ceil(block as usize);
        let input = GlobalBuffer::from_slice(&data);
        let out = GlobalBuffer::<u32>::zeroed(data.len());
        let (x, y) = (input.slice(), out.slice());
        Grid::blocks(blocks as u32, block).schedule(schedule).run(async |w: &Warp<'_>| block_radix_sort::block_radix_sort_entry(w, x, y).await).unwrap();
        let want: Vec<u32> = data.chunks(block as usize).flat_map(|c| { let mut c = c.to_vec(); c.sort_unstable(); c }).collect();
        prop_assert_eq!(out.to_vec(), want);
    }

    /// Decoupled look-back: the inclusive scan of the whole input, whatever the schedule, the
    /// number of resident blocks and of CPU threads.
    #[test]
    fn lookback_scan_scans_the_whole_grid(
        data in proptest::collection::vec(adversarial_u32(), 1..6000),
        block in prop_oneof![Just(32u32), Just(64u32), Just(256u32)],
        schedule in schedule(),
        resident in 1usize..10,
        cpu_threads in 1usize..3,
    ) {
        let got = lookback_scan::scan_on_cpu(&data, block, |g| g.schedule(schedule).resident_blocks(resident).cpu_threads(cpu_threads)).unwrap();
        let want: Vec<u32> = data.iter().scan(0u32, |run, &v| { *run = run.wrapping_add(v); Some(*run) }).collect();
        prop_assert_eq!(got, want);
    }

    /// The pipeline: every output and every tile's sum, for any number of consumer warps.
    #[test]
    fn pipeline_transforms_every_tile(data in proptest::collection::vec(adversarial_u32(), 1..2000), blocks in 1u32..5, warps in 2u32..10, schedule in schedule()) {
        let input = GlobalBuffer::from_slice(&data);
        let output = GlobalBuffer::<u32>::zeroed(data.len());
        let sums = GlobalBuffer::<u32>::zeroed(data.len().div_ceil(pipeline::TILE));
        let (x, y, s) = (input.slice(), output.slice(), sums.slice());
        Grid::blocks(blocks, 32 * warps).schedule(schedule).run(async |w: &Warp<'_>| pipeline::pipeline_entry(w, x, y, s).await).unwrap();
        let want: Vec<u32> = data.iter().map(|&v| v.wrapping_mul(3).wrapping_add(1)).collect();
        let want_sums: Vec<u32> = want.chunks(pipeline::TILE).map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v))).collect();
        prop_assert_eq!(output.to_vec(), want);
        prop_assert_eq!(sums.to_vec(), want_sums);
    }

    /// The mbarrier pipeline (bulk copies into stages, full/empty barriers): every block's sum
    /// of its tiles, under any schedule, with the race detector on.
    #[test]
    fn mbarrier_pipeline_sums_every_tile(data in proptest::collection::vec(adversarial_u32(), 4..6000), blocks in 1u32..6, schedule in schedule()) {
        let data = &data[..data.len() / 4 * 4];
        let got = mbarrier_pipeline::mbarrier_reduce(data, blocks, |g| g.schedule(schedule).races(true)).unwrap();
        prop_assert_eq!(got, mbarrier_pipeline::reduce_reference(data, blocks));
    }

    /// The cluster-wide reduction through distributed shared memory: every cluster's sum, with
    /// the race detector on, under random schedules, on one and two CPU threads.
    #[test]
    fn cluster_reduce_sums_every_cluster(
        data in proptest::collection::vec(adversarial_u32(), 0..5000),
        cluster in 1u32..=8,
        clusters in 1u32..4,
        warps in 1u32..5,
        cpu in 1usize..=2,
        schedule in schedule(),
    ) {
        let (blocks, block) = (cluster * clusters, 32 * warps);
        let got = cluster_reduce::cluster_reduce(&data, blocks, block, cluster, |g| g.schedule(schedule).cpu_threads(cpu).races(true)).unwrap();
        prop_assert_eq!(got, cluster_reduce::cluster_reference(&data, blocks, block, cluster));
    }

    /// `bar.red.popc` compaction: the kept values, each block's in order in one range; with one
    /// CPU thread and in-order scheduling, blocks reserve in order and the output is sequential.
    #[test]
    fn block_compact_keeps_the_selected_values(data in proptest::collection::vec(adversarial_u32(), 1..3000), block in block_size(), schedule in schedule()) {
        let blocks = data.len().div_ceil(block as usize);
        let input = GlobalBuffer::from_slice(&data);
        let output = GlobalBuffer::<u32>::zeroed(data.len());
        let count = GlobalBuffer::<u32>::zeroed(1);
        let (x, y, c) = (input.slice(), output.slice(), count.slice());
        let at = Grid::blocks(blocks as u32, block).schedule(schedule).map(async |w: &Warp<'_>| block_compact::block_compact(w, x, y, c).await).unwrap();
        let kept: Vec<u32> = data.iter().copied().filter(|&v| block_compact::keep(v)).collect();
        prop_assert_eq!(count.to_vec()[0] as usize, kept.len());
        // Every kept value at the index its thread returned; each block's range contiguous and in order.
        for (b, chunk) in at.chunks(block as usize).enumerate() {
            let indices: Vec<u32> = chunk.iter().flatten().copied().collect();
            prop_assert!(indices.windows(2).all(|p| p[1] == p[0] + 1), "block {}: {:?}", b, indices);
        }
        for (i, slot) in at.iter().enumerate() {
            if i < data.len() {
                prop_assert_eq!(slot.is_some(), block_compact::keep(data[i]));
                if let Some(k) = slot { prop_assert_eq!(output.to_vec()[*k as usize], data[i]); }
            }
        }
        if schedule == Schedule::InOrder {
            prop_assert_eq!(output.to_vec()[..kept.len()].to_vec(), kept);
        }
    }
}

/// Case 4 of the gallery: acts' divergent `__syncthreads` is reported with both call sites; the
/// fix runs clean and finds what a sequential count finds.
#[test]
fn gallery_divergent_syncthreads_is_reported() {
    let err = bug_gallery::search_triplets_launch(false).unwrap_err();
    let WarpError::Barrier { rule, detail, report, .. } = &err else { panic!("{err}") };
    assert_eq!(*rule, BarrierRule::AlignedDifferentSites);
    assert!(detail.contains("in warp 1, lane 0 reaches `bar.sync`") && detail.contains("lane 8 reaches it"), "{err}");
    assert!(matches!(report.warps[1].lanes[8], LaneState::AtBarrier { .. }));
    let found = bug_gallery::search_triplets_launch(true).unwrap();
    let want: Vec<u32> = (0..64u32).map(|t| if t < 40 { ((t + 1) % 40 % 3 != 0) as u32 } else { 0 }).collect();
    assert_eq!(found, want);
}

/// Case 5 of the gallery: BundleFusion's hang is reported with every warp; the fix runs clean.
#[test]
fn gallery_barrier_that_can_never_complete_is_reported() {
    let err = bug_gallery::orientation_launch(false).unwrap_err();
    let WarpError::Barrier { rule, detail, report, .. } = &err else { panic!("{err}") };
    assert_eq!(*rule, BarrierRule::AlignedPartialWarp);
    assert!(detail.contains("lanes 0-3 of warp 1 wait at `bar.sync`") && detail.contains("`shfl.sync.down.b32` with membermask 0xffffffff"), "{err}");
    assert_eq!(report.warps.len(), 2);
    assert!(matches!(report.warps[1].lanes[2], LaneState::AtBarrier { arrived: false, .. }));
    assert!(matches!(report.warps[1].lanes[20], LaneState::Waiting { .. }));
    // Fixed: six rounds of three-bin smoothing; warp 0 holds bins 0-31, warp 1 bins 32-35.
    let mut bins: Vec<f32> = (0..36).map(bug_gallery::orientation_histogram).collect();
    for _ in 0..6 {
        bins = (0..36).map(|t| (bins[(t + 35) % 36] + bins[t] + bins[(t + 1) % 36]) / 3.0).collect();
    }
    let maxima = bug_gallery::orientation_launch(true).unwrap();
    let max0 = bins[..32].iter().copied().fold(f32::MIN, f32::max);
    let max1 = bins[32..].iter().copied().fold(0.0, f32::max);
    assert_eq!(maxima[0], max0);
    assert_eq!(maxima[32], max1, "the tree leaves the maximum in lane 0 of each warp");
}

// ---------------------------------------------------------------- bug gallery: races (issue 14)

/// Case 6 (HeCBench #254): the block total read without the barrier after thread 31 wrote it is
/// a race between warps, naming the store and the loads; the fixed twin gives every thread its
/// inclusive prefix within its warp plus the block total.
#[test]
fn gallery_block_total_without_a_barrier_races() {
    let err = bug_gallery::block_total_launch(false).unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert!(races.iter().all(|r| r.kind == warpkit::RaceKind::IntraBlock && r.space == warpkit::Space::Shared), "{err}");
    assert!(races.iter().any(|r| r.first.op == "st.shared" && r.first.lane == 31 && r.first.warp == 0), "{err}");
    let out = bug_gallery::block_total_launch(true).unwrap();
    let x: Vec<u32> = (1..=128).collect();
    let total: u32 = x.iter().sum();
    for t in 0..128 {
        let warp_prefix: u32 = x[t / 32 * 32..=t].iter().sum();
        assert_eq!(out[t], warp_prefix + total, "thread {t}");
    }
}

/// What case 7's reduction computes on lockstep hardware: at each level every lane reads before
/// any lane writes; words 32..63 are never written after the start.
fn lockstep_reduction(d: &[u32]) -> u32 {
    let mut s = d.to_vec();
    for offset in [32, 16, 8, 4, 2, 1] {
        let next: Vec<u32> = (0..32).map(|t| s[t].wrapping_add(s[t + offset])).collect();
        s[..32].copy_from_slice(&next);
    }
    s[0]
}

/// Case 7: the warp-synchronous reduction is an intra-warp hazard on sm_70+, clean and exact on
/// sm_60 (lockstep: the value lockstep hardware computes), and its `__syncwarp()` fix is clean and
/// exact everywhere.
#[test]
fn gallery_warp_synchronous_reduction_needs_syncwarp_since_volta() {
    let want: u32 = (1..=64).sum();
    assert_eq!(lockstep_reduction(&(1..=64).collect::<Vec<u32>>()), want);
    for target in [Target::SM_70, Target::SM_90, Target::SM_100A] {
        let err = bug_gallery::warp_reduce_launch(target, false).unwrap_err();
        let WarpError::Race { races, .. } = &err else { panic!("{target}: {err}") };
        assert!(races.iter().all(|r| r.kind == warpkit::RaceKind::IntraWarp), "{err}");
        assert!(err.to_string().contains("__syncwarp()") && err.to_string().contains("CUDA 9"), "{err}");
        assert_eq!(bug_gallery::warp_reduce_launch(target, true).unwrap(), want, "{target}");
    }
    assert_eq!(bug_gallery::warp_reduce_launch(Target::SM_60, false).unwrap(), want);
    assert_eq!(bug_gallery::warp_reduce_launch(Target::SM_60, true).unwrap(), want);
}

/// Case 8: the lost update is reported (stores of one instruction race with each other, and the
/// second warp's load with the first warp's stores); `atom.add` counts every thread.
#[test]
fn gallery_lost_update_is_reported_and_the_atomic_counts_every_thread() {
    let err = bug_gallery::lost_update_launch(false).unwrap_err();
    let text = err.to_string();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert!(races.iter().any(|r| r.kind == warpkit::RaceKind::IntraWarp && r.first.write && r.second.write), "{text}");
    assert!(text.contains("no barrier can order the threads of one instruction"), "{text}");
    assert!(races.iter().any(|r| r.kind == warpkit::RaceKind::IntraBlock), "{text}");
    assert_eq!(bug_gallery::lost_update_launch(true).unwrap(), 64);
}

// ---------------------------------------------------------------- memory model (issue 14)

/// The message-passing litmus test: release/acquire at `.gpu` scope reads 42 and runs clean; a
/// relaxed flag leaves the data racing; `.cta` scope across blocks is reported with its scope.
#[test]
fn litmus_message_passing_forms() {
    assert_eq!(litmus::run(litmus::Form::ReleaseAcquire).unwrap(), 42);
    let err = litmus::run(litmus::Form::Relaxed).unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert_eq!(races.len(), 1, "{err}");
    assert_eq!((races[0].first.op, races[0].second.op, races[0].second.value), ("st.global", "ld.global", 42));
    assert_eq!(races[0].kind, warpkit::RaceKind::InterBlock);
    let err = litmus::run(litmus::Form::CtaScope).unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert!(races.iter().any(|r| r.first.op == "st.global" && r.second.op == "ld.global"), "{err}");
    assert!(races.iter().all(|r| r.fix.contains("`.cta` scope")), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// The histogram with a last-block summary: with the fences, the counts are the sequential
    /// histogram, the summary its total and fullest bucket, and no race under any schedule;
    /// without them, the last block's loads race with another block's atomics.
    #[test]
    fn histogram_last_block_summary(data in proptest::collection::vec(0u32..40, 200..3000), buckets in 1usize..12, schedule in schedule()) {
        let want = histogram_reference(&data, buckets);
        let input = GlobalBuffer::from_slice(&data);
        let inp = input.slice();
        let blocks = data.len().div_ceil(128) as u32;
        for fenced in [1u32, 0] {
            let (counts, done, summary) = (GlobalBuffer::<u32>::zeroed(buckets), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(2));
            let (c, d, s) = (counts.slice(), done.slice(), summary.slice());
            let run = Grid::blocks(blocks, 128).schedule(schedule).races(true).run(async |w: &Warp<'_>| histogram::histogram_done_entry(w, inp, c, d, s, fenced).await);
            prop_assert_eq!(counts.to_vec(), want.clone());
            if fenced == 1 {
                prop_assert!(run.is_ok(), "{}", run.unwrap_err());
                prop_assert_eq!(summary.to_vec(), vec![want.iter().sum::<u32>(), *want.iter().max().unwrap()]);
            } else if blocks > 1 {
                let err = run.unwrap_err();
                let WarpError::Race { races, .. } = &err else { panic!("{err}") };
                prop_assert!(races.iter().all(|r| r.kind == warpkit::RaceKind::InterBlock && r.first.op == "atom.add" && r.second.op == "ld.global"), "{}", err);
            }
        }
    }
}


// ---------------------------------------------------------------- mbarrier pipelines (issue 16)

/// The input of the gallery's mbarrier cases, as `mbarrier_case_launch` makes it.
fn mbarrier_case_input() -> Vec<u32> {
    (0..bug_gallery::STAGE as u32 * bug_gallery::ROUNDS).map(|v| v * 3 + 1).collect()
}

/// Case 9: the producer's first wait on `empty` is for its current phase; both warps wait, and
/// the report shows each one's view of its barrier. The fixed producer (start parity 1) moves
/// every round through.
#[test]
fn gallery_mbarrier_parity_bug_hangs_and_shows_each_warps_phase() {
    let err = bug_gallery::mbarrier_case_launch(9, false).unwrap_err();
    let WarpError::ForwardProgress { blocks, .. } = &err else { panic!("{err}") };
    for (warp, element) in [(0usize, 1usize), (1, 0)] {
        for lane in 0..32 {
            let warpkit::LaneState::AtMemory(wait) = &blocks[0].warps[warp].lanes[lane] else { panic!("{err}") };
            let view = wait.mbarrier.expect("an mbarrier wait");
            assert_eq!((wait.index, view.waits_for, view.phase, view.pending), (element, warpkit::WaitsFor::Parity(0), 0, 32), "{err}");
            assert!(wait.site.file().ends_with("bug_gallery.rs"), "{err}");
        }
    }
    assert_eq!(bug_gallery::mbarrier_case_launch(9, true).unwrap(), mbarrier_case_input());
}

/// Case 10: 256 bytes announced, 128 transferred: the consumers wait on a phase whose tx-count
/// stays at 128; with the stage's real size they read every word.
#[test]
fn gallery_mbarrier_expect_tx_mismatch_leaves_the_tx_count() {
    let err = bug_gallery::mbarrier_case_launch(10, false).unwrap_err();
    let WarpError::ForwardProgress { blocks, .. } = &err else { panic!("{err}") };
    let warpkit::LaneState::AtMemory(wait) = &blocks[0].warps[1].lanes[0] else { panic!("{err}") };
    let view = wait.mbarrier.expect("an mbarrier wait");
    assert_eq!((view.pending, view.tx), (0, 128), "{err}");
    let out = bug_gallery::mbarrier_case_launch(10, true).unwrap();
    assert_eq!(out[..bug_gallery::STAGE], mbarrier_case_input()[..bug_gallery::STAGE]);
}

/// Case 11: the consumer's read before its wait races with the producer's write; after the wait
/// it is ordered by the arrivals' release and the wait's acquire.
#[test]
fn gallery_mbarrier_early_read_races() {
    let err = bug_gallery::mbarrier_case_launch(11, false).unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert!(races.iter().all(|r| r.kind == warpkit::RaceKind::IntraBlock && r.first.global_warp != r.second.global_warp), "{err}");
    let out = bug_gallery::mbarrier_case_launch(11, true).unwrap();
    assert_eq!(out[..bug_gallery::STAGE], mbarrier_case_input()[..bug_gallery::STAGE]);
}
