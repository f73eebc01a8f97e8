use warpkit::prelude::*;

// A GPU kernel writes results to global buffers; an entry point cannot return one.
#[warp_kernel(entry)]
pub fn sum(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

fn main() {}
