// A tile chosen by `if`: the macro cannot follow a handle through control flow.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let t = if x > 3 { w.tile(8) } else { w.tile(16) };
    t.redux_add(x)
}

fn main() {}
