// A warp function that calls itself: on the host it is a state machine, which cannot contain itself.
use warpkit::prelude::*;

#[warp_kernel]
fn fact(w: &Warp, x: u32) -> u32 {
    if x == 0 { w.redux_add(1) } else { x * fact(w, x - 1) }
}

fn main() {}
