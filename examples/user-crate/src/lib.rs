//! Two warp kernels, tested on the CPU runtime by `cargo test` and compared with a GPU when one
//! is there (tests/gpu.rs).

use warpkit::prelude::*;

/// Every thread gets the sum of its warp's inputs (`redux.sync.add`); threads past the end of
/// `input` add 0.
#[warp_kernel(entry)]
pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let s = w.redux_add(if i < input.len() { input.load(i) } else { 0 });
    if i < out.len() {
        out.store(i, s);
    }
}

/// The inclusive prefix sums of `x` within each warp, scaled by `scale`: a `shfl_up` scan.
#[warp_kernel(entry)]
pub fn prefix_sums(w: &Warp, x: GlobalSlice<'_, f32>, out: GlobalSlice<'_, f32>, scale: f32) {
    let i = w.global_id() as usize;
    let mut v = if i < x.len() { x.load(i) } else { 0.0 };
    for offset in [1, 2, 4, 8, 16] {
        let (up, valid) = w.shfl_up_pred(v, offset);
        if valid {
            v += up;
        }
    }
    if i < out.len() {
        out.store(i, v * scale);
    }
}

/// The PTX of this crate, one module per target, built by build.rs.
#[cfg(not(target_arch = "nvptx64"))]
pub mod ptx {
    warpkit::include_ptx!();
}
