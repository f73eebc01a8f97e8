use warpkit::prelude::*;

#[warp_kernel]
fn kernel(x: u32, w: &Warp) -> u32 {
    w.redux_add(x)
}

fn main() {}
