use warpkit::prelude::*;

// "Operation .inc requires .u32 type".
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, i32>) {
    x.atomic_inc(w.lane_id() as usize, 9);
}

fn main() {}
