// A warp function is a state machine on the host: plain code cannot call it for a value.
use warpkit::prelude::*;

#[warp_kernel]
fn warp_sum(w: &Warp, x: u32) -> u32 {
    x + w.shfl_xor(x, 1)
}

fn plain(w: &Warp) -> u32 {
    let total: u32 = warp_sum(w, 1);
    total
}

fn main() {}
