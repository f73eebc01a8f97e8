//! Global-memory loads, stores and PTX `atom` operations (PTX ISA 9.7.13.5), each checked against
//! a plain sequential model of the ISA's formula:
//!
//! ```text
//! atomic { d = *a; *a = (operation == cas) ? operation(*a, b, c) : operation(*a, b); }
//! inc(r, s)  = (r >= s) ? 0 : r+1;
//! dec(r, s)  = (r==0 || r > s)  ? s : r-1;
//! exch(r, s) =  s;
//! cas(r,s,t) = (r == s) ? t : r;
//! ```
//!
//! Kernels with no warp instruction run each lane to completion in the executor's lane order,
//! and with one CPU thread warps run in increasing index, so thread `t`'s atomic is the `t`-th
//! applied (lane order ascending) and the model is a fold over the threads in that order.

use proptest::prelude::*;
use warp_runtime::{Executor, GlobalBuffer, GlobalSlice, GlobalValue, Grid, LaneOrder, MemOp, Warp, WarpError};

/// Bit-exact comparison (floats: `-0.0 != 0.0`, a NaN equals the same NaN).
trait Bits: Copy + core::fmt::Debug {
    fn bits(self) -> u64;
}
macro_rules! bits {
    ($($t:ty => |$v:ident| $e:expr;)*) => {$( impl Bits for $t { fn bits(self) -> u64 { let $v = self; $e } } )*};
}
bits! {
    u32 => |v| v as u64; i32 => |v| v as u32 as u64; u64 => |v| v; i64 => |v| v as u64;
    f32 => |v| v.to_bits() as u64; f64 => |v| v.to_bits();
}

/// One thread per op; thread `t` applies `ops[t]` to element `ops[t].0` through `device` and returns
/// the old value. Checks every returned value and the final memory against folding `model` over
/// the ops in thread order, with ascending and descending lane order.
fn check<T, D, M>(init: &[T], ops: &[(usize, T, T)], device: D, model: M)
where
    T: GlobalValue + Bits,
    D: Fn(GlobalSlice<'_, T>, usize, T, T) -> MemOp<T> + Sync,
    M: Fn(T, T, T) -> T,
{
    for order in [LaneOrder::Ascending, LaneOrder::Descending] {
        // The order in which threads apply their atomics: warps in increasing index, lanes of a
        // warp in `order`.
        let mut sequence: Vec<usize> = Vec::new();
        for warp in (0..ops.len()).step_by(32) {
            let mut lanes: Vec<usize> = (warp..(warp + 32).min(ops.len())).collect();
            if order == LaneOrder::Descending {
                lanes.reverse();
            }
            sequence.extend(lanes);
        }
        let mut memory = init.to_vec();
        let mut expected_old = vec![init.first().copied(); ops.len()];
        for &t in &sequence {
            let (i, b, c) = ops[t];
            expected_old[t] = Some(memory[i]);
            memory[i] = model(memory[i], b, c);
        }

        let buffer = GlobalBuffer::from_slice(init);
        let mem = buffer.slice();
        let old = Grid::new(ops.len() as u64)
            .executor(Executor::new().order(order))
            .map(async |w: &Warp<'_>| {
                let (i, b, c) = ops[w.global_id() as usize];
                device(mem, i, b, c).await
            })
            .unwrap();
        let old: Vec<u64> = old.into_iter().map(Bits::bits).collect();
        let expected_old: Vec<u64> = expected_old.into_iter().map(|v| v.unwrap().bits()).collect();
        assert_eq!(old, expected_old, "old values, lane order {order:?}");
        let got: Vec<u64> = buffer.to_vec().into_iter().map(Bits::bits).collect();
        let want: Vec<u64> = memory.into_iter().map(Bits::bits).collect();
        assert_eq!(got, want, "final memory, lane order {order:?}");
    }
}

// ---- the models: the PTX formulas, written out plainly ----

fn inc(r: u32, s: u32) -> u32 {
    if r >= s {
        0
    } else {
        r + 1
    }
}

fn dec(r: u32, s: u32) -> u32 {
    if r == 0 || r > s {
        s
    } else {
        r - 1
    }
}

fn cas_bits<T: Bits>(r: T, s: T, t: T) -> T {
    if r.bits() == s.bits() {
        t
    } else {
        r
    }
}

/// "Current implementation of atom.add.f32 on global memory flushes subnormal inputs and results
/// to sign-preserving zero."
fn add_f32_ftz(r: f32, s: f32) -> f32 {
    let ftz = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
    let sum = ftz(ftz(r) + ftz(s));
    // Measured on an H100 (sm_90): every NaN result is the canonical NaN, whatever the payloads.
    if sum.is_nan() {
        f32::from_bits(0x7fff_ffff)
    } else {
        sum
    }
}

// ---- litmus tests: one case per rule ----

/// Runs `f` on one thread and returns what it returned and the final buffer.
fn one<T: GlobalValue, R: Send>(init: &[T], f: impl Fn(GlobalSlice<'_, T>) -> R + Sync) -> (R, Vec<T>) {
    let buffer = GlobalBuffer::from_slice(init);
    let mem = buffer.slice();
    let mut r = Grid::new(1).map(async |_: &Warp<'_>| f(mem)).unwrap();
    (r.pop().unwrap(), buffer.to_vec())
}

#[test]
fn inc_is_r_ge_s_then_0_else_r_plus_1() {
    assert_eq!(one(&[3u32], |m| m.atomic_inc(0, 7).value()), (3, vec![4]));
    assert_eq!(one(&[7u32], |m| m.atomic_inc(0, 7).value()), (7, vec![0]), "wraps at r == s");
    assert_eq!(one(&[9u32], |m| m.atomic_inc(0, 7).value()), (9, vec![0]), "r > s also gives 0");
    assert_eq!(one(&[0u32], |m| m.atomic_inc(0, 0).value()), (0, vec![0]), "s = 0 always gives 0");
    assert_eq!(one(&[u32::MAX - 1], |m| m.atomic_inc(0, u32::MAX).value()), (u32::MAX - 1, vec![u32::MAX]));
    assert_eq!(one(&[u32::MAX], |m| m.atomic_inc(0, u32::MAX).value()), (u32::MAX, vec![0]));
}

#[test]
fn inc_counts_modulo_bound_plus_one() {
    // 10 increments with bound 3 visit 0 1 2 3 0 1 2 3 0 1.
    let (olds, last) = one(&[0u32], |m| (0..10).map(|_| m.atomic_inc(0, 3).value()).collect::<Vec<_>>());
    assert_eq!(olds, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
    assert_eq!(last, [2]);
}

#[test]
fn dec_is_r_eq_0_or_r_gt_s_then_s_else_r_minus_1() {
    assert_eq!(one(&[5u32], |m| m.atomic_dec(0, 7).value()), (5, vec![4]));
    assert_eq!(one(&[0u32], |m| m.atomic_dec(0, 7).value()), (0, vec![7]), "wraps at 0 to s");
    assert_eq!(one(&[9u32], |m| m.atomic_dec(0, 7).value()), (9, vec![7]), "r > s gives s");
    assert_eq!(one(&[7u32], |m| m.atomic_dec(0, 7).value()), (7, vec![6]), "r == s decrements");
    assert_eq!(one(&[0u32], |m| m.atomic_dec(0, 0).value()), (0, vec![0]));
    assert_eq!(one(&[1u32], |m| m.atomic_dec(0, 0).value()), (1, vec![0]), "r > s = 0 gives 0");
}

#[test]
fn cas_swaps_only_when_equal_and_returns_old() {
    assert_eq!(one(&[5u32], |m| m.atomic_cas(0, 5, 9).value()), (5, vec![9]), "success");
    assert_eq!(one(&[5u32], |m| m.atomic_cas(0, 4, 9).value()), (5, vec![5]), "failure");
    assert_eq!(one(&[-1i64], |m| m.atomic_cas(0, -1, 3).value()), (-1, vec![3]));
    assert_eq!(one(&[u64::MAX], |m| m.atomic_cas(0, u64::MAX - 1, 0).value()), (u64::MAX, vec![u64::MAX]));
}

#[test]
fn cas_on_floats_compares_bit_patterns_like_cas_b32() {
    // -0.0 == 0.0 numerically, but the bits differ: no swap.
    let (old, mem) = one(&[-0.0f32], |m| m.atomic_cas(0, 0.0, 1.0).value());
    assert_eq!((old.to_bits(), mem[0].to_bits()), ((-0.0f32).to_bits(), (-0.0f32).to_bits()));
    // A NaN never equals itself numerically, but the same bits do: swap.
    let nan = f32::from_bits(0x7fc0_0001);
    let (old, mem) = one(&[nan], |m| m.atomic_cas(0, nan, 2.0).value());
    assert_eq!((old.to_bits(), mem[0]), (0x7fc0_0001, 2.0));
    let (old, mem) = one(&[1.5f64], |m| m.atomic_cas(0, 1.5, 2.5).value());
    assert_eq!((old, mem), (1.5, vec![2.5]));
}

#[test]
fn exch_stores_and_returns_old() {
    assert_eq!(one(&[1u32, 2], |m| m.atomic_exch(1, 7).value()), (2, vec![1, 7]));
    assert_eq!(one(&[-3i32], |m| m.atomic_exch(0, 4).value()), (-3, vec![4]));
    assert_eq!(one(&[0.5f64], |m| m.atomic_exch(0, -0.25).value()), (0.5, vec![-0.25]));
}

#[test]
fn integer_add_wraps() {
    assert_eq!(one(&[u32::MAX], |m| m.atomic_add(0, 2).value()), (u32::MAX, vec![1]));
    assert_eq!(one(&[i32::MAX], |m| m.atomic_add(0, 1).value()), (i32::MAX, vec![i32::MIN]));
    assert_eq!(one(&[u64::MAX], |m| m.atomic_add(0, 1).value()), (u64::MAX, vec![0]));
    assert_eq!(one(&[-5i64], |m| m.atomic_add(0, 3).value()), (-5, vec![-2]));
}

#[test]
fn min_max_compare_as_signed_for_s32_s64_and_unsigned_for_u32_u64() {
    assert_eq!(one(&[5i32], |m| m.atomic_min(0, -1).value()), (5, vec![-1]));
    assert_eq!(one(&[5u32], |m| m.atomic_min(0, u32::MAX).value()), (5, vec![5]));
    assert_eq!(one(&[5i64], |m| m.atomic_max(0, -1).value()), (5, vec![5]));
    assert_eq!(one(&[5u64], |m| m.atomic_max(0, u64::MAX).value()), (5, vec![u64::MAX]));
    assert_eq!(one(&[i32::MIN], |m| m.atomic_max(0, i32::MIN + 1).value()), (i32::MIN, vec![i32::MIN + 1]));
}

#[test]
fn bitwise_ops() {
    assert_eq!(one(&[0b1100u32], |m| m.atomic_and(0, 0b1010).value()), (0b1100, vec![0b1000]));
    assert_eq!(one(&[0b1100u32], |m| m.atomic_or(0, 0b1010).value()), (0b1100, vec![0b1110]));
    assert_eq!(one(&[0b1100u32], |m| m.atomic_xor(0, 0b1010).value()), (0b1100, vec![0b0110]));
    assert_eq!(one(&[-1i64], |m| m.atomic_and(0, 0xff).value()), (-1, vec![0xff]));
}

#[test]
fn f32_add_flushes_subnormal_inputs_and_results_to_sign_preserving_zero() {
    let tiny = f32::from_bits(1); // the smallest positive subnormal
    // A subnormal operand counts as zero.
    assert_eq!(one(&[1.0f32], |m| m.atomic_add(0, tiny).value()).1, [1.0]);
    // A subnormal in memory counts as zero (the returned old value is the stored bits).
    let (old, mem) = one(&[tiny], |m| m.atomic_add(0, 0.0).value());
    assert_eq!((old.to_bits(), mem[0].to_bits()), (1, 0));
    // A subnormal result is flushed, keeping its sign.
    let (_, mem) = one(&[-f32::MIN_POSITIVE * 1.5], |m| m.atomic_add(0, f32::MIN_POSITIVE).value());
    assert_eq!(mem[0].to_bits(), 0x8000_0000, "-MIN_POSITIVE / 2 is subnormal: flushed to -0");
    let (_, mem) = one(&[f32::MIN_POSITIVE * 1.5], |m| m.atomic_add(0, -f32::MIN_POSITIVE).value());
    assert_eq!(mem[0].to_bits(), 0, "MIN_POSITIVE / 2 is subnormal: flushed to +0");
    // Normal values round to nearest even.
    let (_, mem) = one(&[16_777_216.0f32], |m| m.atomic_add(0, 1.0).value());
    assert_eq!(mem, [16_777_216.0], "2^24 + 1 ties to even");
    let (_, mem) = one(&[16_777_216.0f32], |m| m.atomic_add(0, 3.0).value());
    assert_eq!(mem, [16_777_220.0], "2^24 + 3 ties to even, upwards");
}

/// On an H100, `atom.global.add.f32` returned `0x7fffffff` for all 119 NaN results among 441
/// pairs of edge values (NaNs with payloads and either sign, `inf + -inf`).
#[test]
fn f32_add_nan_results_are_the_canonical_nan() {
    for (r, s) in [(0x3f80_0000u32, 0x7fc0_0001u32), (0xffc0_0000, 0), (0x7f80_0000, 0xff80_0000), (0x7fc0_0000, 0xffc0_0000)] {
        let (old, mem) = one(&[f32::from_bits(r)], |m| m.atomic_add(0, f32::from_bits(s)).value());
        assert_eq!((old.to_bits(), mem[0].to_bits()), (r, 0x7fff_ffff), "{r:#x} + {s:#x}");
    }
}

#[test]
fn f64_add_keeps_subnormals() {
    let tiny = f64::from_bits(1);
    assert_eq!(one(&[tiny], |m| m.atomic_add(0, tiny).value()).1[0].to_bits(), 2);
}

#[test]
fn load_and_store() {
    let (r, mem) = one(&[1u64, 2, 3], |m| {
        m.store(2, m.load(0) + m.load(1));
        (m.len(), m.is_empty())
    });
    assert_eq!((r, mem), ((3, false), vec![1, 2, 3]));
    let (_, mem) = one(&[0i32; 3], |m| m.store(1, -7));
    assert_eq!(mem, [0, -7, 0]);
}

#[test]
fn buffer_copies_in_and_out() {
    let mut b = GlobalBuffer::from_slice(&[1.0f32, 2.0]);
    assert_eq!(b.to_vec(), [1.0, 2.0]);
    b.copy_from_slice(&[3.0, 4.0]);
    assert_eq!(b.to_vec(), [3.0, 4.0]);
    assert_eq!(GlobalBuffer::filled(7u32, 3).to_vec(), [7, 7, 7]);
    assert_eq!(GlobalBuffer::<i64>::zeroed(2).to_vec(), [0, 0]);
    assert_eq!(format!("{:?}", GlobalBuffer::from_slice(&[1u32, 2])), "[1, 2]");
    assert!(GlobalBuffer::<u32>::zeroed(0).is_empty());
}

// ---- out-of-range indices ----

#[test]
fn out_of_range_index_in_a_kernel_is_reported_with_lane_and_warp() {
    let buffer = GlobalBuffer::<u32>::zeroed(32);
    let mem = buffer.slice();
    // Threads 0..64: warp 1 lane 8 (thread 40) is the first to index past the end.
    let err = Grid::new(64)
        .run(async |w: &Warp<'_>| {
            mem.atomic_add(w.global_id() as usize, 1);
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, ref message, ref location, .. } = err else { panic!("{err}") };
    assert_eq!(lane, 0, "{err}");
    assert_eq!(message, "index 32 out of bounds for a global buffer of 32 elements");
    assert!(location.contains("atomics.rs"), "the location is the caller's: {location}");
    assert_eq!(err.report().unwrap().warp, 1);

    let err = Grid::new(64)
        .run(async |w: &Warp<'_>| {
            if w.global_id() == 40 {
                mem.store(40, 1);
            }
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, ref message, .. } = err else { panic!("{err}") };
    assert_eq!((lane, message.as_str()), (8, "index 40 out of bounds for a global buffer of 32 elements"));
    assert_eq!(err.report().unwrap().warp, 1);
    assert!(err.to_string().contains("index 40 out of bounds for a global buffer of 32 elements"), "{err}");
}

/// `subslice` is a window: its element `i` is the buffer's `start + i`, and it checks its own
/// length (an index past the window but inside the buffer is still out of bounds), as the GPU's
/// `trap` does.
#[test]
fn subslices_are_checked_windows() {
    let buf = GlobalBuffer::<u32>::zeroed(100);
    let mem = buf.slice();
    // Each warp writes its window of 32 through `subslice`, then reads a neighbour's back.
    let out = Grid::new(96)
        .map(async |w: &Warp<'_>| {
            let warp = w.global_id() as usize / 32;
            let window = mem.subslice(1 + 32 * warp, 32);
            window.store(w.lane_id() as usize, 1000 * warp as u32 + w.lane_id());
            assert_eq!(window.len(), 32);
            w.syncwarp().await;
            window.load(31 - w.lane_id() as usize)
        })
        .unwrap();
    let got = buf.to_vec();
    let want: Vec<u32> = (0..100).map(|i| if (1..97).contains(&i) { 1000 * ((i - 1) / 32) + (i - 1) % 32 } else { 0 }).collect();
    assert_eq!(got, want);
    assert_eq!(out[33], 1000 + 30);

    let err = Grid::new(32)
        .run(async |w: &Warp<'_>| {
            let window = mem.subslice(10, 16);
            window.load(w.lane_id() as usize);
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, ref message, .. } = err else { panic!("{err}") };
    assert_eq!((lane, message.as_str()), (16, "index 16 out of bounds for a global buffer of 16 elements"));

    let err = Grid::new(32)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 3 {
                mem.subslice(90, 11);
            }
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, ref message, ref location, .. } = err else { panic!("{err}") };
    assert_eq!((lane, message.as_str()), (3, "subslice 90..90+11 of a global buffer of 100 elements"));
    assert!(location.contains("atomics.rs"), "the location is the caller's: {location}");
    // `start + len` overflowing is out of range too, not a wrapped window.
    let err = Grid::new(32).run(async |_: &Warp<'_>| drop(mem.subslice(usize::MAX, 2))).unwrap_err();
    assert!(matches!(err, WarpError::LanePanicked { lane: 0, .. }), "{err}");
}

#[test]
#[should_panic(expected = "index 3 out of bounds for a global buffer of 3 elements")]
fn out_of_range_index_outside_a_kernel_panics() {
    GlobalBuffer::<u32>::zeroed(3).slice().load(3);
}

// ---- every atomic, every type, against the model ----

fn ops<T: core::fmt::Debug + Clone>(len: usize, value: impl Strategy<Value = T> + Clone) -> impl Strategy<Value = (Vec<T>, Vec<(usize, T, T)>)> {
    (
        proptest::collection::vec(value.clone(), len),
        proptest::collection::vec((0..len, value.clone(), value), 1..100),
    )
}

/// Small values collide often, so `cas` succeeds and `inc`/`dec` wrap.
fn small_u32() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![0u32..6, any::<u32>(), Just(u32::MAX)]
}

macro_rules! int_props {
    ($($name:ident: $t:ty;)*) => {$(
        mod $name {
            use super::*;
            fn values() -> impl Strategy<Value = $t> + Clone {
                prop_oneof![(-3i8..4).prop_map(|v| v as $t), any::<$t>()]
            }
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]
                #[test]
                fn add((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_add(i, b), |r, s, _| r.wrapping_add(s));
                }
                #[test]
                fn min((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_min(i, b), |r, s, _| r.min(s));
                }
                #[test]
                fn max((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_max(i, b), |r, s, _| r.max(s));
                }
                #[test]
                fn and((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_and(i, b), |r, s, _| r & s);
                }
                #[test]
                fn or((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_or(i, b), |r, s, _| r | s);
                }
                #[test]
                fn xor((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_xor(i, b), |r, s, _| r ^ s);
                }
                #[test]
                fn exch((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, _| m.atomic_exch(i, b), |_, s, _| s);
                }
                #[test]
                fn cas((init, ops) in ops(3, values())) {
                    check(&init, &ops, |m, i, b, c| m.atomic_cas(i, b, c), cas_bits);
                }
            }
        }
    )*};
}

int_props! {
    u32_ops: u32;
    i32_ops: i32;
    u64_ops: u64;
    i64_ops: i64;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn inc_u32((init, ops) in ops(2, small_u32())) {
        check(&init, &ops, |m, i, b, _| m.atomic_inc(i, b), |r, s, _| inc(r, s));
    }

    #[test]
    fn dec_u32((init, ops) in ops(2, small_u32())) {
        check(&init, &ops, |m, i, b, _| m.atomic_dec(i, b), |r, s, _| dec(r, s));
    }

    #[test]
    fn add_f32((init, ops) in ops(2, prop_oneof![
        any::<f32>(),
        (0u32..0x0080_0000, any::<bool>()).prop_map(|(m, neg)| f32::from_bits(m | (neg as u32) << 31)),
        -4.0f32..4.0,
        Just(f32::MIN_POSITIVE), Just(-f32::MIN_POSITIVE), Just(f32::MIN_POSITIVE * 1.5),
    ])) {
        check(&init, &ops, |m, i, b, _| m.atomic_add(i, b), |r, s, _| add_f32_ftz(r, s));
    }

    #[test]
    fn add_f64((init, ops) in ops(2, -1e6f64..1e6)) {
        check(&init, &ops, |m, i, b, _| m.atomic_add(i, b), |r, s, _| r + s);
    }

    #[test]
    fn exch_and_cas_f32((init, ops) in ops(2, prop_oneof![Just(0.0f32), Just(-0.0f32), Just(1.0f32), any::<f32>()])) {
        check(&init, &ops, |m, i, b, _| m.atomic_exch(i, b), |_, s, _| s);
        check(&init, &ops, |m, i, b, c| m.atomic_cas(i, b, c), cas_bits);
    }

    #[test]
    fn exch_and_cas_f64((init, ops) in ops(2, prop_oneof![Just(0.0f64), Just(-0.0f64), Just(2.0f64), any::<f64>()])) {
        check(&init, &ops, |m, i, b, _| m.atomic_exch(i, b), |_, s, _| s);
        check(&init, &ops, |m, i, b, c| m.atomic_cas(i, b, c), cas_bits);
    }
}
