use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp) {
    w.bar_arrive(2, 0)
}

fn main() {}
