//! Which Rust types each warp instruction accepts.

use crate::semantics::redux::ReduxType;

/// A 4- or 8-byte value that warp shuffles and `match.sync` move as 32-bit words, as CUDA's
/// `__shfl_*_sync` and `__match_*_sync` do for `int`, `unsigned`, `float`, `long long`, `double`.
///
/// Implemented for `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, pairs of the 4-byte ones
/// (`(u32, f32)`, ...) and arrays `[T; 1]`, `[T; 2]` of them. For a `Copy` struct of your own,
/// `#[derive(WarpValue)]` packs its fields (integers, floats, `bool`, or other warp values) into
/// one or two 32-bit words in declaration order, so padding bytes are never read:
///
/// ```
/// use warp_runtime::value::{WarpBits, WarpValue};
///
/// // What the derive writes for `struct Key { bucket: u16, flag: bool, weight: f32 }` (49 bits).
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Key { bucket: u16, flag: bool, weight: f32 }
///
/// impl WarpValue for Key {
///     const WORDS: u8 = 2;
///     fn to_bits(self) -> u64 {
///         self.bucket.to_raw() | self.flag.to_raw() << 16 | self.weight.to_raw() << 17
///     }
///     fn from_bits(bits: u64) -> Self {
///         Key { bucket: WarpBits::from_raw(bits), flag: WarpBits::from_raw(bits >> 16), weight: WarpBits::from_raw(bits >> 17) }
///     }
/// }
///
/// let k = Key { bucket: 7, flag: true, weight: -1.5 };
/// assert_eq!(Key::from_bits(k.to_bits()), k);
/// ```
///
/// A value over 8 bytes moves as several 32-bit shuffles, as CUDA's generic `__shfl_sync` moves
/// any trivially copyable type: see [`WarpWords`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved between lanes: warp shuffles and `match` take 4- or 8-byte values",
    label = "not a 4- or 8-byte warp value",
    note = "`u32`, `i32`, `f32` move as one 32-bit word, `u64`, `i64`, `f64` as two; `#[derive(WarpValue)]` packs a `Copy` struct of up to 8 bytes; larger values (`#[warp_value(words)]`) move with `warpkit::shfl_words`"
)]
pub trait WarpValue: Copy {
    /// How many 32-bit words the value occupies: 1 or 2.
    const WORDS: u8;
    /// The value's bits, zero-extended to 64.
    fn to_bits(self) -> u64;
    /// The value from its bits (the low `32 * WORDS` bits).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! warp_value {
    ($($t:ty => $words:literal, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl WarpValue for $t {
            const WORDS: u8 = $words;
            #[inline(always)]
            fn to_bits(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_bits($b: u64) -> Self { $from }
        }
    )*};
}

warp_value! {
    u32 => 1, |v| v as u64, |b| b as u32;
    i32 => 1, |v| v as u32 as u64, |b| b as u32 as i32;
    f32 => 1, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    u64 => 2, |v| v, |b| b;
    i64 => 2, |v| v as u64, |b| b as i64;
    f64 => 2, |v| v.to_bits(), |b| f64::from_bits(b);
}

/// Pairs of 4-byte values, and arrays of one or two, move as one or two words.
macro_rules! pair_value {
    ($($a:ty, $b:ty;)*) => {$(
        impl WarpValue for ($a, $b) {
            const WORDS: u8 = 2;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self.0.to_raw() | self.1.to_raw() << 32
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                (<$a>::from_raw(bits), <$b>::from_raw(bits >> 32))
            }
        }
        impl WarpBits for ($a, $b) {
            const BITS: u32 = 64;
            #[inline(always)]
            fn to_raw(self) -> u64 {
                self.to_bits()
            }
            #[inline(always)]
            fn from_raw(raw: u64) -> Self {
                Self::from_bits(raw)
            }
        }
    )*};
}

pair_value! {
    u32, u32; u32, i32; u32, f32;
    i32, u32; i32, i32; i32, f32;
    f32, u32; f32, i32; f32, f32;
}

macro_rules! array_value {
    ($($t:ty),*) => {$(
        impl WarpValue for [$t; 1] {
            const WORDS: u8 = <$t as WarpValue>::WORDS;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                <$t as WarpValue>::to_bits(self[0])
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                [<$t as WarpValue>::from_bits(bits)]
            }
        }
        impl WarpBits for [$t; 1] {
            const BITS: u32 = <$t as WarpBits>::BITS;
            #[inline(always)]
            fn to_raw(self) -> u64 {
                self[0].to_raw()
            }
            #[inline(always)]
            fn from_raw(raw: u64) -> Self {
                [<$t>::from_raw(raw)]
            }
        }
    )*};
}

array_value!(u32, i32, f32, u64, i64, f64);

macro_rules! array2_value {
    ($($t:ty),*) => {$(
        impl WarpValue for [$t; 2] {
            const WORDS: u8 = 2;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                (self[0], self[1]).to_bits()
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                let (a, b) = <($t, $t)>::from_bits(bits);
                [a, b]
            }
        }
        impl WarpBits for [$t; 2] {
            const BITS: u32 = 64;
            #[inline(always)]
            fn to_raw(self) -> u64 {
                self.to_bits()
            }
            #[inline(always)]
            fn from_raw(raw: u64) -> Self {
                Self::from_bits(raw)
            }
        }
    )*};
}

array2_value!(u32, i32, f32);

/// A value as a pattern of at most 64 bits, so that `#[derive(WarpValue)]` can pack a struct's
/// fields: `bool`, the integers up to 64 bits, `f32`, `f64`, and every derived warp value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a `#[derive(WarpValue)]` struct",
    label = "not a plain bit pattern of at most 64 bits",
    note = "fields are `bool`, integers of up to 64 bits, `f32`, `f64`, or other `WarpValue` types; a struct holding references or heap data cannot move between lanes"
)]
pub trait WarpBits: Copy {
    /// The bits the value needs (its low bits in [`to_raw`](WarpBits::to_raw)).
    const BITS: u32;
    /// The value's bits, zero-extended.
    fn to_raw(self) -> u64;
    /// The value from the low [`BITS`](WarpBits::BITS) bits of `raw` (the bits above are ignored).
    fn from_raw(raw: u64) -> Self;
}

/// The low `n` bits set (`n` in 0..=64).
#[inline(always)]
pub const fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

macro_rules! warp_bits {
    ($($t:ty => $bits:literal, |$v:ident| $to:expr, |$r:ident| $from:expr;)*) => {$(
        impl WarpBits for $t {
            const BITS: u32 = $bits;
            #[inline(always)]
            fn to_raw(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_raw($r: u64) -> Self { $from }
        }
    )*};
}

warp_bits! {
    bool => 1, |v| v as u64, |r| r & 1 == 1;
    u8 => 8, |v| v as u64, |r| r as u8;
    i8 => 8, |v| v as u8 as u64, |r| r as u8 as i8;
    u16 => 16, |v| v as u64, |r| r as u16;
    i16 => 16, |v| v as u16 as u64, |r| r as u16 as i16;
    u32 => 32, |v| v as u64, |r| r as u32;
    i32 => 32, |v| v as u32 as u64, |r| r as u32 as i32;
    f32 => 32, |v| v.to_bits() as u64, |r| f32::from_bits(r as u32);
    u64 => 64, |v| v, |r| r;
    i64 => 64, |v| v as u64, |r| r as i64;
    f64 => 64, |v| v.to_bits(), |r| f64::from_bits(r);
}

/// The most 32-bit words a [`WarpWords`] value has: 16 (64 bytes).
pub const MAX_WORDS: usize = 16;

/// A `Copy` value of any size up to 64 bytes, as the 32-bit words that several shuffles move, as
/// CUDA's generic `__shfl_sync` does for a trivially copyable type.
///
/// Implemented for the integers, floats and `bool` (a word each, two for 64-bit types), every
/// [`WarpValue`], tuples of up to four and arrays of `WarpWords` values; `#[derive(WarpValue)]`
/// with `#[warp_value(words)]` implements it for a struct of any such fields (one or more words
/// each, in declaration order). `warpkit::shfl_words` shuffles them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved between lanes as 32-bit words",
    label = "not a `WarpWords` value",
    note = "`#[derive(WarpValue)]` with `#[warp_value(words)]` implements it for a `Copy` struct whose fields are integers, floats, `bool` or other warp values"
)]
pub trait WarpWords: Copy {
    /// How many 32-bit words: at most [`MAX_WORDS`].
    const WORDS: usize;
    /// Writes the value into `words` (exactly [`WORDS`](WarpWords::WORDS) long).
    fn to_words(self, words: &mut [u32]);
    /// The value from `words` (exactly [`WORDS`](WarpWords::WORDS) long).
    fn from_words(words: &[u32]) -> Self;
}

/// Words of a value of at most 64 bits: one, or two (low word first).
macro_rules! bits_words {
    ($($t:ty),*) => {$(
        impl WarpWords for $t {
            const WORDS: usize = (<$t as WarpBits>::BITS as usize).div_ceil(32);
            #[inline(always)]
            fn to_words(self, words: &mut [u32]) {
                let raw = self.to_raw();
                words[0] = raw as u32;
                if <Self as WarpWords>::WORDS == 2 {
                    words[1] = (raw >> 32) as u32;
                }
            }
            #[inline(always)]
            fn from_words(words: &[u32]) -> Self {
                let hi = if <Self as WarpWords>::WORDS == 2 { (words[1] as u64) << 32 } else { 0 };
                <$t>::from_raw(words[0] as u64 | hi)
            }
        }
    )*};
}

bits_words!(bool, u8, i8, u16, i16, u32, i32, f32, u64, i64, f64);

impl<T: WarpWords, const N: usize> WarpWords for [T; N] {
    const WORDS: usize = N * T::WORDS;
    #[inline(always)]
    fn to_words(self, words: &mut [u32]) {
        for (v, w) in self.into_iter().zip(words.chunks_exact_mut(T::WORDS)) {
            v.to_words(w);
        }
    }
    #[inline(always)]
    fn from_words(words: &[u32]) -> Self {
        core::array::from_fn(|i| T::from_words(&words[i * T::WORDS..(i + 1) * T::WORDS]))
    }
}

macro_rules! tuple_words {
    ($(($($t:ident $i:tt),*))*) => {$(
        impl<$($t: WarpWords),*> WarpWords for ($($t,)*) {
            const WORDS: usize = 0 $(+ $t::WORDS)*;
            #[inline(always)]
            fn to_words(self, words: &mut [u32]) {
                let mut at = 0;
                $(
                    self.$i.to_words(&mut words[at..at + $t::WORDS]);
                    at += $t::WORDS;
                )*
                let _ = at;
            }
            #[inline(always)]
            fn from_words(words: &[u32]) -> Self {
                let mut at = 0;
                let v = ($({
                    let v = $t::from_words(&words[at..at + $t::WORDS]);
                    at += $t::WORDS;
                    v
                },)*);
                let _ = at;
                v
            }
        }
    )*};
}

tuple_words! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

/// A 32-bit register value for `redux.sync`: `u32`, `i32` or `f32`.
pub trait Word: Copy {
    /// The 32-bit register.
    fn to_word(self) -> u32;
    /// The value from the 32-bit register.
    fn from_word(word: u32) -> Self;
}

impl Word for u32 {
    #[inline(always)]
    fn to_word(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_word(word: u32) -> Self {
        word
    }
}

impl Word for i32 {
    #[inline(always)]
    fn to_word(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_word(word: u32) -> Self {
        word as i32
    }
}

impl Word for f32 {
    #[inline(always)]
    fn to_word(self) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_word(word: u32) -> Self {
        f32::from_bits(word)
    }
}

/// A type with `redux.sync.add`: `u32` (`.u32`) and `i32` (`.s32`).
#[diagnostic::on_unimplemented(
    message = "`redux.sync.add` has no form for `{Self}`: it takes `u32` (.u32) or `i32` (.s32)",
    label = "no `redux.sync.add` for this type",
    note = "for floating-point or 64-bit sums use a `shfl_down` tree"
)]
pub trait ReduxInt: Word {
    /// The instruction type.
    const TYPE: ReduxType;
}

impl ReduxInt for u32 {
    const TYPE: ReduxType = ReduxType::U32;
}

impl ReduxInt for i32 {
    const TYPE: ReduxType = ReduxType::S32;
}

/// A type with `redux.sync.{and,or,xor}.b32`: `u32` and `i32`.
#[diagnostic::on_unimplemented(
    message = "`redux.sync` has no bitwise form for `{Self}`: `.and`, `.or` and `.xor` take 32-bit integers (.b32)",
    label = "not a 32-bit integer"
)]
pub trait ReduxBits: Word {}

impl ReduxBits for u32 {}
impl ReduxBits for i32 {}

/// The instruction type of a `redux.sync.{min,max}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMaxType {
    /// `.u32`
    U32,
    /// `.s32`
    S32,
    /// `.f32` (sm_100a)
    F32,
}

/// A type with `redux.sync.{min,max}`: `u32` (`.u32`), `i32` (`.s32`), and `f32` (sm_100a).
#[diagnostic::on_unimplemented(
    message = "`redux.sync` has no `.min`/`.max` form for `{Self}`: it takes `u32`, `i32` or `f32`",
    label = "no `redux.sync.min`/`.max` for this type"
)]
pub trait ReduxMinMax: Word {
    /// The instruction type.
    const TYPE: MinMaxType;
}

impl ReduxMinMax for u32 {
    const TYPE: MinMaxType = MinMaxType::U32;
}

impl ReduxMinMax for i32 {
    const TYPE: MinMaxType = MinMaxType::S32;
}

impl ReduxMinMax for f32 {
    const TYPE: MinMaxType = MinMaxType::F32;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_of<T: WarpWords>(v: T) -> Vec<u32> {
        let mut w = vec![0; T::WORDS];
        v.to_words(&mut w);
        w
    }

    /// Pairs move their first element in the low word, as two `shfl.sync.b32` of a `u64` would.
    #[test]
    fn pairs_and_arrays_are_their_elements_words() {
        let p = (0x1111_2222u32, -1.5f32);
        assert_eq!(p.to_bits(), 0x1111_2222 | ((-1.5f32).to_bits() as u64) << 32);
        assert_eq!(<(u32, f32)>::from_bits(p.to_bits()), p);
        assert_eq!(<(u32, f32) as WarpValue>::WORDS, 2);
        assert_eq!([7i32, -8].to_bits(), (7i32, -8i32).to_bits());
        assert_eq!(<[f64; 1]>::from_bits(2.5f64.to_bits()), [2.5]);
        assert_eq!(<[u32; 1] as WarpValue>::WORDS, 1);
    }

    #[test]
    fn words_of_every_shape() {
        assert_eq!(words_of(0x0123_4567_89ab_cdefu64), [0x89ab_cdef, 0x0123_4567]);
        assert_eq!(words_of(true), [1]);
        assert_eq!(words_of(-1i8), [0xff]);
        assert_eq!(words_of([1u16, 2, 3]), [1, 2, 3]);
        let t = (1u32, 2u64, [3i32, 4], false);
        assert_eq!(words_of(t), [1, 2, 0, 3, 4, 0]);
        assert_eq!(<(u32, u64, [i32; 2], bool)>::from_words(&words_of(t)), t);
        let f = [f64::NAN, -0.0];
        let back = <[f64; 2]>::from_words(&words_of(f));
        assert_eq!(back.map(f64::to_bits), f.map(f64::to_bits), "payloads and signs survive");
    }

    #[test]
    fn bits_ignore_what_is_above_their_width() {
        assert_eq!(u8::from_raw(0x1_ff), 0xff);
        assert!(bool::from_raw(0b11));
        assert_eq!(i16::from_raw(0xabcd_8000), i16::MIN);
        assert_eq!(low_bits(0), 0);
        assert_eq!(low_bits(17), 0x1_ffff);
        assert_eq!(low_bits(64), u64::MAX);
    }
}
