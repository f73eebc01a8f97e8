// A tile bound by `let t;` and assigned later: the macro follows handle variables from the `let` that makes them.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let t;
    t = w.tile(8);
    t.redux_add(x)
}

fn main() {}
