use warpkit::prelude::*;

#[warp_kernel]
fn kernel<'a, 'w>(w: &'a Warp<'w>) -> &'a Warp<'w> {
    w
}

fn main() {}
