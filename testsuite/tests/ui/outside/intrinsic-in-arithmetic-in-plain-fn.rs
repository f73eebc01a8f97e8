// Arithmetic on an instruction in a plain fn: nothing awaits it, so there is no value to add to.
use warpkit::prelude::*;

fn plain(w: &Warp, x: u32) -> u32 {
    w.shfl_down(x, 1) + 1
}

fn main() {}
