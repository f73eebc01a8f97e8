// `entry` is a flag: `entry = true` is not how it is written.
use warpkit::prelude::*;

#[warp_kernel(entry = true)]
fn kernel(w: &Warp, out: GlobalSlice<'_, u32>) {
    out.store(w.lane_id() as usize, 1);
}

fn main() {}
