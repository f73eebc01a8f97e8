// An intrinsic outside a `#[warp_kernel]` function returns a future that nobody awaits.
use warpkit::prelude::*;

fn plain(w: &Warp, x: u32) -> u32 {
    let v: u32 = w.shfl_down(x, 1);
    v
}

fn main() {}
