// A handle chosen by `match`: the macro cannot follow a handle through control flow.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let t = w.tile(8);
    let h = match x {
        0 => &t,
        _ => w,
    };
    h.redux_add(x)
}

fn main() {}
