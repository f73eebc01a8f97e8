// `w.clone()` is a copy of the handle the macro does not follow: its instruction would never be awaited.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let _ = w.clone().syncwarp();
    x
}

fn main() {}
