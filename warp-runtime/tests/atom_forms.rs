//! Every `atom`/`red` form of PTX ISA 9.7.13.5/6 through the slices' methods, on global and shared
//! memory, against the spec's formulas written out here (not `semantics::atom`):
//!
//! ```text
//! atom: atomic { d = *a; *a = (operation == cas) ? operation(*a, b, c) : operation(*a, b); }
//! red:  *a = operation(*a, b);
//! inc(r, s)  = (r >= s) ? 0 : r+1;
//! dec(r, s)  = (r==0 || r > s)  ? s : r-1;
//! exch(r, s) =  s;
//! cas(r,s,t) = (r == s) ? t : r;
//! ```
//!
//! and the H100 facts of the repository's DESIGN notes (canonical NaNs, f32 flushing on global
//! memory only, f64 NaN by space, half min/max). Also: `.sem`/`.scope` forms compute the same
//! values, the run's target gates each form as the Target ISA Notes say, vectors must be aligned,
//! and a `u128` element stays atomic across CPU threads.

use warp_runtime::{bf16, f16, Bf16x2, Executor, F16x2, GlobalBuffer, Grid, LaneFault, RedSem, Scope, Sem, Target, Warp, WarpError};

const SEMS: [Sem; 4] = [Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel];
const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

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

fn fault(err: &WarpError) -> &LaneFault {
    match err {
        WarpError::Memory { fault, .. } => fault,
        other => panic!("expected a memory report, got: {other}"),
    }
}

/// 32 threads, thread `t` on element `t` of a global buffer: `f(slice, t)` returns the old value.
fn per_thread_global<T: warp_runtime::GlobalValue, R: Send>(init: &[T], target: Target, f: impl AsyncFn(warp_runtime::GlobalSlice<'_, T>, usize) -> R + Sync) -> Result<(Vec<R>, Vec<T>), WarpError> {
    let buffer = GlobalBuffer::from_slice(init);
    let mem = buffer.slice();
    let old = Grid::new(init.len() as u64).executor(Executor::new().target(target)).map(async |w: &Warp<'_>| f(mem, w.global_id() as usize).await)?;
    Ok((old, buffer.to_vec()))
}

/// "inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r==0 || r > s) ? s : r-1", through
/// `atomic_inc`/`atomic_dec` and `red.inc`/`red.dec`, at the bounds (r = s, r = s + 1, r = 0, r
/// = u32::MAX), on global and shared memory, with every `.sem`/`.scope` pair.
#[test]
fn inc_dec_wrap_at_their_bound_in_both_spaces() {
    let pairs: [(u32, u32); 8] = [(0, 0), (0, 7), (6, 7), (7, 7), (8, 7), (u32::MAX, 7), (5, u32::MAX), (u32::MAX, u32::MAX)];
    let r: Vec<u32> = pairs.iter().map(|p| p.0).collect();
    for (k, (sem, scope)) in SEMS.iter().flat_map(|s| SCOPES.iter().map(move |c| (*s, *c))).enumerate() {
        let red = k % 2 == 1;
        let (old, mem) = per_thread_global(&r, Target::SM_90, async |s, t| {
            let bound = pairs[t].1;
            if red {
                s.red_inc_with(t, bound, RedSem::Release, scope).await;
                s.atomic_dec_with(t, bound, sem, scope).await
            } else {
                let o = s.atomic_inc_with(t, bound, sem, scope).await;
                s.atomic_dec(t, bound).await;
                o
            }
        })
        .unwrap();
        for (t, &(r, s)) in pairs.iter().enumerate() {
            // inc then dec: dec(inc(r, s), s).
            assert_eq!(mem[t], dec(inc(r, s), s), "r = {r}, s = {s}, {sem:?} {scope:?}");
            assert_eq!(old[t], if red { inc(r, s) } else { r });
        }
    }
    // Shared memory: the same two steps.
    let out = Grid::blocks(1, 32)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            let t = w.thread_rank() as usize;
            let (r, b) = pairs[t % 8];
            s.store(t, r);
            let old = s.atomic_inc_with(t, b, Sem::AcqRel, Scope::Cta).await;
            s.red_dec(t, b).await;
            (old, s.load(t))
        })
        .unwrap();
    for (t, &(old, now)) in out.iter().enumerate() {
        let (r, s) = pairs[t % 8];
        assert_eq!((old, now), (r, dec(inc(r, s), s)));
    }
}

/// Integer `add` wraps, `min`/`max` are signed for `.s32`/`.s64`, the bitwise operations, `exch`
/// and `cas`, each with its `red` twin, against plain Rust, on both spaces.
#[test]
fn integer_forms_match_the_formulas_in_both_spaces() {
    let vals: [i64; 8] = [0, 1, -1, i64::MAX, i64::MIN, 0x1234_5678_9abc_def0, -77, 1 << 40];
    let b: [i64; 8] = [5, -3, i64::MAX, 1, -1, 0x0ff0_0ff0_0ff0_0ff0, -78, -(1 << 40)];
    type Model = fn(i64, i64) -> i64;
    let ops: [(&str, Model); 7] = [
        ("add", |r, s| r.wrapping_add(s)),
        ("min", |r, s| r.min(s)),
        ("max", |r, s| r.max(s)),
        ("and", |r, s| r & s),
        ("or", |r, s| r | s),
        ("xor", |r, s| r ^ s),
        ("exch", |_, s| s),
    ];
    for (k, (name, model)) in ops.iter().enumerate() {
        for red in [false, true] {
            if red && *name == "exch" {
                continue;
            }
            let (old, mem): (Vec<Wrap>, Vec<i64>) = per_thread_global(&vals, Target::SM_90, async |s, t| -> Wrap {
                let v = b[t];
                match (k, red) {
                    (0, false) => s.atomic_add(t, v).await.into(),
                    (1, false) => s.atomic_min(t, v).await.into(),
                    (2, false) => s.atomic_max(t, v).await.into(),
                    (3, false) => s.atomic_and(t, v).await.into(),
                    (4, false) => s.atomic_or(t, v).await.into(),
                    (5, false) => s.atomic_xor(t, v).await.into(),
                    (6, false) => s.atomic_exch(t, v).await.into(),
                    (0, true) => s.red_add(t, v).await.into(),
                    (1, true) => s.red_min(t, v).await.into(),
                    (2, true) => s.red_max(t, v).await.into(),
                    (3, true) => s.red_and(t, v).await.into(),
                    (4, true) => s.red_or(t, v).await.into(),
                    _ => s.red_xor(t, v).await.into(),
                }
            })
            .unwrap_or_else(|e| panic!("{e}"));
            for t in 0..8 {
                assert_eq!(mem[t], model(vals[t], b[t]), "{name} red={red} on {} and {}", vals[t], b[t]);
                if !red {
                    assert_eq!(old[t].0, Some(vals[t]));
                }
            }
        }
    }
    // u32 on shared memory: unsigned min/max, wrapping add.
    let out = Grid::blocks(1, 32)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            let t = w.thread_rank() as usize;
            let (r, v) = (u32::MAX - t as u32, (t as u32).wrapping_mul(0x9e37_79b9));
            s.store(t, r);
            let a = s.atomic_add_with(t, v, Sem::Relaxed, Scope::Cta).await;
            let m = s.atomic_min(t, v).await;
            s.red_max_with(t, 7, RedSem::Release, Scope::Gpu).await;
            let c = s.atomic_cas(t, 0xdead, 1).await;
            (a, m, c, s.load(t), r, v)
        })
        .unwrap();
    for &(a, m, c, now, r, v) in &out {
        assert_eq!(a, r);
        assert_eq!(m, r.wrapping_add(v));
        let after = r.wrapping_add(v).min(v).max(7);
        assert_eq!(c, after);
        assert_eq!(now, if after == 0xdead { 1 } else { after });
    }
}

/// A `red` returns nothing, so the integer test above maps both `atom` (old value) and `red`
/// (`()`) to this.
struct Wrap(Option<i64>);
impl From<i64> for Wrap {
    fn from(v: i64) -> Wrap {
        Wrap(Some(v))
    }
}
impl From<()> for Wrap {
    fn from(_: ()) -> Wrap {
        Wrap(None)
    }
}

/// "Current implementation of atom.add.f32 on global memory flushes subnormal inputs and results
/// to sign-preserving zero; whereas atom.add.f32 on shared memory supports subnormal inputs and
/// results": the same operands in both spaces, and H100's canonical NaN 0x7fffffff.
#[test]
fn f32_add_flushes_on_global_and_keeps_subnormals_on_shared() {
    let sub = f32::from_bits(0x0000_0400);
    let r = [sub, 1.0, f32::MIN_POSITIVE, f32::INFINITY, f32::from_bits(0x7fc0_1234), -sub];
    let b = [sub, sub, -1.5 * f32::MIN_POSITIVE, f32::NEG_INFINITY, 1.0, 0.0];
    // Flush-to-zero, sign preserved, written out.
    let ftz = |x: f32| if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x };
    let canon = |x: f32| if x.is_nan() { 0x7fff_ffffu32 } else { x.to_bits() };
    let (_, global) = per_thread_global(&r, Target::SM_90, async |s, t| s.atomic_add(t, b[t]).await).unwrap();
    let shared = Grid::blocks(1, r.len() as u32)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<f32, 8>();
            let t = w.thread_rank() as usize;
            s.store(t, r[t]);
            s.red_add(t, b[t]).await;
            s.load(t)
        })
        .unwrap();
    for t in 0..r.len() {
        assert_eq!(global[t].to_bits(), canon(ftz(ftz(r[t]) + ftz(b[t]))), "global {:e} + {:e}", r[t], b[t]);
        assert_eq!(shared[t].to_bits(), canon(r[t] + b[t]), "shared {:e} + {:e}", r[t], b[t]);
    }
    assert_eq!(global[0].to_bits(), 0, "sub + sub flushes to +0 on global memory");
    assert_eq!(shared[0].to_bits(), 0x800, "and is 2 sub on shared memory");
}

/// H100: f64 add with a NaN: global memory returns operand b's NaN unchanged (signalling stays
/// signalling); shared memory returns memory's NaN with its quiet bit set.
#[test]
fn f64_add_nan_depends_on_the_space() {
    let snan_mem = f64::from_bits(0x7ff0_0000_0000_0042);
    let snan_b = f64::from_bits(0xfff0_0000_0000_beef);
    let (_, global) = per_thread_global(&[snan_mem, 1.0], Target::SM_90, async |s, t| s.atomic_add(t, [snan_b, snan_b][t]).await).unwrap();
    assert_eq!(global[0].to_bits(), snan_b.to_bits());
    assert_eq!(global[1].to_bits(), snan_b.to_bits());
    let shared = Grid::blocks(1, 1)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<f64, 1>();
            s.store(0, snan_mem);
            s.atomic_add(0, snan_b).await;
            s.load(0).to_bits()
        })
        .unwrap();
    assert_eq!(shared[0], snan_mem.to_bits() | 1 << 51);
}

/// `atom.add.noftz.f16`/`.bf16` and the packed `x2` forms: round to nearest even on the exact
/// sum (computed here in f64, rounded by the `half` crate through f32, exact for these
/// operands), subnormals kept, NaN 0x7fff; the `x2` halves independently.
#[test]
fn half_adds_keep_subnormals_and_round_to_nearest_even() {
    let r16 = [f16::from_bits(0x0001), f16::from_f32(1.0), f16::from_f32(65504.0), f16::from_bits(0x7e00), f16::from_f32(2048.0)];
    let b16 = [f16::from_bits(0x0001), f16::from_bits(0x1000), f16::from_f32(16.0), f16::from_f32(1.0), f16::from_f32(1.0)];
    let model16 = |a: f16, b: f16| {
        let s = a.to_f32() + b.to_f32();
        if s.is_nan() { 0x7fff } else { f16::from_f32(s).to_bits() }
    };
    let (_, mem) = per_thread_global(&r16, Target::SM_90, async |s, t| s.atomic_add(t, b16[t]).await).unwrap();
    for t in 0..r16.len() {
        assert_eq!(mem[t].to_bits(), model16(r16[t], b16[t]), "{} + {}", r16[t], b16[t]);
    }
    assert_eq!(mem[0].to_bits(), 0x0002, "the smallest subnormal doubled");
    assert_eq!(mem[4].to_bits(), f16::from_f32(2048.0).to_bits(), "2048 + 1 is a tie: stays even");
    let rb = [bf16::from_bits(0x0001), bf16::from_f32(1.0), bf16::from_f32(256.0)];
    let bb = [bf16::from_bits(0x8002), bf16::from_f32(1.0 / 256.0), bf16::from_f32(1.0)];
    let (_, mem) = per_thread_global(&rb, Target::SM_90, async |s, t| s.atomic_add(t, bb[t]).await).unwrap();
    for t in 0..rb.len() {
        let want = bf16::from_f32(rb[t].to_f32() + bb[t].to_f32()).to_bits();
        assert_eq!(mem[t].to_bits(), want);
    }
    // Packed pairs: each half alone.
    let pair = F16x2([f16::from_f32(1.5), f16::from_bits(0x7c00)]);
    let add = F16x2([f16::from_f32(0.25), f16::from_bits(0xfc00)]);
    let (old, mem) = per_thread_global(&[pair], Target::SM_90, async |s, t| s.atomic_add(t, add).await).unwrap();
    assert_eq!(old[0], pair);
    assert_eq!(mem[0].0[0].to_f32(), 1.75);
    assert_eq!(mem[0].0[1].to_bits(), 0x7fff, "inf + -inf in the upper half: the canonical NaN");
    let bpair = Bf16x2([bf16::from_f32(3.0), bf16::from_f32(-3.0)]);
    let (_, mem) = per_thread_global(&[bpair], Target::SM_90, async |s, t| s.atomic_add(t, bpair).await).unwrap();
    assert_eq!(mem[0], Bf16x2([bf16::from_f32(6.0), bf16::from_f32(-6.0)]));
}

/// "For atom with vector type, operands d and b are brace-enclosed vector expressions": each
/// element is its own atomic; min/max of halves: min(-0, +0) = -0, a NaN against a number gives
/// the number (H100).
#[test]
fn vector_forms_apply_per_element() {
    let init = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
    let (old, mem) = per_thread_global(&init, Target::SM_90, async |s, t| {
        if t == 0 {
            s.atomic_add_vec(0, [10.0f32, 20.0, 30.0, 40.0]).await[3]
        } else if t == 1 {
            s.red_add_vec_with(4, [0.5f32, 0.5], RedSem::Release, Scope::Sys).await;
            0.0
        } else {
            0.0
        }
    })
    .unwrap();
    assert_eq!(old[0], 4.0);
    assert_eq!(mem, vec![11.0, 22.0, 33.0, 44.0, 5.5, 6.5, 7.0, 8.0]);

    let h = |x: f32| f16::from_f32(x);
    let init: Vec<f16> = vec![h(-0.0), h(0.0), f16::from_bits(0x7e00), h(2.0), h(1.0), h(-1.0), f16::from_bits(0x7e00), h(3.0)];
    let other = [h(0.0), h(-0.0), h(5.0), f16::from_bits(0x7e01), h(1.0), h(-2.0), f16::from_bits(0xfe00), h(3.0)];
    let (_, mem) = per_thread_global(&init, Target::SM_90, async |s, t| {
        if t == 0 {
            s.atomic_min_vec(0, other).await;
        }
        h(0.0)
    })
    .unwrap();
    let bits: Vec<u16> = mem.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, vec![0x8000, 0x8000, h(5.0).to_bits(), h(2.0).to_bits(), h(1.0).to_bits(), h(-2.0).to_bits(), 0x7fff, h(3.0).to_bits()]);
}

/// A vector access must be aligned to its whole size: `atomic_add_vec` of 4 at element 2 is
/// reported, also through a subslice whose start makes it aligned or not.
#[test]
fn misaligned_vectors_are_reported() {
    let buffer = GlobalBuffer::<f32>::zeroed(16);
    let mem = buffer.slice();
    let err = Grid::new(1).map(async |_: &Warp<'_>| mem.atomic_add_vec(2, [1.0f32; 4]).await[0]).unwrap_err();
    match fault(&err) {
        LaneFault::AtomMisaligned { index, align, instruction, .. } => {
            assert_eq!((*index, *align), (2, 16));
            assert_eq!(instruction, "atom.global.v4.f32.add");
        }
        other => panic!("{other}"),
    }
    // Element 4 of the buffer through a subslice from 2: index 2 of the view, aligned.
    let view = mem.subslice(2, 8);
    Grid::new(1).map(async |_: &Warp<'_>| view.atomic_add_vec(2, [1.0f32; 4]).await[0]).unwrap();
    assert_eq!(buffer.to_vec()[4..8], [1.0; 4]);
}

/// The Target ISA Notes: `.cluster`, `.bf16` add, vectors and `.b128` need sm_90; `.sem` sm_70;
/// each is reported on a target without it, with the instruction and the quoted note, and runs on
/// sm_90.
#[test]
fn forms_the_target_lacks_are_reported() {
    let words = GlobalBuffer::<u32>::zeroed(4);
    let halves = GlobalBuffer::<bf16>::zeroed(4);
    let wide = GlobalBuffer::<u128>::zeroed(1);
    let floats = GlobalBuffer::<f32>::zeroed(4);
    let (w, h, q, f) = (words.slice(), halves.slice(), wide.slice(), floats.slice());
    let cases: [(Target, u32, &str, &str); 5] = [
        (Target::SM_80, 0, "atom.relaxed.cluster.global.add.u32", "Support for `.cluster` scope qualifier requires `sm_90` or higher"),
        (Target::SM_80, 1, "atom.global.add.noftz.bf16", "`atom.add.noftz.bf16` and `atom.add.noftz.bf16x2` require `sm_90` or higher"),
        (Target::SM_80, 2, "atom.global.exch.b128", "Support for `.b128` type requires `sm_90` or higher"),
        (Target::SM_80, 3, "red.global.v2.f32.add", "Support for vector types requires `sm_90` or higher"),
        (Target::SM_60, 4, "atom.acquire.gpu.global.or.b32", "`.sem` qualifier requires `sm_70` or higher"),
    ];
    for (target, case, instruction, note) in cases {
        let run = |target: Target| {
            Grid::new(1).executor(Executor::new().target(target)).map(async |_: &Warp<'_>| match case {
                0 => {
                    w.atomic_add_with(0, 1, Sem::Relaxed, Scope::Cluster).await;
                }
                1 => {
                    h.atomic_add(0, bf16::ONE).await;
                }
                2 => {
                    q.atomic_exch(0, 1).await;
                }
                3 => f.red_add_vec(0, [1.0f32; 2]).await,
                _ => {
                    w.atomic_or_with(0, 1, Sem::Acquire, Scope::Gpu).await;
                }
            })
        };
        let err = run(target).unwrap_err();
        match fault(&err) {
            LaneFault::AtomUnsupported { instruction: i, needs, target: t, .. } => {
                assert_eq!((i.as_str(), *needs, *t), (instruction, note, target));
            }
            other => panic!("{other}"),
        }
        assert!(err.to_string().contains(instruction), "{err}");
        run(Target::SM_90).unwrap();
    }
}

/// `.b128` exch/cas: the whole 16 bytes at once (the host cell is a sequence lock). 64 threads
/// on 2 CPU threads each add 1 to both halves with a CAS loop; no update is lost or torn.
#[test]
fn b128_cas_is_atomic_across_cpu_threads() {
    let cell = GlobalBuffer::<u128>::zeroed(1);
    let c = cell.slice();
    let inc = (1u128 << 64) | 1;
    Grid::new(2048)
        .cpu_threads(2)
        .run(async |_: &Warp<'_>| {
            let mut seen = c.atomic_cas(0, 0, inc).await;
            while seen != 0 {
                assert_eq!(seen >> 64, seen & u64::MAX as u128, "a torn 128-bit value");
                let prev = c.atomic_cas(0, seen, seen + inc).await;
                if prev == seen {
                    break;
                }
                seen = prev;
            }
        })
        .unwrap();
    assert_eq!(cell.to_vec()[0], 2048 * inc);
    // exch returns the whole old value.
    let old = Grid::new(1).map(async |_: &Warp<'_>| c.atomic_exch_with(0, u128::MAX, Sem::AcqRel, Scope::Sys).await).unwrap();
    assert_eq!(old[0], 2048 * inc);
    // And on shared memory.
    let out = Grid::blocks(1, 1)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u128, 2>();
            s.store(1, u128::MAX - 5);
            let a = s.atomic_cas(1, u128::MAX - 5, 1 << 100).await;
            let b = s.atomic_exch(1, 9).await;
            (a, b, s.load(1))
        })
        .unwrap();
    assert_eq!(out[0], (u128::MAX - 5, 1 << 100, 9));
}

/// `cas.b16` on `f16`: bit patterns, so -0 does not equal +0.
#[test]
fn cas_b16_compares_bits() {
    let init = [f16::from_bits(0x8000), f16::from_bits(0x3c00)];
    let (old, mem) = per_thread_global(&init, Target::SM_90, async |s, t| s.atomic_cas(t, f16::ZERO, f16::ONE).await).unwrap();
    assert_eq!(old, init.to_vec());
    assert_eq!(mem, init.to_vec(), "-0 != +0 and 1 != +0: neither swaps");
    let (_, mem) = per_thread_global(&[f16::ZERO], Target::SM_90, async |s, t| s.atomic_cas(t, f16::ZERO, f16::ONE).await).unwrap();
    assert_eq!(mem[0], f16::ONE);
}
