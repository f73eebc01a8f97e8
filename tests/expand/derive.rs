use warpkit::prelude::*;

/// Packed into the bits of two words, in declaration order (49 bits).
#[derive(Clone, Copy, WarpValue)]
pub struct Key {
    pub bucket: u16,
    pub flag: bool,
    pub weight: f32,
}

/// One whole word per field or more: moved by `warpkit::shfl_words`, a shuffle per word.
#[derive(Clone, Copy, WarpValue)]
#[warp_value(words)]
pub struct Particle(pub [f32; 3], pub u32);
