//! `redux.sync`: reduce a 32-bit register across lanes; every participant receives the result.
//!
//! - `.add/.min/.max` on `.u32`/`.s32`: "For the .add operation result is truncated to 32 bits."
//! - `.and/.or/.xor` on `.b32`.
//! - `.min/.max` on `.f32`: "if the input value is 0.0 then +0.0 > -0.0. If .abs qualifier is
//!   specified, then the absolute value of the input is considered ... If the .NaN qualifier is
//!   specified, then the result ... is canonical NaN if the input ... from any participating thread
//!   is NaN. In the absence of .NaN qualifier, only non-NaN values are considered ... and the result
//!   will be canonical NaN when all inputs are NaNs."

use super::lanes;

/// The bit pattern of PTX's canonical single-precision NaN.
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;

/// Integer and bitwise `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add` (`.u32`/`.s32`), wrapping.
    Add,
    /// `.min` (`.u32`/`.s32`).
    Min,
    /// `.max` (`.u32`/`.s32`).
    Max,
    /// `.and.b32`
    And,
    /// `.or.b32`
    Or,
    /// `.xor.b32`
    Xor,
}

/// The instruction type of an integer `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxType {
    /// `.u32`: unsigned comparison.
    U32,
    /// `.s32`: signed comparison.
    S32,
    /// `.b32`: bitwise operations.
    B32,
}

impl ReduxOp {
    /// The PTX qualifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            ReduxOp::Add => "add",
            ReduxOp::Min => "min",
            ReduxOp::Max => "max",
            ReduxOp::And => "and",
            ReduxOp::Or => "or",
            ReduxOp::Xor => "xor",
        }
    }
    /// Whether PTX has `redux.sync.<self>.<ty>`: arithmetic on `.u32`/`.s32`, bitwise on `.b32`.
    pub const fn valid_for(self, ty: ReduxType) -> bool {
        match self {
            ReduxOp::Add | ReduxOp::Min | ReduxOp::Max => !matches!(ty, ReduxType::B32),
            ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => matches!(ty, ReduxType::B32),
        }
    }
}

impl ReduxType {
    /// The PTX type qualifier without its dot.
    pub const fn name(self) -> &'static str {
        match self {
            ReduxType::U32 => "u32",
            ReduxType::S32 => "s32",
            ReduxType::B32 => "b32",
        }
    }
}

/// The qualifiers of a floating-point `redux.sync.{min,max}{.abs}{.NaN}.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatRedux {
    /// `.max` when true, `.min` when false.
    pub max: bool,
    /// `.abs`: reduce absolute values.
    pub abs: bool,
    /// `.NaN`: any NaN input makes the result the canonical NaN.
    pub nan: bool,
}

/// Integer or bitwise reduction of `src` over `participants` (non-empty).
pub fn redux_int(op: ReduxOp, ty: ReduxType, src: &[u32; 32], participants: u32) -> u32 {
    let mut it = lanes(participants).map(|l| src[l as usize]);
    let first = it.next().unwrap_or(0);
    it.fold(first, |acc, x| match (op, ty) {
        (ReduxOp::Add, _) => acc.wrapping_add(x),
        (ReduxOp::Min, ReduxType::S32) => (acc as i32).min(x as i32) as u32,
        (ReduxOp::Max, ReduxType::S32) => (acc as i32).max(x as i32) as u32,
        (ReduxOp::Min, _) => acc.min(x),
        (ReduxOp::Max, _) => acc.max(x),
        (ReduxOp::And, _) => acc & x,
        (ReduxOp::Or, _) => acc | x,
        (ReduxOp::Xor, _) => acc ^ x,
    })
}

/// Floating-point min/max of `src` (f32 bit patterns) over `participants`, as bits.
pub fn redux_f32(q: FloatRedux, src: &[u32; 32], participants: u32) -> u32 {
    let mut best: Option<f32> = None;
    for lane in lanes(participants) {
        let mut x = f32::from_bits(src[lane as usize]);
        if q.abs {
            x = x.abs();
        }
        if x.is_nan() {
            if q.nan {
                return CANONICAL_NAN_F32;
            }
            continue;
        }
        // `total_cmp` orders -0.0 below +0.0 and agrees with `<` on all other non-NaN values.
        best = Some(match best {
            None => x,
            Some(b) if q.max => {
                if x.total_cmp(&b).is_gt() {
                    x
                } else {
                    b
                }
            }
            Some(b) => {
                if x.total_cmp(&b).is_lt() {
                    x
                } else {
                    b
                }
            }
        });
    }
    best.map_or(CANONICAL_NAN_F32, f32::to_bits)
}
