// An mbarrier's expected arrival count of 0 is a compile error on the literal.
use warpkit::prelude::*;

#[warp_kernel]
fn pipeline(w: &Warp) {
    let bar = w.shared_array::<u64, 1>();
    bar.mbarrier_init(0, 0);
}

fn main() {}
