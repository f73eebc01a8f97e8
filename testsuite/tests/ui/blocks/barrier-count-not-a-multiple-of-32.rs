use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp) {
    w.bar_sync_count(1, 48)
}

fn main() {}
