use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, bins: GlobalSlice<'_, u32>) {
    let lane = w.lane_id() as usize;
    (0..4).for_each(|i| {
        bins.atomic_add(lane + i, 1);
    });
}

fn main() {}
