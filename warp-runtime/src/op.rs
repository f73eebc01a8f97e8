//! The identity of a warp instruction: opcode, mode and type.
//!
//! Two lanes execute "the same instruction" when their [`Op`]s are equal, whatever their call
//! sites (the sm_70 rule); below sm_70 the call site must match too, reached through the same
//! warp-function calls (a helper's instruction is one instruction per call, as on a GPU after
//! inlining).

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;

#[cfg(not(target_arch = "nvptx64"))]
use crate::isa::{gate_of, Row};
pub use crate::semantics::barrier::{BarKind, BarRed};
use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
use crate::semantics::shfl::ShflMode;
use crate::semantics::vote::VoteMode;
#[cfg(not(target_arch = "nvptx64"))]
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
    /// A CTA barrier: `bar`/`barrier` `.sync`, `.arrive` or `.red`.
    Bar(BarOp),
}

/// A CTA barrier instruction form (9.7.13.1): `bar{.cta}.<kind>` is `barrier{.cta}.<kind>.aligned`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarOp {
    /// `.sync`, `.arrive` or `.red.<op>`.
    pub kind: BarKind,
    /// `.aligned` (every `bar` form): every thread of the CTA executes the same instruction, and
    /// a warp executes it converged.
    pub aligned: bool,
    /// Whether a thread count `b` is given.
    pub counted: bool,
    /// `.red` with the complemented predicate `!c`.
    pub negate: bool,
}

impl BarOp {
    /// The form with these qualifiers.
    pub const fn new(kind: BarKind, aligned: bool, counted: bool, negate: bool) -> BarOp {
        BarOp { kind, aligned, counted, negate }
    }
}

impl Op {
    /// The instruction a single PTX instruction of this operation is: an 8-byte shuffle is two
    /// `shfl.sync.<mode>.b32`.
    pub const fn per_instruction(self) -> Op {
        match self {
            Op::Shfl { mode, .. } => Op::Shfl { mode, words: 1 },
            other => other,
        }
    }

    /// Whether the instruction waits for the other lanes of its membermask. `activemask` and the
    /// deprecated `vote` act on the lanes that execute them together, without a membermask; CTA
    /// barriers have no membermask (they wait for the warp's non-exited lanes, then for the
    /// barrier's other warps).
    pub const fn synchronizing(self) -> bool {
        !matches!(self, Op::Activemask | Op::VoteLegacy(_) | Op::Bar(_))
    }

    /// Whether this is a CTA barrier, completed by the block scheduler.
    pub const fn is_barrier(self) -> bool {
        matches!(self, Op::Bar(_))
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl Op {
    /// The table row of this instruction (for an 8-byte shuffle, its 32-bit instruction's).
    pub fn row(self) -> Option<&'static Row> {
        Row::of(self)
    }

    /// The lowest target that has this instruction (from the instruction table).
    pub fn min_target(self) -> &'static str {
        gate_of(self).map_or("sm_30", |(gate, _)| gate.min_target())
    }

    /// What the handle executes instead on targets below [`min_target`](Op::min_target), if
    /// anything.
    pub fn fallback(self) -> Option<&'static str> {
        self.row().and_then(|r| r.fallback)
    }

    /// Whether a run for `target` can execute this instruction: the target has it, or the handle
    /// has a fallback for it that computes the same results (as the device handle does).
    #[inline]
    pub fn supported_on(self, target: Target) -> bool {
        match gate_of(self) {
            Some((gate, fallback)) => fallback || gate.holds(target),
            None => true,
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl fmt::Display for Op {
    /// The PTX mnemonic with its qualifiers, as it appears in PTX source (from the instruction
    /// table).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mnemonic = self.row().map_or("?", |r| r.mnemonic);
        match *self {
            Op::Shfl { words, .. } if words > 1 => write!(f, "{mnemonic} (x{words}, an {}-byte value)", 4 * words),
            Op::Bar(b) if b.negate => write!(f, "{mnemonic} (!c)"),
            _ => f.write_str(mnemonic),
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
            Op::Bar(b) => {
                let (kind, red) = match b.kind {
                    BarKind::Sync => (0, 0),
                    BarKind::Arrive => (1, 0),
                    BarKind::Red(r) => (2, r as u32),
                };
                10 | kind << 4 | red << 6 | (b.aligned as u32) << 8 | (b.counted as u32) << 9 | (b.negate as u32) << 10
            }
        }
    }

    /// Whether the instruction of `code` ([`code`](Self::code)) is a CTA barrier, without
    /// decoding it (the engine asks for every waiting lane).
    #[inline(always)]
    pub const fn code_is_barrier(code: u32) -> bool {
        code & 0xf == 10
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
            10 => Op::Bar(BarOp {
                kind: match f4 & 3 {
                    0 => BarKind::Sync,
                    1 => BarKind::Arrive,
                    _ => BarKind::Red(match (code >> 6) & 3 {
                        0 => BarRed::Popc,
                        1 => BarRed::And,
                        _ => BarRed::Or,
                    }),
                },
                aligned: code >> 8 & 1 == 1,
                counted: code >> 9 & 1 == 1,
                negate: code >> 10 & 1 == 1,
            }),
            _ => Op::BarWarpSync,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for kind in [BarKind::Sync, BarKind::Arrive, BarKind::Red(BarRed::Popc), BarKind::Red(BarRed::And), BarKind::Red(BarRed::Or)] {
            for bits in 0..8 {
                all.push(Op::Bar(BarOp::new(kind, bits & 1 == 1, bits & 2 == 2, bits & 4 == 4)));
            }
        }
        for (i, op) in all.iter().enumerate() {
            assert_eq!(Op::from_code(op.code()), *op);
            assert_eq!(Op::code_is_barrier(op.code()), op.is_barrier(), "{op}");
            for other in &all[i + 1..] {
                assert_ne!(op.code(), other.code(), "{op} and {other}");
            }
        }
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;
    use crate::isa::{Kind, ROWS};

    /// Each warp or barrier row names a distinct `Op`, and that `Op` finds its row again: the
    /// instruction table is the one source of mnemonics and gates.
    #[test]
    fn every_row_has_its_own_op() {
        let mut seen = Vec::new();
        for row in ROWS {
            match row.kind {
                Kind::Pure => assert!(row.op.is_none(), "{} is pure but has an Op", row.name),
                Kind::Warp | Kind::Block => {
                    let op = row.op.unwrap_or_else(|| panic!("{} has no Op", row.name));
                    assert!(!seen.contains(&op), "{} repeats {op:?}", row.name);
                    seen.push(op);
                    assert_eq!(Row::of(op).map(|r| r.name), Some(row.name));
                    assert_eq!(op.is_barrier(), row.kind == Kind::Block, "{}", row.name);
                    assert_eq!(Op::from_code(op.code()), op, "{}", row.name);
                    assert_eq!(crate::isa::gate_of(op), Some((row.gate, row.fallback.is_some())), "{}", row.name);
                }
            }
        }
    }

    /// A row's Rust name spells its mnemonic (`redux_sync_min_abs_nan_f32` is
    /// `redux.sync.min.abs.NaN.f32`), so a wrong pairing of name and template shows up here.
    #[test]
    fn row_names_spell_their_mnemonics() {
        for row in ROWS.iter().filter(|r| r.kind != Kind::Pure) {
            let from_name = row.name.replace('_', ".").replace(".nan.", ".NaN.");
            let mnemonic = row.mnemonic.replace(".pred", "").replace(".u32", "").replace(".b32", "").replace(".s32", "").replace(".f32", "").replace(".b64", "");
            let name = from_name
                .trim_end_matches(".not")
                .trim_end_matches(".count")
                .trim_end_matches(".u32")
                .trim_end_matches(".s32")
                .trim_end_matches(".b32")
                .trim_end_matches(".b64")
                .trim_end_matches(".f32");
            assert!(mnemonic.starts_with(name) || name.starts_with(&mnemonic), "{} vs {}", row.name, row.mnemonic);
        }
    }

    #[test]
    fn display_is_the_table_mnemonic() {
        assert_eq!(Op::Shfl { mode: ShflMode::Down, words: 1 }.to_string(), "shfl.sync.down.b32");
        assert_eq!(Op::Shfl { mode: ShflMode::Down, words: 2 }.to_string(), "shfl.sync.down.b32 (x2, an 8-byte value)");
        assert_eq!(Op::Bar(BarOp::new(BarKind::Red(BarRed::Popc), true, false, false)).to_string(), "bar.red.popc.u32");
        assert_eq!(Op::Bar(BarOp::new(BarKind::Sync, false, true, false)).to_string(), "barrier.sync");
        assert_eq!(Op::Redux(ReduxOp::Add, ReduxType::S32).min_target(), "sm_80");
        assert!(Op::Redux(ReduxOp::Add, ReduxType::S32).supported_on(Target::SM_70), "the rank-tree fallback");
        assert!(!Op::MatchAny { b64: false }.supported_on(Target::SM_60));
        assert!(!Op::VoteLegacy(VoteMode::All).supported_on(Target::SM_70));
    }
}
