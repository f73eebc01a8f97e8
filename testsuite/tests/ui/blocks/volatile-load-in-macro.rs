use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, flag: GlobalSlice<'_, u32>) {
    assert_eq!(flag.load_volatile(0), w.lane_id());
}

fn main() {}
