use warpkit::prelude::*;

// PTX `atom.min` has no `.f32` form (only `.u32`, `.s32`, `.u64`, `.s64`).
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, f32>) {
    x.atomic_min(w.lane_id() as usize, 1.0);
}

fn main() {}
