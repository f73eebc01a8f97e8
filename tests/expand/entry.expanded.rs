use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// An entry kernel: on nvptx64 an `extern "ptx-kernel"` function under `#[unsafe(no_mangle)]`
/// (edition 2024 requires the `unsafe`), whose handle comes from the special registers.
pub async fn warp_sums(
    w: &Warp<'_>,
    input: GlobalSlice<'_, u32>,
    out: GlobalSlice<'_, u32>,
    scale: u32,
) {
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = (input, out, scale);
    let (input, out, scale) = if ::warpkit::__private::wide::wanted(w) {
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        let __warpkit_wide: ::warpkit::__private::wide::WideBody<
            (GlobalSlice<'_, u32>, GlobalSlice<'_, u32>, u32),
            (),
        > = |__wk, __wk_args, __wk_outs| {
            let mut __wk_1_input = ::warpkit::__private::wide::Lanes::new();
            let mut __wk_2_out = ::warpkit::__private::wide::Lanes::new();
            let mut __wk_3_scale = ::warpkit::__private::wide::Lanes::new();
            __wk.unpack(
                __wk_args,
                |__wk_l, (__wk_a_input, __wk_a_out, __wk_a_scale)| {
                    __wk_1_input.set(__wk_l, __wk_a_input);
                    __wk_2_out.set(__wk_l, __wk_a_out);
                    __wk_3_scale.set(__wk_l, __wk_a_scale);
                },
            );
            let mut __wk_4_i = ::warpkit::__private::wide::Lanes::new();
            let __wk_5_instr = ::warpkit::__private::wide::ReduxAdd;
            let mut __wk_7_a = ::warpkit::__private::wide::Lanes::new();
            let __wk_6_site = ::warpkit::__private::wide::site();
            __wk.expect(&__wk_5_instr, __wk_6_site, &__wk_7_a);
            if __wk.dense() {
                __wk_1_input.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    {
                        let i = w.global_id() as usize;
                        __wk_4_i.set(__wk_l, i);
                    }
                    __wk_7_a
                        .set(
                            __wk_l,
                            (if __wk_4_i[__wk_l] < __wk_1_input[__wk_l].len() {
                                __wk_1_input[__wk_l].load(__wk_4_i[__wk_l])
                            } else {
                                0
                            }),
                        );
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    {
                        let i = w.global_id() as usize;
                        __wk_4_i.set(__wk_l, i);
                    }
                    __wk_7_a
                        .set(
                            __wk_l,
                            (if __wk_4_i[__wk_l] < __wk_1_input[__wk_l].len() {
                                __wk_1_input[__wk_l].load(__wk_4_i[__wk_l])
                            } else {
                                0
                            }),
                        );
                }
            }
            let mut __wk_9_result = ::warpkit::__private::wide::Lanes::new();
            __wk.issue(
                &__wk_5_instr,
                __wk_6_site,
                &__wk_7_a,
                ::warpkit::__private::wide::B::None,
                &mut __wk_9_result,
            )?;
            if __wk.dense() {
                __wk_2_out.assert_full();
                __wk_3_scale.assert_full();
                __wk_4_i.assert_full();
                __wk_9_result.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let s = __wk_9_result[__wk_l];
                    {
                        let __wk_r = if __wk_4_i[__wk_l] < __wk_2_out[__wk_l].len() {
                            __wk_2_out[__wk_l]
                                .store(__wk_4_i[__wk_l], s * __wk_3_scale[__wk_l]);
                        };
                        __wk_4_i.drop_lane(__wk_l);
                        __wk_3_scale.drop_lane(__wk_l);
                        __wk_2_out.drop_lane(__wk_l);
                        __wk_1_input.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let s = __wk_9_result[__wk_l];
                    {
                        let __wk_r = if __wk_4_i[__wk_l] < __wk_2_out[__wk_l].len() {
                            __wk_2_out[__wk_l]
                                .store(__wk_4_i[__wk_l], s * __wk_3_scale[__wk_l]);
                        };
                        __wk_4_i.drop_lane(__wk_l);
                        __wk_3_scale.drop_lane(__wk_l);
                        __wk_2_out.drop_lane(__wk_l);
                        __wk_1_input.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            }
            ::core::result::Result::Ok(())
        };
        let __warpkit_kernel = ::core::concat!(
            ::core::module_path!(), "::", ::core::stringify!(warp_sums)
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
    let i = w.global_id() as usize;
    let s = ::warpkit::__private::at(
        match if i < input.len() {
            ::warpkit::__private::at(
                match input.load(i) {
                    __warpkit_v => {
                        if ::warpkit::__private::pauses_lockstep() {
                            ::warpkit::__private::pause(__warpkit_v).await
                        } else {
                            __warpkit_v
                        }
                    }
                },
            )
        } else {
            0
        } {
            __warpkit_value => w.redux_add(__warpkit_value).await,
        },
    );
    if i < out.len() {
        ::warpkit::__private::at(
            match out.store(i, s * scale) {
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
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A warp function that the wrapper below calls.
async fn warp_total(w: &Warp<'_>, x: u32) -> u32 {
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
            let __wk_2_instr = ::warpkit::__private::wide::ReduxAdd;
            let __wk_3_site = ::warpkit::__private::wide::site();
            __wk.expect(&__wk_2_instr, __wk_3_site, &__wk_1_x);
            let mut __wk_6_result = ::warpkit::__private::wide::Lanes::new();
            __wk.issue(
                &__wk_2_instr,
                __wk_3_site,
                &__wk_1_x,
                ::warpkit::__private::wide::B::None,
                &mut __wk_6_result,
            )?;
            if __wk.dense() {
                __wk_6_result.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = __wk_6_result[__wk_l];
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    {
                        let __wk_r = __wk_6_result[__wk_l];
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            }
            ::core::result::Result::Ok(())
        };
        let __warpkit_kernel = ::core::concat!(
            ::core::module_path!(), "::", ::core::stringify!(warp_total)
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
    w.redux_add(x).await
}
#[cfg(target_arch = "nvptx64")]
/// A warp function that the wrapper below calls.
fn warp_total(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A wrapper entry kernel: it loads, calls one warp function and stores. Its prologue does not
/// offer its form (per lane its lanes reach `warp_total`'s offer in one step); it only probes, so
/// that a launch through its type starts each warp in its form (`wide::probe`).
pub async fn warp_totals(
    w: &Warp<'_>,
    input: GlobalSlice<'_, u32>,
    out: GlobalSlice<'_, u32>,
) {
    static __WARPKIT_CALLS_0: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new_last();
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = (input, out);
    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
    let __warpkit_wide: ::warpkit::__private::wide::WideBody<
        (GlobalSlice<'_, u32>, GlobalSlice<'_, u32>),
        (),
    > = |__wk, __wk_args, __wk_outs| {
        let __wk_hs = __wk.handles();
        let mut __wk_1_input = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_2_out = ::warpkit::__private::wide::Lanes::new();
        __wk.unpack(
            __wk_args,
            |__wk_l, (__wk_a_input, __wk_a_out)| {
                __wk_1_input.set(__wk_l, __wk_a_input);
                __wk_2_out.set(__wk_l, __wk_a_out);
            },
        );
        let mut __wk_3_i = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_4_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_5_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_6_site = ::warpkit::__private::wide::site();
        if __wk.dense() {
            __wk_1_input.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                let w = &__wk_hs[__wk_l as usize];
                let _ = w;
                {
                    let i = w.global_id() as usize;
                    __wk_3_i.set(__wk_l, i);
                }
                __wk_4_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_total),
                            &mut __wk_5_callee,
                            (__wk_1_input[__wk_l].load(__wk_3_i[__wk_l])),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                let w = &__wk_hs[__wk_l as usize];
                let _ = w;
                {
                    let i = w.global_id() as usize;
                    __wk_3_i.set(__wk_l, i);
                }
                __wk_4_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack1(
                            &(warp_total),
                            &mut __wk_5_callee,
                            (__wk_1_input[__wk_l].load(__wk_3_i[__wk_l])),
                        ),
                    );
            }
        }
        let mut __wk_7_returned = ::warpkit::__private::wide::Lanes::new();
        {
            use ::warpkit::__private::wide::{CallsForm as _, CallsNothing as _};
            (&__wk_5_callee)
                .__warpkit_call_in(
                    __wk,
                    &__WARPKIT_CALLS_0,
                    __wk_6_site,
                    ::core::option::Option::None,
                    &mut __wk_4_args,
                    &mut __wk_7_returned,
                )?;
        }
        ::core::mem::drop(__wk_4_args);
        if __wk.dense() {
            __wk_2_out.assert_full();
            __wk_3_i.assert_full();
            __wk_7_returned.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                __wk_2_out[__wk_l].store(__wk_3_i[__wk_l], __wk_7_returned[__wk_l]);
                {
                    let __wk_r = ();
                    __wk_7_returned.drop_lane(__wk_l);
                    __wk_3_i.drop_lane(__wk_l);
                    __wk_2_out.drop_lane(__wk_l);
                    __wk_1_input.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                __wk_2_out[__wk_l].store(__wk_3_i[__wk_l], __wk_7_returned[__wk_l]);
                {
                    let __wk_r = ();
                    __wk_7_returned.drop_lane(__wk_l);
                    __wk_3_i.drop_lane(__wk_l);
                    __wk_2_out.drop_lane(__wk_l);
                    __wk_1_input.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        }
        ::core::result::Result::Ok(())
    };
    let __warpkit_key: *const () = __warpkit_wide as *const ();
    let (input, out) = match ::warpkit::__private::wide::wanted(w)
        && ::warpkit::__private::wide::probing(w)
    {
        true => {
            match ::warpkit::__private::wide::calls_ready(
                __warpkit_key,
                &[(&__WARPKIT_CALLS_0, 0u64)],
            ) {
                ::core::option::Option::Some(_) => {
                    let __warpkit_kernel = ::core::concat!(
                        ::core::module_path!(), "::", ::core::stringify!(warp_totals)
                    );
                    if ::warpkit::__private::wide::probe(
                        w,
                        __warpkit_wide,
                        __warpkit_kernel,
                        ::core::option::Option::None,
                    ) {
                        return;
                    }
                    __warpkit_args
                }
                ::core::option::Option::None => __warpkit_args,
            }
        }
        false => __warpkit_args,
    };
    let i = w.global_id() as usize;
    let t = ::warpkit::__private::at(
        match warp_total(
            w,
            ::warpkit::__private::at(
                match input.load(i) {
                    __warpkit_v => {
                        if ::warpkit::__private::pauses_lockstep() {
                            ::warpkit::__private::pause(__warpkit_v).await
                        } else {
                            __warpkit_v
                        }
                    }
                },
            ),
        ) {
            __warpkit_call => {
                ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                    .learning(&__WARPKIT_CALLS_0, __warpkit_key)
            }
        }
            .await,
    );
    ::warpkit::__private::at(
        match out.store(i, t) {
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
#[cfg(target_arch = "nvptx64")]
/// A wrapper entry kernel: it loads, calls one warp function and stores. Its prologue does not
/// offer its form (per lane its lanes reach `warp_total`'s offer in one step); it only probes, so
/// that a launch through its type starts each warp in its form (`wide::probe`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_totals(
    input: GlobalSlice<'_, u32>,
    out: GlobalSlice<'_, u32>,
) {
    #[inline(always)]
    fn __warp_body(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
        let i = w.global_id() as usize;
        let t = warp_total(w, input.load(i));
        out.store(i, t);
    }
    __warp_body(&::warpkit::__private::Warp::current(), input, out)
}
::warpkit::__private::entry! {
    [] pub warp_totals(input : GlobalSlice < 'static, u32 >, out : GlobalSlice < 'static,
    u32 >)
}
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A warp function with an atomic, which its form runs as lane code, and lanes that return early
/// (past the input), so that its form runs only where returning is exiting: at a run's entry, or
/// behind calls after which each caller reaches no other warp instruction or call.
async fn count_odd(
    w: &Warp<'_>,
    input: GlobalSlice<'_, u32>,
    counts: GlobalSlice<'_, u32>,
) {
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = (input, counts);
    let (input, counts) = if ::warpkit::__private::wide::wanted(w) {
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        let __warpkit_wide: ::warpkit::__private::wide::WideBody<
            (GlobalSlice<'_, u32>, GlobalSlice<'_, u32>),
            (),
        > = |__wk, __wk_args, __wk_outs| {
            let mut __wk_1_input = ::warpkit::__private::wide::Lanes::new();
            let mut __wk_2_counts = ::warpkit::__private::wide::Lanes::new();
            __wk.unpack(
                __wk_args,
                |__wk_l, (__wk_a_input, __wk_a_counts)| {
                    __wk_1_input.set(__wk_l, __wk_a_input);
                    __wk_2_counts.set(__wk_l, __wk_a_counts);
                },
            );
            let mut __wk_3_i = ::warpkit::__private::wide::Lanes::new();
            let mut __wk_4_issued = ::warpkit::__private::wide::Lanes::new();
            if __wk.dense() {
                __wk_1_input.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    {
                        let i = w.global_id() as usize;
                        __wk_3_i.set(__wk_l, i);
                    }
                    if __wk_3_i[__wk_l] >= __wk_1_input[__wk_l].len() {
                        {
                            {
                                let __wk_r = ();
                                __wk_3_i.drop_lane(__wk_l);
                                __wk_2_counts.drop_lane(__wk_l);
                                __wk_1_input.drop_lane(__wk_l);
                                __wk.ret(__wk_outs, __wk_l, __wk_r);
                            }
                            continue '__wk_lanes;
                        };
                    }
                    __wk_4_issued.set(__wk_l, (w).activemask());
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    {
                        let i = w.global_id() as usize;
                        __wk_3_i.set(__wk_l, i);
                    }
                    if __wk_3_i[__wk_l] >= __wk_1_input[__wk_l].len() {
                        {
                            {
                                let __wk_r = ();
                                __wk_3_i.drop_lane(__wk_l);
                                __wk_2_counts.drop_lane(__wk_l);
                                __wk_1_input.drop_lane(__wk_l);
                                __wk.ret(__wk_outs, __wk_l, __wk_r);
                            }
                            continue '__wk_lanes;
                        };
                    }
                    __wk_4_issued.set(__wk_l, (w).activemask());
                }
            }
            __wk.settle()?;
            let mut __wk_5_result = ::warpkit::__private::wide::Lanes::new();
            let mut __wk_6_issued = ::warpkit::__private::wide::Lanes::new();
            if __wk.dense() {
                __wk_1_input.assert_full();
                __wk_3_i.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    __wk_5_result
                        .set(
                            __wk_l,
                            ::warpkit::__private::wide::result(
                                __wk_4_issued.take(__wk_l),
                            ),
                        );
                    __wk_6_issued
                        .set(
                            __wk_l,
                            (w.group(__wk_5_result[__wk_l]))
                                .ballot(
                                    (__wk_1_input[__wk_l].load(__wk_3_i[__wk_l]) % 2 == 1),
                                ),
                        );
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    __wk_5_result
                        .set(
                            __wk_l,
                            ::warpkit::__private::wide::result(
                                __wk_4_issued.take(__wk_l),
                            ),
                        );
                    __wk_6_issued
                        .set(
                            __wk_l,
                            (w.group(__wk_5_result[__wk_l]))
                                .ballot(
                                    (__wk_1_input[__wk_l].load(__wk_3_i[__wk_l]) % 2 == 1),
                                ),
                        );
                }
            }
            __wk.settle()?;
            let mut __wk_7_result = ::warpkit::__private::wide::Lanes::new();
            if __wk.dense() {
                __wk_2_counts.assert_full();
                __wk_5_result.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    __wk_7_result
                        .set(
                            __wk_l,
                            ::warpkit::__private::wide::result(
                                __wk_6_issued.take(__wk_l),
                            ),
                        );
                    {
                        let __wk_r = if w.lane_id()
                            == __wk_5_result[__wk_l].trailing_zeros()
                        {
                            ::warpkit::__private::at(
                                match __wk_2_counts[__wk_l]
                                    .atomic_add(0, __wk_7_result[__wk_l].count_ones())
                                {
                                    __warpkit_call => {
                                        ::warpkit::__private::form_atomic(
                                            ::warpkit::__private::MemCall::into_future(__warpkit_call),
                                        )
                                    }
                                },
                            );
                        };
                        __wk_7_result.drop_lane(__wk_l);
                        __wk_5_result.drop_lane(__wk_l);
                        __wk_3_i.drop_lane(__wk_l);
                        __wk_2_counts.drop_lane(__wk_l);
                        __wk_1_input.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    let _ = w;
                    __wk_7_result
                        .set(
                            __wk_l,
                            ::warpkit::__private::wide::result(
                                __wk_6_issued.take(__wk_l),
                            ),
                        );
                    {
                        let __wk_r = if w.lane_id()
                            == __wk_5_result[__wk_l].trailing_zeros()
                        {
                            ::warpkit::__private::at(
                                match __wk_2_counts[__wk_l]
                                    .atomic_add(0, __wk_7_result[__wk_l].count_ones())
                                {
                                    __warpkit_call => {
                                        ::warpkit::__private::form_atomic(
                                            ::warpkit::__private::MemCall::into_future(__warpkit_call),
                                        )
                                    }
                                },
                            );
                        };
                        __wk_7_result.drop_lane(__wk_l);
                        __wk_5_result.drop_lane(__wk_l);
                        __wk_3_i.drop_lane(__wk_l);
                        __wk_2_counts.drop_lane(__wk_l);
                        __wk_1_input.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            }
            ::core::result::Result::Ok(())
        };
        let __warpkit_kernel = ::core::concat!(
            ::core::module_path!(), "::", ::core::stringify!(count_odd)
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
                    returns_early: true,
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
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let active = w.activemask().await;
    let odd = w
        .group(active)
        .ballot(
            ::warpkit::__private::at(
                match input.load(i) {
                    __warpkit_v => {
                        if ::warpkit::__private::pauses_lockstep() {
                            ::warpkit::__private::pause(__warpkit_v).await
                        } else {
                            __warpkit_v
                        }
                    }
                },
            ) % 2 == 1,
        )
        .await;
    if w.lane_id() == active.trailing_zeros() {
        ::warpkit::__private::at(
            match counts.atomic_add(0, odd.count_ones()) {
                __warpkit_call => {
                    ::warpkit::__private::lockstep_atomic(
                        ::warpkit::__private::MemCall::into_future(__warpkit_call),
                    )
                }
            }
                .await,
        );
    }
}
#[cfg(target_arch = "nvptx64")]
/// A warp function with an atomic, which its form runs as lane code, and lanes that return early
/// (past the input), so that its form runs only where returning is exiting: at a run's entry, or
/// behind calls after which each caller reaches no other warp instruction or call.
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
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::future_not_send)]
/// A wrapper entry whose call is its last point (`Calls::new_last`).
pub async fn odd_counts(
    w: &Warp<'_>,
    input: GlobalSlice<'_, u32>,
    counts: GlobalSlice<'_, u32>,
) {
    static __WARPKIT_CALLS_0: ::warpkit::__private::wide::Calls = ::warpkit::__private::wide::Calls::new_last();
    #[allow(clippy::used_underscore_binding)]
    let __warpkit_args = (input, counts);
    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
    let __warpkit_wide: ::warpkit::__private::wide::WideBody<
        (GlobalSlice<'_, u32>, GlobalSlice<'_, u32>),
        (),
    > = |__wk, __wk_args, __wk_outs| {
        let __wk_hs = __wk.handles();
        let mut __wk_1_input = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_2_counts = ::warpkit::__private::wide::Lanes::new();
        __wk.unpack(
            __wk_args,
            |__wk_l, (__wk_a_input, __wk_a_counts)| {
                __wk_1_input.set(__wk_l, __wk_a_input);
                __wk_2_counts.set(__wk_l, __wk_a_counts);
            },
        );
        let mut __wk_3_args = ::warpkit::__private::wide::Lanes::new();
        let mut __wk_4_callee = ::warpkit::__private::wide::TypeOf::new();
        let __wk_5_site = ::warpkit::__private::wide::site();
        if __wk.dense() {
            __wk_1_input.assert_full();
            __wk_2_counts.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                __wk_3_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack2(
                            &(count_odd),
                            &mut __wk_4_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_input.arg(__wk_l).__warpkit_value()
                            }),
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_2_counts.arg(__wk_l).__warpkit_value()
                            }),
                        ),
                    );
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                __wk_3_args
                    .set(
                        __wk_l,
                        ::warpkit::__private::wide::pack2(
                            &(count_odd),
                            &mut __wk_4_callee,
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_1_input.arg(__wk_l).__warpkit_value()
                            }),
                            ({
                                use ::warpkit::__private::wide::{
                                    ArgCopy as _, ArgMove as _,
                                };
                                __wk_2_counts.arg(__wk_l).__warpkit_value()
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
                    ::core::option::Option::None,
                    &mut __wk_3_args,
                    &mut __wk_6_returned,
                )?;
        }
        ::core::mem::drop(__wk_3_args);
        if __wk.dense() {
            __wk_6_returned.assert_full();
            '__wk_lanes: for __wk_l in 0..32u32 {
                __wk.enter(__wk_l);
                {
                    use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                    __wk_6_returned.arg(__wk_l).__warpkit_value()
                };
                {
                    let __wk_r = ();
                    __wk_2_counts.drop_lane(__wk_l);
                    __wk_1_input.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        } else {
            '__wk_lanes: for __wk_l in __wk.lanes() {
                __wk.enter(__wk_l);
                {
                    use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                    __wk_6_returned.arg(__wk_l).__warpkit_value()
                };
                {
                    let __wk_r = ();
                    __wk_2_counts.drop_lane(__wk_l);
                    __wk_1_input.drop_lane(__wk_l);
                    __wk.ret(__wk_outs, __wk_l, __wk_r);
                }
            }
        }
        ::core::result::Result::Ok(())
    };
    let __warpkit_key: *const () = __warpkit_wide as *const ();
    let (input, counts) = match ::warpkit::__private::wide::wanted(w)
        && ::warpkit::__private::wide::probing(w)
    {
        true => {
            match ::warpkit::__private::wide::calls_ready(
                __warpkit_key,
                &[(&__WARPKIT_CALLS_0, 0u64)],
            ) {
                ::core::option::Option::Some(_) => {
                    let __warpkit_kernel = ::core::concat!(
                        ::core::module_path!(), "::", ::core::stringify!(odd_counts)
                    );
                    if ::warpkit::__private::wide::probe(
                        w,
                        __warpkit_wide,
                        __warpkit_kernel,
                        ::core::option::Option::None,
                    ) {
                        return;
                    }
                    __warpkit_args
                }
                ::core::option::Option::None => __warpkit_args,
            }
        }
        false => __warpkit_args,
    };
    ::warpkit::__private::at(
        match count_odd(w, input, counts) {
            __warpkit_call => {
                ::warpkit::__private::WarpCall::into_future(__warpkit_call)
                    .learning(&__WARPKIT_CALLS_0, __warpkit_key)
            }
        }
            .await,
    );
}
#[cfg(target_arch = "nvptx64")]
/// A wrapper entry whose call is its last point (`Calls::new_last`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn odd_counts(
    input: GlobalSlice<'_, u32>,
    counts: GlobalSlice<'_, u32>,
) {
    #[inline(always)]
    fn __warp_body(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
        count_odd(w, input, counts);
    }
    __warp_body(&::warpkit::__private::Warp::current(), input, counts)
}
::warpkit::__private::entry! {
    [] pub odd_counts(input : GlobalSlice < 'static, u32 >, counts : GlobalSlice <
    'static, u32 >)
}
