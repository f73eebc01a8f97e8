//! The handle methods the macro knows, and which of them are suspension points.

/// Handle methods that execute a warp instruction: each returns a future on the host, so the
/// host expansion awaits them.
pub const SUSPENDING: &[&str] = &[
    "shfl",
    "shfl_up",
    "shfl_down",
    "shfl_xor",
    "shfl_idx",
    "shfl_up_pred",
    "shfl_down_pred",
    "shfl_xor_pred",
    "shfl_idx_pred",
    "shfl_up_sync",
    "shfl_down_sync",
    "shfl_xor_sync",
    "shfl_idx_sync",
    "vote",
    "ballot",
    "all",
    "any",
    "uni",
    "none",
    "not_all",
    "vote_legacy",
    "match_any",
    "match_all",
    "redux_add",
    "redux_min",
    "redux_max",
    "redux_and",
    "redux_or",
    "redux_xor",
    "redux_f32",
    "redux_min_abs",
    "redux_max_abs",
    "redux_min_nan",
    "redux_max_nan",
    "redux_min_abs_nan",
    "redux_max_abs_nan",
    "activemask",
    "syncwarp",
    "elect",
];

/// Handle methods that derive another handle (a tile or a membermask group). Not suspension
/// points; a `let` initialised from one binds a handle variable.
pub const DERIVING: &[&str] = &["tile", "group"];

pub fn is_suspending(name: &str) -> bool {
    SUSPENDING.contains(&name)
}

pub fn is_deriving(name: &str) -> bool {
    DERIVING.contains(&name)
}

/// Where an intrinsic takes constant operands that the macro checks.
pub struct ConstArgs {
    /// The index of the shuffle offset / lane operand `b`, which must be in 0..32.
    pub offset: Option<usize>,
    /// The index of a width operand, which must be a power of two in 1..=32.
    pub width: Option<usize>,
}

/// The constant operands of `name`, a handle method.
pub fn const_args(name: &str) -> ConstArgs {
    match name {
        "shfl_up" | "shfl_down" | "shfl_xor" | "shfl_idx" | "shfl_up_pred" | "shfl_down_pred" | "shfl_xor_pred"
        | "shfl_idx_pred" => ConstArgs { offset: Some(1), width: None },
        "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" | "shfl_idx_sync" => {
            ConstArgs { offset: Some(2), width: Some(3) }
        }
        "tile" => ConstArgs { offset: None, width: Some(0) },
        _ => ConstArgs { offset: None, width: None },
    }
}
