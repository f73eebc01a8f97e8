use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u64) -> u64 {
    w.redux_max(x)
}

fn main() {}
