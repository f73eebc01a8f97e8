// A tile made in a return position: the caller's handle variable could not be followed.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel<'w>(w: &Warp<'w>) -> Warp<'w> {
    w.tile(8)
}

fn main() {}
