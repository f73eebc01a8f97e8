use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u8) -> u8 {
    w.shfl_down(x, 1)
}

fn main() {}
