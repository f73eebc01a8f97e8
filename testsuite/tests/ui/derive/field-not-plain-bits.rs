// A reference is an address of this lane's memory, not a value another lane can use.
use warpkit::prelude::*;

#[derive(Clone, Copy, WarpValue)]
struct Named {
    id: u32,
    name: &'static str,
}

fn main() {}
