//! Bitonic sort of 32 keys in registers, one per lane, with `shfl.sync.bfly` (`__shfl_xor_sync`):
//! the sorting network used for warp-wide sorts when the data fits in a warp.
//!
//! Stage `size` = 2, 4, ..., 32 merges bitonic runs of `size` lanes; each of its steps compares
//! every lane with the lane `stride` away (`lane ^ stride`). The lower lane of a pair keeps the
//! smaller key in an ascending run (bit `size` of the lane is 0) and the larger in a descending
//! one. A lane takes its partner's key only when it is strictly better, so with equal keys both
//! lanes keep their own and a key-value pair is never split or duplicated.
//!
//! A bitonic network is not stable. For a stable key-value sort, [`sort_pairs_grid`] sorts the
//! 64-bit composite `key << 32 | index` (two-word shuffles), which also puts padding (all ones)
//! after every real key of a partial last segment, including real `u32::MAX` keys.
//!
//! Run it: `cargo run --example bitonic_sort`.

use warpkit::prelude::*;
use warpkit::WarpValue;

/// Whether this lane should take its partner's key: `(size, stride)` is the network step.
#[inline(always)]
fn take_partner<K: PartialOrd>(lane: u32, size: u32, stride: u32, mine: &K, partner: &K) -> bool {
    let ascending = lane & size == 0;
    let lower = lane & stride == 0;
    if lower == ascending { partner < mine } else { partner > mine }
}

/// Sorts the warp's 32 keys ascending: lane `i` returns the `i`-th smallest.
#[warp_kernel]
pub fn bitonic_sort<K>(w: &Warp, key: K) -> K
where
    K: WarpValue + PartialOrd,
{
    let lane = w.lane_id();
    let mut k = key;
    let mut size = 2;
    while size <= 32 {
        let mut stride = size / 2;
        while stride > 0 {
            let other = w.shfl_xor(k, stride);
            if take_partner(lane, size, stride, &k, &other) {
                k = other;
            }
            stride /= 2;
        }
        size *= 2;
    }
    k
}

/// Sorts key-value pairs by key; the value moves with its key (not stable for equal keys).
#[warp_kernel]
pub fn bitonic_sort_pairs<K, V>(w: &Warp, key: K, value: V) -> (K, V)
where
    K: WarpValue + PartialOrd,
    V: WarpValue,
{
    let lane = w.lane_id();
    let (mut k, mut v) = (key, value);
    let mut size = 2;
    while size <= 32 {
        let mut stride = size / 2;
        while stride > 0 {
            let other_key = w.shfl_xor(k, stride);
            let other_value = w.shfl_xor(v, stride);
            if take_partner(lane, size, stride, &k, &other_key) {
                k = other_key;
                v = other_value;
            }
            stride /= 2;
        }
        size *= 2;
    }
    (k, v)
}

/// `u32` keys (the concrete kernel).
#[warp_kernel]
pub fn sort_u32(w: &Warp, key: u32) -> u32 {
    bitonic_sort(w, key)
}

/// A grid over `keys.len()` rounded up to whole warps: each warp sorts its segment of 32 pairs in
/// place, stably by key. Lanes past the end carry padding and store nothing. Also a GPU entry point.
#[warp_kernel(entry)]
pub fn sort_pairs_grid(w: &Warp, keys: GlobalSlice<'_, u32>, values: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let lane = w.lane_id();
    let valid = i < keys.len();
    let composite = if valid { (keys.load(i) as u64) << 32 | lane as u64 } else { u64::MAX };
    let value = if valid { values.load(i) } else { 0 };
    let (sorted, value) = bitonic_sort_pairs(w, composite, value);
    if valid {
        keys.store(i, (sorted >> 32) as u32);
        values.store(i, value);
    }
}

// GPU entry points: a grid of whole warps over `keys` (launch `keys.len()` rounded up to a multiple
// of 32 threads); lanes past the end carry padding and store nothing.

/// [`sort_u32`] of each warp's segment: `out[i]` is the key that lands in thread `i` (padding is
/// `u32::MAX`, so the real keys come first).
#[warp_kernel(entry)]
pub fn sort_u32_entry(w: &Warp, keys: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let valid = i < keys.len();
    let k = sort_u32(w, if valid { keys.load(i) } else { u32::MAX });
    if valid {
        out.store(i, k);
    }
}

/// [`bitonic_sort_pairs`] of `f32` keys with `u32` values, per warp (padding: `+inf` keys, value
/// `u32::MAX`). With NaN keys the network's comparisons are all false, so the result is not
/// sorted, but it is the same on every implementation that compares as IEEE 754 does.
#[warp_kernel(entry)]
pub fn sort_pairs_f32_entry(
    w: &Warp,
    keys: GlobalSlice<'_, f32>,
    values: GlobalSlice<'_, u32>,
    out_keys: GlobalSlice<'_, f32>,
    out_values: GlobalSlice<'_, u32>,
) {
    let i = w.global_id() as usize;
    let valid = i < keys.len();
    let (k, v) = if valid { (keys.load(i), values.load(i)) } else { (f32::INFINITY, u32::MAX) };
    let (k, v) = bitonic_sort_pairs(w, k, v);
    if valid {
        out_keys.store(i, k);
        out_values.store(i, v);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    use warpkit::{launch, GlobalBuffer};

    let keys: [u32; 32] = core::array::from_fn(|l| (l as u32 * 19 + 7) % 32 / 2);
    let sorted = Executor::new().run_with(&keys, sort_u32).unwrap();
    let mut reference = keys;
    reference.sort();
    println!("keys (with duplicates) {:?}", keys);
    println!("bitonic sort           {:?}", sorted);
    println!("equal to slice::sort: {}", sorted == reference);

    let f: [f32; 32] = core::array::from_fn(|l| ((l as f32 * 2.3).sin() * 100.0).round() / 10.0);
    let out = Executor::new().run_with(&f, async |w: &Warp<'_>, x: f32| bitonic_sort_pairs(w, x, w.lane_id()).await).unwrap();
    println!("f32 keys, lane ids as values: first 8 sorted {:?}", &out[..8]);

    // A grid of 70 pairs: 3 warps, the last with 6 real pairs and 26 lanes of padding.
    let n = 70usize;
    let k: Vec<u32> = (0..n as u32).map(|i| if i % 9 == 0 { u32::MAX } else { i * 7 % 5 }).collect();
    let v: Vec<u32> = (0..n as u32).collect();
    let (kb, vb) = (GlobalBuffer::from_slice(&k), GlobalBuffer::from_slice(&v));
    let (ks, vs) = (kb.slice(), vb.slice());
    launch(n.div_ceil(32) as u64 * 32, async |w: &Warp<'_>| sort_pairs_grid(w, ks, vs).await).unwrap();
    let (sk, sv) = (kb.to_vec(), vb.to_vec());
    let mut reference: Vec<(u32, u32)> = Vec::new();
    for chunk in k.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>().chunks(32) {
        let mut c = chunk.to_vec();
        c.sort_by_key(|p| p.0); // stable
        reference.extend(c);
    }
    let got: Vec<(u32, u32)> = sk.into_iter().zip(sv).collect();
    println!("grid of {n} pairs in segments of 32, last segment: {:?}", &got[64..]);
    println!("equal to a stable sort of each segment: {}", got == reference);
}
