use warpkit::prelude::*;

// "atom with vector type may be used only with .global space".
#[warp_kernel]
fn kernel(w: &Warp) {
    let s = w.shared_array::<f32, 64>();
    s.atomic_add_vec(2 * w.lane_id() as usize, [1.0f32; 2]);
}

fn main() {}
