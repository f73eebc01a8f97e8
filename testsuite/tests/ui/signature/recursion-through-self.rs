// A warp method that calls itself through `self`: recursion is an error as for a free function.
use warpkit::prelude::*;

struct Tree;

impl Tree {
    #[warp_kernel]
    fn depth(&self, w: &Warp, x: u32) -> u32 {
        if x == 0 { 0 } else { 1 + self.depth(w, x / 2) }
    }
}

fn main() {}
