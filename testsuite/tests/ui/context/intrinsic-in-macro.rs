use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    assert_eq!(w.redux_add(x), 32);
    x
}

fn main() {}
