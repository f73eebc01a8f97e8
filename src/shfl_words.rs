//! Shuffles of values of any size up to 64 bytes: one 32-bit `shfl.sync` per word, with the same
//! operands, as CUDA's generic `__shfl_sync` moves a trivially copyable type.
//!
//! The handle's own `w.shfl_*` take 4- and 8-byte [`WarpValue`]s; these
//! functions take any [`WarpWords`] value: a struct with `#[derive(WarpValue)]` and
//! `#[warp_value(words)]`, an array, a tuple. They are warp functions, so a `#[warp_kernel]`
//! calls them with the handle (a tile or group handle too), on the host and on the GPU alike.
//!
//! ```
//! use warpkit::prelude::*;
//! use warpkit::shfl_words;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
//! #[warp_value(words)]
//! struct Particle {
//!     pos: [f32; 3],
//!     id: u32,
//! }
//!
//! /// Every lane gets its neighbour's particle (four 32-bit shuffles).
//! #[warp_kernel]
//! fn neighbour(w: &Warp, p: Particle) -> Particle {
//!     shfl_words::shfl_xor(w, p, 1)
//! }
//!
//! let out = Executor::new()
//!     .run(async |w: &Warp<'_>| {
//!         let l = w.lane_id();
//!         neighbour(w, Particle { pos: [l as f32, 0.5, -1.0], id: 100 + l }).await
//!     })
//!     .unwrap();
//! assert_eq!(out[6], Particle { pos: [7.0, 0.5, -1.0], id: 107 });
//! ```

use crate::prelude::*;
use warp_runtime::value::MAX_WORDS;

/// `shfl.sync.<mode>` of every word of `value` with operands `b` and `c`: the value of the lane
/// each word comes from (all words come from the same lane) and the predicate.
#[warp_kernel]
pub fn shfl<T: WarpWords>(w: &Warp, mode: ShflMode, value: T, b: u32, c: u32) -> (T, bool) {
    let mut words = [0u32; MAX_WORDS];
    value.to_words(&mut words[..T::WORDS]);
    let mut valid = true;
    for word in &mut words[..T::WORDS] {
        let (moved, p) = w.shfl(mode, *word, b, c);
        *word = moved;
        valid = p;
    }
    (T::from_words(&words[..T::WORDS]), valid)
}

/// `shfl_up` of every word: the value of lane `lane - delta` of the segment, or the lane's own.
#[warp_kernel]
pub fn shfl_up<T: WarpWords>(w: &Warp, value: T, delta: u32) -> T {
    let mut words = [0u32; MAX_WORDS];
    value.to_words(&mut words[..T::WORDS]);
    for word in &mut words[..T::WORDS] {
        *word = w.shfl_up(*word, delta);
    }
    T::from_words(&words[..T::WORDS])
}

/// `shfl_down` of every word: the value of lane `lane + delta` of the segment, or the lane's own.
#[warp_kernel]
pub fn shfl_down<T: WarpWords>(w: &Warp, value: T, delta: u32) -> T {
    let mut words = [0u32; MAX_WORDS];
    value.to_words(&mut words[..T::WORDS]);
    for word in &mut words[..T::WORDS] {
        *word = w.shfl_down(*word, delta);
    }
    T::from_words(&words[..T::WORDS])
}

/// `shfl_xor` of every word: the value of lane `lane ^ lane_mask`.
#[warp_kernel]
pub fn shfl_xor<T: WarpWords>(w: &Warp, value: T, lane_mask: u32) -> T {
    let mut words = [0u32; MAX_WORDS];
    value.to_words(&mut words[..T::WORDS]);
    for word in &mut words[..T::WORDS] {
        *word = w.shfl_xor(*word, lane_mask);
    }
    T::from_words(&words[..T::WORDS])
}

/// `shfl_idx` of every word: the value of lane `src_lane` of the segment.
#[warp_kernel]
pub fn shfl_idx<T: WarpWords>(w: &Warp, value: T, src_lane: u32) -> T {
    let mut words = [0u32; MAX_WORDS];
    value.to_words(&mut words[..T::WORDS]);
    for word in &mut words[..T::WORDS] {
        *word = w.shfl_idx(*word, src_lane);
    }
    T::from_words(&words[..T::WORDS])
}
