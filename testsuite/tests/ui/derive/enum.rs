// Only structs: an enum's bits depend on its variant.
use warpkit::prelude::*;

#[derive(Clone, Copy, WarpValue)]
enum Op {
    Add,
    Max,
}

fn main() {}
