use warpkit::prelude::*;

#[warp_kernel]
fn helper(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

#[warp_kernel]
fn kernel(w: &Warp, data: &[u32]) -> u32 {
    data.iter().map(|&x| helper(w, x)).sum()
}

fn main() {}
