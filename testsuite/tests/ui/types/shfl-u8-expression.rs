// A `u8` value given as an expression of several tokens: still one error, on the value.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, pair: (u8, u8)) -> u8 {
    w.shfl_xor(pair.0 + pair.1, 1)
}

fn main() {}
