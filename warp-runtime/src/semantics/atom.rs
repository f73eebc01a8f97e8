//! `atom` and `red` (PTX ISA 9.7.13.5 and 9.7.13.6): the value a location holds after the
//! operation, from the value it held and the operands, per type and state space.
//!
//! ```text
//! atomic {
//!     d = *a;
//!     *a = (operation == cas) ? operation(*a, b, c)
//!                             : operation(*a, b);
//! }
//! where
//!     inc(r, s)  = (r >= s) ? 0 : r+1;
//!     dec(r, s)  = (r==0 || r > s)  ? s : r-1;
//!     exch(r, s) =  s;
//!     cas(r,s,t) = (r == s) ? t : r;
//! ```
//!
//! `red` is `*a = operation(*a, b)` with the same operations (no `exch`/`cas`). Every function
//! here works on bit patterns (`u16`, `u32`, `u64`, `u128`) so that NaN payloads and signed zeros
//! are exact. The floating-point rules come from the spec's prose and, where it is silent, from
//! measurements on an H100 (sm_90a, CUDA 13.0; the repository's DESIGN notes):
//!
//! - `.add` "rounds to nearest even".
//! - `.add.f32` on global memory "flushes subnormal inputs and results to sign-preserving zero";
//!   on shared memory it "supports subnormal inputs and results".
//! - `.add.noftz` on `.f16`/`.bf16`/`.f16x2`/`.bf16x2` "preserves subnormal inputs and results".
//! - H100: a NaN result of `f32`/`f16`/`bf16` arithmetic is the canonical NaN (`0x7fffffff` /
//!   `0x7fff`), whatever the operands' payloads.
//! - H100: `f64` `.add` with a NaN operand: on global memory operand `b`'s NaN unchanged (a
//!   signalling NaN stays signalling; with two NaNs, `b`'s); on shared memory the NaN in memory
//!   with its quiet bit set.
//! - H100: `.f16`/`.bf16` (vector and packed) `.min`/`.max`: `min(-0, +0) = -0`,
//!   `max(-0, +0) = +0`; a NaN against a number gives the number; two NaNs give `0x7fff`.
//!
//! What the measurements do not cover is marked *unmeasured* where it is decided: an `f64` NaN
//! that only the memory operand holds on global memory (returned unchanged, as `b`'s is), only
//! `b` on shared memory (quieted, as memory's is), and `inf + -inf` in `f64` (the default NaN
//! `0xfff8000000000000` of NVIDIA's double-precision units). The GPU conformance bundle
//! generates these cases.

use crate::mem::Space;

/// An operation of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.add`: wrapping for integers, rounding to nearest even for floats.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
    /// `.inc`: `(r >= s) ? 0 : r+1` (`.u32` only).
    Inc,
    /// `.dec`: `(r==0 || r > s) ? s : r-1` (`.u32` only).
    Dec,
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
    /// `.exch`: `s` (`atom` only).
    Exch,
    /// `.cas`: `(r == s) ? t : r`, comparing bit patterns (`atom` only).
    Cas,
}

impl AtomOp {
    /// The PTX operation without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            AtomOp::Add => "add",
            AtomOp::Min => "min",
            AtomOp::Max => "max",
            AtomOp::Inc => "inc",
            AtomOp::Dec => "dec",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
            AtomOp::Exch => "exch",
            AtomOp::Cas => "cas",
        }
    }
}

/// The element type an `atom`/`red` operates on (its bits travel in the low bits of a `u128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomType {
    /// `.u32` (and `.b32` for the bitwise operations).
    U32,
    /// `.s32`.
    S32,
    /// `.u64`.
    U64,
    /// `.s64` (`.add` is `.u64`: two's-complement addition is the same operation).
    S64,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
    /// `.f16` (`cas` as `.b16`).
    F16,
    /// `.bf16` (`cas` as `.b16`).
    Bf16,
    /// `.f16x2`: two `.f16` in one 32-bit word, element 0 in bits 0..16.
    F16x2,
    /// `.bf16x2`.
    Bf16x2,
    /// `.b128` (`exch`, `cas` only).
    B128,
}

/// `inc(r, s) = (r >= s) ? 0 : r+1`.
#[inline]
pub const fn inc(r: u32, s: u32) -> u32 {
    if r >= s {
        0
    } else {
        r + 1
    }
}

/// `dec(r, s) = (r==0 || r > s) ? s : r-1`.
#[inline]
pub const fn dec(r: u32, s: u32) -> u32 {
    if r == 0 || r > s {
        s
    } else {
        r - 1
    }
}

/// `cas(r, s, t) = (r == s) ? t : r`, on bit patterns (`.b16`, `.b32`, `.b64`, `.b128`).
#[inline]
pub const fn cas(r: u128, s: u128, t: u128) -> u128 {
    if r == s {
        t
    } else {
        r
    }
}

/// The integer operations on the bits of a `bytes`-byte integer (`.u32`, `.s32`, `.u64`, `.s64`,
/// `.b32`, `.b64`): wrapping `.add`, signed or unsigned `.min`/`.max`, the bitwise operations, and
/// `.inc`/`.dec` (32-bit only). `exch`/`cas` are not integer operations here (see [`apply`]).
#[inline]
pub fn int(op: AtomOp, bytes: usize, signed: bool, r: u64, s: u64) -> u64 {
    let bits = 8 * bytes as u32;
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (r, s) = (r & mask, s & mask);
    let sext = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let less = |x: u64, y: u64| if signed { sext(x) < sext(y) } else { x < y };
    let v = match op {
        AtomOp::Add => r.wrapping_add(s),
        AtomOp::And => r & s,
        AtomOp::Or => r | s,
        AtomOp::Xor => r ^ s,
        AtomOp::Min => {
            if less(s, r) {
                s
            } else {
                r
            }
        }
        AtomOp::Max => {
            if less(r, s) {
                s
            } else {
                r
            }
        }
        AtomOp::Inc => inc(r as u32, s as u32) as u64,
        AtomOp::Dec => dec(r as u32, s as u32) as u64,
        AtomOp::Exch => s,
        AtomOp::Cas => unreachable!("cas has three operands: use `apply`"),
    };
    v & mask
}

/// The canonical `f32` NaN of `atom`/`red` arithmetic (H100).
pub const F32_NAN: u32 = 0x7fff_ffff;
/// The canonical `f16`/`bf16` NaN of `atom`/`red` arithmetic (H100).
pub const HALF_NAN: u16 = 0x7fff;
/// The `f64` NaN of `inf + -inf` (*unmeasured*: NVIDIA's double-precision default NaN).
pub const F64_DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// `.add.f32`: round to nearest even; on global memory subnormal inputs and results flushed to
/// sign-preserving zero; a NaN result is [`F32_NAN`].
#[inline]
pub fn f32_add(space: Space, r: u32, s: u32) -> u32 {
    let ftz = |x: f32| if space == Space::Shared || !x.is_subnormal() { x } else { f32::from_bits(x.to_bits() & 0x8000_0000) };
    let sum = ftz(ftz(f32::from_bits(r)) + ftz(f32::from_bits(s)));
    if sum.is_nan() {
        F32_NAN
    } else {
        sum.to_bits()
    }
}

/// `.add.f64`: round to nearest even, subnormals kept. NaNs as measured on an H100: global
/// memory returns `s`'s NaN unchanged (memory's when only it is a NaN, *unmeasured*); shared
/// memory returns memory's NaN with its quiet bit set (`s`'s, quieted, when only it is a NaN,
/// *unmeasured*); `inf + -inf` is [`F64_DEFAULT_NAN`] (*unmeasured*).
#[inline]
pub fn f64_add(space: Space, r: u64, s: u64) -> u64 {
    const QUIET: u64 = 1 << 51;
    let (x, y) = (f64::from_bits(r), f64::from_bits(s));
    match (space, x.is_nan(), y.is_nan()) {
        (Space::Shared, true, _) => r | QUIET,
        (Space::Shared, false, true) => s | QUIET,
        (_, _, true) => s,
        (_, true, false) => r,
        _ => {
            let sum = x + y;
            if sum.is_nan() {
                F64_DEFAULT_NAN
            } else {
                sum.to_bits()
            }
        }
    }
}

/// A 16-bit float format: `f16` (5 exponent bits, 10 fraction bits) or `bf16` (8, 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    /// IEEE binary16.
    F16,
    /// bfloat16: the upper half of a binary32.
    Bf16,
}

impl Half {
    const fn frac(self) -> u32 {
        match self {
            Half::F16 => 10,
            Half::Bf16 => 7,
        }
    }
    const fn ebits(self) -> u32 {
        match self {
            Half::F16 => 5,
            Half::Bf16 => 8,
        }
    }

    /// The exact value of `bits` (every `f16`/`bf16` is an `f64`).
    pub fn to_f64(self, bits: u16) -> f64 {
        let (frac, ebits) = (self.frac(), self.ebits());
        let bias = (1i32 << (ebits - 1)) - 1;
        let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
        let e = (bits >> frac) as i32 & ((1 << ebits) - 1);
        let m = (bits & ((1 << frac) - 1)) as f64;
        if e == (1 << ebits) - 1 {
            return if m == 0.0 { sign * f64::INFINITY } else { f64::NAN };
        }
        let (m, e) = if e == 0 { (m, 1 - bias) } else { (m + (1u32 << frac) as f64, e - bias) };
        sign * m * 2f64.powi(e - frac as i32)
    }

    /// `x` rounded to nearest even in this format, with subnormals (no flush) and overflow to
    /// infinity. `x` must not be a NaN.
    pub fn round(self, x: f64) -> u16 {
        let (frac, ebits) = (self.frac() as i32, self.ebits() as i32);
        let sign = ((x.to_bits() >> 63) as u16) << 15;
        let a = x.abs();
        let inf = (((1u32 << ebits) - 1) << frac) as u16;
        if a.is_infinite() {
            return sign | inf;
        }
        if a == 0.0 {
            return sign;
        }
        let bias = (1i32 << (ebits - 1)) - 1;
        let emin = 1 - bias;
        // `a` is a normal f64 (every sum of two halves is), in [2^e, 2^(e+1)).
        let e = ((a.to_bits() >> 52) as i32) - 1023;
        // The quantum: 2^q, the weight of the last fraction bit at `a`'s exponent (or of the
        // subnormals'); `a / 2^q` is exact and rounds to the significand `m`.
        let q = e.max(emin) - frac;
        let m = (a * 2f64.powi(-q)).round_ties_even() as u32;
        // `m * 2^q` encodes as ((q - qmin) << frac) + m: a subnormal when m < 2^frac, the next
        // binade when rounding carried into 2^(frac + 1).
        let qmin = emin - frac;
        let bits = (((q - qmin) as u32) << frac) + m;
        if bits >= inf as u32 {
            sign | inf
        } else {
            sign | bits as u16
        }
    }

    fn is_nan(self, bits: u16) -> bool {
        let inf = (((1u32 << self.ebits()) - 1) << self.frac()) as u16;
        bits & 0x7fff > inf
    }

    /// `.add.noftz`: round to nearest even, subnormals kept, a NaN result is [`HALF_NAN`].
    pub fn add(self, r: u16, s: u16) -> u16 {
        if self.is_nan(r) || self.is_nan(s) {
            return HALF_NAN;
        }
        // Exact for f16 (every sum of two f16 fits 40 bits); for bf16 one rounding to f64 first,
        // which is harmless since 53 >= 2 * 8 + 2 (double rounding is innocuous).
        let sum = self.to_f64(r) + self.to_f64(s);
        if sum.is_nan() {
            HALF_NAN
        } else {
            self.round(sum)
        }
    }

    /// `.min.noftz`/`.max.noftz` (vector and packed forms): `-0 < +0`; a NaN against a number
    /// gives the number; two NaNs give [`HALF_NAN`] (H100).
    pub fn min_max(self, max: bool, r: u16, s: u16) -> u16 {
        match (self.is_nan(r), self.is_nan(s)) {
            (true, true) => HALF_NAN,
            (true, false) => s,
            (false, true) => r,
            (false, false) => {
                let (x, y) = (self.to_f64(r), self.to_f64(s));
                // Equal values differ only as -0/+0: order them by the sign bit.
                let s_less = y < x || (y == x && s >> 15 > r >> 15);
                if s_less != max {
                    s
                } else {
                    r
                }
            }
        }
    }

    /// `.add`, `.min` or `.max` on one 16-bit element.
    pub fn op(self, op: AtomOp, r: u16, s: u16) -> u16 {
        match op {
            AtomOp::Add => self.add(r, s),
            AtomOp::Min => self.min_max(false, r, s),
            AtomOp::Max => self.min_max(true, r, s),
            _ => unreachable!("`.{}` has no `.f16`/`.bf16` form", op.name()),
        }
    }

    /// The packed `x2` form: the operation on each 16-bit half of the word independently.
    pub fn op_x2(self, op: AtomOp, r: u32, s: u32) -> u32 {
        let lo = self.op(op, r as u16, s as u16) as u32;
        let hi = self.op(op, (r >> 16) as u16, (s >> 16) as u16) as u32;
        hi << 16 | lo
    }
}

/// The new bits of a location of type `ty` in `space` holding `r`, after `op` with operands `s`
/// (and `t` for `cas`). The operation must exist for the type (the runtime's traits ensure it).
pub fn apply(op: AtomOp, ty: AtomType, space: Space, r: u128, s: u128, t: u128) -> u128 {
    match op {
        AtomOp::Exch => return s,
        AtomOp::Cas => return cas(r, s, t),
        _ => {}
    }
    match ty {
        AtomType::U32 => int(op, 4, false, r as u64, s as u64) as u128,
        AtomType::S32 => int(op, 4, true, r as u64, s as u64) as u128,
        AtomType::U64 => int(op, 8, false, r as u64, s as u64) as u128,
        AtomType::S64 => int(op, 8, true, r as u64, s as u64) as u128,
        AtomType::F32 => {
            assert_eq!(op, AtomOp::Add, "`.{}` has no `.f32` form", op.name());
            f32_add(space, r as u32, s as u32) as u128
        }
        AtomType::F64 => {
            assert_eq!(op, AtomOp::Add, "`.{}` has no `.f64` form", op.name());
            f64_add(space, r as u64, s as u64) as u128
        }
        AtomType::F16 => Half::F16.op(op, r as u16, s as u16) as u128,
        AtomType::Bf16 => Half::Bf16.op(op, r as u16, s as u16) as u128,
        AtomType::F16x2 => Half::F16.op_x2(op, r as u32, s as u32) as u128,
        AtomType::Bf16x2 => Half::Bf16.op_x2(op, r as u32, s as u32) as u128,
        AtomType::B128 => unreachable!("`.b128` has only `exch` and `cas`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// A small deterministic generator (xorshift64*), for sampled pairs.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// "inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r==0 || r > s) ? s : r-1": the bounds and
    /// the wrap, written out.
    #[test]
    fn inc_dec_follow_the_formulas_at_their_bounds() {
        for (r, s) in [(0u32, 0u32), (0, 5), (4, 5), (5, 5), (6, 5), (u32::MAX, 5), (u32::MAX - 1, u32::MAX), (u32::MAX, u32::MAX), (7, 0)] {
            let want_inc = if r >= s { 0 } else { r + 1 };
            let want_dec = if r == 0 || r > s { s } else { r - 1 };
            assert_eq!(int(AtomOp::Inc, 4, false, r as u64, s as u64), want_inc as u64, "inc({r}, {s})");
            assert_eq!(int(AtomOp::Dec, 4, false, r as u64, s as u64), want_dec as u64, "dec({r}, {s})");
        }
        // "The .inc and .dec operations return a result in the range [0..b]."
        let mut st = 0x1234_5678_9abc_def1;
        for _ in 0..10_000 {
            let (r, s) = (xorshift(&mut st) as u32, xorshift(&mut st) as u32 % 1000);
            assert!(inc(r, s) <= s && dec(r, s) <= s);
        }
    }

    /// `.add` wraps; `.min`/`.max` compare as signed for `.s32`/`.s64` and unsigned otherwise.
    #[test]
    fn integer_operations_in_the_elements_width() {
        assert_eq!(int(AtomOp::Add, 4, false, 0xffff_ffff, 2), 1);
        assert_eq!(int(AtomOp::Add, 8, false, u64::MAX, 2), 1);
        assert_eq!(int(AtomOp::Min, 4, true, 5, (-3i32) as u32 as u64), (-3i32) as u32 as u64);
        assert_eq!(int(AtomOp::Min, 4, false, 5, (-3i32) as u32 as u64), 5);
        assert_eq!(int(AtomOp::Max, 8, true, (-1i64) as u64, 0), 0);
        assert_eq!(int(AtomOp::Max, 8, false, (-1i64) as u64, 0), u64::MAX);
        let mut st = 99;
        for _ in 0..10_000 {
            let (a, b) = (xorshift(&mut st), xorshift(&mut st));
            assert_eq!(int(AtomOp::Min, 8, true, a, b), (a as i64).min(b as i64) as u64);
            assert_eq!(int(AtomOp::Max, 4, true, a, b), (a as u32 as i32).max(b as u32 as i32) as u32 as u64);
            assert_eq!(int(AtomOp::Max, 4, false, a, b), (a as u32).max(b as u32) as u64);
            assert_eq!(int(AtomOp::And, 8, false, a, b), a & b);
            assert_eq!(int(AtomOp::Or, 4, false, a, b), (a | b) & 0xffff_ffff);
            assert_eq!(int(AtomOp::Xor, 8, true, a, b), a ^ b);
        }
    }

    /// "cas(r,s,t) = (r == s) ? t : r" on bit patterns, for every width up to `.b128`.
    #[test]
    fn cas_and_exch_are_bitwise() {
        let big = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        assert_eq!(apply(AtomOp::Cas, AtomType::B128, Space::Global, big, big, 7), 7);
        assert_eq!(apply(AtomOp::Cas, AtomType::B128, Space::Global, big, big ^ 1 << 127, 7), big);
        assert_eq!(apply(AtomOp::Exch, AtomType::B128, Space::Shared, big, 9, 0), 9);
        // -0.0 and +0.0 are different bit patterns; a NaN equals itself.
        let (nz, pz) = ((-0.0f32).to_bits() as u128, 0u128);
        assert_eq!(apply(AtomOp::Cas, AtomType::F32, Space::Global, nz, pz, 5), nz);
        let nan = 0x7fc0_1234u128;
        assert_eq!(apply(AtomOp::Cas, AtomType::F32, Space::Global, nan, nan, 5), 5);
        assert_eq!(apply(AtomOp::Cas, AtomType::F16, Space::Global, 0x3c00, 0x3c00, 0x4000), 0x4000);
    }

    /// "Current implementation of atom.add.f32 on global memory flushes subnormal inputs and
    /// results to sign-preserving zero; whereas atom.add.f32 on shared memory supports subnormal
    /// inputs and results and doesn't flush them to zero."
    #[test]
    fn f32_add_flushes_subnormals_on_global_memory_only() {
        let sub = f32::from_bits(0x0000_0100);
        let min_normal = f32::MIN_POSITIVE;
        // A subnormal input is zero on global memory, kept on shared.
        assert_eq!(f32_add(Space::Global, sub.to_bits(), 1.0f32.to_bits()), 1.0f32.to_bits());
        assert_eq!(f32_add(Space::Global, sub.to_bits(), 0), 0);
        assert_eq!(f32_add(Space::Shared, sub.to_bits(), 0), sub.to_bits());
        // -sub + 0 flushes to -0 + 0 = +0; -sub + -0 flushes to -0.
        assert_eq!(f32_add(Space::Global, (-sub).to_bits(), (-0.0f32).to_bits()), (-0.0f32).to_bits());
        // A subnormal result (min_normal - 1.5 * min_normal = -min_normal / 2) flushes to -0.
        let r = f32_add(Space::Global, min_normal.to_bits(), (-1.5 * min_normal).to_bits());
        assert_eq!(r, (-0.0f32).to_bits());
        assert_eq!(f32_add(Space::Shared, min_normal.to_bits(), (-1.5 * min_normal).to_bits()), (-0.5 * min_normal).to_bits());
        // Rounding is to nearest even: 1 + 2^-24 is a tie and stays 1; 1 + 3 * 2^-24 rounds up.
        assert_eq!(f32_add(Space::Global, 1.0f32.to_bits(), 2f32.powi(-24).to_bits()), 1.0f32.to_bits());
        assert_eq!(f32_add(Space::Global, 1.0f32.to_bits(), (3.0 * 2f32.powi(-24)).to_bits()), (1.0 + 2f32.powi(-22)).to_bits());
    }

    /// H100: every NaN result of f32/f16/bf16 `atom`/`red` arithmetic is the canonical NaN,
    /// whatever the payloads (`0x7fffffff` / `0x7fff`).
    #[test]
    fn float_nan_results_are_canonical() {
        for space in [Space::Global, Space::Shared] {
            assert_eq!(f32_add(space, 0x7fc0_0001, 1.0f32.to_bits()), 0x7fff_ffff);
            assert_eq!(f32_add(space, 0x7f80_0001, 0xffc0_0002), 0x7fff_ffff); // a signalling NaN too
            assert_eq!(f32_add(space, f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits()), 0x7fff_ffff);
        }
        for h in [Half::F16, Half::Bf16] {
            let (inf, ninf, snan, neg_qnan) = match h {
                Half::F16 => (0x7c00, 0xfc00, 0x7c01, 0xfe12),
                Half::Bf16 => (0x7f80, 0xff80, 0x7f81, 0xffc2),
            };
            assert_eq!(h.add(inf, ninf), 0x7fff);
            assert_eq!(h.add(snan, 0x3c00), 0x7fff);
            assert_eq!(h.add(0, neg_qnan), 0x7fff);
        }
    }

    /// H100: f64 `.add` with a NaN returns operand `b`'s NaN unchanged on global memory (a
    /// signalling NaN stays signalling; of two NaNs, `b`'s), and memory's NaN quieted on shared.
    #[test]
    fn f64_add_nan_rules_differ_by_space() {
        let snan_b = 0x7ff0_0000_0000_beefu64;
        let qnan_r = 0xfff8_0000_0000_1234u64;
        let snan_r = 0x7ff0_0000_0000_0042u64;
        assert_eq!(f64_add(Space::Global, 1.0f64.to_bits(), snan_b), snan_b);
        assert_eq!(f64_add(Space::Global, qnan_r, snan_b), snan_b);
        assert_eq!(f64_add(Space::Shared, snan_r, 1.0f64.to_bits()), snan_r | 1 << 51);
        assert_eq!(f64_add(Space::Shared, snan_r, snan_b), snan_r | 1 << 51);
        // Numbers: IEEE addition, subnormals kept in both spaces.
        let sub = f64::from_bits(1);
        assert_eq!(f64_add(Space::Global, sub.to_bits(), sub.to_bits()), 2);
        assert_eq!(f64_add(Space::Shared, 0.1f64.to_bits(), 0.2f64.to_bits()), (0.1f64 + 0.2f64).to_bits());
    }

    /// `Half::round` agrees with the `half` crate's f32 conversions (round to nearest even, with
    /// subnormals) on every f32 that is a sum of two halves' worth of bits: here, sampled f32s.
    #[test]
    fn half_rounding_matches_the_half_crate() {
        let mut st = 7;
        for _ in 0..200_000 {
            let x = f32::from_bits(xorshift(&mut st) as u32);
            if x.is_nan() {
                continue;
            }
            assert_eq!(Half::F16.round(x as f64), f16::from_f32(x).to_bits(), "f16 of {x:e} ({:#x})", x.to_bits());
            assert_eq!(Half::Bf16.round(x as f64), bf16::from_f32(x).to_bits(), "bf16 of {x:e} ({:#x})", x.to_bits());
        }
        for bits in 0..=u16::MAX {
            if !Half::F16.is_nan(bits) {
                assert_eq!(Half::F16.to_f64(bits), f16::from_bits(bits).to_f64());
                assert_eq!(Half::F16.round(Half::F16.to_f64(bits)), bits);
            }
            if !Half::Bf16.is_nan(bits) {
                assert_eq!(Half::Bf16.to_f64(bits), bf16::from_bits(bits).to_f64());
                assert_eq!(Half::Bf16.round(Half::Bf16.to_f64(bits)), bits);
            }
        }
    }

    /// "atom.add.f16 ... requires the .noftz qualifier; it preserves subnormal inputs and results,
    /// and does not flush them to zero", rounding to nearest even: against the sum computed in f32
    /// and rounded once by the `half` crate (exact for f16: 24 >= 2 * 11 + 2; for bf16: 24 >= 2 * 8
    /// + 2), over every f16 pair with one operand from a set of edge values and random pairs.
    #[test]
    fn half_add_rounds_to_nearest_even_and_keeps_subnormals() {
        let edges: [u16; 12] = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00];
        let f16_model = |a: u16, b: u16| {
            let s = f16::from_bits(a).to_f32() + f16::from_bits(b).to_f32();
            if s.is_nan() { 0x7fff } else { f16::from_f32(s).to_bits() }
        };
        let bf16_model = |a: u16, b: u16| {
            let s = bf16::from_bits(a).to_f32() + bf16::from_bits(b).to_f32();
            if s.is_nan() { 0x7fff } else { bf16::from_f32(s).to_bits() }
        };
        for a in 0..=u16::MAX {
            for &e in &edges {
                assert_eq!(Half::F16.add(a, e), f16_model(a, e), "f16 {a:#06x} + {e:#06x}");
                assert_eq!(Half::Bf16.add(a, e), bf16_model(a, e), "bf16 {a:#06x} + {e:#06x}");
            }
        }
        let mut st = 3;
        for _ in 0..500_000 {
            let (a, b) = (xorshift(&mut st) as u16, xorshift(&mut st) as u16);
            assert_eq!(Half::F16.add(a, b), f16_model(a, b));
            assert_eq!(Half::Bf16.add(a, b), bf16_model(a, b));
        }
        // Subnormals are kept: the smallest f16 subnormal doubled, and a subnormal result.
        assert_eq!(Half::F16.add(0x0001, 0x0001), 0x0002);
        assert_eq!(Half::F16.add(0x0400, 0x8001), 0x03ff);
        assert_eq!(Half::Bf16.add(0x0001, 0x0001), 0x0002);
    }

    /// H100: f16/bf16 min/max: min(-0, +0) = -0, max(-0, +0) = +0; NaN against a number gives the
    /// number; two NaNs give 0x7fff. Otherwise the smaller/larger value.
    #[test]
    fn half_min_max_order_zeros_and_skip_nans() {
        for h in [Half::F16, Half::Bf16] {
            let nan = match h {
                Half::F16 => 0x7e00,
                Half::Bf16 => 0x7fc0,
            };
            assert_eq!(h.min_max(false, 0x8000, 0x0000), 0x8000);
            assert_eq!(h.min_max(false, 0x0000, 0x8000), 0x8000);
            assert_eq!(h.min_max(true, 0x8000, 0x0000), 0x0000);
            assert_eq!(h.min_max(true, 0x0000, 0x8000), 0x0000);
            assert_eq!(h.min_max(false, nan, 0x3c00), 0x3c00);
            assert_eq!(h.min_max(true, 0xbc00, nan | 0x8000), 0xbc00);
            assert_eq!(h.min_max(true, nan, nan | 1), 0x7fff);
        }
        let mut st = 11;
        for _ in 0..100_000 {
            let (a, b) = (xorshift(&mut st) as u16, xorshift(&mut st) as u16);
            let (x, y) = (f16::from_bits(a).to_f32(), f16::from_bits(b).to_f32());
            if x.is_nan() || y.is_nan() || x == y {
                continue;
            }
            assert_eq!(Half::F16.min_max(false, a, b), if x < y { a } else { b });
            assert_eq!(Half::F16.min_max(true, a, b), if x > y { a } else { b });
        }
    }

    /// The packed forms operate on each half on its own ("atomicity is guaranteed separately for
    /// each of the individual scalar elements"): element 0 is bits 0..16.
    #[test]
    fn packed_forms_are_two_independent_halves() {
        let mut st = 5;
        for _ in 0..50_000 {
            let (r, s) = (xorshift(&mut st) as u32, xorshift(&mut st) as u32);
            for (op, h, ty) in [(AtomOp::Add, Half::F16, AtomType::F16x2), (AtomOp::Max, Half::Bf16, AtomType::Bf16x2), (AtomOp::Min, Half::F16, AtomType::F16x2)] {
                let want = (h.op(op, (r >> 16) as u16, (s >> 16) as u16) as u32) << 16 | h.op(op, r as u16, s as u16) as u32;
                assert_eq!(apply(op, ty, Space::Global, r as u128, s as u128, 0), want as u128);
            }
        }
    }
}
