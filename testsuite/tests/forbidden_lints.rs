//! A crate that forbids lints: `#[warp_kernel]`'s code must not `allow` them, since an `allow`
//! under a `forbid` is an error (E0453) in the user's crate. Compiling this file is most of the
//! test; its kernels also run, both ways, against sequential Rust.
#![forbid(unused_mut, unused_variables, unused_imports, unused_unsafe, non_upper_case_globals, unsafe_code, unused)]

use warpkit::prelude::*;

const STEP: u32 = 3;

/// A `mut` parameter, a uniform constant (the form asks whether its type is `Copy`), a loop.
#[warp_kernel]
fn scaled_sum(w: &Warp, mut x: u32) -> u32 {
    let step = STEP;
    x = x.wrapping_mul(step);
    for offset in [16, 8, 4, 2, 1] {
        x = x.wrapping_add(w.shfl_down(x, offset));
    }
    x
}

/// A call of a warp function (a call site's static).
#[warp_kernel]
fn twice(w: &Warp, x: u32) -> u32 {
    let once = scaled_sum(w, x);
    once.wrapping_add(scaled_sum(w, x))
}

/// `scaled_sum` in plain Rust: `shfl.sync.down` gives lane `l` lane `l + offset`'s value, or its
/// own past lane 31.
fn sequential(x: &[u32; 32]) -> [u32; 32] {
    let mut v = x.map(|x| x.wrapping_mul(STEP));
    for offset in [16, 8, 4, 2, 1] {
        let prev = v;
        v = core::array::from_fn(|l| prev[l].wrapping_add(prev[if l + offset < 32 { l + offset } else { l }]));
    }
    v
}

#[test]
fn kernels_of_a_crate_that_forbids_lints_run() {
    let data: [u32; 32] = core::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9));
    let want = sequential(&data);
    for exec in [Executor::new(), Executor::new().wide(false)] {
        assert_eq!(exec.run_with(&data, scaled_sum).unwrap(), want);
        assert_eq!(exec.run_with(&data, twice).unwrap(), want.map(|v| v.wrapping_mul(2)));
    }
}
