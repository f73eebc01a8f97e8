//! Two warp kernels, tested on the CPU runtime by `cargo test` and compared with a GPU when one
//! is there (tests/gpu.rs).

// What `#[warp_kernel]` adds, and the nvptx64 build's crate attributes (`warpkit-build`), must not
// trip lints a crate denies.
#![deny(unused)]

use warpkit::prelude::*;

/// Every thread gets the sum of its warp's inputs (`redux.sync.add`); threads past the end of
/// `input` add 0.
#[warp_kernel(entry)]
pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let s = w.redux_add(if i < input.len() { input.load(i) } else { 0 });
    if i < out.len() {
        out.store(i, s);
    }
}

/// The inclusive prefix sums of `x` within each warp, scaled by `scale`: a `shfl_up` scan.
#[warp_kernel(entry)]
pub fn prefix_sums(w: &Warp, x: GlobalSlice<'_, f32>, out: GlobalSlice<'_, f32>, scale: f32) {
    let i = w.global_id() as usize;
    let mut v = if i < x.len() { x.load(i) } else { 0.0 };
    for offset in [1, 2, 4, 8, 16] {
        let (up, valid) = w.shfl_up_pred(v, offset);
        if valid {
            v += up;
        }
    }
    if i < out.len() {
        out.store(i, v * scale);
    }
}

/// The PTX of this crate, one module per target, built by build.rs.
#[cfg(not(target_arch = "nvptx64"))]
pub mod ptx {
    warpkit::include_ptx!();
}

/// A value and where it came from, moved between lanes as one 8-byte value (two 32-bit shuffles).
#[derive(Clone, Copy, WarpValue)]
pub struct Best {
    value: f32,
    index: u32,
}

/// Every thread gets its warp's largest `x` and the lowest index holding it (a `shfl_xor`
/// butterfly of `Best`).
///
/// A whole-warp kernel: every lane reads others, so launch whole warps (a multiple of 32 threads);
/// the threads past the end of `x` pad with negative infinity. In a partial warp the CPU runtime
/// reports the read of a lane that was never launched, which on a GPU would be undefined.
#[warp_kernel(entry)]
pub fn argmax(w: &Warp, x: GlobalSlice<'_, f32>, max: GlobalSlice<'_, f32>, at: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let mut best = Best { value: if i < x.len() { x.load(i) } else { f32::NEG_INFINITY }, index: i as u32 };
    for offset in [16, 8, 4, 2, 1] {
        let other = w.shfl_xor(best, offset);
        if other.value > best.value || (other.value == best.value && other.index < best.index) {
            best = other;
        }
    }
    if i < max.len() {
        max.store(i, best.value);
        at.store(i, best.index);
    }
}

/// A 16-byte value: over 8 bytes, so it moves as four 32-bit shuffles (`warpkit::shfl_words`).
#[derive(Clone, Copy, WarpValue)]
#[warp_value(words)]
pub struct Sample {
    position: [f32; 3],
    id: u32,
}

/// Every thread gets the sample of the thread `delta` below it in its warp (or its own, in the
/// warp's first `delta` lanes): `positions` holds three floats per thread.
#[warp_kernel(entry)]
pub fn shift_samples(w: &Warp, positions: GlobalSlice<'_, f32>, ids: GlobalSlice<'_, u32>, delta: u32) {
    let i = w.global_id() as usize;
    if i < ids.len() {
        let mine = Sample { position: [positions.load(3 * i), positions.load(3 * i + 1), positions.load(3 * i + 2)], id: ids.load(i) };
        let got = warpkit::shfl_words::shfl_up(w, mine, delta);
        for k in 0..3 {
            positions.store(3 * i + k, got.position[k]);
        }
        ids.store(i, got.id);
    }
}
