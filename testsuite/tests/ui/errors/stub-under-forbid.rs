// A kernel with an error in a crate that forbids unused variables: the stub that keeps its
// signature adds no error of its own (an `allow(unused_variables)` there would be E0453).
#![forbid(unused_variables, unused_mut)]
use warpkit::prelude::*;

#[warp_kernel]
fn kernel(w: &Warp, mut x: u32, unused: u32) -> u32 {
    x += 1;
    w.shfl_down(x, 40)
}

#[warp_kernel]
fn caller(w: &Warp) -> u32 {
    kernel(w, 1, 2) + 1
}

fn main() {}
