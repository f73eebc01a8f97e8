use warpkit::prelude::*;

// PTX has `cas.b16` but no `exch.b16`.
#[warp_kernel]
fn kernel(w: &Warp, x: GlobalSlice<'_, f16>) {
    x.atomic_exch(w.lane_id() as usize, f16::ONE);
}

fn main() {}
