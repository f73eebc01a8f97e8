use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u16) -> u32 {
    w.match_any(x)
}

fn main() {}
