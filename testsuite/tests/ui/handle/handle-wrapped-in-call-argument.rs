// The handle must be passed directly: `Some(w)` hides it from the rewrite.
use warpkit::prelude::*;

#[warp_kernel]
fn helper(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

fn take(w: Option<&Warp>) -> u32 {
    w.map_or(0, |w| w.lane_id())
}

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    take(Some(w)) + x
}

fn main() {}
