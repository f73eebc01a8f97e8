use warpkit::prelude::*;

#[warp_kernel]
struct Kernel {
    x: u32,
}

fn main() {}
