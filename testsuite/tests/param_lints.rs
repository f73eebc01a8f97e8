//! Lint attributes on a kernel's parameters apply where the parameters are used, also in a
//! kernel with a warp-wide form (whose prologue binds them again for the per-lane body): with
//! `deny(warnings)`, any lint they fail to silence, or an `expect` left unfulfilled, is an error,
//! so compiling this file is most of the test. Each kernel also runs both ways.
#![deny(warnings)]

use warpkit::prelude::*;

/// `mut` that is not needed, allowed on the parameter.
#[warp_kernel]
fn allowed_mut(w: &Warp, #[allow(unused_mut)] mut x: u32) -> u32 {
    w.shfl_down(x, 1)
}

/// The same, expected: the expectation is met where the lint fires.
#[warp_kernel]
fn expected_mut(w: &Warp, #[expect(unused_mut)] mut x: u32) -> u32 {
    w.shfl_down(x, 1)
}

/// A parameter the body does not use, allowed.
#[warp_kernel]
fn allowed_unused(w: &Warp, #[allow(unused_variables)] x: u32, y: u32) -> u32 {
    w.shfl_down(y, 1)
}

#[deprecated(note = "a constant the kernels below still read, allowing it")]
const OLD_STEP: u32 = 2;

/// Lint attributes on a uniform `let` of a constant: the form's check that its type is `Copy`
/// repeats the value, under the same attributes.
#[warp_kernel]
fn let_attributes(w: &Warp, x: u32) -> u32 {
    #[allow(deprecated)]
    let step = OLD_STEP;
    #[allow(unused_parens)]
    let one = (1);
    w.shfl_down(x, step - one)
}

#[test]
fn lint_attributes_of_a_uniform_let_apply_in_the_form() {
    let data: [u32; 32] = core::array::from_fn(|l| 5 * l as u32 + 2);
    let down: [u32; 32] = core::array::from_fn(|l| data[if l < 31 { l + 1 } else { l }]);
    let before = warpkit::wide_runs();
    assert_eq!(Executor::new().run_with(&data, let_attributes).unwrap(), down);
    assert_eq!(warpkit::wide_runs(), before + 1, "the kernel runs warp-wide");
    assert_eq!(Executor::new().wide(false).run_with(&data, let_attributes).unwrap(), down);
}

/// A parameter configured out (and one configured in): the kernel compiles, per lane.
#[warp_kernel]
fn configured(w: &Warp, #[cfg(any())] gone: u64, #[cfg(all())] x: u32) -> u32 {
    w.shfl_down(x, 1)
}

#[test]
fn a_kernel_with_a_configured_out_parameter_runs() {
    let data: [u32; 32] = core::array::from_fn(|l| 3 * l as u32);
    let down: [u32; 32] = core::array::from_fn(|l| data[if l < 31 { l + 1 } else { l }]);
    assert_eq!(Executor::new().run_with(&data, configured).unwrap(), down);
}

#[test]
fn parameters_lint_attributes_apply_in_both_forms() {
    let data: [u32; 32] = core::array::from_fn(|l| 7 * l as u32 + 1);
    let down: [u32; 32] = core::array::from_fn(|l| data[if l < 31 { l + 1 } else { l }]);
    let pairs: [(u32, u32); 32] = core::array::from_fn(|l| (0, data[l]));
    for wide in [true, false] {
        let exec = Executor::new().wide(wide);
        let before = warpkit::wide_runs();
        assert_eq!(exec.run_with(&data, allowed_mut).unwrap(), down);
        assert_eq!(exec.run_with(&data, expected_mut).unwrap(), down);
        assert_eq!(exec.run_with(&pairs, async |w: &Warp<'_>, (x, y)| allowed_unused(w, x, y).await).unwrap(), down);
        // The first two are started as the kernels themselves: warp-wide when forms are on.
        assert_eq!(warpkit::wide_runs() - before >= 2, wide, "wide({wide})");
    }
}
