// 96 bits do not fit the one or two shuffles of a warp value; the error names the attribute that
// moves the struct as several 32-bit shuffles.
use warpkit::prelude::*;

#[derive(Clone, Copy, WarpValue)]
struct Sample {
    time: u64,
    value: f32,
}

fn main() {}
