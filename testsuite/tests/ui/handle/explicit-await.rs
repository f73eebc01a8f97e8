use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    w.shfl_down(x, 1).await
}

fn main() {}
