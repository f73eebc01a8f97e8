//! `match.sync` (any, all) on 4- and 8-byte values.

mod model;

use warp_runtime::{Executor, Warp, FULL_MASK};

#[test]
fn match_any_b32_groups_equal_values() {
    // ".any: d is set to mask of non-exited threads in membermask that have same value of operand a."
    let r = Executor::new().run(async |w: &Warp<'_>| w.match_any(w.lane_id() % 4).await).unwrap();
    for l in 0..32 {
        assert_eq!(r[l], 0x1111_1111 << (l % 4), "lane {l}");
    }
}

#[test]
fn match_any_i32_and_f32_compare_bit_patterns() {
    // "Operand a has instruction type" (.b32): values are compared as 32-bit patterns.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            let i = if l < 16 { -1i32 } else { 1 };
            // +0.0 and -0.0 differ in bits; one NaN pattern equals itself.
            let f = match l % 3 {
                0 => 0.0f32,
                1 => -0.0f32,
                _ => f32::from_bits(0x7fc0_1234),
            };
            (w.match_any(i).await, w.match_any(f).await)
        })
        .unwrap();
    let by_mod3 = |k: usize| (0..32).filter(|l| l % 3 == k).map(|l| 1u32 << l).sum::<u32>();
    for l in 0..32 {
        assert_eq!(r[l].0, if l < 16 { 0x0000_ffff } else { 0xffff_0000 }, "i32 lane {l}");
        assert_eq!(r[l].1, by_mod3(l % 3), "f32 lane {l}");
    }
}

#[test]
fn match_b64_values_differing_only_in_high_word_do_not_match() {
    // .b64: "Operand a has instruction type": all 64 bits are compared.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let v = ((w.lane_id() % 2) as u64) << 32 | 0xabcd;
            (w.match_any(v).await, w.match_all(v).await, w.match_any(v as u32).await)
        })
        .unwrap();
    for l in 0..32 {
        assert_eq!(r[l].0, if l % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa }, "lane {l}");
        assert_eq!(r[l].1, (0, false), "lane {l}");
        assert_eq!(r[l].2, FULL_MASK, "low words alone all match (lane {l})");
    }
    // One lane differing only in bit 63.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let v = if w.lane_id() == 13 { 1u64 << 63 | 42 } else { 42 };
            (w.match_any(v as i64).await, w.match_all(f64::from_bits(v)).await)
        })
        .unwrap();
    for l in 0..32 {
        assert_eq!(r[l].0, if l == 13 { 1 << 13 } else { !(1u32 << 13) }, "lane {l}");
        assert_eq!(r[l].1, (0, false), "lane {l}");
    }
}

#[test]
fn match_all_equal_values_gives_full_mask_and_true() {
    // ".all: d is set to mask corresponding to non-exited threads in membermask if all ... have
    // same value of operand a; otherwise d is set to 0. ... p is set to true ... otherwise false".
    let r = Executor::new()
        .run(async |w: &Warp<'_>| (w.match_all(7u32).await, w.match_all(-3i64).await, w.match_all(2.5f64).await, w.match_all(-1.0f32).await))
        .unwrap();
    assert!(r.iter().all(|&x| x == ((FULL_MASK, true), (FULL_MASK, true), (FULL_MASK, true), (FULL_MASK, true))));
    let r = Executor::new().run(async |w: &Warp<'_>| w.match_all(if w.lane_id() == 31 { 8u32 } else { 7 }).await).unwrap();
    assert!(r.iter().all(|&x| x == (0, false)));
}

#[test]
fn match_partial_membermasks() {
    // The groups 0x0f0f0f0f and 0xf0f0f0f0 match separately; values equal within the first only.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            let in_a = l % 8 < 4;
            let g = w.group(if in_a { 0x0f0f_0f0f } else { 0xf0f0_f0f0 });
            let v = if in_a { 5u64 << 40 } else { (l / 8) as u64 };
            (g.match_any(v).await, g.match_all(v).await)
        })
        .unwrap();
    for l in 0..32 {
        if l % 8 < 4 {
            assert_eq!(r[l], (0x0f0f_0f0f, (0x0f0f_0f0f, true)), "lane {l}");
        } else {
            assert_eq!(r[l], (0xf0 << (8 * (l / 8)), (0, false)), "lane {l}");
        }
    }
}

#[test]
fn exited_lanes_are_excluded_from_match() {
    // ".all: d is set to mask corresponding to non-exited threads in membermask".
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() >= 24 {
                return None;
            }
            Some((w.match_all(9u32).await, w.match_any(w.lane_id() / 8).await, w.match_all(9u64 << 33).await))
        })
        .unwrap();
    for l in 0..24 {
        assert_eq!(r[l], Some(((0x00ff_ffff, true), 0xff << (8 * (l / 8)), (0x00ff_ffff, true))), "lane {l}");
    }
    assert_eq!(r[24], None);
    // Partial warp: never-launched lanes are not in d either.
    let r = Executor::new().run_partial(0x8000_0101, async |w: &Warp<'_>| w.match_all(1i32).await).unwrap();
    assert_eq!(r[0], Some((0x8000_0101, true)));
    assert_eq!(r[31], Some((0x8000_0101, true)));
}

#[test]
fn match_against_model_for_patterns() {
    for k in 1..9u64 {
        let vals: [u64; 32] = core::array::from_fn(|l| ((l as u64 * 2654435761) % k) << 32 | (l as u64 * 7 % 3));
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let v = vals[w.lane_id() as usize];
                (w.match_any(v).await, w.match_all(v).await)
            })
            .unwrap();
        for l in 0..32u32 {
            assert_eq!(r[l as usize], (model::match_any(&vals, FULL_MASK, l), model::match_all(&vals, FULL_MASK)), "k={k} lane {l}");
        }
    }
}
