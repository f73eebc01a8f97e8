use warpkit::prelude::*;

/// A block sum: a shared array (per call site and block on the host, a `.shared` symbol on
/// nvptx64), `bar.sync` awaited like a warp instruction, and an atomic awaited as a scheduling
/// point.
#[warp_kernel]
pub fn block_total(w: &Warp, x: u32, total: GlobalSlice<'_, u32>) -> u32 {
    let partials = w.shared_array::<u32, 32>();
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    if w.lane_id() == 0 {
        partials.store(w.warp_in_block() as usize, v);
    }
    w.sync_threads();
    let mut sum = 0u32;
    let mut k = 0;
    while k < w.block_size().div_ceil(32) {
        sum = sum.wrapping_add(partials.load(k as usize));
        k += 1;
    }
    if w.thread_rank() == 0 {
        total.atomic_add(0, sum);
    }
    sum
}
