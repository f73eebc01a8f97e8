// `#[warp_kernel]` written twice on one function.
use warpkit::prelude::*;

#[warp_kernel]
#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

fn main() {}
