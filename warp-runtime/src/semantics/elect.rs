//! `elect.sync d|p, membermask`: "elects one predicated active leader thread from among a set of
//! threads specified by membermask. laneid of the elected thread is returned in ... d. The
//! predicate destination p is set to True for the leader thread, and False for all other threads."
//!
//! "Election of a leader thread happens deterministically"; on an H100 the leader is the
//! lowest-numbered lane, which is what this function returns among the active participants.

/// The leader among `participants` (non-empty), and therefore `d` for every participant.
#[inline]
pub const fn leader(participants: u32) -> u32 {
    participants.trailing_zeros()
}
