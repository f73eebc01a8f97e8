//! `shfl.sync`: exact per-lane results of all four modes, raw and through the CUDA-style forms,
//! against the PTX pseudo-code (model in `model/mod.rs`) and hand-derived litmus cases.

mod model;

use model::{cuda_c, cuda_width_src, shfl_src};
use warp_runtime::{Executor, ShflMode, Warp, FULL_MASK};

const MODES: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];

/// Runs one raw `shfl.sync` on the full warp with per-lane operands.
fn raw(mode: ShflMode, a: [u32; 32], b: [u32; 32], c: [u32; 32]) -> [(u32, bool); 32] {
    Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            w.shfl(mode, a[l], b[l], c[l]).await
        })
        .unwrap()
}

/// Distinct per-lane values that are not lane ids.
fn vals() -> [u32; 32] {
    core::array::from_fn(|l| 0xA000_0000 | (l as u32) * 0x0101 + 7)
}

fn expect_raw(mode: ShflMode, a: &[u32; 32], b: &[u32; 32], c: &[u32; 32]) -> [(u32, bool); 32] {
    core::array::from_fn(|l| {
        let (j, p) = shfl_src(mode, l as u32, b[l], c[l]);
        (a[j as usize], p)
    })
}

// ---- hand-derived litmus cases ----

#[test]
fn up_b32_is_b0_own_value_with_p_true() {
    // "bval[4:0] = b[4:0]": b = 32 gives bval = 0, j = lane, and (c = 0) pval = j >= 0 = true.
    let a = vals();
    let r = raw(ShflMode::Up, a, [32; 32], [0; 32]);
    for l in 0..32 {
        assert_eq!(r[l], (a[l], true), "lane {l}");
    }
}

#[test]
fn up_b33_acts_as_b1() {
    // "bval[4:0] = b[4:0]": b = 33 is bval = 1; lane 0 has j = -1 < maxLane = 0, so p = false.
    let a = vals();
    let r = raw(ShflMode::Up, a, [33; 32], [0; 32]);
    assert_eq!(r[0], (a[0], false));
    for l in 1..32 {
        assert_eq!(r[l], (a[l - 1], true), "lane {l}");
    }
}

#[test]
fn b_is_taken_modulo_32_in_every_mode() {
    // "bval[4:0] = b[4:0]" in all four modes: b = 32k + r acts as r.
    let a = vals();
    for mode in MODES {
        for c in [0u32, 0x1f, 0x181f, 0x1c00] {
            for r in [0u32, 1, 3, 17, 31] {
                let base = raw(mode, a, [r; 32], [c; 32]);
                for hi in [32u32, 64, 0x8000_0000, 0xffff_ffe0] {
                    assert_eq!(raw(mode, a, [hi | r; 32], [c; 32]), base, "{mode:?} b={:#x} c={c:#x}", hi | r);
                }
            }
        }
    }
}

#[test]
fn down_full_warp_top_lanes_keep_own_value() {
    // ".down: j = lane + bval; pval = (j <= maxLane)", c = 0x1f: maxLane = 31.
    let a = vals();
    let r = raw(ShflMode::Down, a, [3; 32], [0x1f; 32]);
    for l in 0..32 {
        let want = if l + 3 <= 31 { (a[l + 3], true) } else { (a[l], false) };
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn up_with_nonzero_clamp_uses_clamp_as_lower_bound() {
    // ".up: pval = (j >= maxLane)", c = 4 (segmask 0): maxLane = 4 for every lane.
    let a = vals();
    let r = raw(ShflMode::Up, a, [1; 32], [4; 32]);
    for l in 0..32usize {
        let want = if l >= 5 { (a[l - 1], true) } else { (a[l], false) };
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn down_with_small_clamp_uses_clamp_as_upper_bound() {
    // ".down: pval = (j <= maxLane)", c = 8 (segmask 0): maxLane = 8.
    let a = vals();
    let r = raw(ShflMode::Down, a, [5; 32], [8; 32]);
    for l in 0..32usize {
        let want = if l + 5 <= 8 { (a[l + 5], true) } else { (a[l], false) };
        assert_eq!(r[l], want, "lane {l}");
    }
}

#[test]
fn bfly_reaches_lower_segment_with_p_true() {
    // ".bfly: j = lane ^ bval; pval = (j <= maxLane)": with segments of 8 (c = 0x181f, maxLane =
    // top of own segment) and b = 8, a lane with bit 3 set reads lane - 8, in the segment below,
    // with p true; a lane with bit 3 clear would read the segment above: p false.
    let a = vals();
    let r = raw(ShflMode::Bfly, a, [8; 32], [0x181f; 32]);
    for l in 0..32usize {
        let want = if l & 8 != 0 { (a[l - 8], true) } else { (a[l], false) };
        assert_eq!(r[l], want, "lane {l}");
    }
    assert_eq!(r[8], (a[0], true));
}

#[test]
fn idx_reads_segment_base_or_b() {
    // ".idx: j = minLane | (bval[4:0] & ~segmask[4:0])": segments of 4 (c = 0x1c1f), b = 6
    // reads lane base + (6 & 3) = base + 2.
    let a = vals();
    let r = raw(ShflMode::Idx, a, [6; 32], [0x1c1f; 32]);
    for l in 0..32usize {
        assert_eq!(r[l], (a[(l & !3) + 2], true), "lane {l}");
    }
}

#[test]
fn idx_beyond_clamp_keeps_own_value() {
    // ".idx: pval = (j <= maxLane)": c = 3 (segmask 0), maxLane = 3; b = 5 gives j = 5 > 3.
    let a = vals();
    let r = raw(ShflMode::Idx, a, [5; 32], [3; 32]);
    for l in 0..32usize {
        assert_eq!(r[l], (a[l], false), "lane {l}");
    }
    let r = raw(ShflMode::Idx, a, [2; 32], [3; 32]);
    for l in 0..32usize {
        assert_eq!(r[l], (a[2], true), "lane {l}");
    }
}

#[test]
fn idx_b37_full_warp_reads_lane_5() {
    // "bval[4:0] = b[4:0]": 37 & 31 = 5.
    let a = vals();
    let r = raw(ShflMode::Idx, a, [37; 32], [0x1f; 32]);
    assert!(r.iter().all(|&x| x == (a[5], true)));
}

#[test]
fn c_bits_outside_4_0_and_12_8_are_ignored() {
    // "cval[4:0] = c[4:0]; segmask[4:0] = c[12:8]": other bits of c take no part.
    let a = vals();
    let b: [u32; 32] = core::array::from_fn(|l| (l as u32 * 11 + 3) % 40);
    for mode in MODES {
        for c in [0u32, 0x1f, 0x0c13, 0x1807, 0x1f00, 0x0a05] {
            let base = raw(mode, a, b, [c; 32]);
            for junk in [0xe0u32, 0xffff_e000, 0xdead_e0e0 & !0x1f1f] {
                assert_eq!(raw(mode, a, b, [c | junk; 32]), base, "{mode:?} c={c:#x} junk={junk:#x}");
            }
        }
    }
}

// ---- the pseudo-code over every (segmask, cval) pair ----

#[test]
fn raw_all_modes_every_segmask_and_clamp_match_pseudocode() {
    // The PTX pseudo-code for every 5-bit segmask and 5-bit cval, with per-lane b in 0..96.
    let a = vals();
    for mode in MODES {
        for seg in 0..32u32 {
            for cval in 0..32u32 {
                let c = [seg << 8 | cval; 32];
                let b: [u32; 32] = core::array::from_fn(|l| (l as u32 * 7 + seg + cval) % 96);
                let got = raw(mode, a, b, c);
                assert_eq!(got, expect_raw(mode, &a, &b, &c), "{mode:?} c={:#06x}", c[0]);
            }
        }
    }
}

#[test]
fn raw_per_lane_different_c_match_pseudocode() {
    // Each lane its own 13-bit c and 32-bit b: operands are per-thread registers.
    let a = vals();
    for k in 0..64u32 {
        let b: [u32; 32] = core::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9).wrapping_add(k.wrapping_mul(0x85eb_ca6b)));
        let c: [u32; 32] = core::array::from_fn(|l| ((l as u32 + k) * 0x2c9f + k * 131) & 0x1fff);
        for mode in MODES {
            assert_eq!(raw(mode, a, b, c), expect_raw(mode, &a, &b, &c), "{mode:?} k={k}");
        }
    }
}

// ---- convenience forms ----

#[test]
fn shfl_up_down_xor_idx_full_warp() {
    // __shfl_up/down/xor/sync on the whole warp (width 32).
    let a = vals();
    for d in [0u32, 1, 2, 5, 16, 31, 32, 33] {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let v = a[w.lane_id() as usize];
                (w.shfl_up(v, d).await, w.shfl_down(v, d).await, w.shfl_xor(v, d).await, w.shfl_idx(v, d).await)
            })
            .unwrap();
        for l in 0..32u32 {
            let e = |mode| a[shfl_src(mode, l, d, cuda_c(mode, 32)).0 as usize];
            assert_eq!(r[l as usize], (e(ShflMode::Up), e(ShflMode::Down), e(ShflMode::Bfly), e(ShflMode::Idx)), "lane {l} d={d}");
        }
    }
}

#[test]
fn pred_forms_return_p() {
    // "p = pval": the *_pred forms return the in-range predicate.
    let a = vals();
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let v = a[w.lane_id() as usize];
            [w.shfl_up_pred(v, 3).await, w.shfl_down_pred(v, 3).await, w.shfl_xor_pred(v, 3).await, w.shfl_idx_pred(v, 3).await]
        })
        .unwrap();
    for l in 0..32usize {
        assert_eq!(r[l][0], if l >= 3 { (a[l - 3], true) } else { (a[l], false) }, "up lane {l}");
        assert_eq!(r[l][1], if l + 3 < 32 { (a[l + 3], true) } else { (a[l], false) }, "down lane {l}");
        assert_eq!(r[l][2], (a[l ^ 3], true), "xor lane {l}");
        assert_eq!(r[l][3], (a[3], true), "idx lane {l}");
    }
}

#[test]
fn sync_forms_with_cuda_width_semantics() {
    // CUDA: "each group of width consecutive threads are able to access elements from earlier
    // groups of threads, however if they attempt to access elements from later groups of threads
    // their own value of var will be returned".
    let a = vals();
    for width in [1u32, 2, 4, 8, 16, 32] {
        for d in [0u32, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 40] {
            let r = Executor::new()
                .run(async |w: &Warp<'_>| {
                    let v = a[w.lane_id() as usize];
                    [
                        w.shfl_up_sync(FULL_MASK, v, d, width).await,
                        w.shfl_down_sync(FULL_MASK, v, d, width).await,
                        w.shfl_xor_sync(FULL_MASK, v, d, width).await,
                        w.shfl_idx_sync(FULL_MASK, v, d, width).await,
                    ]
                })
                .unwrap();
            for l in 0..32u32 {
                for (i, mode) in MODES.into_iter().enumerate() {
                    let want = a[cuda_width_src(mode, l, d, width).0 as usize];
                    let pseudo = a[shfl_src(mode, l, d, cuda_c(mode, width)).0 as usize];
                    assert_eq!(want, pseudo, "model disagreement {mode:?} lane {l} d={d} width={width}");
                    assert_eq!(r[l as usize][i], want, "{mode:?} lane {l} d={d} width={width}");
                }
            }
        }
    }
}

#[test]
fn tile_handles_shuffle_within_the_tile() {
    // tiled_partition(width): membermask = the tile, c = CUDA's c for that width.
    let a = vals();
    for width in [1u32, 2, 4, 8, 16, 32] {
        for d in [0u32, 1, 2, 3, 5, 8, 16, 31, 33] {
            // xor with bits >= width would read a lane of an earlier tile: outside the tile's
            // membermask, undefined. Keep those out here (see diagnostics.rs).
            let x = d % width;
            let r = Executor::new()
                .run(async |w: &Warp<'_>| {
                    let t = w.tile(width);
                    let v = a[w.lane_id() as usize];
                    [
                        t.shfl_up_pred(v, d).await,
                        t.shfl_down_pred(v, d).await,
                        t.shfl_xor_pred(v, x).await,
                        t.shfl_idx_pred(v, d).await,
                    ]
                })
                .unwrap();
            for l in 0..32u32 {
                for (i, mode) in MODES.into_iter().enumerate() {
                    let b = if mode == ShflMode::Bfly { x } else { d };
                    let (j, p) = cuda_width_src(mode, l, b, width);
                    assert_eq!(r[l as usize][i], (a[j as usize], p), "{mode:?} lane {l} d={b} width={width}");
                }
            }
        }
    }
}

#[test]
fn tile_sync_forms_with_tile_membermask() {
    // __shfl_down_sync(tile_mask, v, d, width) on disjoint tiles: each tile completes alone.
    let a = vals();
    for width in [2u32, 4, 8, 16] {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let l = w.lane_id();
                let mask = (((1u64 << width) - 1) as u32) << (l / width * width);
                let v = a[l as usize];
                (w.shfl_down_sync(mask, v, 1, width).await, w.shfl_idx_sync(mask, v, width - 1, width).await)
            })
            .unwrap();
        for l in 0..32u32 {
            let base = l / width * width;
            let down = if l + 1 < base + width { a[l as usize + 1] } else { a[l as usize] };
            assert_eq!(r[l as usize], (down, a[(base + width - 1) as usize]), "lane {l} width {width}");
        }
    }
}

// ---- value types ----

#[test]
fn u64_values_move_whole_including_high_word() {
    // An 8-byte value moves as two 32-bit shuffles with the same route: both words arrive.
    let a: [u64; 32] = core::array::from_fn(|l| (l as u64 + 1) << 32 | 0x5555);
    for mode in MODES {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let l = w.lane_id();
                w.shfl(mode, a[l as usize], l % 7, 0x1f).await
            })
            .unwrap();
        for l in 0..32u32 {
            let (j, p) = shfl_src(mode, l, l % 7, 0x1f);
            assert_eq!(r[l as usize], (a[j as usize], p), "{mode:?} lane {l}");
        }
    }
}

#[test]
fn i64_f64_i32_f32_values_round_trip() {
    let ai: [i64; 32] = core::array::from_fn(|l| -(l as i64) * 0x1_0000_0001 - 3);
    let af: [f64; 32] = core::array::from_fn(|l| -1.5 * l as f64 - 0.25);
    let a32: [i32; 32] = core::array::from_fn(|l| -(l as i32) * 1000 - 1);
    let f32s: [f32; 32] = core::array::from_fn(|l| if l == 9 { -0.0 } else { l as f32 * -2.5 });
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id() as usize;
            (
                w.shfl_xor(ai[l], 5).await,
                w.shfl_down(af[l], 2).await,
                w.shfl_up(a32[l], 4).await,
                w.shfl_idx(f32s[l], 9).await,
            )
        })
        .unwrap();
    for l in 0..32usize {
        assert_eq!(r[l].0, ai[l ^ 5], "i64 lane {l}");
        assert_eq!(r[l].1.to_bits(), af[if l + 2 < 32 { l + 2 } else { l }].to_bits(), "f64 lane {l}");
        assert_eq!(r[l].2, a32[if l >= 4 { l - 4 } else { l }], "i32 lane {l}");
        assert_eq!(r[l].3.to_bits(), (-0.0f32).to_bits(), "f32 lane {l} keeps the sign of -0.0");
    }
}

#[test]
fn f64_nan_payload_and_high_word_only_values() {
    // Values that differ only in the high word must arrive with the source's high word.
    let a: [f64; 32] = core::array::from_fn(|l| f64::from_bits(0x7ff8_0000_0000_0000 | (l as u64) << 32 | 0xdead));
    let r = Executor::new()
        .run(async |w: &Warp<'_>| w.shfl_idx(a[w.lane_id() as usize], 30).await)
        .unwrap();
    for l in 0..32 {
        assert_eq!(r[l].to_bits(), a[30].to_bits(), "lane {l}");
    }
}
