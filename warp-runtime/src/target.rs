//! The GPU architecture a run models.

use core::fmt;
use core::str::FromStr;

/// The suffix of an architecture name: `sm_90` (none), `sm_90a` (arch-specific), `sm_100f`
/// (family-portable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchSuffix {
    /// No suffix: the feature set every later architecture also has.
    None,
    /// `a`: architecture-specific features of exactly this sm.
    A,
    /// `f`: family-specific features shared by this sm's family.
    F,
}

/// A compute capability the runtime checks instructions against, such as `sm_90` or `sm_100a`.
///
/// The default is `sm_100a`, the lowest target that has every `.sync` instruction of the spec
/// (`redux.sync` on `.f32` with `.abs`/`.NaN` included). The deprecated `vote` without `.sync`
/// exists only below `sm_70`; choose such a target to run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The compute capability times ten: 90 for sm_90.
    pub sm: u32,
    /// The architecture suffix.
    pub suffix: ArchSuffix,
}

impl Default for Target {
    fn default() -> Self {
        Target::SM_100A
    }
}

impl Target {
    /// `sm_60` (Pascal): warps converge; the `.sync` instructions need all of membermask at the
    /// same instruction in convergence.
    pub const SM_60: Target = Target::new(60, ArchSuffix::None);
    /// `sm_70` (Volta): independent thread scheduling, `match.sync`.
    pub const SM_70: Target = Target::new(70, ArchSuffix::None);
    /// `sm_80` (Ampere): `redux.sync` on integers.
    pub const SM_80: Target = Target::new(80, ArchSuffix::None);
    /// `sm_90` (Hopper): `elect.sync`.
    pub const SM_90: Target = Target::new(90, ArchSuffix::None);
    /// `sm_100a` (Blackwell, arch-specific): `redux.sync` on `.f32`, `.abs`, `.NaN`.
    pub const SM_100A: Target = Target::new(100, ArchSuffix::A);

    /// A target from its compute capability times ten and suffix.
    pub const fn new(sm: u32, suffix: ArchSuffix) -> Target {
        Target { sm, suffix }
    }

    /// Whether this target has the sm_70 independent thread scheduling model; below it, the
    /// stricter sm_6x convergence rules apply.
    pub const fn independent_scheduling(self) -> bool {
        self.sm >= 70
    }

    /// Whether this target has `redux.sync ... .f32` and its `.abs`/`.NaN` qualifiers: sm_100a, or
    /// (from PTX ISA 8.8) an `f` or `a` target of the sm_100 family.
    pub const fn has_redux_f32(self) -> bool {
        match self.suffix {
            ArchSuffix::None => false,
            ArchSuffix::A | ArchSuffix::F => self.sm >= 100 && self.sm < 110,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.suffix {
            ArchSuffix::None => "",
            ArchSuffix::A => "a",
            ArchSuffix::F => "f",
        };
        write!(f, "sm_{}{}", self.sm, suffix)
    }
}

/// The error from parsing a [`Target`] that is not of the form `sm_<digits>[a|f]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a target; expected `sm_<number>` with an optional `a` or `f` suffix, such as `sm_90` or `sm_100a`")]
pub struct ParseTargetError(pub String);

impl FromStr for Target {
    type Err = ParseTargetError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseTargetError(s.to_string());
        let rest = s.strip_prefix("sm_").ok_or_else(err)?;
        let (digits, suffix) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], ArchSuffix::A),
            Some(b'f') => (&rest[..rest.len() - 1], ArchSuffix::F),
            _ => (rest, ArchSuffix::None),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let sm = digits.parse().map_err(|_| err())?;
        if sm < 30 {
            return Err(err());
        }
        Ok(Target::new(sm, suffix))
    }
}
