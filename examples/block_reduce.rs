//! Block reduction, the shape of CUB's `BlockReduce` with `BLOCK_REDUCE_WARP_REDUCTIONS`:
//!
//! 1. each warp reduces its values with a `shfl.sync.down` tree (CUB's `WarpReduce`), clamped to
//!    the warp's valid lanes so a partial last warp never reads a lane that does not exist;
//! 2. lane 0 of each warp writes the warp's partial to a shared array;
//! 3. after `__syncthreads()` (`bar.sync 0`), warp 0 reduces the partials the same way.
//!
//! The block's total ends up in thread 0 (as in CUB); [`block_sum_all`] also broadcasts it to
//! every thread through shared memory, behind a second barrier.
//!
//! Run it: `cargo run --example block_reduce`.

use warpkit::prelude::*;

/// The sum of `x` over lanes `0..=last_lane` of the warp, in lane 0: the `shfl.sync.down` tree,
/// whose `c` operand clamps each source to `last_lane` (a lane past it adds nothing).
#[warp_kernel]
pub fn warp_sum(w: &Warp, x: u32, last_lane: u32) -> u32 {
    let mut v = x;
    let mut offset = 16;
    while offset > 0 {
        let (other, in_range) = w.shfl(ShflMode::Down, v, offset, last_lane);
        if in_range {
            v = v.wrapping_add(other);
        }
        offset /= 2;
    }
    v
}

/// The wrapping sum of `x` over the block's threads, in thread 0 (other threads get partial
/// sums). Blocks of up to 1024 threads, of any size. Its shared array is the same on every
/// call: a block that calls it again must `sync_threads()` in between.
#[warp_kernel]
pub fn block_sum(w: &Warp, x: u32) -> u32 {
    let partials = w.shared_array::<u32, 32>();
    let size = w.block_size();
    let warp = w.warp_in_block();
    let warps = size.div_ceil(32);
    // 1. Each warp reduces its own lanes.
    let last_lane = (size - 1 - 32 * warp).min(31);
    let mine = warp_sum(w, x, last_lane);
    // 2. Warp partials to shared memory.
    if w.lane_id() == 0 {
        partials.store(warp as usize, mine);
    }
    w.sync_threads();
    // 3. Warp 0 reduces the partials.
    let mut total = mine;
    if warp == 0 {
        let p = if w.lane_id() < warps { partials.load(w.lane_id() as usize) } else { 0 };
        total = warp_sum(w, p, warps - 1);
    }
    total
}

/// [`block_sum`] with the total in every thread: thread 0 writes it to shared memory, and a second
/// barrier orders that write before every thread's read.
#[warp_kernel]
pub fn block_sum_all(w: &Warp, x: u32) -> u32 {
    let total = w.shared_array::<u32, 1>();
    let sum = block_sum(w, x);
    if w.thread_rank() == 0 {
        total.store(0, sum);
    }
    w.sync_threads();
    total.load(0)
}

/// GPU entry point: block `b` sums `input[b * B .. (b + 1) * B]` (B = the block size; elements past
/// the end count as 0), writes the total to `out[b]` from thread 0, and every thread writes the
/// broadcast total to `all[global thread index]` (where it exists).
#[warp_kernel(entry)]
pub fn block_reduce_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, all: GlobalSlice<'_, u32>) {
    let i = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    let x = if i < input.len() { input.load(i) } else { 0 };
    let sum = block_sum(w, x);
    if w.thread_rank() == 0 {
        out.store(w.block_rank() as usize, sum);
    }
    // `block_sum_all` reuses `block_sum`'s shared array: warp 0 may still be reading the
    // partials of the first sum when another warp writes its partial of the second. The race
    // detector found this missing barrier (as CUB says of its temporary storage: a
    // `__syncthreads()` before reuse).
    w.sync_threads();
    let total = block_sum_all(w, x);
    if i < all.len() {
        all.store(i, total);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 10_000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 4).collect();
    for block in [256u32, 96, 1000] {
        let blocks = n.div_ceil(block as usize) as u32;
        let input = GlobalBuffer::from_slice(&data);
        let out = GlobalBuffer::<u32>::zeroed(blocks as usize);
        let all = GlobalBuffer::<u32>::zeroed(n);
        let (x, o, a) = (input.slice(), out.slice(), all.slice());
        Grid::blocks(blocks, block).run(async |w: &Warp<'_>| block_reduce_entry(w, x, o, a).await).unwrap();
        let want: Vec<u32> = data.chunks(block as usize).map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v))).collect();
        let broadcast_ok = data.chunks(block as usize).zip(&want).enumerate().all(|(b, (c, &s))| (0..c.len()).all(|t| all.to_vec()[b * block as usize + t] == s));
        println!(
            "{blocks} blocks of {block} threads over {n} values: first block sums {:?}, last {:?}; sequential {:?}, {:?}  {}",
            out.to_vec()[0],
            out.to_vec()[blocks as usize - 1],
            want[0],
            want[blocks as usize - 1],
            if out.to_vec() == want && broadcast_ok { "ok" } else { "MISMATCH" }
        );
    }
}
