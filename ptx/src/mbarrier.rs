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
