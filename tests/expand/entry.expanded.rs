use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
/// An entry kernel: on nvptx64 an `extern "ptx-kernel"` function under `#[unsafe(no_mangle)]`
/// (edition 2024 requires the `unsafe`), whose handle comes from the special registers.
pub async fn warp_sums(
    w: &Warp<'_>,
    input: GlobalSlice<'_, u32>,
    out: GlobalSlice<'_, u32>,
    scale: u32,
) {
    let i = w.global_id() as usize;
    let s = match if i < input.len() {
        ::warpkit::__private::load_point(input.load(i)).await
    } else {
        0
    } {
        __warpkit_value => w.redux_add(__warpkit_value).await,
    };
    if i < out.len() {
        ::warpkit::__private::store_point(out.store(i, s * scale)).await;
    }
}
#[cfg(target_arch = "nvptx64")]
/// An entry kernel: on nvptx64 an `extern "ptx-kernel"` function under `#[unsafe(no_mangle)]`
/// (edition 2024 requires the `unsafe`), whose handle comes from the special registers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_sums(
    input: GlobalSlice<'_, u32>,
    out: GlobalSlice<'_, u32>,
    scale: u32,
) {
    #[inline(always)]
    fn __warp_body(
        w: &Warp,
        input: GlobalSlice<'_, u32>,
        out: GlobalSlice<'_, u32>,
        scale: u32,
    ) {
        let i = w.global_id() as usize;
        let s = w.redux_add(if i < input.len() { input.load(i) } else { 0 });
        if i < out.len() {
            out.store(i, s * scale);
        }
    }
    __warp_body(&::warpkit::__private::Warp::current(), input, out, scale)
}
::warpkit::__private::entry! {
    [] pub warp_sums(input : GlobalSlice < 'static, u32 >, out : GlobalSlice < 'static,
    u32 >, scale : u32)
}
