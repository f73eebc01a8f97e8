// A `macro_rules!` in the body names the handle: the instruction it expands to would not be awaited.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    macro_rules! sync {
        () => {
            w.syncwarp()
        };
    }
    sync!();
    x
}

fn main() {}
