//! Conformance kernels: one `extern "ptx-kernel"` entry point per PTX warp instruction.
//!
//! # Launch convention (for the host program, e.g. with cudarc)
//!
//! * Launch a 1-D grid; thread `t = ctaid.x * ntid.x + tid.x` uses element `t` of every array, so
//!   every array holds one element per launched thread (usually 32 threads = one warp, or
//!   `32 * cases` threads for many warps at once). There is no bounds check.
//! * All pointers are device pointers. Inputs are `*const`, outputs `*mut`; `u32` unless stated.
//! * `active[t] == 0`: thread `t` returns before the instruction (it has *exited*, so exited-lane
//!   patterns can be tested), and writes nothing.
//! * `mask[t]`: the `membermask` thread `t` passes to the instruction (may differ per thread).
//! * Outputs: `d[t]` is the destination; `p[t]` is the predicate as `0` / `1`.
//!
//! Each kernel executes exactly one warp instruction (`cargo xtask ptx` checks that in the PTX and
//! the LLVM IR). Every kernel but `conf_bar_warp_sync` and `conf_lane_info` is generated from its
//! row of the instruction table (`warp_runtime::isa`, rows marked `conf yes`): the operands in the
//! row's order, then its results. Kernels whose instruction the target lacks are not compiled for
//! it:
//!
//! | kernels | parameters | target |
//! |---|---|---|
//! | `conf_shfl_sync_{up,down,bfly,idx}` | `(active, a, b, c, mask, d, p)` | all |
//! | `conf_vote_sync_{all,any,uni}` | `(active, pred, mask, d)` (`pred[t] != 0` is true; `d` 0/1) | all |
//! | `conf_vote_sync_ballot` | `(active, pred, mask, d)` | all |
//! | `conf_vote_{all,any,uni,ballot}` | `(active, pred, d)` (deprecated non-`.sync` vote) | below sm_70 only |
//! | `conf_match_any_sync_b32` | `(active, a, mask, d)` | sm_70+ |
//! | `conf_match_any_sync_b64` | `(active, a: *const u64, mask, d)` | sm_70+ |
//! | `conf_match_all_sync_b32` | `(active, a, mask, d, p)` | sm_70+ |
//! | `conf_match_all_sync_b64` | `(active, a: *const u64, mask, d, p)` | sm_70+ |
//! | `conf_redux_sync_{add,min,max}_u32`, `conf_redux_sync_{and,or,xor}_b32` | `(active, src, mask, d)` | sm_80+ |
//! | `conf_redux_sync_{add,min,max}_s32` | `(active, src: *const i32, mask, d: *mut i32)` | sm_80+ |
//! | `conf_redux_sync_{min,max}{_abs}{_nan}_f32` | `(active, src: *const f32, mask, d: *mut f32)` | sm_100a |
//! | `conf_activemask` | `(active, d)` | all |
//! | `conf_bar_warp_sync` | `(active, a, src, mask, scratch, d)`: `scratch[t] = a[t]`, `bar.warp.sync mask[t]`, then `d[t] = scratch[(t & !31) + src[t]]` (`src[t]` a lane number of the same warp) | all |
//! | `conf_elect_sync` | `(active, mask, d, p)` | sm_90+ |
//! | `conf_lane_info` | `(active, d)`: `d[6t..6t+6] = [laneid, lanemask_eq, lt, le, gt, ge]` | all |

use crate::global_thread_index as gid;
use warp_runtime::nvptx as w;

/// The generated kernels: `conf_<row name>`, one per row marked `conf yes`.
pub mod table {
    warp_runtime::isa_rows!(warp_runtime::__isa_conformance);
}

/// `(active, a, src, mask, scratch, d)`: `scratch[t] = a[t]`; `bar.warp.sync mask[t]`;
/// `d[t] = scratch[(t & !31) + src[t]]`. `src[t]` is a lane number (0..32) of the same warp; the
/// read is well defined when that lane is in `mask[t]`, since `bar.warp.sync` orders memory among
/// the threads it synchronizes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn conf_bar_warp_sync(
    active: *const u32,
    a: *const u32,
    src: *const u32,
    mask: *const u32,
    scratch: *mut u32,
    d: *mut u32,
) {
    let t = gid();
    if *active.add(t) == 0 {
        return;
    }
    scratch.add(t).write_volatile(*a.add(t));
    w::bar_warp_sync(*mask.add(t));
    let s = (t & !31) + (*src.add(t) & 31) as usize;
    *d.add(t) = scratch.add(s).read_volatile();
}

/// `(active, d)`: `d[6t..6t+6] = [laneid, lanemask_eq, lanemask_lt, lanemask_le, lanemask_gt,
/// lanemask_ge]`. No warp instruction; it checks the lane numbering the other kernels rely on.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn conf_lane_info(active: *const u32, d: *mut u32) {
    let t = gid();
    if *active.add(t) == 0 {
        return;
    }
    let o = d.add(6 * t);
    *o = w::laneid();
    *o.add(1) = w::lanemask_eq();
    *o.add(2) = w::lanemask_lt();
    *o.add(3) = w::lanemask_le();
    *o.add(4) = w::lanemask_gt();
    *o.add(5) = w::lanemask_ge();
}
