// A second `&Warp` parameter: the macro follows only the first handle, so `v`'s instructions would not be awaited.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, v: &Warp, x: u32) -> u32 {
    w.redux_add(x) + v.redux_add(x)
}

fn main() {}
