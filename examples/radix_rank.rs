//! Radix ranking of 32 keys with `match.any.sync`: the idea behind CUB's `BlockRadixRank` MATCH
//! variant (`BlockRadixRankMatch`), for one warp.
//!
//! Each lane takes the `RADIX_BITS`-bit digit of its key at `shift`. Then:
//! 1. `match_any(digit)` gives each lane the mask of lanes with the same digit; its rank among
//!    them is `popc(peers & %lanemask_lt)`, which keeps equal digits in lane order (a stable rank);
//! 2. one leader per digit (the highest lane of the group, as in CUB) adds `popc(peers)` to that
//!    digit's counter: one atomic per distinct digit, in a scratch array that plays the part of
//!    CUB's shared-memory bins;
//! 3. after `bar.warp.sync`, lane `d` reads digit `d`'s count, and an exclusive warp scan of the
//!    counts gives each digit's first slot; `shfl.sync.idx` from lane `digit` brings it to every
//!    lane of the digit.
//!
//! rank = digit offset + rank among peers: the position of the key after one pass of a stable
//! counting sort. Repeating over all digits from the least significant gives an LSD radix sort.
//!
//! With 5-bit digits there are exactly 32 bins, one per lane. The kernels need a full warp:
//! CUB pads a partial tile with keys that rank last (all ones), and so does `tests/examples.rs`.
//!
//! Run it: `cargo run --example radix_rank`.

use warpkit::prelude::*;

/// Bits per digit.
pub const RADIX_BITS: u32 = 5;
/// Bins per digit: one per lane.
pub const RADIX: u32 = 1 << RADIX_BITS;

/// The digit of `key` at bit `shift`.
#[inline(always)]
pub fn digit(key: u32, shift: u32) -> u32 {
    (key >> shift) & (RADIX - 1)
}

/// This lane's rank by the digit of `key` at `shift`. `bins` holds `RADIX` zeroed counters per
/// warp (at `RADIX * warp_index`); they are zero again when the kernel returns.
#[warp_kernel]
pub fn radix_rank(w: &Warp, key: u32, shift: u32, bins: GlobalSlice<'_, u32>) -> u32 {
    let base = (w.warp_index() * RADIX as u64) as usize;
    let lane = w.lane_id();
    let d = digit(key, shift);
    let peers = w.match_any(d);
    let rank_in_digit = (peers & w.lanemask_lt()).count_ones();
    // The highest peer is the leader (CUB's choice: it knows the group's count as its rank + 1).
    if lane == 31 - peers.leading_zeros() {
        bins.atomic_add(base + d as usize, peers.count_ones());
    }
    w.syncwarp();
    let count = bins.load(base + lane as usize);
    bins.store(base + lane as usize, 0);
    let offset = exclusive_sum(w, count);
    w.shfl_idx(offset, d) + rank_in_digit
}

/// Exclusive prefix sum over the warp (CUB's `WarpScanShfl` shape).
#[warp_kernel]
pub fn exclusive_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut offset = 1;
    while offset < 32 {
        let (up, in_range) = w.shfl_up_pred(v, offset);
        if in_range {
            v += up;
        }
        offset *= 2;
    }
    v - x
}

/// LSD radix sort of the warp's 32 keys: one [`radix_rank`] per digit, each followed by a scatter
/// to the key's rank through `exchange` (32 elements per warp, like a shared-memory exchange).
/// Returns the key that lands in this lane.
#[warp_kernel]
pub fn radix_sort(w: &Warp, key: u32, bins: GlobalSlice<'_, u32>, exchange: GlobalSlice<'_, u32>) -> u32 {
    let base = (w.warp_index() * 32) as usize;
    let mut k = key;
    let mut shift = 0;
    while shift < 32 {
        let rank = radix_rank(w, k, shift, bins);
        exchange.store(base + rank as usize, k);
        w.syncwarp();
        k = exchange.load(base + w.lane_id() as usize);
        w.syncwarp();
        shift += RADIX_BITS;
    }
    k
}

// GPU entry points: a grid of whole warps over `keys` (launch `keys.len()` rounded up to a multiple
// of 32 threads); lanes past the end carry the padding key `u32::MAX`, which ranks last, and
// store nothing. `bins` holds `RADIX` zeroed counters per warp.

/// [`radix_rank`] by the digit at `shift`: `ranks[i]` is key `i`'s rank within its warp's 32 keys.
#[warp_kernel(entry)]
pub fn radix_rank_entry(w: &Warp, keys: GlobalSlice<'_, u32>, shift: u32, bins: GlobalSlice<'_, u32>, ranks: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let valid = i < keys.len();
    let key = if valid { keys.load(i) } else { u32::MAX };
    let rank = radix_rank(w, key, shift, bins);
    if valid {
        ranks.store(i, rank);
    }
}

/// [`radix_sort`] of each warp's 32 keys: `sorted[i]` is the key that lands in thread `i`
/// (`exchange` holds 32 elements per warp).
#[warp_kernel(entry)]
pub fn radix_sort_entry(
    w: &Warp,
    keys: GlobalSlice<'_, u32>,
    bins: GlobalSlice<'_, u32>,
    exchange: GlobalSlice<'_, u32>,
    sorted: GlobalSlice<'_, u32>,
) {
    let i = w.global_id() as usize;
    let valid = i < keys.len();
    let key = if valid { keys.load(i) } else { u32::MAX };
    let k = radix_sort(w, key, bins, exchange);
    if valid {
        sorted.store(i, k);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    use warpkit::GlobalBuffer;

    let keys: [u32; 32] = core::array::from_fn(|l| (l as u32 * 11 + 5) % 13 + 32 * ((l as u32 * 7) % 3));
    let bins = GlobalBuffer::<u32>::zeroed(RADIX as usize);
    let b = bins.slice();
    let ranks = Executor::new().run_with(&keys, async |w: &Warp<'_>, k| radix_rank(w, k, 0, b).await).unwrap();
    println!("keys         {:?}", keys);
    println!("digit (0..5) {:?}", keys.map(|k| digit(k, 0)));
    println!("rank         {:?}", ranks);
    // The reference: a stable counting sort by the digit.
    let mut order: Vec<usize> = (0..32).collect();
    order.sort_by_key(|&l| digit(keys[l], 0));
    let mut reference = [0u32; 32];
    for (pos, &l) in order.iter().enumerate() {
        reference[l] = pos as u32;
    }
    println!("equal to a stable counting sort's positions: {}", ranks == reference);

    let keys: [u32; 32] = core::array::from_fn(|l| (l as u32 + 3).wrapping_mul(2_654_435_761) ^ (l as u32 % 4) << 30);
    let exchange = GlobalBuffer::<u32>::zeroed(32);
    let e = exchange.slice();
    let sorted = Executor::new().run_with(&keys, async |w: &Warp<'_>, k| radix_sort(w, k, b, e).await).unwrap();
    let mut reference = keys;
    reference.sort();
    println!("radix sort (7 passes of 5 bits):");
    println!("  first 8 in   {:?}", &keys[..8]);
    println!("  first 8 out  {:?}", &sorted[..8]);
    println!("  equal to the sorted keys: {}", sorted == reference);
}
