use warpkit::prelude::*;

/// An entry kernel: on nvptx64 an `extern "ptx-kernel"` function under `#[unsafe(no_mangle)]`
/// (edition 2024 requires the `unsafe`), whose handle comes from the special registers.
#[warp_kernel(entry)]
pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, scale: u32) {
    let i = w.global_id() as usize;
    let s = w.redux_add(if i < input.len() { input.load(i) } else { 0 });
    if i < out.len() {
        out.store(i, s * scale);
    }
}

/// A warp function that the wrapper below calls.
#[warp_kernel]
fn warp_total(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

/// A wrapper entry kernel: it loads, calls one warp function and stores. Its prologue does not
/// offer its form (per lane its lanes reach `warp_total`'s offer in one step); it only probes, so
/// that a launch through its type starts each warp in its form (`wide::probe`).
#[warp_kernel(entry)]
pub fn warp_totals(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let t = warp_total(w, input.load(i));
    out.store(i, t);
}

/// A warp function with an atomic, which its form runs as lane code, and lanes that return early
/// (past the input), so that its form runs only where returning is exiting: at a run's entry, or
/// behind calls after which each caller reaches no other warp instruction or call.
#[warp_kernel]
fn count_odd(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let active = w.activemask();
    let odd = w.group(active).ballot(input.load(i) % 2 == 1);
    if w.lane_id() == active.trailing_zeros() {
        counts.atomic_add(0, odd.count_ones());
    }
}

/// A wrapper entry whose call is its last point (`Calls::new_last`).
#[warp_kernel(entry)]
pub fn odd_counts(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
    count_odd(w, input, counts);
}
