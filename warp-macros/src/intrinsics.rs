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
    "tensormap_cp_fenceproxy",
    "elect",
    "bar_sync",
    "bar_sync_count",
    "barrier_sync",
    "barrier_sync_count",
    "bar_arrive",
    "barrier_arrive",
    "bar_red",
    "bar_red_count",
    "barrier_red",
    "barrier_red_count",
    "bar_red_popc",
    "bar_red_and",
    "bar_red_or",
    "sync_threads",
    "sync_threads_count",
    "sync_threads_and",
    "sync_threads_or",
];

/// Memory operations that are scheduling points on the host (atomics and volatile loads of
/// `GlobalSlice` and `SharedSlice`): awaited whatever their receiver, since slices reach a
/// kernel in parameters, fields and locals alike.
pub const MEMORY: &[&str] = &[
    "atomic_add",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_inc",
    "atomic_dec",
    "atomic_exch",
    "atomic_cas",
    "atomic_add_with",
    "atomic_min_with",
    "atomic_max_with",
    "atomic_and_with",
    "atomic_or_with",
    "atomic_xor_with",
    "atomic_inc_with",
    "atomic_dec_with",
    "atomic_exch_with",
    "atomic_cas_with",
    "red_add",
    "red_min",
    "red_max",
    "red_and",
    "red_or",
    "red_xor",
    "red_inc",
    "red_dec",
    "red_add_with",
    "red_min_with",
    "red_max_with",
    "red_and_with",
    "red_or_with",
    "red_xor_with",
    "red_inc_with",
    "red_dec_with",
    "atomic_add_vec",
    "atomic_add_vec_with",
    "red_add_vec",
    "red_add_vec_with",
    "atomic_min_vec",
    "atomic_min_vec_with",
    "red_min_vec",
    "red_min_vec_with",
    "atomic_max_vec",
    "atomic_max_vec_with",
    "red_max_vec",
    "red_max_vec_with",
    "load_volatile",
    "load_relaxed",
    "load_acquire",
    "mbarrier_init",
    "mbarrier_inval",
    "mbarrier_arrive",
    "mbarrier_arrive_with",
    "mbarrier_arrive_no_complete",
    "mbarrier_arrive_drop",
    "mbarrier_arrive_drop_no_complete",
    "mbarrier_arrive_expect_tx",
    "mbarrier_expect_tx",
    "mbarrier_complete_tx",
    "mbarrier_test_wait",
    "mbarrier_test_wait_parity",
    "mbarrier_try_wait",
    "mbarrier_try_wait_parity",
    "mbarrier_try_wait_parity_with",
    "mbarrier_try_wait_hint",
    "mbarrier_try_wait_parity_hint",
    "cp_async_bulk",
    "cp_async",
    "cp_async_mbarrier_arrive",
    "cp_async_mbarrier_arrive_noinc",
    "barrier_cluster_arrive",
    "barrier_cluster_arrive_relaxed",
    "barrier_cluster_arrive_aligned",
    "barrier_cluster_arrive_relaxed_aligned",
    "barrier_cluster_wait",
    "barrier_cluster_wait_aligned",
    "cluster_sync",
    "griddepcontrol_launch_dependents",
    "griddepcontrol_wait",
    "mbarrier_arrive_cluster",
    "mbarrier_arrive_expect_tx_cluster",
    "mbarrier_arrive_cluster_with",
    "mbarrier_arrive_drop_cluster_with",
    "mbarrier_expect_tx_cluster",
    "mbarrier_complete_tx_cluster",
    "red_async_add",
    "red_async_min",
    "red_async_max",
    "red_async_inc",
    "red_async_dec",
    "red_async_and",
    "red_async_or",
    "red_async_xor",
    "st_async",
    "clusterlaunchcontrol_try_cancel",
    "clusterlaunchcontrol_try_cancel_multicast",
];

/// Plain loads: a scheduling point every so many on the host (`pauses_load`), so that a lane
/// spinning on a flag another lane or warp sets gives them a turn, as independent thread
/// scheduling does on sm_70+. Any receiver (a slice in a field or a local alike); the wrapper is
/// generic, so another type's `load` is unaffected beyond that.
pub const LOADS: &[&str] = &["load"];

pub fn is_load(name: &str) -> bool {
    LOADS.contains(&name)
}

/// Stores: below sm_70 a scheduling point each (`pauses_lockstep`), so that the lanes of a warp
/// execute each store together, as lockstep hardware does, before any of them goes on; on sm_70+
/// nothing. Any receiver, as for loads.
pub const STORES: &[&str] = &["store", "store_volatile", "store_relaxed", "store_release"];

pub fn is_store(name: &str) -> bool {
    STORES.contains(&name)
}

/// The handle method that declares a static shared array (rewritten into a `.shared` variable on
/// nvptx64).
pub const SHARED_DECL: &str = "shared_array";

/// Handle methods that derive another handle (a tile or a membermask group). Not suspension
/// points; a `let` initialised from one binds a handle variable.
pub const DERIVING: &[&str] = &["tile", "group"];

/// Methods every `Clone` type has that copy a handle where the rewrite cannot follow the copy.
pub const COPYING: &[&str] = &["clone", "to_owned"];

pub fn is_copying(name: &str) -> bool {
    COPYING.contains(&name)
}

pub fn is_suspending(name: &str) -> bool {
    SUSPENDING.contains(&name)
}

pub fn is_deriving(name: &str) -> bool {
    DERIVING.contains(&name)
}

pub fn is_memory(name: &str) -> bool {
    MEMORY.contains(&name)
}

/// The atomics of [`MEMORY`] (`atom`/`red`, not `red.async`): a kernel with a warp-wide form runs
/// them as lane code (`wide::supported`), when none of them could spin.
pub fn is_atomic(name: &str) -> bool {
    is_memory(name) && (name.starts_with("atomic_") || name.starts_with("red_") && !name.starts_with("red_async"))
}

/// The operand whose type the instruction is generic over (a shuffle's or `match`'s value, an
/// integer `redux`'s operand), whose bound is the one that can fail.
pub fn value_arg(name: &str) -> Option<usize> {
    match name {
        "shfl" => Some(1),
        "shfl_up" | "shfl_down" | "shfl_xor" | "shfl_idx" | "shfl_up_pred" | "shfl_down_pred" | "shfl_xor_pred" | "shfl_idx_pred" => Some(0),
        "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" | "shfl_idx_sync" => Some(1),
        "match_any" | "match_all" => Some(0),
        "redux_add" | "redux_min" | "redux_max" | "redux_and" | "redux_or" | "redux_xor" => Some(0),
        _ => None,
    }
}

/// Where an intrinsic takes constant operands that the macro checks.
pub struct ConstArgs {
    /// The index of the shuffle offset / lane operand `b`, which must be in 0..32.
    pub offset: Option<usize>,
    /// The index of a width operand, which must be a power of two in 1..=32.
    pub width: Option<usize>,
    /// The index of a CTA barrier id, which must be in 0..=15.
    pub barrier: Option<usize>,
    /// The index of a barrier thread count, which must be a multiple of 32 (non-zero for
    /// `arrive`) and at most 1024.
    pub count: Option<usize>,
}

/// The constant operands of `name`, a handle method.
pub fn const_args(name: &str) -> ConstArgs {
    let none = ConstArgs { offset: None, width: None, barrier: None, count: None };
    match name {
        "shfl_up" | "shfl_down" | "shfl_xor" | "shfl_idx" | "shfl_up_pred" | "shfl_down_pred" | "shfl_xor_pred"
        | "shfl_idx_pred" => ConstArgs { offset: Some(1), ..none },
        "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" | "shfl_idx_sync" => {
            ConstArgs { offset: Some(2), width: Some(3), ..none }
        }
        "tile" => ConstArgs { width: Some(0), ..none },
        "bar_sync" | "barrier_sync" | "bar_red_popc" | "bar_red_and" | "bar_red_or" => ConstArgs { barrier: Some(0), ..none },
        "bar_sync_count" | "barrier_sync_count" | "bar_arrive" | "barrier_arrive" => {
            ConstArgs { barrier: Some(0), count: Some(1), ..none }
        }
        "bar_red" | "barrier_red" => ConstArgs { barrier: Some(1), ..none },
        "bar_red_count" | "barrier_red_count" => ConstArgs { barrier: Some(1), count: Some(2), ..none },
        _ => none,
    }
}
