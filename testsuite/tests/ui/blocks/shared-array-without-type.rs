use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp) -> u32 {
    let s: SharedSlice<'_, u32> = w.shared_array();
    s.load(0)
}

fn main() {}
