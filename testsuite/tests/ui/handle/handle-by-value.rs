use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: Warp<'_>, x: u32) -> u32 {
    w.redux_add(x)
}

fn main() {}
