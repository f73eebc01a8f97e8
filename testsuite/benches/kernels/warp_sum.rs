//! The `wide` bench's kernels, shared with the callgrind workloads `cg_wide_sum` and
//! `cg_grid_sum` (included by `#[path]`), so that the counts are of the benched code.

use warpkit::prelude::*;

/// The converged 5-step `shfl_down` sum: lane 0 gets the warp's total.
#[warp_kernel]
pub fn warp_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_down(v, offset));
    }
    v
}

/// `out[i]` = [`warp_sum`] over `input[i]`'s warp: a load, a call and a store in one statement.
#[warp_kernel(entry)]
pub fn warp_sum_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, warp_sum(w, input.load(i)));
}
