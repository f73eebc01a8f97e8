//! `vote.sync` (and the deprecated `vote` without `.sync`).
//!
//! - `.all`: "True if source predicate is True for all non-exited threads in membermask."
//! - `.any`: "True if source predicate is True for some thread in membermask."
//! - `.uni`: "True if source predicate has the same value in all non-exited threads in membermask."
//! - `.ballot.b32`: "copies the predicate from each thread in membermask into the corresponding bit
//!   position of destination register d ... A thread not specified in membermask will contribute a 0".
//!
//! The source predicate may be negated (`{!}a`); callers pass predicates already negated.

/// The vote modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all.pred`
    All,
    /// `.any.pred`
    Any,
    /// `.uni.pred`
    Uni,
    /// `.ballot.b32`
    Ballot,
}

impl VoteMode {
    /// The PTX mode and type qualifiers without the leading dot: `all.pred`, ..., `ballot.b32`.
    pub const fn name(self) -> &'static str {
        match self {
            VoteMode::All => "all.pred",
            VoteMode::Any => "any.pred",
            VoteMode::Uni => "uni.pred",
            VoteMode::Ballot => "ballot.b32",
        }
    }
}

/// The result of a vote over `participants` (the non-exited lanes of membermask that execute it)
/// whose source predicates are the bits of `preds`. The same value goes to every participant:
/// `0`/`1` for the predicate modes, the ballot mask for `.ballot`.
#[inline]
pub const fn vote(mode: VoteMode, preds: u32, participants: u32) -> u32 {
    let set = preds & participants;
    match mode {
        VoteMode::All => (set == participants) as u32,
        VoteMode::Any => (set != 0) as u32,
        VoteMode::Uni => (set == 0 || set == participants) as u32,
        VoteMode::Ballot => set,
    }
}
