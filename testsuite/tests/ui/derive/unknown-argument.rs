// `warp_value` takes only `words`.
use warpkit::prelude::*;

#[derive(Clone, Copy, WarpValue)]
#[warp_value(packed)]
struct Pair {
    a: u32,
    b: u32,
}

fn main() {}
