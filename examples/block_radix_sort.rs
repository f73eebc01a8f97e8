//! Block radix sort: one `u32` key per thread, sorted across the block, 4 bits per pass.
//!
//! Each pass ranks the keys by their digit stably, the way CUB's `BlockRadixRank` with
//! `match.any` does (`BlockRadixRankMatch`):
//!
//! 1. `match.any.sync` groups the lanes of each warp that hold the same digit; a key's rank among
//!    them is the number of those lanes below it, and the lowest of them writes the group's size
//!    to a shared table of digit counts, one column per warp;
//! 2. after `__syncthreads()`, the block scans the table in digit-major order (digit 0 of every
//!    warp, then digit 1, ...): the prefix of (digit, warp) is where that warp's keys of that
//!    digit start;
//! 3. each key goes to its prefix plus its rank in a shared array, which the threads read back in
//!    order for the next pass.
//!
//! Equal digits keep their order (lower warp first, then lower lane), so the sort is stable and
//! eight passes sort all 32 bits. Blocks of a multiple of 32 threads, up to 1024.
//!
//! Run it: `cargo run --example block_radix_sort`.

use warpkit::prelude::*;

/// Bits per pass and the digits they make.
pub const RADIX_BITS: u32 = 4;
pub const DIGITS: u32 = 1 << RADIX_BITS;

/// The exclusive prefix sum of `x` over the block's threads (wrapping), and the total.
#[warp_kernel]
pub fn block_exclusive_sum(w: &Warp, x: u32) -> (u32, u32) {
    let totals = w.shared_array::<u32, 33>();
    let warp = w.warp_in_block() as usize;
    let warps = w.block_size().div_ceil(32);
    let mut v = x;
    for delta in [1, 2, 4, 8, 16] {
        let (up, in_range) = w.shfl_up_pred(v, delta);
        if in_range {
            v = v.wrapping_add(up);
        }
    }
    if w.lane_id() == 31 {
        totals.store(warp, v);
    }
    w.sync_threads();
    if warp == 0 {
        let t = if w.lane_id() < warps { totals.load(w.lane_id() as usize) } else { 0 };
        let mut s = t;
        for delta in [1, 2, 4, 8, 16] {
            let (up, in_range) = w.shfl_up_pred(s, delta);
            if in_range {
                s = s.wrapping_add(up);
            }
        }
        if w.lane_id() < warps {
            totals.store(w.lane_id() as usize, s.wrapping_sub(t));
        }
        if w.lane_id() == warps - 1 {
            totals.store(32, s);
        }
    }
    w.sync_threads();
    let exclusive = v.wrapping_sub(x).wrapping_add(totals.load(warp));
    let total = totals.load(32);
    // The next call reuses the array: every thread must have read it first.
    w.sync_threads();
    (exclusive, total)
}

/// Sorts the block's keys (one per thread): returns the key of rank `thread_rank` in the sorted
/// order.
#[warp_kernel]
pub fn block_radix_sort(w: &Warp, key: u32) -> u32 {
    let keys = w.shared_array::<u32, 1024>();
    // counts[digit * 32 + warp]: how many keys of `digit` warp `warp` holds.
    let counts = w.shared_array::<u32, 512>();
    let warp = w.warp_in_block();
    let warps = w.block_size() / 32;
    let lane = w.lane_id();
    let mut k = key;
    let mut pass = 0;
    while pass < 32 / RADIX_BITS {
        let digit = (k >> (RADIX_BITS * pass)) & (DIGITS - 1);
        // 1. Rank within the warp among the lanes holding the same digit.
        if lane < DIGITS {
            counts.store((lane * 32 + warp) as usize, 0);
        }
        w.syncwarp();
        let peers = w.match_any(digit);
        let rank = (peers & w.lanemask_lt()).count_ones();
        if rank == 0 {
            counts.store((digit * 32 + warp) as usize, peers.count_ones());
        }
        w.sync_threads();
        // 2. Scan the table in digit-major order: entry `e` is (digit e / warps, warp e % warps).
        let t = w.thread_rank();
        let entry = if t < DIGITS * warps { counts.load(((t / warps) * 32 + t % warps) as usize) } else { 0 };
        let (start, _) = block_exclusive_sum(w, entry);
        if t < DIGITS * warps {
            counts.store(((t / warps) * 32 + t % warps) as usize, start);
        }
        w.sync_threads();
        // 3. Scatter, then read back in order.
        let position = counts.load((digit * 32 + warp) as usize) + rank;
        keys.store(position as usize, k);
        w.sync_threads();
        k = keys.load(t as usize);
        w.sync_threads();
        pass += 1;
    }
    k
}

/// GPU entry point: block `b` sorts `keys[b * B .. (b + 1) * B]` (B = the block size, a multiple
/// of 32; missing keys count as `u32::MAX`) and writes the sorted tile to `out` (where it exists).
#[warp_kernel(entry)]
pub fn block_radix_sort_entry(w: &Warp, keys: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    let k = if i < keys.len() { keys.load(i) } else { u32::MAX };
    let sorted = block_radix_sort(w, k);
    if i < out.len() {
        out.store(i, sorted);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 2000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761).rotate_left(11)).collect();
    for block in [256u32, 64, 1024] {
        let blocks = n.div_ceil(block as usize) as u32;
        let input = GlobalBuffer::from_slice(&data);
        let out = GlobalBuffer::<u32>::zeroed(n);
        let (x, y) = (input.slice(), out.slice());
        Grid::blocks(blocks, block).run(async |w: &Warp<'_>| block_radix_sort_entry(w, x, y).await).unwrap();
        let want: Vec<u32> = data.chunks(block as usize).flat_map(|c| {
            let mut c = c.to_vec();
            c.sort_unstable();
            c
        }).collect();
        println!("{blocks} blocks of {block} threads: block 0 sorted {:?} ...  {}", &out.to_vec()[..4], if out.to_vec() == want { "ok" } else { "MISMATCH" });
    }
}
