use warpkit::prelude::*;

#[warp_kernel]
async fn kernel(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

fn main() {}
