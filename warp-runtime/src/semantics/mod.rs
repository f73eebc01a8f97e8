//! Pure semantics of the PTX warp instructions (and, host only, of `atom`/`red` in [`atom`]).
//!
//! Each function computes the results of one instruction for all the lanes that take part in it at
//! once, from per-lane operands indexed by lane id and a bit set of participating lanes (bit `i` is
//! lane `i`). Nothing here schedules, waits or reports: the executor decides who participates and
//! turns what these functions say is undefined into reports. Every function is written from the
//! text of the PTX ISA (`shared/spec/`) and quotes the rule it implements.

#[cfg(not(target_arch = "nvptx64"))]
pub mod atom;
pub mod barrier;
pub mod elect;
pub mod lanemask;
pub mod matching;
#[cfg(not(target_arch = "nvptx64"))]
pub mod mbarrier;
pub mod redux;
pub mod shfl;
pub mod vote;

/// Iterates over the set bits of `mask`, lowest first, as lane ids.
#[inline]
pub fn lanes(mut mask: u32) -> impl Iterator<Item = u32> {
    core::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let lane = mask.trailing_zeros();
            mask &= mask - 1;
            Some(lane)
        }
    })
}
