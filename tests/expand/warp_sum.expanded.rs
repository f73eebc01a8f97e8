use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// Sum over the warp; `.await` after each shuffle, the call's span kept.
pub async fn warp_sum(w: &Warp<'_>, x: u32) -> u32 {
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
            let mut __wk_2_v = ::warpkit::__private::wide::Lanes::new();
            if __wk.dense() {
                __wk_1_x.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    {
                        let v = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_1_x.arg(__wk_l).__warpkit_value()
                        };
                        __wk_2_v.set(__wk_l, v);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    {
                        let v = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_1_x.arg(__wk_l).__warpkit_value()
                        };
                        __wk_2_v.set(__wk_l, v);
                    }
                }
            }
            for offset in {
                __wk.enter_first();
                [16, 8, 4, 2, 1]
            } {
                if __wk.done() {
                    return ::core::result::Result::Ok(());
                }
                {
                    let __wk_3_instr = ::warpkit::__private::wide::ShflOwn(
                        ::warpkit::ShflMode::Bfly,
                    );
                    let __wk_4_site = ::warpkit::__private::wide::site();
                    __wk.expect(&__wk_3_instr, __wk_4_site, &__wk_2_v);
                    let __wk_6_b: u32 = (offset);
                    let mut __wk_7_result = ::warpkit::__private::wide::Lanes::new();
                    __wk.issue(
                        &__wk_3_instr,
                        __wk_4_site,
                        &__wk_2_v,
                        ::warpkit::__private::wide::B::Uniform(__wk_6_b),
                        &mut __wk_7_result,
                    )?;
                    if __wk.dense() {
                        __wk_2_v.assert_full();
                        __wk_7_result.assert_full();
                        '__wk_lanes: for __wk_l in 0..32u32 {
                            __wk.enter(__wk_l);
                            (__wk_2_v[__wk_l]) += __wk_7_result[__wk_l];
                        }
                    } else {
                        '__wk_lanes: for __wk_l in __wk.lanes() {
                            __wk.enter(__wk_l);
                            (__wk_2_v[__wk_l]) += __wk_7_result[__wk_l];
                        }
                    }
                }
            }
            if __wk.dense() {
                __wk_2_v.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_2_v.arg(__wk_l).__warpkit_value()
                        };
                        __wk_2_v.drop_lane(__wk_l);
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_2_v.arg(__wk_l).__warpkit_value()
                        };
                        __wk_2_v.drop_lane(__wk_l);
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            }
            ::core::result::Result::Ok(())
        };
        let __warpkit_kernel = ::core::concat!(
            ::core::module_path!(), "::", ::core::stringify!(warp_sum)
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
#[allow(clippy::future_not_send)]
/// A helper call passes the handle on: awaited through `WarpCall`.
async fn mean(w: &Warp<'_>, x: u32) -> u32 {
    static __WARPKIT_CALLS_0: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new();
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = x;
    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
    let __warpkit_wide: ::warpkit::__private::wide::WideBody<u32, u32> = |
        __wk,
        __wk_args,
        __wk_outs|
    {
        let __wk_hs = __wk.handles();
        let __wk_1_x = __wk_args;
        let mut __wk_2_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_3_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_4_site = ::warpkit::__private::wide::site();
        if __wk.dense() {
            __wk_1_x.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                __wk_2_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_sum),
                            &mut __wk_3_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                __wk_2_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_sum),
                            &mut __wk_3_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        }
        let mut __wk_5_returned = ::warpkit::__private::wide::Lanes::new();
        {
            use ::warpkit::__private::wide::{CallsForm as _, CallsNothing as _};
            (&__wk_3_callee)
                .__warpkit_call_in(
                    __wk,
                    &__WARPKIT_CALLS_0,
                    __wk_4_site,
                    ::core::option::Option::None,
                    &mut __wk_2_args,
                    &mut __wk_5_returned,
                )?;
        }
        ::core::mem::drop(__wk_2_args);
        if __wk.dense() {
            __wk_5_returned.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                let w = &__wk_hs[__wk_l as usize];
                let _ = w;
                {
                    let __wk_r = ({
                        use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                        __wk_5_returned.arg(__wk_l).__warpkit_value()
                    }) / (w.size());
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                let w = &__wk_hs[__wk_l as usize];
                let _ = w;
                {
                    let __wk_r = ({
                        use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                        __wk_5_returned.arg(__wk_l).__warpkit_value()
                    }) / (w.size());
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        }
        ::core::result::Result::Ok(())
    };
    let __warpkit_key: *const () = __warpkit_wide as *const ();
    let x = match ::warpkit::__private::wide::wanted(w) {
        true => {
            match ::warpkit::__private::wide::calls_ready(
                __warpkit_key,
                &[(&__WARPKIT_CALLS_0, 0u64)],
            ) {
                ::core::option::Option::Some(__warpkit_ready) => {
                    let __warpkit_kernel = ::core::concat!(
                        ::core::module_path!(), "::", ::core::stringify!(mean)
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
                            }
                                .and(__warpkit_ready),
                            ::core::option::Option::None,
                        )
                        .await
                    {
                        ::core::result::Result::Ok(__warpkit_out) => return __warpkit_out,
                        ::core::result::Result::Err(__warpkit_args) => __warpkit_args,
                    }
                }
                ::core::option::Option::None => __warpkit_args,
            }
        }
        false => __warpkit_args,
    };
    ::warpkit::__private::at(
        match warp_sum(w, x) {
            __warpkit_call => {
                ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                    .learning(&__WARPKIT_CALLS_0, __warpkit_key)
            }
        }
            .await,
    ) / w.size()
}
#[cfg(target_arch = "nvptx64")]
/// A helper call passes the handle on: awaited through `WarpCall`.
fn mean(w: &Warp<'_>, x: u32) -> u32 {
    warp_sum(w, x) / w.size()
}
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A call and an instruction: the warp-wide form runs the helper's form for the warp
/// (`WideCtx::call`), once the call site has learnt it (`Calls`, `Call::learning`).
async fn spread(w: &Warp<'_>, x: u32) -> u32 {
    static __WARPKIT_CALLS_0: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new();
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = x;
    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
    let __warpkit_wide: ::warpkit::__private::wide::WideBody<u32, u32> = |
        __wk,
        __wk_args,
        __wk_outs|
    {
        let __wk_hs = __wk.handles();
        let __wk_1_x = __wk_args;
        let mut __wk_2_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_3_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_4_site = ::warpkit::__private::wide::site();
        if __wk.dense() {
            __wk_1_x.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                __wk_2_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_sum),
                            &mut __wk_3_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                __wk_2_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_sum),
                            &mut __wk_3_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        }
        let mut __wk_5_returned = ::warpkit::__private::wide::Lanes::new();
        {
            use ::warpkit::__private::wide::{CallsForm as _, CallsNothing as _};
            (&__wk_3_callee)
                .__warpkit_call_in(
                    __wk,
                    &__WARPKIT_CALLS_0,
                    __wk_4_site,
                    ::core::option::Option::None,
                    &mut __wk_2_args,
                    &mut __wk_5_returned,
                )?;
        }
        ::core::mem::drop(__wk_2_args);
        let __wk_6_instr = ::warpkit::__private::wide::ShflOwn(::warpkit::ShflMode::Idx);
        let __wk_7_site = ::warpkit::__private::wide::site();
        __wk.expect(&__wk_6_instr, __wk_7_site, &__wk_5_returned);
        let __wk_9_b: u32 = (0);
        let mut __wk_10_result = ::warpkit::__private::wide::Lanes::new();
        __wk.issue(
            &__wk_6_instr,
            __wk_7_site,
            &__wk_5_returned,
            ::warpkit::__private::wide::B::Uniform(__wk_9_b),
            &mut __wk_10_result,
        )?;
        if __wk.dense() {
            __wk_10_result.assert_full();
            __wk_5_returned.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                {
                    let __wk_r = (__wk_10_result[__wk_l]) ^ (__wk_5_returned[__wk_l]);
                    __wk_5_returned.drop_lane(__wk_l);
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                {
                    let __wk_r = (__wk_10_result[__wk_l]) ^ (__wk_5_returned[__wk_l]);
                    __wk_5_returned.drop_lane(__wk_l);
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        }
        ::core::result::Result::Ok(())
    };
    let __warpkit_key: *const () = __warpkit_wide as *const ();
    let x = match ::warpkit::__private::wide::wanted(w) {
        true => {
            match ::warpkit::__private::wide::calls_ready(
                __warpkit_key,
                &[(&__WARPKIT_CALLS_0, 0u64)],
            ) {
                ::core::option::Option::Some(__warpkit_ready) => {
                    let __warpkit_kernel = ::core::concat!(
                        ::core::module_path!(), "::", ::core::stringify!(spread)
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
                            }
                                .and(__warpkit_ready),
                            ::core::option::Option::None,
                        )
                        .await
                    {
                        ::core::result::Result::Ok(__warpkit_out) => return __warpkit_out,
                        ::core::result::Result::Err(__warpkit_args) => __warpkit_args,
                    }
                }
                ::core::option::Option::None => __warpkit_args,
            }
        }
        false => __warpkit_args,
    };
    let s = ::warpkit::__private::at(
        match warp_sum(w, x) {
            __warpkit_call => {
                ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                    .learning(&__WARPKIT_CALLS_0, __warpkit_key)
            }
        }
            .await,
    );
    w.shfl_idx(s, 0).await ^ s
}
#[cfg(target_arch = "nvptx64")]
/// A call and an instruction: the warp-wide form runs the helper's form for the warp
/// (`WideCtx::call`), once the call site has learnt it (`Calls`, `Call::learning`).
fn spread(w: &Warp<'_>, x: u32) -> u32 {
    let s = warp_sum(w, x);
    w.shfl_idx(s, 0) ^ s
}
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// Each lane's value plus its neighbour's, in the handle's group (the warp, or a tile).
async fn pair_sum(w: &Warp<'_>, x: u32) -> u32 {
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
            let __wk_2_instr = ::warpkit::__private::wide::ShflOwn(
                ::warpkit::ShflMode::Bfly,
            );
            let __wk_3_site = ::warpkit::__private::wide::site();
            __wk.expect(&__wk_2_instr, __wk_3_site, &__wk_1_x);
            let __wk_5_b: u32 = (1);
            let mut __wk_6_result = ::warpkit::__private::wide::Lanes::new();
            __wk.issue(
                &__wk_2_instr,
                __wk_3_site,
                &__wk_1_x,
                ::warpkit::__private::wide::B::Uniform(__wk_5_b),
                &mut __wk_6_result,
            )?;
            if __wk.dense() {
                __wk_1_x.assert_full();
                __wk_6_result.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = (__wk_1_x[__wk_l]) + (__wk_6_result[__wk_l]);
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = (__wk_1_x[__wk_l]) + (__wk_6_result[__wk_l]);
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            }
            ::core::result::Result::Ok(())
        };
        let __warpkit_kernel = ::core::concat!(
            ::core::module_path!(), "::", ::core::stringify!(pair_sum)
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
    x + w.shfl_xor(x, 1).await
}
#[cfg(target_arch = "nvptx64")]
/// Each lane's value plus its neighbour's, in the handle's group (the warp, or a tile).
fn pair_sum(w: &Warp<'_>, x: u32) -> u32 {
    x + w.shfl_xor(x, 1)
}
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// Calls that hand the callee a tile of the handle (a `let` tile, one written in the call): the
/// warp-wide form keeps each lane's tile (`wide::tile_handle`) and runs the callee's form on
/// them (`Calls::on_tiles`).
pub async fn tile_pairs(w: &Warp<'_>, x: u32) -> u32 {
    static __WARPKIT_CALLS_0: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new()
        .on_tiles();
    static __WARPKIT_CALLS_1: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new()
        .on_tiles();
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = x;
    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
    let __warpkit_wide: ::warpkit::__private::wide::WideBody<u32, u32> = |
        __wk,
        __wk_args,
        __wk_outs|
    {
        let __wk_1_x = __wk_args;
        let mut __wk_2_t = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_3_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_4_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_5_site = ::warpkit::__private::wide::site();
        let mut __wk_7_tiles = ::warpkit::__private::wide::Lanes::new();
        if __wk.dense() {
            __wk_1_x.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                let w = &__wk.handle(__wk_l);
                let _ = w;
                {
                    let t = w.tile(8);
                    __wk_2_t.set(__wk_l, t);
                }
                __wk_7_tiles
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::tile_handle((&__wk_2_t[__wk_l])),
                    );
                __wk_3_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(pair_sum),
                            &mut __wk_4_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                let w = &__wk.handle(__wk_l);
                let _ = w;
                {
                    let t = w.tile(8);
                    __wk_2_t.set(__wk_l, t);
                }
                __wk_7_tiles
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::tile_handle((&__wk_2_t[__wk_l])),
                    );
                __wk_3_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(pair_sum),
                            &mut __wk_4_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        }
        let mut __wk_6_returned = ::warpkit::__private::wide::Lanes::new();
        {
            use ::warpkit::__private::wide::{CallsForm as _, CallsNothing as _};
            (&__wk_4_callee)
                .__warpkit_call_in(
                    __wk,
                    &__WARPKIT_CALLS_0,
                    __wk_5_site,
                    ::core::option::Option::Some(&__wk_7_tiles),
                    &mut __wk_3_args,
                    &mut __wk_6_returned,
                )?;
        }
        ::core::mem::drop(__wk_3_args);
        let mut __wk_8_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_9_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_10_site = ::warpkit::__private::wide::site();
        let mut __wk_12_tiles = ::warpkit::__private::wide::Lanes::new();
        if __wk.dense() {
            __wk_1_x.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                let w = &__wk.handle(__wk_l);
                let _ = w;
                __wk_12_tiles
                    .set(__wk_l, ::warpkit::__private::wide::tile_handle((&w.tile(4))));
                __wk_8_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(pair_sum),
                            &mut __wk_9_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                let w = &__wk.handle(__wk_l);
                let _ = w;
                __wk_12_tiles
                    .set(__wk_l, ::warpkit::__private::wide::tile_handle((&w.tile(4))));
                __wk_8_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(pair_sum),
                            &mut __wk_9_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_x.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        }
        let mut __wk_11_returned = ::warpkit::__private::wide::Lanes::new();
        {
            use ::warpkit::__private::wide::{CallsForm as _, CallsNothing as _};
            (&__wk_9_callee)
                .__warpkit_call_in(
                    __wk,
                    &__WARPKIT_CALLS_1,
                    __wk_10_site,
                    ::core::option::Option::Some(&__wk_12_tiles),
                    &mut __wk_8_args,
                    &mut __wk_11_returned,
                )?;
        }
        ::core::mem::drop(__wk_8_args);
        if __wk.dense() {
            __wk_11_returned.assert_full();
            __wk_6_returned.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                {
                    let __wk_r = ({
                        use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                        __wk_6_returned.arg(__wk_l).__warpkit_value()
                    })
                        + ({
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_11_returned.arg(__wk_l).__warpkit_value()
                        });
                    __wk_2_t.drop_lane(__wk_l);
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                {
                    let __wk_r = ({
                        use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                        __wk_6_returned.arg(__wk_l).__warpkit_value()
                    })
                        + ({
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_11_returned.arg(__wk_l).__warpkit_value()
                        });
                    __wk_2_t.drop_lane(__wk_l);
                    __wk_1_x.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        }
        ::core::result::Result::Ok(())
    };
    let __warpkit_key: *const () = __warpkit_wide as *const ();
    let x = match ::warpkit::__private::wide::wanted(w) {
        true => {
            match ::warpkit::__private::wide::calls_ready(
                __warpkit_key,
                &[(&__WARPKIT_CALLS_0, 0u64), (&__WARPKIT_CALLS_1, 0u64)],
            ) {
                ::core::option::Option::Some(__warpkit_ready) => {
                    let __warpkit_kernel = ::core::concat!(
                        ::core::module_path!(), "::", ::core::stringify!(tile_pairs)
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
                            }
                                .and(__warpkit_ready),
                            ::core::option::Option::None,
                        )
                        .await
                    {
                        ::core::result::Result::Ok(__warpkit_out) => return __warpkit_out,
                        ::core::result::Result::Err(__warpkit_args) => __warpkit_args,
                    }
                }
                ::core::option::Option::None => __warpkit_args,
            }
        }
        false => __warpkit_args,
    };
    let t = w.tile(8);
    ::warpkit::__private::at(
        match pair_sum(&t, x) {
            __warpkit_call => {
                ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                    .learning(&__WARPKIT_CALLS_0, __warpkit_key)
            }
        }
            .await,
    )
        + ::warpkit::__private::at(
            match pair_sum(&w.tile(4), x) {
                __warpkit_call => {
                    ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                        .learning(&__WARPKIT_CALLS_1, __warpkit_key)
                }
            }
                .await,
        )
}
#[cfg(target_arch = "nvptx64")]
/// Calls that hand the callee a tile of the handle (a `let` tile, one written in the call): the
/// warp-wide form keeps each lane's tile (`wide::tile_handle`) and runs the callee's form on
/// them (`Calls::on_tiles`).
pub fn tile_pairs(w: &Warp<'_>, x: u32) -> u32 {
    let t = w.tile(8);
    pair_sum(&t, x) + pair_sum(&w.tile(4), x)
}
