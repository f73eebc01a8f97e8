use warpkit::prelude::*;

struct Counter;

impl Counter {
    fn atomic_add(&self, _i: usize, v: u32) -> u32 {
        v
    }
}

#[warp_kernel]
fn kernel(w: &Warp, c: &Counter) -> u32 {
    c.atomic_add(0, w.lane_id())
}

fn main() {}
