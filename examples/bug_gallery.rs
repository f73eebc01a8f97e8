//! Three undefined-behaviour patterns from public CUDA code, each run in the lockstep runtime,
//! which stops the warp and prints what went wrong instead of returning garbage or hanging.
//!
//! 1. NVIDIA/cuda-samples issue 398 (`reduction_kernel.cu`, `reduce7`): the last warp reduces
//!    with `warpReduceSum(ballot_result, mySum)` inside `if (tid < shmem_extent)`. With a block of
//!    32 threads, `shmem_extent` is 1, the membermask is `0x1`, and lane 0's
//!    `__shfl_down_sync(0x1, mySum, 16)` reads lane 16, which is not in the membermask and has
//!    left the branch.
//! 2. PaddlePaddle/CINN pull request 938: a block whose thread count is not a multiple of 32 ran a
//!    full-mask `__shfl_down_sync` tree; in the last warp, lanes read `lane + delta` past the last
//!    thread, which does not exist ("the value is undefined; measured 0"), and reductions were wrong.
//! 3. Two groups of lanes wait on overlapping membermasks. moderngpu pull request 36 ("Fix
//!    potential deadlock after switching to shfl.sync") fixed `__shfl_down_sync(u.x[i], offset,
//!    width)`: the data word went where the membermask goes, so lanes holding different words
//!    waited on different masks. Here the words are bitsets of neighbouring lanes (the low half
//!    holds lanes 0-16, the high half lanes 15-31): lane 15 waits for lane 16, which waits at the
//!    other half's mask, and the reverse, so neither group can complete; a deadlock (the runtime
//!    reports it as `WarpError::Divergent`, its rule for lanes that name each other but disagree).
//!
//! Run it: `cargo run --example bug_gallery`.

use warpkit::prelude::*;

/// cuda-samples `warpReduceSum(mask, mySum)`.
#[warp_kernel]
pub fn warp_reduce_sum(g: &Warp, my_sum: u32) -> u32 {
    let mut sum = my_sum;
    let mut offset = 16;
    while offset > 0 {
        sum += g.shfl_down(sum, offset);
        offset /= 2;
    }
    sum
}

/// The end of cuda-samples `reduce7` for one warp: `sdata` is this lane's shared-memory word.
#[warp_kernel]
pub fn reduce7_tail(w: &Warp, sdata: u32, block_size: u32) -> u32 {
    let tid = w.lane_id();
    let shmem_extent = if block_size / 32 > 0 { block_size / 32 } else { 1 };
    let ballot_result = w.ballot(tid < shmem_extent);
    let mut my_sum = 0;
    if tid < shmem_extent {
        my_sum = sdata;
        my_sum = warp_reduce_sum(&w.group(ballot_result), my_sum);
    }
    my_sum
}

/// A full-mask shuffle-down tree in a warp with fewer than 32 threads (CINN before #938).
#[warp_kernel]
pub fn block_reduce_tail(w: &Warp, x: u32) -> u32 {
    warp_reduce_sum(w, x)
}

/// `__shfl_down_sync(u.x[i], offset, width)`: the data word `x` is used as the membermask.
#[warp_kernel]
pub fn data_as_mask(w: &Warp, x: u32) -> u32 {
    w.shfl_down_sync(x, 1, 1, 32)
}

/// The bitsets of case 3: each half of the warp and the nearest lane of the other half
/// (lanes 0-15 hold lanes 0-16, lanes 16-31 hold lanes 15-31).
pub fn neighbourhoods() -> [u32; 32] {
    core::array::from_fn(|l| if l < 16 { 0x0001_ffff } else { 0xffff_8000 })
}

// GPU entry points, built to PTX (and checked by ptxas) so that the gallery compiles for the GPU
// like every example, but **never launched**: each is undefined behaviour on a GPU (a full-mask
// shuffle in a branch, reads of lanes that do not exist, a deadlock). Thread `i` writes `out[i]`.

/// Case 1: [`reduce7_tail`] of `sdata[i]` with `block_size` threads. Undefined behaviour.
#[warp_kernel(entry)]
pub fn gallery_reduce7_entry(w: &Warp, sdata: GlobalSlice<'_, u32>, block_size: u32, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, reduce7_tail(w, sdata.load(i), block_size));
}

/// Case 2: [`block_reduce_tail`] over `x.len()` threads (a partial warp). Undefined behaviour.
#[warp_kernel(entry)]
pub fn gallery_block_reduce_tail_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= x.len() {
        return;
    }
    out.store(i, block_reduce_tail(w, x.load(i)));
}

/// Case 3: [`data_as_mask`] of `x[i]`. Undefined behaviour (a deadlock on overlapping masks).
#[warp_kernel(entry)]
pub fn gallery_data_as_mask_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, data_as_mask(w, x.load(i)));
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 + 1);

    println!("== 1. cuda-samples #398: reduce7 with a block of 32 threads ==");
    let err = Executor::new().run_with(&x, async |w: &Warp<'_>, s| reduce7_tail(w, s, 32).await).unwrap_err();
    println!("{err}\n");

    println!("== 2. CINN #938: a full-mask shuffle tree in a warp of 20 threads ==");
    let err = Executor::new().run_partial((1 << 20) - 1, async |w: &Warp<'_>| block_reduce_tail(w, x[w.lane_id() as usize]).await).unwrap_err();
    println!("{err}\n");

    println!("== 3. moderngpu #36: the data word as membermask; two halves on overlapping masks ==");
    let err = Executor::new().run_with(&neighbourhoods(), data_as_mask).unwrap_err();
    println!("{err}");
}
