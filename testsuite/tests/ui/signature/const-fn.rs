use warpkit::prelude::*;

#[warp_kernel]
const fn kernel(w: &Warp, x: u32) -> u32 {
    x
}

fn main() {}
