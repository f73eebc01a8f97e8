//! The identity of a warp instruction: opcode, mode and type.
//!
//! Two lanes execute "the same instruction" when their [`Op`]s are equal, whatever their call
//! sites (the sm_70 rule); below sm_70 the call site must match too.

use core::fmt;

use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
use crate::semantics::shfl::ShflMode;
use crate::semantics::vote::VoteMode;
use crate::target::Target;

/// A warp instruction with its qualifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `shfl.sync.<mode>.b32`, once per 32-bit word of the value (`words` is 1 or 2).
    Shfl {
        /// The mode.
        mode: ShflMode,
        /// How many 32-bit `shfl.sync` instructions move the value (2 for 8-byte types).
        words: u8,
    },
    /// `vote.sync.<mode>`.
    Vote(VoteMode),
    /// The deprecated `vote.<mode>` without `.sync`.
    VoteLegacy(VoteMode),
    /// `match.any.sync.b32` / `.b64`.
    MatchAny {
        /// `.b64` when true.
        b64: bool,
    },
    /// `match.all.sync.b32` / `.b64`.
    MatchAll {
        /// `.b64` when true.
        b64: bool,
    },
    /// `redux.sync.<op>.<type>` on integers.
    Redux(ReduxOp, ReduxType),
    /// `redux.sync.<min|max>{.abs}{.NaN}.f32`.
    ReduxF32(FloatRedux),
    /// `activemask.b32`.
    Activemask,
    /// `bar.warp.sync`.
    BarWarpSync,
    /// `elect.sync`.
    Elect,
}

impl Op {
    /// The lowest target that has this instruction, or `None` when every target with
    /// independent thread scheduling lacks it (the deprecated `vote`).
    pub fn min_target(self) -> &'static str {
        match self {
            Op::MatchAny { .. } | Op::MatchAll { .. } => "sm_70",
            Op::Redux(..) => "sm_80",
            Op::Elect => "sm_90",
            Op::ReduxF32(_) => "sm_100a",
            _ => "sm_30",
        }
    }

    /// Whether `target` has this instruction.
    #[inline]
    pub fn supported_on(self, target: Target) -> bool {
        match self {
            Op::VoteLegacy(_) => !target.independent_scheduling(),
            Op::MatchAny { .. } | Op::MatchAll { .. } => target.sm >= 70,
            Op::Redux(..) => target.sm >= 80,
            Op::Elect => target.sm >= 90,
            Op::ReduxF32(_) => target.has_redux_f32(),
            _ => true,
        }
    }

    /// Whether the instruction waits for the other lanes of its membermask. `activemask` and the
    /// deprecated `vote` act on the lanes that execute them together, without a membermask.
    pub const fn synchronizing(self) -> bool {
        !matches!(self, Op::Activemask | Op::VoteLegacy(_))
    }
}

impl fmt::Display for Op {
    /// The PTX mnemonic with its qualifiers, as it appears in PTX source.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Op::Shfl { mode, words: 1 } => write!(f, "shfl.sync.{}.b32", mode.name()),
            Op::Shfl { mode, words } => write!(f, "shfl.sync.{}.b32 (x{words}, an {}-byte value)", mode.name(), 4 * words),
            Op::Vote(mode) => write!(f, "vote.sync.{}", mode.name()),
            Op::VoteLegacy(mode) => write!(f, "vote.{}", mode.name()),
            Op::MatchAny { b64 } => write!(f, "match.any.sync.{}", if b64 { "b64" } else { "b32" }),
            Op::MatchAll { b64 } => write!(f, "match.all.sync.{}", if b64 { "b64" } else { "b32" }),
            Op::Redux(op, ty) => write!(f, "redux.sync.{}.{}", op.name(), ty.name()),
            Op::ReduxF32(q) => write!(
                f,
                "redux.sync.{}{}{}.f32",
                if q.max { "max" } else { "min" },
                if q.abs { ".abs" } else { "" },
                if q.nan { ".NaN" } else { "" }
            ),
            Op::Activemask => f.write_str("activemask.b32"),
            Op::BarWarpSync => f.write_str("bar.warp.sync"),
            Op::Elect => f.write_str("elect.sync"),
        }
    }
}

impl Op {
    /// A 32-bit code that identifies the instruction (equal codes, equal instructions), so that
    /// the executor can keep the instructions of 32 lanes in one array and compare them at once.
    #[inline(always)]
    pub const fn code(self) -> u32 {
        match self {
            Op::Shfl { mode, words } => (mode as u32) << 4 | (words as u32) << 8,
            Op::Vote(mode) => 1 | (mode as u32) << 4,
            Op::VoteLegacy(mode) => 2 | (mode as u32) << 4,
            Op::MatchAny { b64 } => 3 | (b64 as u32) << 4,
            Op::MatchAll { b64 } => 4 | (b64 as u32) << 4,
            Op::Redux(op, ty) => 5 | (op as u32) << 4 | (ty as u32) << 8,
            Op::ReduxF32(q) => 6 | (q.max as u32) << 4 | (q.abs as u32) << 5 | (q.nan as u32) << 6,
            Op::Activemask => 7,
            Op::BarWarpSync => 8,
            Op::Elect => 9,
        }
    }

    /// The instruction with this [`code`](Op::code). Codes not made by `code` give `bar.warp.sync`.
    #[inline]
    pub const fn from_code(code: u32) -> Op {
        use crate::semantics::redux::{ReduxOp as R, ReduxType as T};
        use crate::semantics::shfl::ShflMode as S;
        use crate::semantics::vote::VoteMode as V;
        let f4 = (code >> 4) & 0xf;
        let vote = match f4 & 3 {
            0 => V::All,
            1 => V::Any,
            2 => V::Uni,
            _ => V::Ballot,
        };
        match code & 0xf {
            0 => Op::Shfl {
                mode: match f4 & 3 {
                    0 => S::Up,
                    1 => S::Down,
                    2 => S::Bfly,
                    _ => S::Idx,
                },
                words: ((code >> 8) & 0xf) as u8,
            },
            1 => Op::Vote(vote),
            2 => Op::VoteLegacy(vote),
            3 => Op::MatchAny { b64: f4 & 1 == 1 },
            4 => Op::MatchAll { b64: f4 & 1 == 1 },
            5 => Op::Redux(
                match f4 {
                    0 => R::Add,
                    1 => R::Min,
                    2 => R::Max,
                    3 => R::And,
                    4 => R::Or,
                    _ => R::Xor,
                },
                match (code >> 8) & 0xf {
                    0 => T::U32,
                    1 => T::S32,
                    _ => T::B32,
                },
            ),
            6 => Op::ReduxF32(crate::semantics::redux::FloatRedux { max: f4 & 1 == 1, abs: f4 & 2 == 2, nan: f4 & 4 == 4 }),
            7 => Op::Activemask,
            9 => Op::Elect,
            _ => Op::BarWarpSync,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
    use crate::semantics::shfl::ShflMode;
    use crate::semantics::vote::VoteMode;

    /// Every instruction survives `code` -> `from_code`, and distinct instructions get distinct codes.
    #[test]
    fn codes_round_trip_and_are_distinct() {
        let mut all = Vec::new();
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            all.extend([Op::Shfl { mode, words: 1 }, Op::Shfl { mode, words: 2 }]);
        }
        for mode in [VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot] {
            all.extend([Op::Vote(mode), Op::VoteLegacy(mode)]);
        }
        for b64 in [false, true] {
            all.extend([Op::MatchAny { b64 }, Op::MatchAll { b64 }]);
        }
        for op in [ReduxOp::Add, ReduxOp::Min, ReduxOp::Max, ReduxOp::And, ReduxOp::Or, ReduxOp::Xor] {
            for ty in [ReduxType::U32, ReduxType::S32, ReduxType::B32] {
                all.push(Op::Redux(op, ty));
            }
        }
        for bits in 0..8 {
            all.push(Op::ReduxF32(FloatRedux { max: bits & 1 == 1, abs: bits & 2 == 2, nan: bits & 4 == 4 }));
        }
        all.extend([Op::Activemask, Op::BarWarpSync, Op::Elect]);
        for (i, op) in all.iter().enumerate() {
            assert_eq!(Op::from_code(op.code()), *op);
            for other in &all[i + 1..] {
                assert_ne!(op.code(), other.code(), "{op} and {other}");
            }
        }
    }
}
