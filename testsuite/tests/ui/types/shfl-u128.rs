use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u128) -> u128 {
    w.shfl_idx(x, 0)
}

fn main() {}
