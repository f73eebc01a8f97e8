use warpkit::prelude::*;

// `.b128` has only `exch` and `cas`.
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, u128>) {
    x.atomic_add(w.lane_id() as usize, 1);
}

fn main() {}
