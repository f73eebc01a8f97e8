//! The CPU's vector units for the warp-wide forms' converged instructions: a whole-warp shuffle
//! of 32-bit values is a permute in registers or whole quarters of the warp moved, a ballot a
//! compare and a mask move, a reduction a vector fold.
//!
//! Which unit is chosen at run time ([`Simd::detected`]): AVX-512 (`vpermt2d` for `.up`, `.down`
//! and `.idx`), else AVX2 (`vpermd` and blends, for shuffles in which each lane has its own
//! operands or tile) on x86-64; NEON (`tbl`/`tbx` over the 128 bytes of the warp's values) on
//! aarch64; elsewhere, and on x86-64 CPUs with neither, the portable code: plain loops that the
//! compiler vectorizes for the baseline target, and whole-warp `.up`, `.down` and `.bfly` moved a
//! quarter of the warp at a time (in SSE2 registers on x86-64, whose baseline has them, without
//! detection; the AVX2 level does the same, and AVX-512 for `.bfly`; `shfl_portable` says why).
//! Reductions combine four AVX2 vectors on x86-64, and are one fold elsewhere. Every level
//! computes the values of the specification's formula, written plainly in `semantics`: tests
//! compare each level the CPU has against it (on x86-64 here, and on aarch64 under qemu:
//! DEVELOPMENT.md).
//!
//! `WARPKIT_SIMD=0` in the environment, or [`Executor::simd(false)`](crate::Executor::simd),
//! keeps the portable code; `WARPKIT_SIMD=avx2` keeps an x86-64 CPU with AVX-512 at AVX2. The
//! operations themselves are the crate's own: a [`Simd`] value made outside it cannot run
//! instructions the CPU lacks.

use core::mem::MaybeUninit;

use crate::semantics::redux::{ReduxOp, ReduxType};
use crate::semantics::shfl::ShflMode;

/// The vector instructions a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// Plain loops (vectorized by the compiler for the build's baseline target), and
    /// `shfl_portable`'s quarter moves (SSE2 on x86-64: in its baseline, not detected).
    Portable,
    /// x86-64 AVX2: permutes for shuffles in which lanes read lanes their own way (`b` and `c`
    /// per lane, tiles: `select_avx2`), votes and reductions; whole-warp shuffles move quarters
    /// as the portable code does (`shfl_portable`).
    Avx2,
    /// x86-64 AVX-512 (F), with AVX2: two-table permutes for whole-warp `.up`, `.down` and
    /// `.idx`; `.bfly` moves quarters (`shfl_portable`); AVX2 for the rest.
    Avx512,
    /// aarch64 NEON: table lookups for shuffles.
    Neon,
}

impl Simd {
    /// The best level this CPU has, unless `WARPKIT_SIMD=0` (then [`Simd::Portable`]) or
    /// `WARPKIT_SIMD=avx2` (any case) on an x86-64 CPU with AVX2 (then [`Simd::Avx2`], also where
    /// the CPU has AVX-512: to run and time the AVX2 code there); read once.
    pub fn detected() -> Simd {
        use std::sync::atomic::{AtomicU8, Ordering};
        static LEVEL: AtomicU8 = AtomicU8::new(u8::MAX);
        match LEVEL.load(Ordering::Relaxed) {
            0 => Simd::Portable,
            1 => Simd::Avx2,
            2 => Simd::Avx512,
            3 => Simd::Neon,
            _ => {
                let level = match std::env::var("WARPKIT_SIMD").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                    Ok("0") => Simd::Portable,
                    Ok("avx2") if Simd::available().contains(&Simd::Avx2) => Simd::Avx2,
                    _ => Simd::best(),
                };
                LEVEL.store(level as u8, Ordering::Relaxed);
                level
            }
        }
    }

    /// The best level the CPU has.
    pub fn best() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            // (Every CPU with AVX-512F has AVX2; asked too, so that no VM's odd report can make
            // a level whose AVX2 code the CPU lacks.)
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx2") {
                return Simd::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                return Simd::Neon;
            }
        }
        Simd::Portable
    }

    /// Every level this CPU can run, the portable one first (for tests and benchmarks).
    pub fn available() -> Vec<Simd> {
        #[allow(unused_mut)]
        let mut all = vec![Simd::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                all.push(Simd::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx2") {
                all.push(Simd::Avx512);
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                all.push(Simd::Neon);
            }
        }
        all
    }
}

/// The predicate mask of a converged whole-warp shuffle (PTX ISA, `shfl.sync`: `.up`
/// j = lane - b, p = j >= 0; `.down` j = lane + b, p = j <= 31; `.bfly` j = lane ^ b; `.idx`
/// j = b, p always), for `bval` = `b & 0x1f`.
#[inline(always)]
fn predicates(mode: ShflMode, bval: u32) -> u32 {
    match mode {
        ShflMode::Up => !0u32 << bval,
        ShflMode::Down => !0u32 >> bval,
        ShflMode::Bfly | ShflMode::Idx => !0,
    }
}

/// A converged whole-warp shuffle: lane `l` reads lane `j` (`.up` j = l - b where l is at least b,
/// `.down` j = l + b where that is at most 31, else `l` itself; `.bfly` l ^ b; `.idx` b).
///
/// `.down`, `.up` and `.bfly` move the warp's values a quarter (four lanes) at a time
/// ([`shfl_quarters`]): each quarter of the result is one 16-byte store, made in registers from
/// whole quarters of the source. That is the width of the forms' own stores and loads: their
/// stretch loops write each value 16 bytes at a time, and a load that spans two such stores, or a
/// 16-byte load of a value stored in pieces, waits until the stores reach the cache. Block copies
/// (`memmove` from lane `b`) stalled so: 13% of the portable `warp_sum`'s time on the development
/// machine. Plain code over `[u32; 4]` does not keep the quarters whole either: the compiler moves
/// their lanes in 4- and 8-byte pieces. So on x86-64 the quarters are SSE2 registers, which every
/// x86-64 CPU has (the baseline the compiler vectorizes for); elsewhere (and on an x86-64 target
/// without SSE2) they are `[u32; 4]`, and the tests run both on x86-64. (A gather of each lane's
/// source for every mode took about 260 instructions a shuffle: 60% of the portable `warp_sum`'s.)
/// The AVX-512 level takes it for `.bfly` (`bitonic_sort` 48.4-48.7 ns per element against
/// 50.8-51.7 with the two-table permute, two runs each; for `.down` the permute kept `reduce` 3%
/// faster). The AVX2 level takes this code too: its permutes cost more than block copies did for
/// `.up` and `.down` (`warp_sum`: 2,281 instructions a run against 2,159, and 234-240 ns against
/// 308-380 in the same session), and more than the quarters for `.bfly` (`bitonic_sort` at the AVX2
/// level, `WARPKIT_SIMD=avx2`: 422 instructions per element against 431, and 48.5 ns against 51.0
/// in two runs each).
#[inline(always)]
fn shfl_portable(mode: ShflMode, a: &[u32; 32], bval: u32, d: &mut [MaybeUninit<u32>; 32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    type Q = core::arch::x86_64::__m128i;
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    type Q = [u32; 4];
    shfl_quarters::<Q>(mode, a, bval, d)
}

/// [`shfl_portable`] with quarters `Q`.
#[inline(always)]
fn shfl_quarters<Q: Quarter>(mode: ShflMode, a: &[u32; 32], bval: u32, d: &mut [MaybeUninit<u32>; 32]) {
    let b = bval as usize & 31;
    let (src, []) = a.as_chunks::<4>() else { unreachable!("32 lanes are 8 quarters") };
    let (dst, []) = d.as_chunks_mut::<4>() else { unreachable!("32 lanes are 8 quarters") };
    let src: &[[u32; 4]; 8] = src.try_into().expect("8 quarters");
    let dst: &mut [[MaybeUninit<u32>; 4]; 8] = dst.try_into().expect("8 quarters");
    // One copy of each function per `b % 4`, in which the lanes' places are constants.
    macro_rules! by_rest {
        ($f:ident) => {
            match b % 4 {
                0 => $f::<Q, 0>(src, b / 4, dst),
                1 => $f::<Q, 1>(src, b / 4, dst),
                2 => $f::<Q, 2>(src, b / 4, dst),
                _ => $f::<Q, 3>(src, b / 4, dst),
            }
        };
    }
    match mode {
        ShflMode::Down => by_rest!(shift_down),
        ShflMode::Up => by_rest!(shift_up),
        ShflMode::Bfly => by_rest!(bfly_quarters),
        ShflMode::Idx => d.iter_mut().for_each(|d| {
            d.write(a[b]);
        }),
    }
}

/// Four lanes' values, moved whole. The lane counts `n` are constants after inlining: `0..=4`
/// for the shifts, `0..=3` for `xor_lanes`.
trait Quarter: Copy {
    fn load(a: &[u32; 4]) -> Self;
    fn store(self, d: &mut [MaybeUninit<u32>; 4]);
    /// Lane `i` gets lane `i + n`; the top `n` lanes 0.
    fn down(self, n: usize) -> Self;
    /// Lane `i` gets lane `i - n`; the bottom `n` lanes 0.
    fn up(self, n: usize) -> Self;
    fn or(self, other: Self) -> Self;
    /// Lane `i` gets lane `i ^ n`.
    fn xor_lanes(self, n: usize) -> Self;
}

/// The plain quarter.
impl Quarter for [u32; 4] {
    #[inline(always)]
    fn load(a: &[u32; 4]) -> Self {
        *a
    }
    #[inline(always)]
    fn store(self, d: &mut [MaybeUninit<u32>; 4]) {
        for (d, v) in d.iter_mut().zip(self) {
            d.write(v);
        }
    }
    #[inline(always)]
    fn down(self, n: usize) -> Self {
        core::array::from_fn(|i| if i + n < 4 { self[i + n] } else { 0 })
    }
    #[inline(always)]
    fn up(self, n: usize) -> Self {
        core::array::from_fn(|i| if i >= n { self[i - n] } else { 0 })
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        core::array::from_fn(|i| self[i] | other[i])
    }
    #[inline(always)]
    fn xor_lanes(self, n: usize) -> Self {
        core::array::from_fn(|i| self[i ^ n])
    }
}

/// The quarter in an SSE2 register, where the build's target has SSE2 (every hosted x86-64
/// target: it is in the x86-64 baseline; not `x86_64-unknown-none` or `-uefi`, nor a build with
/// `-C target-feature=-sse2`, which take `[u32; 4]`), so its intrinsics need no detection. They
/// are `unsafe` to call only because these trait methods cannot be marked with the feature.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
impl Quarter for core::arch::x86_64::__m128i {
    #[inline(always)]
    fn load(a: &[u32; 4]) -> Self {
        // SAFETY: 16 readable bytes (an unaligned load); the target has SSE2 (the impl's `cfg`).
        unsafe { core::arch::x86_64::_mm_loadu_si128(a.as_ptr() as *const _) }
    }
    #[inline(always)]
    fn store(self, d: &mut [MaybeUninit<u32>; 4]) {
        // SAFETY: 16 writable bytes (an unaligned store); any bits are a valid `u32`; the target has
        // SSE2.
        unsafe { core::arch::x86_64::_mm_storeu_si128(d.as_mut_ptr() as *mut _, self) }
    }
    #[inline(always)]
    fn down(self, n: usize) -> Self {
        use core::arch::x86_64::*;
        // SAFETY: the target has SSE2 (the impl's `cfg`).
        unsafe {
            match n {
                0 => self,
                1 => _mm_srli_si128::<4>(self),
                2 => _mm_srli_si128::<8>(self),
                3 => _mm_srli_si128::<12>(self),
                _ => _mm_setzero_si128(),
            }
        }
    }
    #[inline(always)]
    fn up(self, n: usize) -> Self {
        use core::arch::x86_64::*;
        // SAFETY: the target has SSE2 (the impl's `cfg`).
        unsafe {
            match n {
                0 => self,
                1 => _mm_slli_si128::<4>(self),
                2 => _mm_slli_si128::<8>(self),
                3 => _mm_slli_si128::<12>(self),
                _ => _mm_setzero_si128(),
            }
        }
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: the target has SSE2 (the impl's `cfg`).
        unsafe { core::arch::x86_64::_mm_or_si128(self, other) }
    }
    #[inline(always)]
    fn xor_lanes(self, n: usize) -> Self {
        use core::arch::x86_64::*;
        // SAFETY: the target has SSE2 (the impl's `cfg`).
        unsafe {
            match n {
                0 => self,
                // Lanes (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0); the immediate lists lane 3's
                // source first.
                1 => _mm_shuffle_epi32::<0b10_11_00_01>(self),
                2 => _mm_shuffle_epi32::<0b01_00_11_10>(self),
                _ => _mm_shuffle_epi32::<0b00_01_10_11>(self),
            }
        }
    }
}

/// `.down` by `b = 4q + R`: lane `4k + i` reads lane `4(k + q) + R + i` where that is <= 31,
/// else its own.
#[inline(never)]
fn shift_down<Q: Quarter, const R: usize>(a: &[[u32; 4]; 8], q: usize, d: &mut [[MaybeUninit<u32>; 4]; 8]) {
    for k in 0..8 {
        let v = match k + q {
            // Every lane reads another: lanes R.. of quarter m, then ..R of quarter m + 1.
            m if m < 7 => Q::load(&a[m]).down(R).or(Q::load(&a[m + 1]).up(4 - R)),
            // The first 4 - R lanes read quarter 7's last; the last R keep their own.
            7 => Q::load(&a[7]).down(R).or(Q::load(&a[k]).down(4 - R).up(4 - R)),
            _ => Q::load(&a[k]),
        };
        v.store(&mut d[k]);
    }
}

/// `.up` by `b = 4q + R`: lane `4k + i` reads lane `4(k - q) + i - R` where that is >= 0, else
/// its own.
#[inline(never)]
fn shift_up<Q: Quarter, const R: usize>(a: &[[u32; 4]; 8], q: usize, d: &mut [[MaybeUninit<u32>; 4]; 8]) {
    for k in 0..8 {
        let v = if k < q {
            Q::load(&a[k])
        } else if k == q {
            // The first R lanes keep their own; the rest read quarter 0's first.
            Q::load(&a[k]).up(4 - R).down(4 - R).or(Q::load(&a[0]).up(R))
        } else {
            // Lanes 4 - R.. of quarter k - q - 1, then ..4 - R of quarter k - q.
            Q::load(&a[k - q - 1]).down(4 - R).or(Q::load(&a[k - q]).up(R))
        };
        v.store(&mut d[k]);
    }
}

/// `.bfly` by `b = 4q + R`: lane `4k + i` reads lane `4(k ^ q) + (i ^ R)`.
#[inline(never)]
fn bfly_quarters<Q: Quarter, const R: usize>(a: &[[u32; 4]; 8], q: usize, d: &mut [[MaybeUninit<u32>; 4]; 8]) {
    for (k, d) in d.iter_mut().enumerate() {
        Q::load(&a[k ^ q]).xor_lanes(R).store(d);
    }
}

/// `d[lane] = a[src[lane]]`, plainly.
#[inline(always)]
fn permute_portable(a: &[u32; 32], src: &[u32; 32], d: &mut [MaybeUninit<u32>; 32]) {
    for (d, &s) in d.iter_mut().zip(src) {
        d.write(a[s as usize & 31]);
    }
}

/// Each lane's source lane (as `shfl_portable` reads it) for the 16 lanes whose numbers are
/// `lane`, in registers: no array between computing the indices and the permute. (`.bfly` is
/// here for completeness: `shfl32_into` moves its quarters instead.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sources_avx512(mode: ShflMode, bval: u32, lane: core::arch::x86_64::__m512i) -> core::arch::x86_64::__m512i {
    use core::arch::x86_64::*;
    let b = _mm512_set1_epi32(bval as i32);
    match mode {
        // j = lane - b where lane >= b, else the lane itself.
        ShflMode::Up => _mm512_mask_sub_epi32(lane, _mm512_cmpge_epu32_mask(lane, b), lane, b),
        // j = lane + b where it is <= 31, else the lane itself.
        ShflMode::Down => {
            let j = _mm512_add_epi32(lane, b);
            _mm512_mask_blend_epi32(_mm512_cmple_epu32_mask(j, _mm512_set1_epi32(31)), lane, j)
        }
        ShflMode::Bfly => _mm512_xor_si512(lane, b),
        ShflMode::Idx => b,
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn shfl_avx512(mode: ShflMode, a: &[u32; 32], bval: u32, d: &mut [MaybeUninit<u32>; 32]) {
    use core::arch::x86_64::*;
    let lanes0 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let lanes1 = _mm512_add_epi32(lanes0, _mm512_set1_epi32(16));
    let (i0, i1) = (sources_avx512(mode, bval, lanes0), sources_avx512(mode, bval, lanes1));
    // SAFETY: every pointer is to 16 `u32`s inside the 32-element arrays (unaligned loads and
    // stores); the function is only called on CPUs with AVX-512F.
    unsafe {
        let lo = load16_avx512(a.as_ptr());
        let hi = load16_avx512(a.as_ptr().add(16));
        // Index bits 0-3 pick the element, bit 4 the table (`lo` or `hi`): a source lane.
        _mm512_storeu_si512(d.as_mut_ptr() as *mut _, _mm512_permutex2var_epi32(lo, i0, hi));
        _mm512_storeu_si512(d.as_mut_ptr().add(16) as *mut _, _mm512_permutex2var_epi32(lo, i1, hi));
    }
}

/// Sixteen `u32`s from `p`, loaded as four quarters of 16 bytes, for the reason `load8_avx2`
/// gives: a load of 64 bytes from the forms' 16-byte stores waits until they reach the cache
/// (on the development machine's AMD EPYC with AVX-512, that wait was most of `shfl_avx512`'s
/// time in `warp_sum`).
///
/// # Safety
/// `p` points to 16 readable `u32`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn load16_avx512(p: *const u32) -> core::arch::x86_64::__m512i {
    use core::arch::x86_64::*;
    // SAFETY: the caller's contract, for the two halves of 8 `u32`s; a CPU with a `Simd::Avx512`
    // level has AVX2 (`has_avx2`).
    let (lo, hi) = unsafe { (load8_avx2(p), load8_avx2(p.add(8))) };
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// The 32 registers as four vectors of eight (`load8_avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunks_avx2(a: &[u32; 32]) -> [core::arch::x86_64::__m256i; 4] {
    // SAFETY: four loads of 8 `u32`s inside `a`.
    core::array::from_fn(|k| unsafe { load8_avx2(a.as_ptr().add(8 * k)) })
}

/// Eight `u32`s from `p`, loaded as two halves of 16 bytes: the forms write their values 16
/// bytes at a time (the baseline x86-64 vector unit's width), and a load of 32 bytes from two
/// such stores waits until they reach the cache, where a load of 16 bytes takes its value from
/// the store (on the development machine's AMD EPYC, the wait was most of a form's shuffle).
/// Each half is loaded by an `asm!` block, which the compiler cannot merge with the other (it
/// made `_mm_loadu_si128`s of adjacent halves one load of 32 bytes).
///
/// # Safety
/// `p` points to 8 readable `u32`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn load8_avx2(p: *const u32) -> core::arch::x86_64::__m256i {
    use core::arch::x86_64::*;
    let (lo, hi): (__m128i, __m128i);
    // SAFETY: the caller's contract: two unaligned loads of 16 bytes inside the 32 at `p`, which
    // change nothing else (AVX is enabled: the VEX encoding).
    unsafe {
        core::arch::asm!("vmovdqu {0}, xmmword ptr [{1}]", out(xmm_reg) lo, in(reg) p, options(pure, readonly, nostack, preserves_flags));
        core::arch::asm!("vmovdqu {0}, xmmword ptr [{1} + 16]", out(xmm_reg) hi, in(reg) p, options(pure, readonly, nostack, preserves_flags));
    }
    _mm256_set_m128i(hi, lo)
}

/// Lane `i` of the result is register `idx[i] & 31` of `chunks` (see `chunks_avx2`): each of the
/// four vectors permuted by the index's low three bits, then chosen by its bits 3 and 4 (shifted
/// to the sign bit, which the blends read). Not a gather, whose loads of operands just written
/// were most of a form's shuffle's time (see `load8_avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn select_avx2(chunks: &[core::arch::x86_64::__m256i; 4], idx: core::arch::x86_64::__m256i) -> core::arch::x86_64::__m256i {
    use core::arch::x86_64::*;
    let p: [__m256; 4] = core::array::from_fn(|c| _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(chunks[c], idx)));
    let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
    let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(idx));
    let low = _mm256_blendv_ps(p[0], p[1], bit3);
    let high = _mm256_blendv_ps(p[2], p[3], bit3);
    _mm256_castps_si256(_mm256_blendv_ps(low, high, bit4))
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
fn shfl_neon(mode: ShflMode, a: &[u32; 32], bval: u32, d: &mut [MaybeUninit<u32>; 32]) {
    use core::arch::aarch64::*;
    // SAFETY: loads of 64 bytes at `a` and `a + 16` words, stores of 16 bytes inside `d`; the
    // function is only called on CPUs with NEON.
    unsafe {
        let bytes = a.as_ptr() as *const u8;
        let lo = vld1q_u8_x4(bytes);
        let hi = vld1q_u8_x4(bytes.add(64));
        let b = vdupq_n_u32(bval);
        let lane0 = vld1q_u32([0u32, 1, 2, 3].as_ptr());
        let byte_of = vld1q_u32([0x0302_0100u32; 4].as_ptr());
        let last = vdupq_n_u32(31);
        for k in 0..8 {
            let lane = vaddq_u32(lane0, vdupq_n_u32(4 * k as u32));
            // Each lane's source lane, as `sources`.
            let src = match mode {
                ShflMode::Up => vbslq_u32(vcgeq_u32(lane, b), vsubq_u32(lane, b), lane),
                ShflMode::Down => {
                    let j = vaddq_u32(lane, b);
                    vbslq_u32(vcleq_u32(j, last), j, lane)
                }
                ShflMode::Bfly => veorq_u32(lane, b),
                ShflMode::Idx => b,
            };
            // The four bytes of source lane j are table bytes 4j..4j+3: the first table holds
            // lanes 0-15, the second (indices 64 less) lanes 16-31; an index past a table's end
            // gives 0 (`tbl`) or leaves the byte (`tbx`).
            let idx = vreinterpretq_u8_u32(vaddq_u32(vmulq_n_u32(src, 0x0404_0404), byte_of));
            let v = vqtbl4q_u8(lo, idx);
            let v = vqtbx4q_u8(v, hi, vsubq_u8(idx, vdupq_n_u8(64)));
            vst1q_u8((d.as_mut_ptr() as *mut u8).add(16 * k), v);
        }
    }
}

/// A converged whole-warp `shfl.sync` of 32-bit values with membermask `0xffffffff` and uniform
/// `b`, `c`: writes each lane's `d` and returns the predicate mask, or `None` (writing nothing)
/// when `c` is not a whole-warp segment (`0x1f`, or `0` for `.up`; the caller then takes the
/// general path).
#[cfg(test)]
#[inline]
pub(crate) fn shfl32(simd: Simd, mode: ShflMode, a: &[u32; 32], b: u32, c: u32, d: &mut [u32; 32]) -> Option<u32> {
    // SAFETY: a write-only view of initialized `u32`s; only `u32` values are written through it.
    shfl32_into(simd, mode, a, b, c, unsafe { &mut *(d as *mut [u32; 32] as *mut [MaybeUninit<u32>; 32]) })
}

/// [`shfl32`] into slots that need not hold values yet: all 32 are written when it returns
/// `Some`.
#[inline]
pub(crate) fn shfl32_into(simd: Simd, mode: ShflMode, a: &[u32; 32], b: u32, c: u32, d: &mut [MaybeUninit<u32>; 32]) -> Option<u32> {
    let whole_warp = match mode {
        ShflMode::Up => c & 0x1f1f == 0,
        _ => c & 0x1f1f == 0x1f,
    };
    if !whole_warp {
        return None;
    }
    let bval = b & 0x1f;
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Simd::Avx512` is only made when the CPU has AVX-512F (`best`, `available`).
        Simd::Avx512 if mode != ShflMode::Bfly => unsafe { shfl_avx512(mode, a, bval, d) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `Simd::Neon` is only made when the CPU has NEON (`best`, `available`).
        Simd::Neon => unsafe { shfl_neon(mode, a, bval, d) },
        _ => shfl_portable(mode, a, bval, d),
    }
    Some(predicates(mode, bval))
}

/// Each lane's source lane and the predicate mask of a `shfl.sync` in which lane `l` has operands
/// `b(l)` and `c(l)`, by the pseudo-code (`semantics::shfl::source_lane`) written as arithmetic
/// over the 32 lanes with the mode a constant in each loop, which the compiler vectorizes.
#[inline(always)]
fn lane_sources(mode: ShflMode, b: impl Fn(usize) -> u32, c: impl Fn(usize) -> u32) -> ([u32; 32], u32) {
    let mut src = [0u32; 32];
    let mut p = [0u8; 32];
    #[inline(always)]
    fn each(src: &mut [u32; 32], p: &mut [u8; 32], c: impl Fn(usize) -> u32, up: bool, j_of: impl Fn(u32, u32) -> u32) {
        for lane in 0..32u32 {
            let c = c(lane as usize);
            let (cval, segmask) = (c & 0x1f, c >> 8 & 0x1f);
            let max_lane = (lane & segmask) | (cval & !segmask);
            let j = j_of(lane, segmask);
            // `.up` compares signed (j may be below 0); the others' j is at most 62.
            let pval = if up { j as i32 >= max_lane as i32 } else { j <= max_lane };
            src[lane as usize] = if pval { j } else { lane };
            p[lane as usize] = pval as u8;
        }
    }
    let bval = |l: u32| b(l as usize) & 0x1f;
    match mode {
        ShflMode::Up => each(&mut src, &mut p, c, true, |lane, _| lane.wrapping_sub(bval(lane))),
        ShflMode::Down => each(&mut src, &mut p, c, false, |lane, _| lane + bval(lane)),
        ShflMode::Bfly => each(&mut src, &mut p, c, false, |lane, _| lane ^ bval(lane)),
        ShflMode::Idx => each(&mut src, &mut p, c, false, |lane, segmask| (lane & segmask) | (bval(lane) & !segmask)),
    }
    (src, mask_of_bytes(&p))
}

/// Bit `l` set where byte `l` is 1 (each byte 0 or 1): eight bytes at a time, gathered into the
/// top byte of a multiplication (byte `i` times `2^i << 8(7 - i)`; no other product reaches it,
/// and no sum below carries into it), where a fold of per-lane shifts was scalar code on the
/// x86-64 baseline.
#[inline(always)]
fn mask_of_bytes(p: &[u8; 32]) -> u32 {
    let mut m = 0;
    for (k, eight) in p.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        m |= ((x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * k);
    }
    m
}

/// [`lane_sources`] for a shuffle whose lanes shuffle within segments (`c[12:8]`, the segment
/// mask: tiles) with the same `b` and `c`; `None` when a lane would read outside its own segment
/// (its tile's membermask does not name that lane: the engine reports it).
#[inline(always)]
fn segment_sources(mode: ShflMode, b: u32, c: u32) -> Option<([u32; 32], u32)> {
    let (src, pred) = lane_sources(mode, |_| b, |_| c);
    let outside = src.iter().enumerate().fold(0, |o, (l, &j)| o | (j ^ l as u32));
    (outside & c >> 8 & 0x1f == 0).then_some((src, pred))
}

/// [`lane_sources`] for a shuffle in which every lane takes part, lane `l` posting request
/// `keys[l]` (its `b` and `c` as the engine's request word holds them).
#[inline(always)]
fn keyed_sources(mode: ShflMode, keys: &[u64; 32]) -> ([u32; 32], u32) {
    lane_sources(mode, |l| crate::warp::b_of(keys[l]), |l| crate::warp::c_of(keys[l]))
}

/// A `shfl.sync` of 32-bit values in which all 32 lanes take part, lane `l` with the request
/// `keys[l]` (each lane's own `b` and `c`: a clamp per lane): no read is undefined, so it always
/// completes: writes every lane's `d` and returns the predicate mask.
#[inline]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn shfl32_keyed_into(simd: Simd, mode: ShflMode, a: &[u32; 32], keys: &[u64; 32], d: &mut [MaybeUninit<u32>; 32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(simd) {
        // SAFETY: `has_avx2` holds.
        return unsafe { keyed_avx2(mode, a, keys, d) };
    }
    let (src, pred) = keyed_sources(mode, keys);
    permute_portable(a, &src, d);
    pred
}

/// [`shfl32_keyed_into`] with AVX2: each eight lanes' `b` and `c` taken from their keys' low
/// words, their sources computed (`sources8_avx2`) and permuted in vector registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn keyed_avx2(mode: ShflMode, a: &[u32; 32], keys: &[u64; 32], d: &mut [MaybeUninit<u32>; 32]) -> u32 {
    use core::arch::x86_64::*;
    let five = _mm256_set1_epi32(0x1f);
    let mut src = [_mm256_setzero_si256(); 4];
    let mut pred = 0u32;
    for (k, src) in src.iter_mut().enumerate() {
        // SAFETY: two loads of four keys (eight words) each, inside `keys`.
        let (lo, hi) = unsafe {
            let p = keys.as_ptr().add(8 * k) as *const u32;
            (_mm256_castsi256_ps(load8_avx2(p)), _mm256_castsi256_ps(load8_avx2(p.add(8))))
        };
        // The low words of keys 8k..8k+8 (`b_of`: bits 12..17, `c_of`: the clamp in bits
        // 17..22 and the segment mask in 22..27): keys 0 1 4 5 | 2 3 6 7, then in order.
        let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi)));
        let (bv, clamp, sm) = (_mm256_and_si256(_mm256_srli_epi32::<12>(w), five), _mm256_and_si256(_mm256_srli_epi32::<17>(w), five), _mm256_and_si256(_mm256_srli_epi32::<22>(w), five));
        let (s, own) = sources8_avx2(mode, lanes8_avx2(k), bv, clamp, sm);
        *src = s;
        pred |= predicates8_avx2(own, k);
    }
    select_all_avx2(a, src, d);
    pred
}

/// The predicate bits of lanes `8k..8k + 8` (set where the lane reads another), from the lanes
/// that read their own value (`sources8_avx2`'s second result).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn predicates8_avx2(own: core::arch::x86_64::__m256i, k: usize) -> u32 {
    use core::arch::x86_64::*;
    (!(_mm256_movemask_ps(_mm256_castsi256_ps(own)) as u32) & 0xff) << (8 * k)
}

/// `d[l] = a[src[l]]` for the 32 lanes, each eight sources a vector (`select_avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn select_all_avx2(a: &[u32; 32], src: [core::arch::x86_64::__m256i; 4], d: &mut [MaybeUninit<u32>; 32]) {
    use core::arch::x86_64::*;
    let chunks = chunks_avx2(a);
    for (k, src) in src.into_iter().enumerate() {
        // SAFETY: a store of 8 `u32`s inside `d`; the function is only called on CPUs with AVX2.
        unsafe { _mm256_storeu_si256(d.as_mut_ptr().add(8 * k) as *mut _, select_avx2(&chunks, src)) };
    }
}

/// Lanes `8k..8k + 8`'s numbers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn lanes8_avx2(k: usize) -> core::arch::x86_64::__m256i {
    use core::arch::x86_64::*;
    _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(8 * k as i32))
}

/// The pseudo-code (`semantics::shfl::source_lane`) for eight lanes numbered `lane`, with their
/// `b & 0x1f` (`bv`), clamps (`c & 0x1f`) and segment masks (`c[12:8]`), in 32-bit lanes: every
/// value is in -31..=62, so the signed compares are exact. Returns each lane's source, and the
/// lanes whose predicate is false (`.up`: j < maxLane; the others: j > maxLane), which read
/// their own value.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn sources8_avx2(mode: ShflMode, lane: core::arch::x86_64::__m256i, bv: core::arch::x86_64::__m256i, clamp: core::arch::x86_64::__m256i, sm: core::arch::x86_64::__m256i) -> (core::arch::x86_64::__m256i, core::arch::x86_64::__m256i) {
    use core::arch::x86_64::*;
    let max_lane = _mm256_or_si256(_mm256_and_si256(lane, sm), _mm256_andnot_si256(sm, clamp));
    let j = match mode {
        ShflMode::Up => _mm256_sub_epi32(lane, bv),
        ShflMode::Down => _mm256_add_epi32(lane, bv),
        ShflMode::Bfly => _mm256_xor_si256(lane, bv),
        ShflMode::Idx => _mm256_or_si256(_mm256_and_si256(lane, sm), _mm256_andnot_si256(sm, bv)),
    };
    let own = match mode {
        ShflMode::Up => _mm256_cmpgt_epi32(max_lane, j),
        _ => _mm256_cmpgt_epi32(j, max_lane),
    };
    (_mm256_blendv_epi8(j, lane, own), own)
}

/// [`shfl32_keyed_into`] into initialized registers.
#[cfg(test)]
#[inline]
pub(crate) fn shfl32_keyed(simd: Simd, mode: ShflMode, a: &[u32; 32], keys: &[u64; 32], d: &mut [u32; 32]) -> u32 {
    // SAFETY: a write-only view of initialized `u32`s; only `u32` values are written through it.
    shfl32_keyed_into(simd, mode, a, keys, unsafe { &mut *(d as *mut [u32; 32] as *mut [MaybeUninit<u32>; 32]) })
}

/// [`shfl32_into`] for a shuffle within segments of the warp, each a tile whose lanes all take
/// part (`c[12:8]` the tiles' segment mask): `None`, writing nothing, when a lane would read
/// outside its segment.
#[inline]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn shfl32_segments_into(simd: Simd, mode: ShflMode, a: &[u32; 32], b: u32, c: u32, d: &mut [MaybeUninit<u32>; 32]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(simd) {
        // SAFETY: `has_avx2` holds.
        return unsafe { segments_avx2(mode, a, b, c, d) };
    }
    let (src, pred) = segment_sources(mode, b, c)?;
    permute_portable(a, &src, d);
    Some(pred)
}

/// [`shfl32_segments_into`] with AVX2: each eight lanes' sources computed in a vector register
/// (`sources8_avx2`: `b` and `c` are the same for every lane) and permuted from there, where
/// [`segment_sources`] went through arrays of sources and predicate bytes (about 160
/// instructions for the sources, against about 40 here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn segments_avx2(mode: ShflMode, a: &[u32; 32], b: u32, c: u32, d: &mut [MaybeUninit<u32>; 32]) -> Option<u32> {
    use core::arch::x86_64::*;
    let (bv, clamp, sm) = (_mm256_set1_epi32((b & 0x1f) as i32), _mm256_set1_epi32((c & 0x1f) as i32), _mm256_set1_epi32((c >> 8 & 0x1f) as i32));
    let mut src = [_mm256_setzero_si256(); 4];
    let mut outside = _mm256_setzero_si256();
    let mut pred = 0u32;
    for (k, src) in src.iter_mut().enumerate() {
        let lane = lanes8_avx2(k);
        let own;
        (*src, own) = sources8_avx2(mode, lane, bv, clamp, sm);
        outside = _mm256_or_si256(outside, _mm256_xor_si256(*src, lane));
        pred |= predicates8_avx2(own, k);
    }
    // A lane that reads outside its segment: the engine reports it.
    if _mm256_testz_si256(outside, sm) == 0 {
        return None;
    }
    select_all_avx2(a, src, d);
    Some(pred)
}

/// [`shfl32_segments_into`] into initialized registers.
#[cfg(test)]
#[inline]
pub(crate) fn shfl32_segments(simd: Simd, mode: ShflMode, a: &[u32; 32], b: u32, c: u32, d: &mut [u32; 32]) -> Option<u32> {
    // SAFETY: a write-only view of initialized `u32`s; only `u32` values are written through it.
    shfl32_segments_into(simd, mode, a, b, c, unsafe { &mut *(d as *mut [u32; 32] as *mut [MaybeUninit<u32>; 32]) })
}

/// Whether a run at `simd` may call this module's AVX2 functions: `Simd::Avx2` and
/// `Simd::Avx512` are only made on CPUs with AVX2 (`best`, `available`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2(simd: Simd) -> bool {
    matches!(simd, Simd::Avx2 | Simd::Avx512)
}

/// Each lane's result of a shuffle with its predicate, as two words: `d[l]`, then `l`'s bit of
/// `pred` (0 or 1), at `simd`'s level (AVX2 interleaves eight lanes at a time; the plain loop
/// was compiled for the baseline x86-64 vector unit).
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(crate) fn pairs_into(simd: Simd, d: &[u32; 32], pred: u32, pairs: &mut [[MaybeUninit<u32>; 2]; 32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(simd) {
        // SAFETY: `has_avx2` holds.
        return unsafe { pairs_avx2(d, pred, pairs) };
    }
    pairs_portable(d, pred, pairs)
}

/// [`pairs_into`], plainly.
#[inline(always)]
fn pairs_portable(d: &[u32; 32], pred: u32, pairs: &mut [[MaybeUninit<u32>; 2]; 32]) {
    // Each lane's bit by a constant (no shift by the lane, which the baseline x86-64 vector
    // unit has no instruction for).
    const BIT: [u32; 32] = {
        let mut bit = [0u32; 32];
        let mut l = 0;
        while l < 32 {
            bit[l] = 1 << l;
            l += 1;
        }
        bit
    };
    for (l, pair) in pairs.iter_mut().enumerate() {
        *pair = [MaybeUninit::new(d[l]), MaybeUninit::new(u32::from(pred & BIT[l] != 0))];
    }
}

/// [`pairs_into`] on AVX2: for each eight lanes, the predicate words from the mask's byte (each
/// lane's bit tested against its own), interleaved with the values (`unpacklo`/`unpackhi` within
/// each 128-bit half, then the halves put in order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pairs_avx2(d: &[u32; 32], pred: u32, pairs: &mut [[MaybeUninit<u32>; 2]; 32]) {
    use core::arch::x86_64::*;
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for k in 0..4 {
        // SAFETY: a load of 8 `u32`s inside `d`.
        let v = unsafe { load8_avx2(d.as_ptr().add(8 * k)) };
        let m = _mm256_and_si256(_mm256_set1_epi32((pred >> (8 * k)) as i32), bits);
        let p = _mm256_srli_epi32::<31>(_mm256_cmpeq_epi32(m, bits));
        let (lo, hi) = (_mm256_unpacklo_epi32(v, p), _mm256_unpackhi_epi32(v, p));
        let out = pairs.as_mut_ptr() as *mut u32;
        // SAFETY: two stores of 8 `u32`s (lanes 8k..8k+4 and 8k+4..8k+8, two words each) inside
        // `pairs`.
        unsafe {
            _mm256_storeu_si256(out.add(16 * k) as *mut __m256i, _mm256_permute2x128_si256::<0x20>(lo, hi));
            _mm256_storeu_si256(out.add(16 * k + 8) as *mut __m256i, _mm256_permute2x128_si256::<0x31>(lo, hi));
        }
    }
}

/// The lanes whose 64-bit register is not zero (the engine's request keys, read after every
/// step: the compiler made the plain fold 32 scalar compares, 160 instructions). On x86-64 it is
/// SSE2, which every x86-64 CPU has, so it needs no level: a key is not zero when the OR of its
/// two halves is not, four keys to a compare.
#[inline(always)]
pub(crate) fn nonzero64(keys: &core::cell::Cell<[u64; 32]>) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let p = keys.as_ptr() as *const __m128i;
        let mut m = 0u32;
        for k in 0..8 {
            // SAFETY: SSE2 is part of x86-64; two unaligned loads of two keys each, inside the
            // array, which nothing writes while they are read (a `Cell` on this thread).
            unsafe {
                let (a, b) = (_mm_castsi128_ps(_mm_loadu_si128(p.add(2 * k))), _mm_castsi128_ps(_mm_loadu_si128(p.add(2 * k + 1))));
                // The low and the high halves of keys 4k..4k+4, in order.
                let lo = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(a, b));
                let hi = _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(a, b));
                let zero = _mm_cmpeq_epi32(_mm_or_si128(lo, hi), _mm_setzero_si128());
                m |= (!(_mm_movemask_ps(_mm_castsi128_ps(zero)) as u32) & 0xf) << (4 * k);
            }
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        nonzero64_portable(keys)
    }
}

/// [`nonzero64`] as the definition says it.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn nonzero64_portable(keys: &core::cell::Cell<[u64; 32]>) -> u32 {
    keys.get().iter().enumerate().fold(0, |m, (l, &k)| m | ((k != 0) as u32) << l)
}

/// The lanes whose `a` is not zero: the predicates of a vote.
#[inline(always)]
fn nonzero_portable(a: &[u32; 32]) -> u32 {
    a.iter().enumerate().fold(0, |m, (l, &x)| m | ((x != 0) as u32) << l)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn nonzero_avx512(a: &[u32; 32]) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: two loads of 16 `u32`s inside `a`; the function is only called on CPUs with
    // AVX-512F.
    unsafe {
        let lo = _mm512_test_epi32_mask(load16_avx512(a.as_ptr()), _mm512_set1_epi32(-1));
        let hi = _mm512_test_epi32_mask(load16_avx512(a.as_ptr().add(16)), _mm512_set1_epi32(-1));
        lo as u32 | (hi as u32) << 16
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn nonzero_avx2(a: &[u32; 32]) -> u32 {
    use core::arch::x86_64::*;
    let mut m = 0u32;
    for k in 0..4 {
        // SAFETY: a load of 8 `u32`s inside `a`; the function is only called on CPUs with AVX2.
        unsafe {
            let v = load8_avx2(a.as_ptr().add(8 * k));
            let zero = _mm256_cmpeq_epi32(v, _mm256_setzero_si256());
            let z = _mm256_movemask_ps(_mm256_castsi256_ps(zero)) as u32;
            m |= (!z & 0xff) << (8 * k);
        }
    }
    m
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
fn nonzero_neon(a: &[u32; 32]) -> u32 {
    use core::arch::aarch64::*;
    let mut m = 0u32;
    // SAFETY: loads of 4 `u32`s inside `a` and of the 4-element weight array; the function is
    // only called on CPUs with NEON.
    unsafe {
        let weights = vld1q_u32([1u32, 2, 4, 8].as_ptr());
        for k in 0..8 {
            let v = vld1q_u32(a.as_ptr().add(4 * k));
            // All ones where the lane's value is not zero; its weight summed: 4 lanes' bits.
            let bits = vaddvq_u32(vandq_u32(vtstq_u32(v, v), weights));
            m |= bits << (4 * k);
        }
    }
    m
}

/// The lanes whose `a` is not zero (the predicates `vote.sync` reads).
#[inline]
pub(crate) fn nonzero(simd: Simd, a: &[u32; 32]) -> u32 {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Simd::Avx512` is only made when the CPU has AVX-512F.
        Simd::Avx512 => unsafe { nonzero_avx512(a) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Simd::Avx2 => unsafe { nonzero_avx2(a) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, for NEON.
        Simd::Neon => unsafe { nonzero_neon(a) },
        _ => nonzero_portable(a),
    }
}

/// An integer or bitwise reduction over the values `a` (all 32 lanes, or `redux_avx2`'s eight
/// partial results), plainly (`semantics::redux::redux_int` with every lane participating,
/// written as one fold the compiler vectorizes).
#[inline(always)]
fn redux_portable(op: ReduxOp, ty: ReduxType, a: &[u32]) -> u32 {
    match (op, ty) {
        (ReduxOp::Add, _) => a.iter().fold(0u32, |s, &x| s.wrapping_add(x)),
        (ReduxOp::Min, ReduxType::S32) => a.iter().fold(i32::MAX, |s, &x| s.min(x as i32)) as u32,
        (ReduxOp::Max, ReduxType::S32) => a.iter().fold(i32::MIN, |s, &x| s.max(x as i32)) as u32,
        (ReduxOp::Min, _) => a.iter().fold(u32::MAX, |s, &x| s.min(x)),
        (ReduxOp::Max, _) => a.iter().fold(0, |s, &x| s.max(x)),
        (ReduxOp::And, _) => a.iter().fold(!0, |s, &x| s & x),
        (ReduxOp::Or, _) => a.iter().fold(0, |s, &x| s | x),
        (ReduxOp::Xor, _) => a.iter().fold(0, |s, &x| s ^ x),
    }
}

/// The reduction over the 32 lanes (for AVX-512 too) from the four vectors `chunks_avx2` loads
/// in 16-byte halves (a fold compiled for the level loaded 32 or 64 bytes at a time, and waited
/// for the forms' 16-byte stores: see `load8_avx2`): the four combined lane by lane into one,
/// whose eight lanes are folded.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn redux_avx2(op: ReduxOp, ty: ReduxType, a: &[u32; 32]) -> u32 {
    use core::arch::x86_64::*;
    let [c0, c1, c2, c3] = chunks_avx2(a);
    let v = match (op, ty) {
        (ReduxOp::Add, _) => _mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
        (ReduxOp::Min, ReduxType::S32) => _mm256_min_epi32(_mm256_min_epi32(c0, c1), _mm256_min_epi32(c2, c3)),
        (ReduxOp::Max, ReduxType::S32) => _mm256_max_epi32(_mm256_max_epi32(c0, c1), _mm256_max_epi32(c2, c3)),
        (ReduxOp::Min, _) => _mm256_min_epu32(_mm256_min_epu32(c0, c1), _mm256_min_epu32(c2, c3)),
        (ReduxOp::Max, _) => _mm256_max_epu32(_mm256_max_epu32(c0, c1), _mm256_max_epu32(c2, c3)),
        (ReduxOp::And, _) => _mm256_and_si256(_mm256_and_si256(c0, c1), _mm256_and_si256(c2, c3)),
        (ReduxOp::Or, _) => _mm256_or_si256(_mm256_or_si256(c0, c1), _mm256_or_si256(c2, c3)),
        (ReduxOp::Xor, _) => _mm256_xor_si256(_mm256_xor_si256(c0, c1), _mm256_xor_si256(c2, c3)),
    };
    // SAFETY: a vector of eight `u32` lanes, read as its lanes in order.
    let lanes: [u32; 8] = unsafe { core::mem::transmute::<__m256i, [u32; 8]>(v) };
    redux_portable(op, ty, &lanes)
}

/// `redux.sync` (integer and bitwise) over all 32 lanes.
#[inline]
pub(crate) fn redux32(simd: Simd, op: ReduxOp, ty: ReduxType, a: &[u32; 32]) -> u32 {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as `has_avx2` says.
        _ if has_avx2(simd) => unsafe { redux_avx2(op, ty, a) },
        _ => redux_portable(op, ty, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::{redux, shfl};
    use proptest::prelude::*;

    proptest! {
        /// The vector `nonzero64` agrees with the fold that defines it, on keys that are zero,
        /// or not zero in only their low half, only their high half, or both.
        #[test]
        fn nonzero64_agrees_with_its_definition(kinds in proptest::array::uniform32(0u8..4), bits in proptest::array::uniform32(any::<u64>())) {
            let keys: [u64; 32] = core::array::from_fn(|l| match kinds[l] {
                0 => 0,
                1 => bits[l] & 0xffff_ffff | 1,
                2 => bits[l] & !0xffff_ffff | 1 << 40,
                _ => bits[l] | 1 | 1 << 63,
            });
            let cell = core::cell::Cell::new(keys);
            prop_assert_eq!(nonzero64(&cell), nonzero64_portable(&cell));
        }
    }

    proptest! {
        /// Each level's result pairs are the plain loop's: the value, then the lane's bit.
        #[test]
        fn pairs_match_the_plain_loop(d in prop::array::uniform32(any::<u32>()), pred in any::<u32>()) {
            let expected: [[u32; 2]; 32] = core::array::from_fn(|l| [d[l], pred >> l & 1]);
            for simd in Simd::available() {
                let mut pairs = [[MaybeUninit::<u32>::uninit(); 2]; 32];
                pairs_into(simd, &d, pred, &mut pairs);
                // SAFETY: `pairs_into` writes every word.
                let got: [[u32; 2]; 32] = pairs.map(|p| p.map(|w| unsafe { w.assume_init() }));
                prop_assert_eq!(got, expected, "{:?}", simd);
            }
        }
    }

    /// The quarter moves, both kinds on x86-64 (SSE2 registers and the plain `[u32; 4]` that
    /// other targets use), for every mode and every `b` (and `b` with bits above `b[4:0]`,
    /// which the moves ignore), on lanes whose values name them, are the semantics' converged
    /// shuffle.
    #[test]
    fn quarter_moves_match_the_semantics_for_every_b() {
        let a: [u32; 32] = core::array::from_fn(|l| 0x0100_0000 * l as u32 + 0x9e37 * l as u32 + 7);
        let wide: [u64; 32] = a.map(u64::from);
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in (0..32).chain([32, 33, 0xffff_ffe1]) {
                let c = if mode == ShflMode::Up { 0 } else { 0x1f };
                let mut want = [0u64; 32];
                shfl::converged(mode, &wide, b, c, &mut want);
                type Shfl = fn(ShflMode, &[u32; 32], u32, &mut [MaybeUninit<u32>; 32]);
                let kinds: &[(&str, Shfl)] = &[
                    ("[u32; 4]", shfl_quarters::<[u32; 4]>),
                    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                    ("__m128i", shfl_quarters::<core::arch::x86_64::__m128i>),
                ];
                for &(kind, shfl) in kinds {
                    let mut d = [MaybeUninit::<u32>::uninit(); 32];
                    shfl(mode, &a, b, &mut d);
                    // SAFETY: a quarter move writes all 32 lanes.
                    let got = d.map(|v| u64::from(unsafe { v.assume_init() }));
                    assert_eq!(got, want, "{kind} {mode:?} b = {b}");
                }
            }
        }
    }

    fn modes() -> impl Strategy<Value = ShflMode> {
        prop_oneof![Just(ShflMode::Up), Just(ShflMode::Down), Just(ShflMode::Bfly), Just(ShflMode::Idx)]
    }

    proptest! {
        /// Each level's whole-warp shuffle is the semantics' converged shuffle (itself checked
        /// against the spec's route-and-apply).
        #[test]
        fn shuffles_match_the_semantics(mode in modes(), a in prop::array::uniform32(any::<u32>()), b in any::<u32>(), c in prop_oneof![Just(0u32), Just(0x1f), any::<u32>()]) {
            let wide: [u64; 32] = a.map(u64::from);
            let mut d = [0u64; 32];
            let pred = shfl::converged(mode, &wide, b, c, &mut d);
            for simd in Simd::available() {
                let mut got = [0u32; 32];
                match shfl32(simd, mode, &a, b, c, &mut got) {
                    Some(p) => {
                        prop_assert_eq!(got.map(u64::from), d, "{:?} {:?}", simd, mode);
                        prop_assert_eq!(p, pred, "{:?} {:?}", simd, mode);
                    }
                    None => prop_assert!(mode == ShflMode::Up && c & 0x1f1f != 0 || mode != ShflMode::Up && c & 0x1f1f != 0x1f),
                }
            }
        }

        /// Each level's vote predicates and reductions are the semantics' own over every lane.
        #[test]
        // `b` without the zeros that `a` has for the votes: a minimum there is rarely 0, so
        // lanes combined with the wrong signedness show.
        fn votes_and_reductions_match_the_semantics(a in prop::array::uniform32(prop_oneof![Just(0u32), any::<u32>()]), b in prop::array::uniform32(any::<u32>())) {
            let plain = a.iter().enumerate().fold(0u32, |m, (l, &x)| if x != 0 { m | 1 << l } else { m });
            let ops = [ReduxOp::Add, ReduxOp::Min, ReduxOp::Max, ReduxOp::And, ReduxOp::Or, ReduxOp::Xor];
            for simd in Simd::available() {
                prop_assert_eq!(nonzero(simd, &a), plain, "{:?}", simd);
                for op in ops {
                    for ty in [ReduxType::U32, ReduxType::S32, ReduxType::B32] {
                        for x in [&a, &b] {
                            prop_assert_eq!(redux32(simd, op, ty, x), redux::redux_int(op, ty, x, !0), "{:?} {:?} {:?}", simd, op, ty);
                        }
                    }
                }
            }
        }
    }

    /// Every mode, every `b` (its high bits ignored), whole-warp and other segments: each level
    /// against the semantics' converged shuffle.
    #[test]
    fn every_shuffle_operand() {
        let a: [u32; 32] = core::array::from_fn(|l| 0x9e37_79b9u32.wrapping_mul(l as u32 + 1));
        let wide: [u64; 32] = a.map(u64::from);
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in (0..64).chain([0xffff_ffe0, 0x8000_001f]) {
                for c in [0, 0x1f, 0x1f1f, 0x0c1f, 0x18] {
                    let mut d = [0u64; 32];
                    let pred = shfl::converged(mode, &wide, b, c, &mut d);
                    for simd in Simd::available() {
                        let mut got = [0u32; 32];
                        match shfl32(simd, mode, &a, b, c, &mut got) {
                            Some(p) => assert_eq!((got.map(u64::from), p), (d, pred), "{simd:?} {mode:?} b={b} c={c:#x}"),
                            None => assert!(if mode == ShflMode::Up { c & 0x1f1f != 0 } else { c & 0x1f1f != 0x1f }),
                        }
                    }
                }
            }
        }
    }

    proptest! {
        /// A whole warp's shuffle with each lane's own `b` and `c` (a clamp and segment per lane):
        /// each level against the engine's route and apply with every lane participating.
        #[test]
        fn keyed_shuffles_match_the_route(mode in modes(), a in prop::array::uniform32(any::<u32>()), b in prop::array::uniform32(any::<u32>()), c in prop::array::uniform32(prop_oneof![Just(0x1fu32), 0u32..0x20, any::<u32>()])) {
            let op = crate::op::Op::Shfl { mode, words: 1 };
            let keys: [u64; 32] = core::array::from_fn(|l| crate::warp::pack(op, !0, b[l], c[l]));
            let route = shfl::route(mode, &b, &c, !0);
            let d = shfl::apply(&route, &a, !0);
            for simd in Simd::available() {
                let mut got = [0u32; 32];
                let pred = shfl32_keyed(simd, mode, &a, &keys, &mut got);
                prop_assert_eq!((got, pred), (d, route.pred), "{:?} {:?}", simd, mode);
            }
        }
    }

    /// Shuffles within segments: each level against `semantics::shfl::segmented` (itself checked
    /// against the spec's route with each segment's lanes as the participants), for every mode,
    /// every `b` below 64, every segment mask and a spread of clamps; `None` exactly where it
    /// is (a lane reading outside its segment).
    #[test]
    fn segment_shuffles_match_the_semantics() {
        let a: [u32; 32] = core::array::from_fn(|l| 0x9e37_79b9u32.wrapping_mul(l as u32 + 1));
        let wide: [u64; 32] = a.map(u64::from);
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in (0..64).chain([0xffff_ffe0, 0x8000_001f]) {
                for segmask in 0..32u32 {
                    for clamp in [0u32, 0x1f, 0x3, 0x7, 0x10, 0x15, 0xff] {
                        let c = segmask << 8 | clamp;
                        let mut d = [0u64; 32];
                        let expected = shfl::segmented(mode, &wide, b, c, &mut d).map(|p| (d, p));
                        for simd in Simd::available() {
                            let mut got = [0u32; 32];
                            let result = shfl32_segments(simd, mode, &a, b, c, &mut got).map(|p| (got.map(u64::from), p));
                            assert_eq!(result, expected, "{simd:?} {mode:?} b={b} c={c:#x}");
                        }
                    }
                }
            }
        }
    }

    /// The best level is one the CPU has, and the portable code is always there.
    #[test]
    fn the_best_level_is_available() {
        let all = Simd::available();
        assert_eq!(all[0], Simd::Portable);
        assert!(all.contains(&Simd::best()));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(Simd::best(), Simd::Neon, "every aarch64 Linux CPU has NEON");
    }
}
