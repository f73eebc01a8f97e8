// `matches!` hides the ballot from the macro: it would be issued and never awaited.
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> bool {
    matches!(w.tile(8).ballot(x > 1), _)
}

fn main() {}
