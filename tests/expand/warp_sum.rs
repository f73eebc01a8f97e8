use warpkit::prelude::*;

/// Sum over the warp; `.await` after each shuffle, the call's span kept.
#[warp_kernel]
pub fn warp_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v += w.shfl_xor(v, offset);
    }
    v
}

/// A helper call passes the handle on: awaited through `WarpCall`.
#[warp_kernel]
fn mean(w: &Warp<'_>, x: u32) -> u32 {
    warp_sum(w, x) / w.size()
}

/// A call and an instruction: the warp-wide form runs the helper's form for the warp
/// (`WideCtx::call`), once the call site has learnt it (`Calls`, `Call::learning`).
#[warp_kernel]
fn spread(w: &Warp<'_>, x: u32) -> u32 {
    let s = warp_sum(w, x);
    w.shfl_idx(s, 0) ^ s
}
