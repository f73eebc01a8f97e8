//! Which Rust types each warp instruction accepts.

use crate::semantics::redux::ReduxType;

/// A 4- or 8-byte value that warp shuffles and `match.sync` move as 32-bit words, as CUDA's
/// `__shfl_*_sync` and `__match_*_sync` do for `int`, `unsigned`, `float`, `long long`, `double`.
///
/// Implement it for a type of your own by converting to and from the bit pattern.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved between lanes: warp shuffles and `match` take 4- or 8-byte values",
    label = "not a 4- or 8-byte warp value",
    note = "`u32`, `i32`, `f32` move as one 32-bit word, `u64`, `i64`, `f64` as two; convert other types to one of these first"
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
