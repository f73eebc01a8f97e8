// `v += w.shfl_down(..)` in a plain fn (a reduction step copied out of a kernel): the shuffle is not awaited.
use warpkit::prelude::*;

fn plain(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    v += w.shfl_down(v, 16);
    v
}

fn main() {}
