use warpkit::prelude::*;

#[derive(Clone, Copy)]
struct Pair {
    a: u32,
    b: u32,
}

#[warp_kernel]
fn kernel(w: &Warp, p: Pair) -> Pair {
    w.shfl_xor(p, 1)
}

fn main() {}
