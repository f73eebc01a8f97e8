// A phase parity other than 0 and 1 is a compile error on the literal.
use warpkit::prelude::*;

#[warp_kernel]
fn pipeline(w: &Warp) {
    let bar = w.shared_array::<u64, 1>();
    while !bar.mbarrier_try_wait_parity(0, 2) {}
}

fn main() {}
