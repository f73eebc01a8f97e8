use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// Tiles, conditions, match scrutinees and ordinary calls that stay ordinary.
pub async fn kernel<T: Copy + Into<u32>>(w: &Warp<'_>, data: &[T]) -> Option<u32> {
    let t = w.tile(8);
    let x: u32 = data[w.lane_id() as usize].into();
    if data.iter().any(|v| (*v).into() > 100) && w.any(x > 100).await {
        return None;
    }
    let found = match t.ballot(x % 2 == 0).await {
        0 => {
            loop {
                if w.all(true).await {
                    break x.min(3);
                }
            }
        }
        mask => t.shfl_idx(x, mask.trailing_zeros()).await,
    };
    Some(found)
}
#[cfg(target_arch = "nvptx64")]
/// Tiles, conditions, match scrutinees and ordinary calls that stay ordinary.
pub fn kernel<T: Copy + Into<u32>>(w: &Warp, data: &[T]) -> Option<u32> {
    let t = w.tile(8);
    let x: u32 = data[w.lane_id() as usize].into();
    if data.iter().any(|v| (*v).into() > 100) && w.any(x > 100) {
        return None;
    }
    let found = match t.ballot(x % 2 == 0) {
        0 => {
            loop {
                if w.all(true) {
                    break x.min(3);
                }
            }
        }
        mask => t.shfl_idx(x, mask.trailing_zeros()),
    };
    Some(found)
}
pub struct Reducer;
impl Reducer {
    #[cfg(not(target_arch = "nvptx64"))]
    #[allow(clippy::future_not_send)]
    pub async fn reduce(&self, w: &Warp<'_>, x: u32) -> u32 {
        ::warpkit::__private::at(
            match Self::leader(w, w.redux_add(x).await) {
                __warpkit_call => {
                    ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                }
            }
                .await,
        )
    }
    #[cfg(target_arch = "nvptx64")]
    pub fn reduce(&self, w: &Warp, x: u32) -> u32 {
        Self::leader(w, w.redux_add(x))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    #[allow(clippy::future_not_send)]
    async fn leader(w: &Warp<'_>, x: u32) -> u32 {
        #[allow(clippy::used_underscore_binding)]
        let __warpkit_args = x;
        let x = if ::warpkit::__private::wide::wanted(w) {
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            let __warpkit_wide: ::warpkit::__private::wide::WideBody<u32, u32> = |
                __wk,
                __wk_args,
                __wk_outs|
            {
                let __wk_1_x = __wk_args;
                let mut __wk_2_issued = ::warpkit::__private::wide::Lanes::new();
                if __wk.dense() {
                    '__wk_lanes: for __wk_l in 0..32u32 {
                        __wk.enter(__wk_l);
                        let w = &__wk.handle(__wk_l);
                        let _ = w;
                        __wk_2_issued.set(__wk_l, (w).elect());
                    }
                } else {
                    '__wk_lanes: for __wk_l in __wk.lanes() {
                        __wk.enter(__wk_l);
                        let w = &__wk.handle(__wk_l);
                        let _ = w;
                        __wk_2_issued.set(__wk_l, (w).elect());
                    }
                }
                __wk.settle()?;
                let mut __wk_3_result = ::warpkit::__private::wide::Lanes::new();
                if __wk.dense() {
                    __wk_1_x.assert_full();
                    '__wk_lanes: for __wk_l in 0..32u32 {
                        __wk.enter(__wk_l);
                        __wk_3_result
                            .set(
                                __wk_l,
                                ::warpkit::__private::wide::result(
                                    __wk_2_issued.take(__wk_l),
                                ),
                            );
                        let (_, is_leader) = __wk_3_result[__wk_l];
                        {
                            let __wk_r = if is_leader { __wk_1_x[__wk_l] } else { 0 };
                            __wk_1_x.drop_lane(__wk_l);
                            __wk.ret(__wk_outs, __wk_l, __wk_r);
                        }
                    }
                } else {
                    '__wk_lanes: for __wk_l in __wk.lanes() {
                        __wk.enter(__wk_l);
                        __wk_3_result
                            .set(
                                __wk_l,
                                ::warpkit::__private::wide::result(
                                    __wk_2_issued.take(__wk_l),
                                ),
                            );
                        let (_, is_leader) = __wk_3_result[__wk_l];
                        {
                            let __wk_r = if is_leader { __wk_1_x[__wk_l] } else { 0 };
                            __wk_1_x.drop_lane(__wk_l);
                            __wk.ret(__wk_outs, __wk_l, __wk_r);
                        }
                    }
                }
                ::core::result::Result::Ok(())
            };
            let __warpkit_kernel = ::core::concat!(
                ::core::module_path!(), "::", ::core::stringify!(leader)
            );
            match ::warpkit::__private::wide::offer(
                    w,
                    __warpkit_wide,
                    __warpkit_args,
                    __warpkit_kernel,
                    ::warpkit::__private::wide::Needs {
                        whole_warp: false,
                        same_shape: false,
                        same_params: 0u64,
                        returns_early: false,
                    },
                    ::core::option::Option::None,
                )
                .await
            {
                ::core::result::Result::Ok(__warpkit_out) => return __warpkit_out,
                ::core::result::Result::Err(__warpkit_args) => __warpkit_args,
            }
        } else {
            __warpkit_args
        };
        let (_, is_leader) = w.elect().await;
        if is_leader { x } else { 0 }
    }
    #[cfg(target_arch = "nvptx64")]
    fn leader(w: &Warp, x: u32) -> u32 {
        let (_, is_leader) = w.elect();
        if is_leader { x } else { 0 }
    }
}
