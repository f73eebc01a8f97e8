//! Block scan, the shape of CUB's `BlockScan` with `BLOCK_SCAN_WARP_SCANS`:
//!
//! 1. each warp computes an inclusive prefix sum with five `shfl.sync.up` steps (CUB's
//!    `WarpScanShfl`), adding only where the predicate says the source lane is in range;
//! 2. the last valid lane of each warp writes the warp's total to a shared array;
//! 3. after `__syncthreads()`, warp 0 scans the totals (exclusive) and writes each warp's prefix
//!    back, with the block's total;
//! 4. after a second `__syncthreads()`, every thread adds its warp's prefix.
//!
//! Blocks of any size up to 1024 threads; a partial last warp reads only lanes below it (a
//! `shfl.sync.up` sources lower lanes), so no lane that does not exist is ever read.
//!
//! Run it: `cargo run --example block_scan`.

use warpkit::prelude::*;

/// The inclusive prefix sum over the warp's lanes (wrapping).
#[warp_kernel]
pub fn warp_inclusive_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for delta in [1, 2, 4, 8, 16] {
        let (up, in_range) = w.shfl_up_pred(v, delta);
        if in_range {
            v = v.wrapping_add(up);
        }
    }
    v
}

/// `(inclusive, exclusive, block total)` prefix sums of `x` over the threads of the block, in
/// thread-rank order.
#[warp_kernel]
pub fn block_scan(w: &Warp, x: u32) -> (u32, u32, u32) {
    let prefixes = w.shared_array::<u32, 33>();
    let size = w.block_size();
    let warp = w.warp_in_block();
    let warps = size.div_ceil(32);
    let last_lane = (size - 1 - 32 * warp).min(31);
    // 1. Warp scan.
    let inclusive = warp_inclusive_sum(w, x);
    // 2. Warp totals.
    if w.lane_id() == last_lane {
        prefixes.store(warp as usize, inclusive);
    }
    w.sync_threads();
    // 3. Warp 0 turns the totals into exclusive prefixes, and the block total into slot 32.
    if warp == 0 {
        let total = if w.lane_id() < warps { prefixes.load(w.lane_id() as usize) } else { 0 };
        let running = warp_inclusive_sum(w, total);
        if w.lane_id() < warps {
            prefixes.store(w.lane_id() as usize, running.wrapping_sub(total));
        }
        if w.lane_id() == warps - 1 {
            prefixes.store(32, running);
        }
    }
    w.sync_threads();
    // 4. Add the warp's prefix.
    let prefix = prefixes.load(warp as usize);
    let inclusive = inclusive.wrapping_add(prefix);
    (inclusive, inclusive.wrapping_sub(x), prefixes.load(32))
}

/// GPU entry point: block `b` scans `input[b * B .. (b + 1) * B]` (B = the block size; elements
/// past the end count as 0); thread `i` writes its inclusive sum to `inclusive[i]` and its
/// exclusive sum to `exclusive[i]` (where they exist), and thread 0 the block total to
/// `totals[b]`.
#[warp_kernel(entry)]
pub fn block_scan_entry(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    inclusive: GlobalSlice<'_, u32>,
    exclusive: GlobalSlice<'_, u32>,
    totals: GlobalSlice<'_, u32>,
) {
    let i = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    let x = if i < input.len() { input.load(i) } else { 0 };
    let (inc, exc, total) = block_scan(w, x);
    if i < inclusive.len() {
        inclusive.store(i, inc);
        exclusive.store(i, exc);
    }
    if w.thread_rank() == 0 {
        totals.store(w.block_rank() as usize, total);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 3000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % 1000).collect();
    for block in [128u32, 1024, 200] {
        let blocks = n.div_ceil(block as usize) as u32;
        let input = GlobalBuffer::from_slice(&data);
        let inc = GlobalBuffer::<u32>::zeroed(n);
        let exc = GlobalBuffer::<u32>::zeroed(n);
        let tot = GlobalBuffer::<u32>::zeroed(blocks as usize);
        let (x, i, e, t) = (input.slice(), inc.slice(), exc.slice(), tot.slice());
        Grid::blocks(blocks, block).run(async |w: &Warp<'_>| block_scan_entry(w, x, i, e, t).await).unwrap();
        let mut ok = true;
        for (b, chunk) in data.chunks(block as usize).enumerate() {
            let mut run = 0u32;
            for (k, &v) in chunk.iter().enumerate() {
                let at = b * block as usize + k;
                ok &= exc.to_vec()[at] == run;
                run = run.wrapping_add(v);
                ok &= inc.to_vec()[at] == run;
            }
            ok &= tot.to_vec()[b] == run;
        }
        println!(
            "{blocks} blocks of {block} threads: block 0 inclusive {:?}, total {}  {}",
            &inc.to_vec()[..6],
            tot.to_vec()[0],
            if ok { "ok" } else { "MISMATCH" }
        );
    }
}
