use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let _later = async { w.ballot(x > 1) };
    x
}

fn main() {}
