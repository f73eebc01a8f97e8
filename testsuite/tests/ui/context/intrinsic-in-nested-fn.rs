use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    fn step(w: &Warp, x: u32) -> u32 {
        w.shfl_xor(x, 1)
    }
    x
}

fn main() {}
