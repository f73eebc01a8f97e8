use warpkit::prelude::*;

// `.v8` exists for `.f16`/`.bf16` only; `.f32` has `.v2` and `.v4`.
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, f32>) {
    x.atomic_add_vec(8 * w.lane_id() as usize, [1.0f32; 8]);
}

fn main() {}
