//! Kernels with warp instructions under divergent branches.
//!
//! The compiler must keep every warp instruction exactly where it is written: duplicating one into
//! both arms of a branch, hoisting identical ones out of both arms, or sinking one into an arm
//! changes which lanes execute it together. `cargo xtask ptx` counts the instructions of each
//! kernel below in the LLVM IR and the PTX against the counts written in its doc comment
//! (`expect:` lines, read by the xtask).
//!
//! All take `(a, d)`: thread `t` reads `a[t]` and writes `d[t]`; launch one or more full warps.

use crate::global_thread_index as gid;
use warp_runtime::nvptx as w;

const FULL: u32 = 0xffff_ffff;

/// Lanes 0..16 shuffle down by 1 among themselves, lanes 16..32 by 2 among themselves.
///
/// expect: shfl.sync.down=2
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_shfl_branch(a: *const u32, d: *mut u32) {
    let t = gid();
    let v = *a.add(t);
    let r = if w::laneid() < 16 {
        w::shfl_sync_down(v, 1, 0x1f, 0x0000_ffff).0
    } else {
        w::shfl_sync_down(v, 2, 0x1f, 0xffff_0000).0
    };
    *d.add(t) = r;
}

/// The rust-lang/rust#137086 shape: a branch on `c`, a full-warp shuffle where the arms have merged,
/// then a second branch on the same `c`. Jump threading would copy the shuffle into both arms so
/// that each copy runs with half the warp (undefined, and a hang on hardware).
///
/// expect: shfl.sync.bfly=1
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_jump_thread(a: *const u32, d: *mut u32) {
    let t = gid();
    let v = *a.add(t);
    let c = w::laneid() < 16;
    let x = if c { v } else { v.wrapping_add(1) };
    let (s, _) = w::shfl_sync_bfly(x, 1, 0x1f, FULL);
    *d.add(t) = if c { s } else { s.wrapping_mul(3) };
}

/// Identical `activemask` in both arms: hoisting them into one before the branch would return the
/// full warp instead of the lanes of each arm.
///
/// expect: activemask=2
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_activemask_branch(a: *const u32, d: *mut u32) {
    let t = gid();
    let m = if *a.add(t) % 3 == 0 {
        w::activemask()
    } else {
        w::activemask()
    };
    *d.add(t) = m;
}

/// Identical `activemask` + `shfl.sync.down` code in both arms (each arm shuffles among its own
/// lanes): must stay two of each.
///
/// expect: activemask=2 shfl.sync.down=2
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_hoist_shfl(a: *const u32, d: *mut u32) {
    let t = gid();
    let v = *a.add(t);
    let r = if v & 1 == 0 {
        let m = w::activemask();
        w::shfl_sync_down(v, 1, 0x1f, m).0
    } else {
        let m = w::activemask();
        w::shfl_sync_down(v, 1, 0x1f, m).0
    };
    *d.add(t) = r;
}

/// Two textually identical arms (same operands, mask computed before the branch): MIR saw them as
/// one block and merged them unless `MatchBranchSimplification` is off.
///
/// expect: shfl.sync.down=2
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_same_arms(a: *const u32, d: *mut u32) {
    let t = gid();
    let v = *a.add(t);
    let lane = w::laneid();
    let m = 0x0000_ffff_u32 << (lane & 16);
    let r = if lane < 16 {
        w::shfl_sync_down(v, 1, 0x1f, m).0
    } else {
        w::shfl_sync_down(v, 1, 0x1f, m).0
    };
    *d.add(t) = r;
}

/// Different code, then an identical-looking `shfl.sync` at the end of both arms: sinking them into
/// one after the merge point would make the whole warp execute it.
///
/// expect: activemask=2 shfl.sync.down=2
#[no_mangle]
pub unsafe extern "ptx-kernel" fn div_sink_shfl(a: *const u32, d: *mut u32) {
    let t = gid();
    let v = *a.add(t);
    let r = if v & 1 == 0 {
        let x = v.wrapping_add(7);
        w::shfl_sync_down(x, 1, 0x1f, w::activemask()).0
    } else {
        let x = v.wrapping_mul(3);
        w::shfl_sync_down(x, 1, 0x1f, w::activemask()).0
    };
    *d.add(t) = r;
}
