use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let pair = (w, x);
    pair.1
}

fn main() {}
