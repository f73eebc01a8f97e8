use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> (u32, bool) {
    let v = w.shfl_idx_sync(FULL_MASK, x, 40, 32);
    w.shfl_xor_pred(v, 99)
}

fn main() {}
