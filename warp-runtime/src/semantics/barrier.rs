//! `bar`, `barrier` (9.7.13.1): CTA barriers, as pure functions of who arrived.
//!
//! - "Each CTA instance has sixteen barriers numbered `0..15`."
//! - "Operand `b` specifies the number of threads participating in the barrier. If no thread count
//!   is specified, all threads in the CTA participate in the barrier. When specifying a thread
//!   count, the value must be a multiple of the warp size. Note that a non-zero thread count is
//!   required for `barrier{.cta}.arrive`."
//! - "`barrier{.cta}` instruction causes executing thread to wait for all non-exited threads from
//!   its warp and marks warps' arrival at barrier": arrival is counted per warp, 32 threads at a
//!   time (an H100 rounds a partial last warp up to the warp).
//! - "When a barrier completes, the waiting threads are restarted without delay, and the barrier
//!   is reinitialized so that it can be immediately reused."
//! - "`barrier{.cta}.red` performs a reduction operation across threads. The `c` predicate (or its
//!   complement) from all threads in the CTA are combined using the specified reduction operator.
//!   ... The result of `.popc` is the number of threads with a `True` predicate, while `.and` and
//!   `.or` indicate if all the threads had a `True` predicate or if any of the threads had a `True`
//!   predicate." Measured on an H100: only the non-exited threads of the participating warps
//!   contribute.
//!
//! The block scheduler decides who has arrived and reports what the spec leaves undefined; these
//! functions only compute.

/// The number of barriers of a CTA: ids `0..=15`.
pub const BARRIERS: u32 = 16;

/// The warp size, the unit in which a barrier counts arrivals.
pub const WARP_SIZE: u32 = 32;

/// The reduction of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRed {
    /// `.popc.u32`: how many participating threads have a true predicate.
    Popc,
    /// `.and.pred`: whether every participating thread's predicate is true.
    And,
    /// `.or.pred`: whether some participating thread's predicate is true.
    Or,
}

impl BarRed {
    /// The PTX qualifiers without the leading dot: `popc.u32`, `and.pred`, `or.pred`.
    pub const fn name(self) -> &'static str {
        match self {
            BarRed::Popc => "popc.u32",
            BarRed::And => "and.pred",
            BarRed::Or => "or.pred",
        }
    }
}

/// What a CTA barrier instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// `.sync`: arrive and wait for the barrier to complete.
    Sync,
    /// `.arrive`: arrive and go on.
    Arrive,
    /// `.red`: arrive, wait, and receive the reduction of the participants' predicates.
    Red(BarRed),
}

/// `bar.red`'s result, the same for every participating thread, from how many participating
/// (non-exited) threads there are and how many of them have a true predicate (after `!c`).
#[inline]
pub const fn reduce(op: BarRed, threads: u32, true_threads: u32) -> u32 {
    match op {
        BarRed::Popc => true_threads,
        BarRed::And => (true_threads == threads) as u32,
        BarRed::Or => (true_threads != 0) as u32,
    }
}

/// Whether `b` is a thread count the spec allows: "the value must be a multiple of the warp
/// size". `arrive` also needs it non-zero.
#[inline]
pub const fn count_is_valid(b: u32, arrive: bool) -> bool {
    b % WARP_SIZE == 0 && !(arrive && b == 0)
}

/// The threads a barrier waits for: `b` when a count is given, otherwise every thread of the CTA
/// that belongs to a warp which has not exited entirely (`live_warps` warps, counted whole).
#[inline]
pub const fn expected_threads(count: Option<u32>, live_warps: u32) -> u32 {
    match count {
        Some(b) => b,
        None => live_warps * WARP_SIZE,
    }
}

/// The threads that `warps` arrived warps account for: a warp counts as 32 threads, partial or
/// not.
#[inline]
pub const fn arrived_threads(warps: u32) -> u32 {
    warps * WARP_SIZE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "The result of .popc is the number of threads with a True predicate, while .and and .or
    /// indicate if all the threads had a True predicate or if any of the threads had a True
    /// predicate."
    #[test]
    fn reductions_follow_the_spec_text() {
        for threads in [1u32, 31, 32, 33, 1024] {
            for true_threads in [0, 1, threads / 2, threads] {
                assert_eq!(reduce(BarRed::Popc, threads, true_threads), true_threads);
                assert_eq!(reduce(BarRed::And, threads, true_threads) == 1, true_threads == threads);
                assert_eq!(reduce(BarRed::Or, threads, true_threads) == 1, true_threads > 0);
            }
        }
    }

    /// "the value must be a multiple of the warp size ... a non-zero thread count is required for
    /// barrier{.cta}.arrive"
    #[test]
    fn counts_are_multiples_of_the_warp_size() {
        assert!(count_is_valid(64, false) && count_is_valid(64, true));
        assert!(!count_is_valid(48, false) && !count_is_valid(1, true));
        assert!(count_is_valid(0, false) && !count_is_valid(0, true));
    }

    #[test]
    fn arrival_is_counted_in_whole_warps() {
        assert_eq!(expected_threads(None, 3), 96);
        assert_eq!(expected_threads(Some(64), 3), 64);
        assert_eq!(arrived_threads(2), 64);
    }
}
