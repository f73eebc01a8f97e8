//! `match.sync`: broadcast and compare a value across lanes.
//!
//! - `.any`: "d is set to mask of non-exited threads in membermask that have same value of operand a."
//! - `.all`: "d is set to mask corresponding to non-exited threads in membermask if all non-exited
//!   threads in membermask have same value of operand a; otherwise d is set to 0. Optionally
//!   predicate p is set to true if all ... have same value of operand a; otherwise p is set to false."
//!
//! Values are compared on all bits of the instruction type: `.b32` callers pass zero-extended
//! words, `.b64` callers the full 64 bits.

use super::lanes;

/// `match.any.sync`: for every participant, the set of participants holding the same value.
pub fn match_any(a: &[u64; 32], participants: u32) -> [u32; 32] {
    let mut d = [0u32; 32];
    let mut left = participants;
    while left != 0 {
        let value = a[left.trailing_zeros() as usize];
        // The lanes holding `value` among those left: every lane compared, without a branch (the
        // compiler vectorizes it), then masked.
        let same = a.iter().enumerate().fold(0u32, |m, (l, &x)| m | ((x == value) as u32) << l) & left;
        for lane in lanes(same) {
            d[lane as usize] = same;
        }
        left &= !same;
    }
    d
}

/// `match.all.sync`: `(d, p)`, the same for every participant.
pub fn match_all(a: &[u64; 32], participants: u32) -> (u32, bool) {
    if participants == 0 {
        return (0, true);
    }
    let value = a[participants.trailing_zeros() as usize];
    let all = super::lanes(participants).all(|lane| a[lane as usize] == value);
    if all {
        (participants, true)
    } else {
        (0, false)
    }
}
