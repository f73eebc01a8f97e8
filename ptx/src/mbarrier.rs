//! `mbarrier` conformance (issue 16): one warp per block runs a program of mbarrier operations
//! on one barrier in its shared memory, and every lane records what each operation returned.
//! The GPU program generates programs that stay defined (every arrival within what is pending,
//! a wait that returns true between phases, states of the current or the previous phase), runs
//! them on the GPU and in the CPU runtime, and compares every word; `cargo xtask ptx` checks that
//! each form is in the PTX.
//!
//! A program is `MBAR_OPS` operations of three words: the operation, the lanes that execute it
//! (a mask: those lanes take the same branch, so on the GPU they execute one instruction), and its
//! operand. `d[(block * MBAR_OPS + k) * 32 + lane]` is lane `lane`'s result of operation `k`
//! (`MBAR_NONE` where the lane did not execute it or the operation returns nothing).

use warpkit::prelude::*;

/// Operations per program.
pub const MBAR_OPS: usize = 24;
/// What a lane records where it has no result.
pub const MBAR_NONE: u32 = 0xdead_0000;

/// `init` with the operand as count.
pub const OP_INIT: u32 = 0;
/// `arrive` (count 1): records nothing (the state is kept for the waits).
pub const OP_ARRIVE: u32 = 1;
/// `arrive.noComplete` with the operand as count: records `pending_count` of its state.
pub const OP_ARRIVE_NO_COMPLETE: u32 = 2;
/// `arrive_drop` (count 1).
pub const OP_ARRIVE_DROP: u32 = 3;
/// `arrive.expect_tx` with the operand as tx-count.
pub const OP_ARRIVE_EXPECT_TX: u32 = 4;
/// `expect_tx` of the operand.
pub const OP_EXPECT_TX: u32 = 5;
/// `complete_tx` of the operand.
pub const OP_COMPLETE_TX: u32 = 6;
/// `test_wait` on the lane's last state: records 0 or 1.
pub const OP_TEST_WAIT: u32 = 7;
/// `test_wait.parity` of the operand: records 0 or 1.
pub const OP_TEST_WAIT_PARITY: u32 = 8;
/// `try_wait.parity` of the operand: records 0 or 1.
pub const OP_TRY_WAIT_PARITY: u32 = 9;
/// `try_wait` on the lane's last state: records 0 or 1.
pub const OP_TRY_WAIT: u32 = 10;
/// `arrive.release.cta` with the operand as count.
pub const OP_ARRIVE_COUNT: u32 = 11;
/// `arrive.relaxed.cluster` with the operand as count.
pub const OP_ARRIVE_RELAXED_CLUSTER: u32 = 12;
/// `arrive_drop.noComplete` with the operand as count: records `pending_count`.
pub const OP_ARRIVE_DROP_NO_COMPLETE: u32 = 13;
/// `try_wait.parity.relaxed.cluster` of the operand: records 0 or 1.
pub const OP_TRY_WAIT_PARITY_RELAXED: u32 = 14;
/// `inval`, then `init` with the operand as count.
pub const OP_REINIT: u32 = 15;
/// `try_wait.parity` of the operand with a `suspendTimeHint` of 1000 ns: records 0 or 1.
pub const OP_TRY_WAIT_PARITY_HINT: u32 = 16;
/// `try_wait` on the lane's last state with a `suspendTimeHint` of 1000 ns: records 0 or 1.
pub const OP_TRY_WAIT_HINT: u32 = 17;

/// Runs block `block_rank`'s program (see the module docs).
#[warp_kernel(entry)]
pub fn conf_mbarrier(w: &Warp, ops: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>) {
    let bar = w.shared_array::<u64, 1>();
    let lane = w.lane_id();
    let case = w.block_rank() as usize;
    let mut state = MbarrierToken(0);
    let mut k = 0;
    while k < MBAR_OPS {
        let at = case * MBAR_OPS + k;
        let (op, mask, x) = (ops.load(3 * at), ops.load(3 * at + 1), ops.load(3 * at + 2));
        let mut r = MBAR_NONE;
        if mask >> lane & 1 == 1 {
            r = run_op(w, bar, op, x, &mut state);
        }
        d.store(at * 32 + lane as usize, r);
        w.syncwarp();
        k += 1;
    }
}

/// One operation (none below sm_80; the sm_90 ones only from sm_90): its result, or
/// `MBAR_NONE`.
#[warp_kernel]
fn run_op(w: &Warp, bar: SharedSlice<'_, u64>, op: u32, x: u32, state: &mut MbarrierToken) -> u32 {
    #[cfg_attr(all(target_arch = "nvptx64", not(target_feature = "sm_80")), allow(unused_mut))]
    let mut r = MBAR_NONE;
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    {
        if op == OP_INIT {
            bar.mbarrier_init(0, x);
        } else if op == OP_ARRIVE {
            *state = bar.mbarrier_arrive(0);
        } else if op == OP_ARRIVE_NO_COMPLETE {
            *state = bar.mbarrier_arrive_no_complete(0, x);
            r = state.pending_count();
        } else if op == OP_ARRIVE_DROP {
            *state = bar.mbarrier_arrive_drop(0);
        } else if op == OP_ARRIVE_DROP_NO_COMPLETE {
            *state = bar.mbarrier_arrive_drop_no_complete(0, x);
            r = state.pending_count();
        } else if op == OP_TEST_WAIT {
            r = bar.mbarrier_test_wait(0, *state) as u32;
        } else if op == OP_REINIT {
            bar.mbarrier_inval(0);
            bar.mbarrier_init(0, x);
        }
    }
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        if op == OP_ARRIVE_EXPECT_TX {
            *state = bar.mbarrier_arrive_expect_tx(0, x);
        } else if op == OP_EXPECT_TX {
            bar.mbarrier_expect_tx(0, x);
        } else if op == OP_COMPLETE_TX {
            bar.mbarrier_complete_tx(0, x);
        } else if op == OP_TEST_WAIT_PARITY {
            r = bar.mbarrier_test_wait_parity(0, x) as u32;
        } else if op == OP_TRY_WAIT_PARITY {
            r = bar.mbarrier_try_wait_parity(0, x) as u32;
        } else if op == OP_TRY_WAIT {
            r = bar.mbarrier_try_wait(0, *state) as u32;
        } else if op == OP_ARRIVE_COUNT {
            *state = bar.mbarrier_arrive_with(0, x, ArriveSem::Release, MbarScope::Cta);
        } else if op == OP_ARRIVE_RELAXED_CLUSTER {
            *state = bar.mbarrier_arrive_with(0, x, ArriveSem::Relaxed, MbarScope::Cluster);
        } else if op == OP_TRY_WAIT_PARITY_RELAXED {
            r = bar.mbarrier_try_wait_parity_with(0, x, WaitSem::Relaxed, MbarScope::Cluster) as u32;
        } else if op == OP_TRY_WAIT_PARITY_HINT {
            r = bar.mbarrier_try_wait_parity_hint(0, x, 1000) as u32;
        } else if op == OP_TRY_WAIT_HINT {
            r = bar.mbarrier_try_wait_hint(0, *state, 1000) as u32;
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
    {
        let _ = (bar, op, x, &state);
    }
    // The handle is this helper's by the macro's rules; its lane id keeps it used everywhere.
    let _ = w.lane_id();
    r
}

/// Elements of `x` per block of `conf_cp_async` (64 threads: 1, 2 and 4 `u32`s each).
pub const CP_X: usize = 448;
/// Elements of `wide` per block (1 and 2 `u64`s each).
pub const CP_WIDE: usize = 192;
/// Words of `d` per thread.
pub const CP_WORDS: usize = 8;

/// `cp.async` (sm_80): each of a block's 64 threads copies 4-, 8- and 16-byte pieces of `x` and
/// `wide` into shared memory. The first batch completes through two mbarriers, one tracking
/// the copies with `cp.async.mbarrier.arrive` (count 64: each thread's tracking adds and takes
/// back one), one with `.noinc` (count 128: each thread's copies are one more arrival); the
/// second through `cp.async.commit_group`, `cp.async.wait_group 0` and `bar.sync`, the third
/// through `cp.async.wait_all`. Each thread then records what its neighbours copied.
#[warp_kernel(entry)]
pub fn conf_cp_async(w: &Warp, x: GlobalSlice<'_, u32>, wide: GlobalSlice<'_, u64>, d: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    {
        let s32 = w.shared_array::<u32, CP_X>();
        let s64 = w.shared_array::<u64, CP_WIDE>();
        let bars = w.shared_array::<u64, 2>();
        let t = w.thread_rank() as usize;
        let (xb, wb) = (w.block_rank() as usize * CP_X, w.block_rank() as usize * CP_WIDE);
        if t == 0 {
            bars.mbarrier_init(0, 64);
            bars.mbarrier_init(1, 128);
        }
        w.sync_threads();
        // Batch 1: 4 bytes of x, 8 of wide; tracked by both barriers.
        s32.cp_async::<1>(t, x, xb + t);
        s64.cp_async::<1>(t, wide, wb + t);
        bars.cp_async_mbarrier_arrive(0);
        bars.cp_async_mbarrier_arrive_noinc(1);
        let s0 = bars.mbarrier_arrive(0);
        let s1 = bars.mbarrier_arrive(1);
        while !bars.mbarrier_test_wait(0, s0) {}
        while !bars.mbarrier_test_wait(1, s1) {}
        let base = (w.block_rank() as usize * 64 + t) * CP_WORDS;
        let n = (t + 1) % 64;
        d.store(base, s32.load(n));
        let v = s64.load(n);
        d.store(base + 1, v as u32);
        d.store(base + 2, (v >> 32) as u32);
        // Batch 2: 8 bytes of x (two u32s), 16 of wide (two u64s); a group.
        s32.cp_async::<2>(64 + 2 * t, x, xb + 64 + 2 * t);
        s64.cp_async::<2>(64 + 2 * t, wide, wb + 64 + 2 * t);
        w.cp_async_commit_group();
        w.cp_async_wait_group::<0>();
        w.sync_threads();
        d.store(base + 3, s32.load(64 + 2 * n + 1));
        d.store(base + 4, s64.load(64 + 2 * n) as u32);
        // Batch 3: 16 bytes of x (four u32s).
        s32.cp_async::<4>(192 + 4 * t, x, xb + 192 + 4 * t);
        w.cp_async_wait_all();
        w.sync_threads();
        d.store(base + 5, s32.load(192 + 4 * n + 3));
        d.store(base + 6, s32.load(192 + 4 * n));
        d.store(base + 7, (s64.load(64 + 2 * n + 1) >> 32) as u32);
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
    {
        let _ = (x, wide, d);
        w.sync_threads();
    }
}
