use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    w.shfl_up(x, 32)
}

fn main() {}
