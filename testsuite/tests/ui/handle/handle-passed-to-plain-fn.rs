// A call that receives the handle is a suspension point, so it must call a warp function.
use warpkit::prelude::*;

fn plain(w: &Warp) -> u32 {
    w.lane_id()
}

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    plain(w) + x
}

fn main() {}
