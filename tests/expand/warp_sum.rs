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

/// Each lane's value plus its neighbour's, in the handle's group (the warp, or a tile).
#[warp_kernel]
fn pair_sum(w: &Warp<'_>, x: u32) -> u32 {
    x + w.shfl_xor(x, 1)
}

/// Calls that hand the callee a tile of the handle (a `let` tile, one written in the call): the
/// warp-wide form keeps each lane's tile (`wide::tile_handle`) and runs the callee's form on
/// them (`Calls::on_tiles`).
#[warp_kernel]
pub fn tile_pairs(w: &Warp<'_>, x: u32) -> u32 {
    let t = w.tile(8);
    pair_sum(&t, x) + pair_sum(&w.tile(4), x)
}
