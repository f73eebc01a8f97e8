//! 10,000 direct runs of the `wide` bench's `#[warp_kernel]` 5-step `shfl_down` sum through
//! `Executor::run_with` (warp-wide); with the argument `empty`, 10,000 of a kernel without
//! instructions; with `portable`, the sum on the portable code (`Executor::simd(false)`). A fixed
//! workload for counting instructions with `valgrind --tool=callgrind` (repeatable, unlike wall
//! time on a shared machine). `cargo build --release -p warpkit-testsuite --example cg_wide_sum`.
use warpkit::prelude::*;

#[allow(dead_code)]
#[path = "../benches/kernels/warp_sum.rs"]
mod kernels;
use kernels::warp_sum;

#[warp_kernel]
fn identity(_w: &Warp, x: u32) -> u32 {
    x
}

fn main() {
    let data: [u32; 32] = core::array::from_fn(|l| l as u32 * 7);
    let which = std::env::args().nth(1).unwrap_or_default();
    let exec = Executor::new().races(false).wide(true).simd(which != "portable");
    let before = warpkit::wide_runs();
    let mut acc = 0u32;
    for _ in 0..10_000 {
        let out = if which == "empty" { exec.run_with(&data, identity) } else { exec.run_with(&data, warp_sum) };
        acc = acc.wrapping_add(std::hint::black_box(out.unwrap())[0]);
    }
    assert_eq!(warpkit::wide_runs(), before + 10_000, "every run was warp-wide");
    println!("{acc}");
}
