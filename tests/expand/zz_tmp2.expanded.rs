use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
async fn inner_sum(w: &Warp<'_>, x: u32) -> u32 {
    let __warpkit_args = x;
    #[allow(unused_mut)]
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
                    let w = &__wk.handle(__wk_l);
                    {
                        let v = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_1_x.arg(__wk_l).value()
                        };
                        __wk_2_v.set(__wk_l, v);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    {
                        let v = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_1_x.arg(__wk_l).value()
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
                    let __wk_5_a = ::warpkit::__private::wide::Lanes::copied(&__wk_2_v);
                    let __wk_6_b: u32 = (offset);
                    let mut __wk_7_result = ::warpkit::__private::wide::Lanes::new();
                    __wk.issue(
                        &__wk_3_instr,
                        __wk_4_site,
                        &__wk_5_a,
                        ::warpkit::__private::wide::B::Uniform(__wk_6_b),
                        &mut __wk_7_result,
                    )?;
                    if __wk.dense() {
                        __wk_2_v.assert_full();
                        __wk_7_result.assert_full();
                        '__wk_lanes: for __wk_l in 0..32u32 {
                            __wk.enter(__wk_l);
                            let w = &__wk.handle(__wk_l);
                            (__wk_2_v[__wk_l]) = ((__wk_2_v[__wk_l])
                                .wrapping_add((__wk_7_result[__wk_l])));
                        }
                    } else {
                        '__wk_lanes: for __wk_l in __wk.lanes() {
                            __wk.enter(__wk_l);
                            let w = &__wk.handle(__wk_l);
                            (__wk_2_v[__wk_l]) = ((__wk_2_v[__wk_l])
                                .wrapping_add((__wk_7_result[__wk_l])));
                        }
                    }
                }
            }
            if __wk.dense() {
                __wk_2_v.assert_full();
                '__wk_lanes: for __wk_l in 0..32u32 {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    {
                        let __wk_r = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_2_v.arg(__wk_l).value()
                        };
                        __wk_2_v.drop_lane(__wk_l);
                        __wk_1_x.drop_lane(__wk_l);
                        __wk.ret(__wk_outs, __wk_l, __wk_r);
                    }
                }
            } else {
                '__wk_lanes: for __wk_l in __wk.lanes() {
                    __wk.enter(__wk_l);
                    let w = &__wk.handle(__wk_l);
                    {
                        let __wk_r = {
                            use ::warpkit::__private::wide::{ArgCopy as _, ArgMove as _};
                            __wk_2_v.arg(__wk_l).value()
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
            ::core::module_path!(), "::", ::core::stringify!(inner_sum)
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
        v = v.wrapping_add(w.shfl_xor(v, offset).await);
    }
    v
}
#[cfg(target_arch = "nvptx64")]
fn inner_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    v
}
#[cfg(not(target_arch = "nvptx64"))]
async fn stretch_locals(w: &Warp<'_>, x: u32) -> (u32, u32, u32, u32, u32) {
    let (up, ok) = w.shfl_up_pred(x, 1).await;
    assert!(up < u32::MAX || x == u32::MAX, "never");
    let a = if ok { up } else { x };
    let (down, in_range) = w.shfl_down_pred(a, 2).await;
    let b = w.shfl_xor(a, 1).await;
    let c = if in_range { down ^ b } else { b };
    let m = w.ballot(c % 2 == 0).await;
    let ones = m.count_ones();
    let r = core::convert::identity(&m).wrapping_add(ones);
    let v = w.shfl_idx(c, 0).await;
    let s: u32 = (0..3u32).map(|i| v.wrapping_add(i)).sum();
    let e = w.shfl_down(x, 1).await;
    let e = e.wrapping_mul(3);
    let g = w.shfl_down(s, 3).await;
    let mut acc = 0u32;
    for k in [1u32, 2, 4] {
        let (p, okp) = match acc ^ g {
            __warpkit_value => w.shfl_xor_pred(__warpkit_value, k).await,
        };
        if okp {
            acc = acc.wrapping_add(p);
        }
    }
    let f = match inner_sum(w, e) {
        __warpkit_call => ::warpkit::__private::WarpCall::into_future(__warpkit_call),
    }
        .await;
    let h = w.shfl_xor(f, 2).await;
    (acc, h ^ f, r, s, e ^ f)
}
#[cfg(target_arch = "nvptx64")]
fn stretch_locals(w: &Warp, x: u32) -> (u32, u32, u32, u32, u32) {
    let (up, ok) = w.shfl_up_pred(x, 1);
    assert!(up < u32::MAX || x == u32::MAX, "never");
    let a = if ok { up } else { x };
    let (down, in_range) = w.shfl_down_pred(a, 2);
    let b = w.shfl_xor(a, 1);
    let c = if in_range { down ^ b } else { b };
    let m = w.ballot(c % 2 == 0);
    let ones = m.count_ones();
    let r = core::convert::identity(&m).wrapping_add(ones);
    let v = w.shfl_idx(c, 0);
    let s: u32 = (0..3u32).map(|i| v.wrapping_add(i)).sum();
    let e = w.shfl_down(x, 1);
    let e = e.wrapping_mul(3);
    let g = w.shfl_down(s, 3);
    let mut acc = 0u32;
    for k in [1u32, 2, 4] {
        let (p, okp) = w.shfl_xor_pred(acc ^ g, k);
        if okp {
            acc = acc.wrapping_add(p);
        }
    }
    let f = inner_sum(w, e);
    let h = w.shfl_xor(f, 2);
    (acc, h ^ f, r, s, e ^ f)
}
