use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let t = w.tile(12);
    t.redux_add(x)
}

fn main() {}
