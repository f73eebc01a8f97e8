use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, data: &[u32]) -> u32 {
    data.iter().map(|&x| w.shfl_down(x, 1)).sum()
}

fn main() {}
