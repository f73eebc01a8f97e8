use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: f32) -> f32 {
    w.redux_and(x)
}

fn main() {}
