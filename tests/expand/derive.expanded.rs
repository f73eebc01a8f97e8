use warpkit::prelude::*;
/// Packed into the bits of two words, in declaration order (49 bits).
#[derive(Clone, Copy, WarpValue)]
pub struct Key {
    pub bucket: u16,
    pub flag: bool,
    pub weight: f32,
}
const _: () = ::core::assert!(
    < u16 as ::warpkit::value::WarpBits > ::BITS + < bool as ::warpkit::value::WarpBits >
    ::BITS + < f32 as ::warpkit::value::WarpBits > ::BITS <= 64,
    "`Key` is over 64 bits, the most one warp value moves (two 32-bit shuffles): add `#[warp_value(words)]` to move it as several 32-bit shuffles with `warpkit::shfl_words`, or make its fields smaller"
);
#[automatically_derived]
#[allow(clippy::inline_always)]
impl ::warpkit::value::WarpValue for Key {
    const WORDS: u8 = if <u16 as ::warpkit::value::WarpBits>::BITS
        + <bool as ::warpkit::value::WarpBits>::BITS
        + <f32 as ::warpkit::value::WarpBits>::BITS <= 32
    {
        1
    } else {
        2
    };
    #[inline(always)]
    fn to_bits(self) -> u64 {
        (<u16 as ::warpkit::value::WarpBits>::to_raw(self.bucket)
            & ::warpkit::value::low_bits(<u16 as ::warpkit::value::WarpBits>::BITS))
            .wrapping_shl(0u32)
            | (<bool as ::warpkit::value::WarpBits>::to_raw(self.flag)
                & ::warpkit::value::low_bits(<bool as ::warpkit::value::WarpBits>::BITS))
                .wrapping_shl(<u16 as ::warpkit::value::WarpBits>::BITS)
            | (<f32 as ::warpkit::value::WarpBits>::to_raw(self.weight)
                & ::warpkit::value::low_bits(<f32 as ::warpkit::value::WarpBits>::BITS))
                .wrapping_shl(
                    <u16 as ::warpkit::value::WarpBits>::BITS
                        + <bool as ::warpkit::value::WarpBits>::BITS,
                )
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        Self {
            bucket: <u16 as ::warpkit::value::WarpBits>::from_raw(
                bits.wrapping_shr(0u32),
            ),
            flag: <bool as ::warpkit::value::WarpBits>::from_raw(
                bits.wrapping_shr(<u16 as ::warpkit::value::WarpBits>::BITS),
            ),
            weight: <f32 as ::warpkit::value::WarpBits>::from_raw(
                bits
                    .wrapping_shr(
                        <u16 as ::warpkit::value::WarpBits>::BITS
                            + <bool as ::warpkit::value::WarpBits>::BITS,
                    ),
            ),
        }
    }
}
#[automatically_derived]
#[allow(clippy::inline_always)]
impl ::warpkit::value::WarpBits for Key {
    const BITS: u32 = <u16 as ::warpkit::value::WarpBits>::BITS
        + <bool as ::warpkit::value::WarpBits>::BITS
        + <f32 as ::warpkit::value::WarpBits>::BITS;
    #[inline(always)]
    fn to_raw(self) -> u64 {
        <Self as ::warpkit::value::WarpValue>::to_bits(self)
    }
    #[inline(always)]
    fn from_raw(raw: u64) -> Self {
        <Self as ::warpkit::value::WarpValue>::from_bits(raw)
    }
}
#[automatically_derived]
#[allow(clippy::inline_always)]
impl ::warpkit::value::WarpWords for Key {
    const WORDS: usize = <Self as ::warpkit::value::WarpValue>::WORDS as usize;
    #[inline(always)]
    fn to_words(self, words: &mut [u32]) {
        let [b0, b1, b2, b3, b4, b5, b6, b7] = <Self as ::warpkit::value::WarpValue>::to_bits(
                self,
            )
            .to_le_bytes();
        words[0] = u32::from_le_bytes([b0, b1, b2, b3]);
        if <Self as ::warpkit::value::WarpWords>::WORDS == 2 {
            words[1] = u32::from_le_bytes([b4, b5, b6, b7]);
        }
    }
    #[inline(always)]
    fn from_words(words: &[u32]) -> Self {
        let hi = if <Self as ::warpkit::value::WarpWords>::WORDS == 2 {
            u64::from(words[1]) << 32
        } else {
            0
        };
        <Self as ::warpkit::value::WarpValue>::from_bits(u64::from(words[0]) | hi)
    }
}
/// One whole word per field or more: moved by `warpkit::shfl_words`, a shuffle per word.
#[derive(Clone, Copy, WarpValue)]
#[warp_value(words)]
pub struct Particle(pub [f32; 3], pub u32);
const _: () = ::core::assert!(
    < [f32; 3] as ::warpkit::value::WarpWords > ::WORDS + < u32 as
    ::warpkit::value::WarpWords > ::WORDS <= ::warpkit::value::MAX_WORDS,
    "`Particle` is over 64 bytes (16 words), the most `warpkit::shfl_words` moves: move its parts separately"
);
#[automatically_derived]
#[allow(clippy::inline_always)]
impl ::warpkit::value::WarpWords for Particle {
    const WORDS: usize = <[f32; 3] as ::warpkit::value::WarpWords>::WORDS
        + <u32 as ::warpkit::value::WarpWords>::WORDS;
    #[inline(always)]
    fn to_words(self, words: &mut [u32]) {
        <[f32; 3] as ::warpkit::value::WarpWords>::to_words(
            self.0,
            &mut words[(0usize)..][..<[f32; 3] as ::warpkit::value::WarpWords>::WORDS],
        );
        <u32 as ::warpkit::value::WarpWords>::to_words(
            self.1,
            &mut words[(<[f32; 3] as ::warpkit::value::WarpWords>::WORDS)..][..<u32 as ::warpkit::value::WarpWords>::WORDS],
        );
    }
    #[inline(always)]
    fn from_words(words: &[u32]) -> Self {
        Self(
            <[f32; 3] as ::warpkit::value::WarpWords>::from_words(
                &words[(0usize)..][..<[f32; 3] as ::warpkit::value::WarpWords>::WORDS],
            ),
            <u32 as ::warpkit::value::WarpWords>::from_words(
                &words[(<[f32; 3] as ::warpkit::value::WarpWords>::WORDS)..][..<u32 as ::warpkit::value::WarpWords>::WORDS],
            ),
        )
    }
}
