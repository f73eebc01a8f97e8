// A user macro receives the handle and calls `$h.syncwarp()`, which the macro cannot see or await.
use warpkit::prelude::*;

macro_rules! sync {
    ($h:expr) => {
        $h.syncwarp()
    };
}

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    sync!(w);
    x
}

fn main() {}
