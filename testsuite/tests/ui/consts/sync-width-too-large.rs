use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    w.shfl_down_sync(FULL_MASK, x, 1, 64)
}

fn main() {}
