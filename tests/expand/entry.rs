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
