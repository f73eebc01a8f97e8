//! `redux.sync`: integer, bitwise and f32 reductions.

mod model;

use model::{redux_f32, CANONICAL_NAN};
use warp_runtime::{Executor, FloatRedux, Warp};

fn all_eq<T: PartialEq + core::fmt::Debug>(r: &[T; 32], want: T) {
    for (l, x) in r.iter().enumerate() {
        assert_eq!(*x, want, "lane {l}");
    }
}

#[test]
fn add_u32_wraps() {
    // "For the .add operation result is truncated to 32 bits": 32 * 0x8000_0000 + 0+1+..+31.
    let r = Executor::new().run(async |w: &Warp<'_>| w.redux_add(0x8000_0000u32 + w.lane_id()).await).unwrap();
    all_eq(&r, 496);
    let r = Executor::new().run(async |w: &Warp<'_>| w.redux_add(u32::MAX).await).unwrap();
    all_eq(&r, u32::MAX - 31);
}

#[test]
fn add_s32_wraps() {
    let r = Executor::new().run(async |w: &Warp<'_>| w.redux_add(if w.lane_id() < 2 { i32::MAX } else { -(w.lane_id() as i32) }).await).unwrap();
    // 2 * i32::MAX - (2+..+31) = 0xffff_fffe - 495 (mod 2^32), as i32 = -2 - 495.
    all_eq(&r, -497);
}

#[test]
fn min_max_u32_compare_unsigned_s32_signed() {
    // ".min/.max on .u32 / .s32": lane 5 holds 0xffff_fff0, i.e. -16 as .s32.
    let v = |l: u32| if l == 5 { 0xffff_fff0u32 } else { l + 1 };
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let x = v(w.lane_id());
            (w.redux_min(x).await, w.redux_max(x).await, w.redux_min(x as i32).await, w.redux_max(x as i32).await)
        })
        .unwrap();
    all_eq(&r, (1, 0xffff_fff0, -16, 32));
}

#[test]
fn bitwise_and_or_xor() {
    // ".and, .or, .xor" on .b32.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            let x = 0xf000_000f | (1u32 << l);
            (w.redux_and(x).await, w.redux_or(x).await, w.redux_xor(x).await, w.redux_xor(-(l as i32)).await)
        })
        .unwrap();
    // xor: the constant part appears 32 times and cancels; bits 4..=27 appear once each.
    let xor_neg = (0..32).fold(0i32, |a, l: i32| a ^ -l);
    all_eq(&r, (0xf000_000f, u32::MAX, 0x0fff_fff0, xor_neg));
}

#[test]
fn integer_ops_against_model_with_groups_and_exits() {
    // "performs a reduction ... across all non-exited threads in the membermask".
    let vals: [u32; 32] = core::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9) ^ 0x8000_0000 * (l as u32 % 2));
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            if l % 5 == 4 {
                return None;
            }
            let g = w.group(if l < 16 { 0x0000_ffff } else { 0xffff_0000 });
            let x = vals[l as usize];
            Some([
                g.redux_add(x).await,
                g.redux_add(x as i32).await as u32,
                g.redux_min(x).await,
                g.redux_min(x as i32).await as u32,
                g.redux_max(x).await,
                g.redux_max(x as i32).await as u32,
                g.redux_and(x).await,
                g.redux_or(x).await,
                g.redux_xor(x).await,
            ])
        })
        .unwrap();
    let exited: u32 = (0..32).filter(|l| l % 5 == 4).map(|l| 1u32 << l).sum();
    for l in 0..32 {
        if l % 5 == 4 {
            assert_eq!(r[l], None);
            continue;
        }
        let part = if l < 16 { 0x0000_ffff } else { 0xffff_0000 } & !exited;
        let want: [u32; 9] = core::array::from_fn(|i| model::redux_int(model::INT_OPS[i], &vals, part));
        assert_eq!(r[l], Some(want), "lane {l}");
    }
}

// ---- f32 ----

const NEG_ZERO: u32 = 0x8000_0000;
const POS_ZERO: u32 = 0;

fn run_f32(vals: &[f32; 32], q: FloatRedux) -> u32 {
    let r = Executor::new().run(async |w: &Warp<'_>| w.redux_f32(vals[w.lane_id() as usize], q).await.to_bits()).unwrap();
    for l in 1..32 {
        assert_eq!(r[l], r[0], "all participants receive the same result (lane {l})");
    }
    r[0]
}

fn q(max: bool, abs: bool, nan: bool) -> FloatRedux {
    FloatRedux { max, abs, nan }
}

#[test]
fn f32_positive_zero_greater_than_negative_zero() {
    // "For .f32 instruction type, if the input value is 0.0 then +0.0 > -0.0."
    let vals: [f32; 32] = core::array::from_fn(|l| if l % 2 == 0 { 0.0 } else { -0.0 });
    assert_eq!(run_f32(&vals, q(false, false, false)), NEG_ZERO);
    assert_eq!(run_f32(&vals, q(true, false, false)), POS_ZERO);
    // Order of appearance does not matter: -0.0 in lane 0, +0.0 elsewhere, and the reverse.
    for first in [0.0f32, -0.0] {
        let vals: [f32; 32] = core::array::from_fn(|l| if l == 0 { first } else { -first });
        assert_eq!(run_f32(&vals, q(false, false, false)), NEG_ZERO);
        assert_eq!(run_f32(&vals, q(true, false, false)), POS_ZERO);
    }
    // .abs makes -0.0 into +0.0.
    let vals: [f32; 32] = [-0.0; 32];
    assert_eq!(run_f32(&vals, q(true, true, false)), POS_ZERO);
    assert_eq!(run_f32(&vals, q(false, true, false)), POS_ZERO);
    assert_eq!(run_f32(&vals, q(false, false, false)), NEG_ZERO);
}

#[test]
fn f32_nan_inputs_skipped_without_nan_qualifier() {
    // "In the absence of .NaN qualifier, only non-NaN values are considered".
    let vals: [f32; 32] = core::array::from_fn(|l| if l % 3 == 0 { f32::NAN } else { l as f32 - 10.0 });
    assert_eq!(run_f32(&vals, q(false, false, false)), (-9.0f32).to_bits());
    assert_eq!(run_f32(&vals, q(true, false, false)), 21.0f32.to_bits());
    // Through the ReduxMinMax forms too.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let x = vals[w.lane_id() as usize];
            (w.redux_min(x).await.to_bits(), w.redux_max(x).await.to_bits())
        })
        .unwrap();
    all_eq(&r, ((-9.0f32).to_bits(), 21.0f32.to_bits()));
}

#[test]
fn f32_all_nan_inputs_give_canonical_nan() {
    // "the result will be canonical NaN when all inputs are NaNs" (canonical NaN = 0x7fffffff).
    let payloads = [0x7fc0_0000u32, 0xffc0_0000, 0x7f80_0001, 0xff80_1234, 0x7fff_ffff];
    let vals: [f32; 32] = core::array::from_fn(|l| f32::from_bits(payloads[l % payloads.len()]));
    for max in [false, true] {
        for abs in [false, true] {
            for nan in [false, true] {
                assert_eq!(run_f32(&vals, q(max, abs, nan)), CANONICAL_NAN, "max={max} abs={abs} nan={nan}");
            }
        }
    }
}

#[test]
fn f32_nan_qualifier_propagates_any_nan_as_canonical() {
    // ".NaN: the result ... is canonical NaN if the input ... from any participating thread is NaN".
    let vals: [f32; 32] = core::array::from_fn(|l| if l == 17 { f32::from_bits(0xffc0_0001) } else { l as f32 });
    assert_eq!(run_f32(&vals, q(false, false, true)), CANONICAL_NAN);
    assert_eq!(run_f32(&vals, q(true, false, true)), CANONICAL_NAN);
    assert_eq!(run_f32(&vals, q(true, true, true)), CANONICAL_NAN);
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let x = vals[w.lane_id() as usize];
            [w.redux_min_nan(x).await, w.redux_max_nan(x).await, w.redux_min_abs_nan(x).await, w.redux_max_abs_nan(x).await].map(f32::to_bits)
        })
        .unwrap();
    all_eq(&r, [CANONICAL_NAN; 4]);
}

#[test]
fn f32_abs_reduces_absolute_values() {
    // "If .abs qualifier is specified, then the absolute value of the input is considered".
    let vals: [f32; 32] = core::array::from_fn(|l| match l {
        3 => -100.0,
        7 => 0.5,
        8 => -0.25,
        _ => 1.0 + l as f32,
    });
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let x = vals[w.lane_id() as usize];
            [w.redux_min_abs(x).await, w.redux_max_abs(x).await, w.redux_min(x).await, w.redux_max(x).await].map(f32::to_bits)
        })
        .unwrap();
    all_eq(&r, [0.25f32, 100.0, -100.0, 32.0].map(f32::to_bits));
}

#[test]
fn f32_infinities_and_nan_mixes() {
    let inf = f32::INFINITY;
    let mut vals = [f32::NAN; 32];
    vals[4] = inf;
    vals[9] = -inf;
    vals[10] = -0.0;
    vals[11] = 0.0;
    assert_eq!(run_f32(&vals, q(false, false, false)), (-inf).to_bits());
    assert_eq!(run_f32(&vals, q(true, false, false)), inf.to_bits());
    assert_eq!(run_f32(&vals, q(false, true, false)), POS_ZERO);
    assert_eq!(run_f32(&vals, q(true, true, false)), inf.to_bits());
    assert_eq!(run_f32(&vals, q(false, false, true)), CANONICAL_NAN);
    // Only -inf and NaN: .abs of -inf is +inf.
    let mut vals = [f32::NAN; 32];
    vals[0] = -inf;
    assert_eq!(run_f32(&vals, q(false, true, false)), inf.to_bits());
    assert_eq!(run_f32(&vals, q(true, false, false)), (-inf).to_bits());
}

#[test]
fn f32_qualifier_combinations_against_model() {
    let specials = [
        0.0f32.to_bits(),
        NEG_ZERO,
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        0x7fc0_0000,
        0xff80_0001,
        1.5f32.to_bits(),
        (-1.5f32).to_bits(),
        f32::MIN_POSITIVE.to_bits(),
        1, // smallest subnormal
        0x8000_0001,
        f32::MAX.to_bits(),
        f32::MIN.to_bits(),
    ];
    for k in 0..40u32 {
        let vals_bits: [u32; 32] = core::array::from_fn(|l| specials[((l as u32 * 7 + k * 13) % (specials.len() as u32 + k % 5)).min(specials.len() as u32 - 1) as usize]);
        let vals = vals_bits.map(f32::from_bits);
        let exited = (k * 0x0101_0101).rotate_left(k) & 0xffff_fffe;
        for max in [false, true] {
            for abs in [false, true] {
                for nan in [false, true] {
                    let qual = q(max, abs, nan);
                    let r = Executor::new()
                        .run(async |w: &Warp<'_>| {
                            if exited >> w.lane_id() & 1 == 1 {
                                return None;
                            }
                            Some(w.redux_f32(vals[w.lane_id() as usize], qual).await.to_bits())
                        })
                        .unwrap();
                    let want = redux_f32(max, abs, nan, &vals_bits, !exited);
                    for l in 0..32 {
                        assert_eq!(r[l], (exited >> l & 1 == 0).then_some(want), "k={k} {qual:?} lane {l}");
                    }
                }
            }
        }
    }
}
