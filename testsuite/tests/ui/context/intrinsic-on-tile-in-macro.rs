// An instruction on a derived tile inside `assert!`: the macro cannot await what it cannot see.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    assert!(w.tile(8).all(x > 1));
    x
}

fn main() {}
