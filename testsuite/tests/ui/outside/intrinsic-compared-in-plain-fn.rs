// Comparing an instruction in flight in a plain fn: it was never awaited.
use warpkit::prelude::*;

fn plain(w: &Warp, x: u32) -> bool {
    w.ballot(x > 1) == u32::MAX
}

fn main() {}
