// A tx-count over 2^20 - 1 is a compile error on the literal.
use warpkit::prelude::*;

#[warp_kernel]
fn pipeline(w: &Warp) {
    let bar = w.shared_array::<u64, 1>();
    bar.mbarrier_expect_tx(0, 2_000_000);
}

fn main() {}
