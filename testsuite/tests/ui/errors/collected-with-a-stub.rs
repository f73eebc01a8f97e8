// Every error is reported at once, and the stub keeps the signature: the caller below gets no
// secondary error.
use warpkit::prelude::*;

#[warp_kernel(fast)]
fn kernel(w: &Warp, x: u32) -> u32 {
    let t = w.tile(3);
    let v = w.shfl_down(x, 33);
    let f = || w.ballot(true);
    t.redux_add(v)
}

#[warp_kernel]
fn caller(w: &Warp) -> u32 {
    kernel(w, 1) + 1
}

fn main() {}
