use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A block sum: a shared array (per call site and block on the host, a `.shared` symbol on
/// nvptx64), `bar.sync` awaited like a warp instruction, and an atomic awaited as a scheduling
/// point.
pub async fn block_total(w: &Warp<'_>, x: u32, total: GlobalSlice<'_, u32>) -> u32 {
    let partials = w.shared_array::<u32, 32>();
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset).await);
    }
    if w.lane_id() == 0 {
        ::warpkit::__private::at(
            match partials.store(w.warp_in_block() as usize, v) {
                __warpkit_v => {
                    if ::warpkit::__private::pauses_lockstep() {
                        ::warpkit::__private::pause_store(__warpkit_v).await
                    } else {
                        __warpkit_v
                    }
                }
            },
        );
    }
    w.sync_threads().await;
    let mut sum = 0u32;
    let mut k = 0;
    while k < w.block_size().div_ceil(32) {
        sum = sum
            .wrapping_add(
                ::warpkit::__private::at(
                    match partials.load(k as usize) {
                        __warpkit_v => {
                            if ::warpkit::__private::pauses_load() {
                                ::warpkit::__private::pause(__warpkit_v).await
                            } else {
                                __warpkit_v
                            }
                        }
                    },
                ),
            );
        k += 1;
    }
    if w.thread_rank() == 0 {
        ::warpkit::__private::at(
            match total.atomic_add(0, sum) {
                __warpkit_call => {
                    ::warpkit::__private::MemCall::into_future(__warpkit_call)
                }
            }
                .await,
        );
    }
    sum
}
#[cfg(target_arch = "nvptx64")]
/// A block sum: a shared array (per call site and block on the host, a `.shared` symbol on
/// nvptx64), `bar.sync` awaited like a warp instruction, and an atomic awaited as a scheduling
/// point.
pub fn block_total(w: &Warp, x: u32, total: GlobalSlice<'_, u32>) -> u32 {
    let partials = ::warpkit::__private::__shared_static!(
        w, "__warpkit_smem__block_total_0", u32, 32
    );
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    if w.lane_id() == 0 {
        partials.store(w.warp_in_block() as usize, v);
    }
    w.sync_threads();
    let mut sum = 0u32;
    let mut k = 0;
    while k < w.block_size().div_ceil(32) {
        sum = sum.wrapping_add(partials.load(k as usize));
        k += 1;
    }
    if w.thread_rank() == 0 {
        total.atomic_add(0, sum);
    }
    sum
}
