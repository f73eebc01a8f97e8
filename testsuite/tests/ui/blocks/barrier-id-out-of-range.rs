use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp) {
    w.bar_sync(16)
}

fn main() {}
