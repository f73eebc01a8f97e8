use warpkit::prelude::*;

#[warp_kernel]
fn kernel(x: u32) -> u32 {
    x
}

fn main() {}
