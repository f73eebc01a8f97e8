//! `mbarrier` objects (PTX ISA 9.7.13.15): the state of one barrier and what each operation does
//! to it, written from the spec's "Contents of the mbarrier object", "Phase Completion of the
//! mbarrier object" and the per-instruction text, with the H100's answers where the spec is
//! silent (DESIGN.md, "Hardware facts for the block level"). Host only: the runtime keeps one
//! [`Mbarrier`] per initialized object and turns each [`MbarFault`] into a report.

/// "Expected arrival count: 1 .. 2^20 - 1"; "Pending arrival count: 0 .. 2^20 - 1";
/// "tx-count: -(2^20 - 1) .. 2^20 - 1".
pub const MAX_COUNT: u32 = (1 << 20) - 1;

/// The state the spec says an mbarrier object holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbarrier {
    /// "The current phase of the mbarrier object": how many phases have completed since `init`.
    pub phase: u64,
    /// "The count of pending arrivals for the current phase."
    pub pending: u32,
    /// "The count of expected arrivals for the next phase" (lowered by `arrive_drop`).
    pub expected: u32,
    /// "The count of pending asynchronous memory operations (or transactions) tracked by the
    /// current phase" (signed: a complete-tx may come before its expect-tx).
    pub tx: i32,
}

/// An operation the spec leaves undefined, found while applying it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarFault {
    /// A count outside `1 ..= 2^20 - 1` for `init`, or over `2^20 - 1` for an arrival.
    CountOutOfRange {
        /// The count.
        count: u32,
    },
    /// An arrive-on whose count exceeds the pending arrivals of the current phase (the H100
    /// traps: "unspecified launch failure").
    TooManyArrivals {
        /// The arrive-on's count.
        count: u32,
        /// What was pending.
        pending: u32,
    },
    /// A `.noComplete` arrival that completed the phase.
    NoCompleteCompleted,
    /// The tx-count left `-(2^20 - 1) ..= 2^20 - 1`.
    TxOutOfRange {
        /// The tx-count the operation would have made.
        tx: i64,
    },
}

/// What an arrival returns: the phase before it (an opaque `state` for `test_wait`), and for a
/// `.noComplete` arrival the pending count before it (for `pending_count`).
///
/// Layout (the spec calls it implementation specific; bit 63 is the H100's): bit 63 the phase's
/// parity, bit 62 set for a `.noComplete` arrival, bits 32..62 the low 30 bits of the phase (for
/// the validity check of `test_wait`), bits 0..20 the pending count before the arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token(pub u64);

const NO_COMPLETE: u64 = 1 << 62;
const PHASE_BITS: u32 = 30;

impl Token {
    /// The state of an arrival in `phase` that saw `pending` arrivals pending.
    pub fn new(phase: u64, pending: u32, no_complete: bool) -> Token {
        let low = phase & ((1 << PHASE_BITS) - 1);
        Token((phase & 1) << 63 | (no_complete as u64) << 62 | low << 32 | (pending & MAX_COUNT) as u64)
    }

    /// The parity of the phase the arrival saw.
    pub fn parity(self) -> u32 {
        (self.0 >> 63) as u32
    }

    /// Whether a `.noComplete` arrival made it.
    pub fn no_complete(self) -> bool {
        self.0 & NO_COMPLETE != 0
    }

    /// "The pending count of the mbarrier object prior to the arrive-on operation from which the
    /// `state` register was obtained."
    pub fn pending(self) -> u32 {
        (self.0 as u32) & MAX_COUNT
    }

    /// How many phases `now` is past the token's phase (modulo 2^30).
    pub fn age(self, now: u64) -> u64 {
        let mask = (1 << PHASE_BITS) - 1;
        now.wrapping_sub((self.0 >> 32) & mask) & mask
    }
}

impl Mbarrier {
    /// `mbarrier.init`: "initializes the current phase to 0, the expected arrival count to
    /// `count`, the pending arrival count to `count` and the tx-count to 0. The valid range of
    /// values for the operand `count` is [1, ..., 2^20 - 1]."
    pub fn init(count: u32) -> Result<Mbarrier, MbarFault> {
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(MbarFault::CountOutOfRange { count });
        }
        Ok(Mbarrier { phase: 0, pending: count, expected: count, tx: 0 })
    }

    /// "The current phase is complete when the pending arrival count has reached zero and the
    /// tx-count has reached zero"; then, atomically, "the mbarrier object transitions to the next
    /// phase" and "the pending arrival count is reinitialized to the expected arrival count". On
    /// the H100 completion is evaluated only inside an operation, once: a phase whose expected
    /// count was dropped to 0 starts with no pending arrivals and is not complete.
    fn maybe_complete(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
            true
        } else {
            false
        }
    }

    fn tx_add(&mut self, delta: i64) -> Result<(), MbarFault> {
        let tx = self.tx as i64 + delta;
        if tx.abs() > MAX_COUNT as i64 {
            return Err(MbarFault::TxOutOfRange { tx });
        }
        self.tx = tx as i32;
        Ok(())
    }

    /// The arrive-on operation with `count`: "decrements the pending arrival count by `count`",
    /// "potentially completing the current phase". Returns whether the phase completed.
    fn arrive_on(&mut self, count: u32) -> Result<bool, MbarFault> {
        if count > MAX_COUNT {
            return Err(MbarFault::CountOutOfRange { count });
        }
        if count > self.pending {
            return Err(MbarFault::TooManyArrivals { count, pending: self.pending });
        }
        if count == 0 {
            // An arrive with count 0 changes nothing on the H100.
            return Ok(false);
        }
        self.pending -= count;
        Ok(self.maybe_complete())
    }

    /// `mbarrier.arrive{.noComplete}` with `count`: the token of the phase before it, and whether
    /// the phase completed.
    pub fn arrive(&mut self, count: u32, no_complete: bool) -> Result<(Token, bool), MbarFault> {
        let token = Token::new(self.phase, self.pending, no_complete);
        let completed = self.arrive_on(count)?;
        if completed && no_complete {
            return Err(MbarFault::NoCompleteCompleted);
        }
        Ok((token, completed))
    }

    /// `mbarrier.arrive_drop`: "Decrements the expected arrival count of the mbarrier object by
    /// the value specified by the 32-bit integer operand count" ("for all the subsequent
    /// phases"), then performs the arrive-on with `count`.
    pub fn arrive_drop(&mut self, count: u32, no_complete: bool) -> Result<(Token, bool), MbarFault> {
        if count > self.expected {
            return Err(MbarFault::TooManyArrivals { count, pending: self.expected.min(self.pending) });
        }
        let before = *self;
        self.expected -= count;
        self.arrive(count, no_complete).inspect_err(|_| *self = before)
    }

    /// `mbarrier.arrive.expect_tx`: "performs an expect-tx operation prior to the arrive-on
    /// operation", with count 1 (`arrive_drop.expect_tx` when `drop`).
    pub fn arrive_expect_tx(&mut self, tx: u32, drop: bool) -> Result<(Token, bool), MbarFault> {
        let before = *self;
        let token = Token::new(self.phase, self.pending, false);
        self.tx_add(tx as i64)?;
        let result = if drop {
            if self.expected == 0 {
                Err(MbarFault::TooManyArrivals { count: 1, pending: 0 })
            } else {
                self.expected -= 1;
                self.arrive_on(1)
            }
        } else {
            self.arrive_on(1)
        };
        match result {
            Ok(completed) => Ok((token, completed)),
            Err(e) => {
                *self = before;
                Err(e)
            }
        }
    }

    /// `mbarrier.expect_tx`: "increases the tx-count of the mbarrier object by the value
    /// specified by txCount". The H100 completes the phase when this brings the tx-count to 0
    /// with no arrivals pending. Returns whether the phase completed.
    pub fn expect_tx(&mut self, tx: u32) -> Result<bool, MbarFault> {
        self.tx_add(tx as i64)?;
        Ok(tx != 0 && self.maybe_complete())
    }

    /// `mbarrier.complete_tx`: "decrements the tx-count of the mbarrier object by the value
    /// specified by txCount", "potentially completing the current phase".
    pub fn complete_tx(&mut self, tx: u32) -> Result<bool, MbarFault> {
        self.tx_add(-(tx as i64))?;
        Ok(tx != 0 && self.maybe_complete())
    }

    /// `test_wait`/`try_wait` with a state: "waitComplete" is true when the phase the state was
    /// taken in has completed. Valid only for the current incomplete phase and the immediately
    /// preceding one: `None` for any other (the H100 reads only the parity and would answer
    /// for the wrong phase).
    pub fn test_wait(&self, token: Token) -> Option<bool> {
        match token.age(self.phase) {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// `test_wait.parity`/`try_wait.parity`: "phaseParity operand specifies the parity of the
    /// current phase or the immediately preceding phase": true when the phase of that parity is
    /// the preceding (completed) one.
    pub fn test_wait_parity(&self, parity: u32) -> bool {
        (self.phase & 1) as u32 != parity & 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_when_arrivals_and_tx_reach_zero() {
        let mut m = Mbarrier::init(3).unwrap();
        assert_eq!(m, Mbarrier { phase: 0, pending: 3, expected: 3, tx: 0 });
        assert!(!m.arrive(1, false).unwrap().1);
        assert!(!m.arrive(1, false).unwrap().1);
        // The last arrival completes phase 0: phase 1 starts with the expected count pending.
        let (t, done) = m.arrive(1, false).unwrap();
        assert!(done);
        assert_eq!((m.phase, m.pending), (1, 3));
        assert_eq!(m.test_wait(t), Some(true));
        assert!(m.test_wait_parity(0) && !m.test_wait_parity(1));
        // A tx-count holds the phase open after the arrivals.
        m.expect_tx(128).unwrap();
        for _ in 0..3 {
            m.arrive(1, false).unwrap();
        }
        assert_eq!((m.phase, m.pending, m.tx), (1, 0, 128));
        assert!(!m.complete_tx(100).unwrap());
        assert!(m.complete_tx(28).unwrap());
        assert_eq!((m.phase, m.pending, m.tx), (2, 3, 0));
    }

    #[test]
    fn init_counts_outside_the_range_are_faults() {
        assert_eq!(Mbarrier::init(0), Err(MbarFault::CountOutOfRange { count: 0 }));
        assert_eq!(Mbarrier::init(1 << 20), Err(MbarFault::CountOutOfRange { count: 1 << 20 }));
        assert!(Mbarrier::init((1 << 20) - 1).is_ok());
    }

    #[test]
    fn more_arrivals_than_pending_is_a_fault_and_count_zero_changes_nothing() {
        let mut m = Mbarrier::init(2).unwrap();
        assert_eq!(m.arrive(3, false), Err(MbarFault::TooManyArrivals { count: 3, pending: 2 }));
        assert_eq!(m, Mbarrier::init(2).unwrap());
        assert!(!m.arrive(0, false).unwrap().1);
        assert_eq!(m.pending, 2);
    }

    #[test]
    fn no_complete_tokens_carry_the_pending_count_and_may_not_complete() {
        // H100 probe: init 1000, lane l arrives .noComplete with l + 1: pending_count of lane l's
        // token is 1000 - sum(j + 1 for j < l).
        let mut m = Mbarrier::init(1000).unwrap();
        let mut sum = 0;
        for l in 0..31u32 {
            let (t, _) = m.arrive(l + 1, true).unwrap();
            assert_eq!(t.pending(), 1000 - sum);
            assert!(t.no_complete());
            sum += l + 1;
        }
        let mut m = Mbarrier::init(1).unwrap();
        assert_eq!(m.arrive(1, true), Err(MbarFault::NoCompleteCompleted));
    }

    #[test]
    fn arrive_drop_lowers_the_expected_count_for_later_phases() {
        let mut m = Mbarrier::init(2).unwrap();
        m.arrive_drop(1, false).unwrap();
        assert_eq!((m.pending, m.expected), (1, 1));
        assert!(m.arrive(1, false).unwrap().1);
        assert_eq!((m.phase, m.pending), (1, 1));
        // H100: dropping the last expected arrival completes the phase, and the next phase has
        // nothing pending yet is not complete; a further arrival is one too many.
        let mut m = Mbarrier::init(1).unwrap();
        assert!(m.arrive_drop(1, false).unwrap().1);
        assert_eq!((m.phase, m.pending, m.expected), (1, 0, 0));
        assert!(m.test_wait_parity(0) && !m.test_wait_parity(1));
        assert_eq!(m.arrive(1, false), Err(MbarFault::TooManyArrivals { count: 1, pending: 0 }));
    }

    #[test]
    fn expect_tx_before_the_arrival_and_a_negative_tx_count() {
        // arrive.expect_tx: the expect-tx happens before the arrive-on, so the phase stays open.
        let mut m = Mbarrier::init(1).unwrap();
        let (t, done) = m.arrive_expect_tx(64, false).unwrap();
        assert!(!done);
        assert_eq!((m.pending, m.tx), (0, 64));
        assert_eq!(m.test_wait(t), Some(false));
        assert!(m.complete_tx(64).unwrap());
        assert_eq!(m.test_wait(t), Some(true));
        // complete_tx may run ahead of expect_tx; on the H100 the expect_tx that brings the
        // tx-count back to 0 with nothing pending completes the phase.
        let mut m = Mbarrier::init(1).unwrap();
        m.complete_tx(16).unwrap();
        m.arrive(1, false).unwrap();
        assert_eq!((m.phase, m.pending, m.tx), (0, 0, -16));
        assert!(m.expect_tx(16).unwrap());
        assert_eq!(m.phase, 1);
        let mut m = Mbarrier::init(1).unwrap();
        assert_eq!(m.expect_tx(MAX_COUNT + 1), Err(MbarFault::TxOutOfRange { tx: (MAX_COUNT + 1) as i64 }));
    }

    #[test]
    fn a_state_two_phases_old_is_not_valid() {
        // H100 probe: tokens t0, t1, t2 of three arrivals on a count-1 barrier; in phase 3, t1
        // is two phases old (its parity is the current one's: the hardware would wait on it).
        let mut m = Mbarrier::init(1).unwrap();
        let t: Vec<Token> = (0..3).map(|_| m.arrive(1, false).unwrap().0).collect();
        assert_eq!(m.phase, 3);
        assert_eq!(m.test_wait(t[2]), Some(true));
        assert_eq!(m.test_wait(t[1]), None);
        assert_eq!(m.test_wait(t[0]), None);
        assert_eq!([t[0].parity(), t[1].parity(), t[2].parity()], [0, 1, 0]);
    }
}
