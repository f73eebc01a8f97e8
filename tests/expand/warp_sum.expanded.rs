use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
/// Sum over the warp; `.await` after each shuffle, the call's span kept.
pub async fn warp_sum(w: &Warp<'_>, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v += w.shfl_xor(v, offset).await;
    }
    v
}
#[cfg(target_arch = "nvptx64")]
/// Sum over the warp; `.await` after each shuffle, the call's span kept.
pub fn warp_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v += w.shfl_xor(v, offset);
    }
    v
}
#[cfg(not(target_arch = "nvptx64"))]
/// A helper call passes the handle on: awaited through `WarpCall`.
async fn mean(w: &Warp<'_>, x: u32) -> u32 {
    match warp_sum(w, x) {
        __warpkit_call => ::warpkit::__private::WarpCall::into_future(__warpkit_call),
    }
        .await / w.size()
}
#[cfg(target_arch = "nvptx64")]
/// A helper call passes the handle on: awaited through `WarpCall`.
fn mean(w: &Warp<'_>, x: u32) -> u32 {
    warp_sum(w, x) / w.size()
}
