use warpkit::prelude::*;

// A GPU kernel has one signature; an entry point cannot be generic.
#[warp_kernel(entry)]
pub fn store<T: Copy>(w: &Warp, out: GlobalSlice<'_, u32>, _x: T) {
    out.store(w.lane_id() as usize, 1);
}

fn main() {}
