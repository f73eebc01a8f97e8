use warpkit::prelude::*;

// `red`'s `.sem` is `.relaxed` or `.release` only: no acquire side.
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, u32>) {
    x.red_add_with(w.lane_id() as usize, 1, Sem::Acquire, Scope::Gpu);
}

fn main() {}
