//! Review of atomics as lane code, last calls and counted `while` loops in warp-wide forms (a
//! helper red-teamed 05d9772..1f5690d; each case here differed between the two forms, or hung,
//! before the fix in the commit that added this file). Every kernel runs both ways and must
//! agree; the counts say which kernels keep the per-lane form.

#![allow(unused_assignments, irrefutable_let_patterns)]

use std::time::Duration;
use warpkit::prelude::*;

#[path = "../../tests/common/both.rs"]
mod both;
use both::both;

fn xs() -> [u32; 32] {
    core::array::from_fn(|l| l as u32 * 3 + 1)
}

/// How many warp-wide runs `f` made.
fn wide(f: impl FnOnce()) -> u64 {
    let before = warpkit::wide_runs();
    f();
    warpkit::wide_runs() - before
}

/// Runs `run` both ways five times (call sites learn in the first runs), each with a fresh
/// 8-word counter, comparing the results and the counters; returns the warp-wide runs of the
/// last round.
fn counters<R: PartialEq + core::fmt::Debug>(run: impl Fn(&Executor, GlobalSlice<'_, u32>) -> Result<[R; 32], WarpError>) -> u64 {
    let round = || {
        let _ = both::compare(
            |ex| {
                let buf = GlobalBuffer::<u32>::zeroed(8);
                let c = buf.slice();
                run(&ex, c).map(|r| (r, buf.to_vec()))
            },
            Executor::new(),
        );
    };
    for _ in 0..4 {
        round();
    }
    wide(round)
}

/// An atomic after the callee's last instruction.
#[warp_kernel]
fn ticket(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> u32 {
    let v = w.shfl_xor(x, 1);
    c.atomic_add(0, 1) ^ (v << 8)
}

/// Atomics on the same counter before and after a call (no lane returns early).
#[warp_kernel]
fn ticket_around_call(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> (u32, u32, u32) {
    let a = c.atomic_add(0, 1);
    let b = ticket(w, x, c);
    let d = c.atomic_add(0, 1);
    (a, b, d)
}

/// An atomic before the callee's first instruction.
#[warp_kernel]
fn ticket_first(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> u32 {
    let t = c.atomic_add(0, 1);
    w.shfl_xor(t ^ (x << 8), 1)
}

#[warp_kernel]
fn before_call(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> (u32, u32) {
    let a = c.atomic_add(0, 1);
    let b = ticket_first(w, x, c);
    (a, b)
}

/// An atomic at the end of a uniform loop body, then one after the loop.
#[warp_kernel]
fn loop_tail(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> (u32, u32, u32) {
    let mut v = x;
    let mut a = 0;
    for _ in 0..2 {
        v = w.shfl_xor(v, 1);
        a = c.atomic_add(0, 1);
    }
    let b = c.atomic_add(0, 1);
    (a, b, w.ballot(v % 2 == 0))
}

/// An atomic at the end of a uniform `if`, then one after it.
#[warp_kernel]
fn if_tail(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> (u32, u32, u32) {
    let mut v = x;
    let mut a = 0;
    if w.warp_index() == 0 {
        v = w.shfl_xor(v, 1);
        a = c.atomic_add(0, 1);
    }
    let b = c.atomic_add(0, 1);
    (a, b, w.ballot(v % 2 == 0))
}

/// `red` only (no returned values): `red.inc` wraps, so the memory left depends on the order.
#[warp_kernel]
fn red_loop_tail(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> u32 {
    let mut v = x;
    for _ in 0..2 {
        v = w.shfl_xor(v, 1);
        c.red_inc(0, 40);
    }
    c.red_add(0, 7);
    w.ballot(v % 2 == 0)
}

/// Atomics within one stretch between two instructions: warp-wide.
#[warp_kernel]
fn one_stretch(w: &Warp, x: u32, c: GlobalSlice<'_, u32>) -> (u32, u32) {
    let v = w.shfl_xor(x, 1);
    let a = c.atomic_add(0, 1);
    let b = c.atomic_cas(1, a, v);
    (a, b ^ w.ballot(a % 2 == 0))
}

/// Lanes with `x % 7 == 3` return; the others vote with the full mask.
#[warp_kernel]
fn early_then_ballot(w: &Warp, x: u32) -> u32 {
    if x % 7 == 3 {
        return x;
    }
    w.ballot(x % 2 == 0) ^ x
}

/// A hand-written `async fn` that goes on to a warp instruction after its kernel call.
async fn hand_then_shfl(w: &Warp<'_>, x: u32) -> u32 {
    let r = early_then_ballot(w, x).await;
    w.shfl_xor(r, 1).await
}

/// Its call is a last call of a kernel (`Calls::new_last`).
#[warp_kernel]
fn last_call_of_hand(w: &Warp, x: u32) -> u32 {
    let y = x.wrapping_add(1);
    hand_then_shfl(w, y)
}

/// The count is changed through a `ref mut` binding to a loaded value.
#[warp_kernel]
fn count_ref_mut(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut seen = 0;
    while seen < 1 {
        if let ref mut r = seen {
            *r = data.load(0);
        }
    }
    w.ballot(seen == 1)
}

/// The count is changed by a destructuring assignment of a loaded value.
#[warp_kernel]
fn count_destructure(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut seen = 0u32;
    while seen < 1 {
        (seen, _) = (data.load(0), 0u32);
    }
    w.ballot(seen == 1)
}

/// The top-level count adds to a shadowing `let`, not to the condition's name (which clippy
/// sees: the condition never changes).
#[allow(clippy::while_immutable_condition)]
#[warp_kernel]
fn count_shadowed(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let turns = 0u32;
    while turns < 4 {
        let mut turns = data.load(0);
        if turns == 1 {
            break;
        }
        turns += 1;
    }
    w.ballot(turns == 0)
}

/// The count never advances (`*= 2` from 0): only the loaded break ends it.
#[warp_kernel]
fn count_doubling(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut t = 0u32;
    while t < 8 {
        if data.load(0) == 1 {
            break;
        }
        t *= 2;
    }
    w.ballot(t == 0)
}

/// The same with an atomic read.
#[warp_kernel]
fn count_doubling_atomic(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut t = 0u32;
    while t < 8 {
        if data.atomic_or(0, 0) == 1 {
            break;
        }
        t *= 2;
    }
    w.ballot(t == 0)
}

/// Lane 0 spins (in a loop that looks counted but whose count never moves) on a flag lane 31
/// sets: it completes on sm_70+ hardware, and per lane, where its loads pause.
#[warp_kernel]
fn lane_waits_doubling(w: &Warp, flag: GlobalSlice<'_, u32>) -> u32 {
    let mut t = 0u32;
    if w.lane_id() == 0 {
        while t < 8 {
            if flag.load(0) == 1 {
                break;
            }
            t *= 2;
        }
    }
    if w.lane_id() == 31 {
        flag.store(0, 1);
    }
    w.ballot(t == 0)
}

/// The same through an atomic.
#[warp_kernel]
fn lane_waits_doubling_atomic(w: &Warp, flag: GlobalSlice<'_, u32>) -> u32 {
    let mut t = 0u32;
    if w.lane_id() == 0 {
        while t < 8 {
            if flag.atomic_or(0, 0) == 1 {
                break;
            }
            t *= 2;
        }
    }
    if w.lane_id() == 31 {
        flag.atomic_exch(0, 1);
    }
    w.ballot(t == 0)
}

/// A uniform `let mut` changed by a destructuring assignment in lane code (its name is per lane).
#[warp_kernel]
fn destructure_uniform(w: &Warp, x: u32) -> u32 {
    let mut n = 0u32;
    if x % 2 == 1 {
        (n, _) = (x, 0u32);
    }
    w.shfl_xor(n, 1)
}

#[warp_kernel]
fn flag_of(w: &Warp, flags: GlobalSlice<'_, u32>, k: usize) -> bool {
    let v = flags.atomic_or(k, 0);
    w.all(v != 0)
}

/// Warp k waits for warp k + 1 (as spin.rs's `warp_waits_for_next`), reading the flag with an
/// atomic in a warp function.
#[warp_kernel]
fn warp_waits_for_next(w: &Warp, flags: GlobalSlice<'_, u32>) {
    let k = w.warp_index() as usize;
    if k + 1 < flags.len() {
        while !flag_of(w, flags, k + 1) {}
    }
    if w.lane_id() == 0 {
        flags.atomic_exch(k, 1);
    }
}


/// An atomic must be the only code of its lanes between two instructions that runs in its own
/// loop over the lanes: a call, or a uniform `if`'s or loop's edge, next to it keeps the kernel
/// per lane (per lane, each lane runs all of that code before the next lane does).
#[test]
fn atomics_next_to_a_call_or_a_uniform_edge_keep_the_per_lane_form() {
    let x = xs();
    assert!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| one_stretch(w, v, c).await)) > 0, "one_stretch");
    assert_eq!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| ticket_around_call(w, v, c).await)), 0, "ticket_around_call");
    assert_eq!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| before_call(w, v, c).await)), 0, "before_call");
    assert_eq!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| loop_tail(w, v, c).await)), 0, "loop_tail");
    assert_eq!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| if_tail(w, v, c).await)), 0, "if_tail");
    assert_eq!(counters(|ex, c| ex.run_with(&x, async move |w: &Warp<'_>, v| red_loop_tail(w, v, c).await)), 0, "red_loop_tail");
}

/// A hand-written `async fn` behind a last call awaits a kernel whose lanes return early, then
/// shuffles: that kernel's offer is not the last call's callee's, so it is declined there, and
/// both forms report the lanes that never reach the shuffle.
#[test]
fn an_offer_behind_a_hand_written_fn_is_not_behind_a_last_call() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    for _ in 0..4 {
        let r = both().run_with(&x, last_call_of_hand);
        assert!(r.as_ref().is_err_and(|e| e.to_string().contains("deadlock")), "{r:?}");
    }
}

/// `while` loops whose turns may wait on memory keep the per-lane form, and a lane's spin in one
/// on another lane's write completes both ways.
#[cfg(unix)]
#[test]
fn loops_that_may_wait_on_memory_keep_the_per_lane_form() {
    let data = GlobalBuffer::<u32>::from_slice(&[1; 4]);
    let d = data.slice();
    let ex = Executor::new().wide(true).races(false);
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| count_ref_mut(w, d).await))), 0, "ref mut");
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| count_destructure(w, d).await))), 0, "destructuring");
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| count_shadowed(w, d).await))), 0, "shadowed");
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| count_doubling(w, d).await))), 0, "doubling");
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| count_doubling_atomic(w, d).await))), 0, "doubling atomic");
    for atomic in [false, true] {
        for on in [false, true] {
            let flag = GlobalBuffer::<u32>::zeroed(1);
            let f = flag.slice();
            let ex = Executor::new().wide(on).races(false).isolated(true).time_limit(Some(Duration::from_secs(20)));
            let r = if atomic {
                ex.run(async |w: &Warp<'_>| lane_waits_doubling_atomic(w, f).await)
            } else {
                ex.run(async |w: &Warp<'_>| lane_waits_doubling(w, f).await)
            };
            assert_eq!(r.map(|v| v[0]), Ok(u32::MAX), "atomic {atomic}, wide {on}");
        }
    }
}

/// Warps wait for each other through an atomic in a warp function that votes: the atomic sits
/// before the callee's first instruction, so the callee keeps the per-lane form, whose atomic
/// lets the other warps run.
#[cfg(unix)]
#[test]
fn a_spin_through_a_callees_atomic_completes() {
    for on in [false, true] {
        let flags = GlobalBuffer::<u32>::zeroed(4);
        let f = flags.slice();
        let r = Grid::new(4 * 32)
            .executor(Executor::new().wide(on))
            .cpu_threads(1)
            .races(false)
            .time_limit(Some(Duration::from_secs(20)))
            .isolated(true)
            .run(async |w: &Warp<'_>| warp_waits_for_next(w, f).await);
        assert!(r.is_ok(), "wide {on}: {r:?}");
        assert_eq!(flags.to_vec(), [1; 4], "wide {on}");
    }
}

/// A uniform `let mut` that lane code changes through a destructuring assignment is per lane.
#[test]
fn a_destructuring_assignment_makes_its_names_per_lane() {
    let x = xs();
    let _ = both().run_with(&x, destructure_uniform);
}

// ---- The review of 1709149 (loops to a slice's length, name steps, early exits): each case
// here hung (a) or differed (b) before the fix in the commit that added it.

/// Runs `f` on a thread of its own and says whether it returned within `limit`: a kernel that
/// spins inside one lane's code never returns to the engine, so no time limit can end it.
fn ends_within<R: Send + 'static>(limit: Duration, f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || drop(tx.send(f())));
    rx.recv_timeout(limit).ok()
}

/// (a) A step that is a name (zero here), the loop leaving on a flag another lane sets, and no
/// warp instruction in the loop: per lane, its loads pause and lane 3 sets the flag; with a
/// form (no pauses) lane 0 would spin in its own code for ever.
#[warp_kernel]
fn flag_by_name_step(w: &Warp, data: GlobalSlice<'_, u32>, step: usize) -> usize {
    if w.lane_id() == 3 {
        data.store(0, 7);
    }
    let mut i = 0;
    while i < data.len() {
        if data.load(0) == 7 {
            break;
        }
        i += step;
    }
    i
}

/// (a) The same with `i += i` (zero from zero): a step the count itself changes.
#[warp_kernel]
fn flag_by_self_step(w: &Warp, data: GlobalSlice<'_, u32>) -> usize {
    if w.lane_id() == 3 {
        data.store(0, 7);
    }
    let mut i = 0;
    while i < data.len() {
        if data.load(0) == 7 {
            break;
        }
        i += i;
    }
    i
}

/// (a) A slice parameter's name bound again (a `Vec` the loop grows until a flag is set): its
/// `len` is not the parameter's.
#[warp_kernel]
fn flag_by_shadowed_len(w: &Warp, data: GlobalSlice<'_, u32>, flag: GlobalSlice<'_, u32>) -> usize {
    if w.lane_id() == 3 {
        flag.store(0, 1);
    }
    let mut data: Vec<u32> = vec![data.load(0)];
    let mut i = 0;
    while i < data.len() {
        if flag.load(0) == 0 {
            data.push(0);
        }
        i += 1;
    }
    i
}

#[test]
fn loops_that_wait_on_another_lane_keep_the_per_lane_form() {
    let limit = Duration::from_secs(60);
    let run = |k: u32| {
        ends_within(limit, move || {
            let buf = GlobalBuffer::<u32>::zeroed(64);
            let flag = GlobalBuffer::<u32>::zeroed(4);
            let (d, f) = (buf.slice(), flag.slice());
            let ex = Executor::new().races(false);
            let before = warpkit::wide_runs();
            let out = match k {
                0 => ex.run(async |w: &Warp<'_>| flag_by_name_step(w, d, 0).await),
                1 => ex.run(async |w: &Warp<'_>| flag_by_self_step(w, d).await),
                _ => ex.run(async |w: &Warp<'_>| flag_by_shadowed_len(w, d, f).await),
            };
            (out.map(|o| o.to_vec()), warpkit::wide_runs() - before)
        })
    };
    for (k, name) in ["a name step", "a step the count changes", "a shadowed slice"].iter().enumerate() {
        let Some((out, forms)) = run(k as u32) else { panic!("{name}: the run did not end within {limit:?}") };
        assert_eq!(forms, 0, "{name}: per lane");
        let out = out.unwrap_or_else(|e| panic!("{name}: {e}"));
        // Lanes 0-2 spin until lane 3 sets the flag (their loads pause): every lane ends.
        assert_eq!(out.len(), 32, "{name}");
    }
}

/// A name step of zero in a loop whose turns reach an instruction: warp-wide, and the time limit
/// ends it both ways (each turn goes through the engine).
#[warp_kernel]
fn vote_by_name_step(w: &Warp, data: GlobalSlice<'_, u32>, step: usize) -> usize {
    let lane = w.lane_id() as usize;
    let mut i = 0;
    while i < data.len() {
        let found = w.any(data.load(lane) == 7);
        if found {
            return i;
        }
        i += step;
    }
    i
}

#[test]
fn a_zero_name_step_ends_at_the_time_limit() {
    let buf = GlobalBuffer::<u32>::zeroed(64);
    let d = buf.slice();
    let ex = Executor::new().races(false).time_limit(Some(Duration::from_millis(300)));
    assert_eq!(wide(|| drop(ex.run(async |w: &Warp<'_>| vote_by_name_step(w, d, 1).await))), 1, "warp-wide");
    for wide in [false, true] {
        let out = ends_within(Duration::from_secs(60), move || {
            let buf = GlobalBuffer::<u32>::zeroed(64);
            let d = buf.slice();
            let r = ex.wide(wide).run(async |w: &Warp<'_>| vote_by_name_step(w, d, 0).await);
            r.map(|o| o.to_vec())
        });
        // (The reports' details say what each form saw: the per-lane steps, or a warp-wide run.)
        let out = out.expect("the time limit ends a loop whose turns reach an instruction");
        assert!(matches!(&out, Err(WarpError::TimeLimit { .. })), "wide {wide}: {out:?}");
    }
}

// (b) A user's trait with a method of an integer method's name on a `bool`: lane code that calls
// it changes the variable, which must then be per lane (an integer's own method cannot).
trait Flip {
    fn count_ones(&mut self) -> u32;
}

impl Flip for bool {
    fn count_ones(&mut self) -> u32 {
        *self = !*self;
        *self as u32
    }
}

#[warp_kernel]
fn flips(w: &Warp, x: u32) -> u32 {
    let mut b = true;
    let v = w.shfl_xor(x, 1);
    let c = b.count_ones() + v;
    w.redux_add(c) + b as u32
}

#[test]
fn a_trait_method_on_a_bool_changes_it_per_lane() {
    let x = xs();
    let out = both().races(false).run_with(&x, flips).unwrap();
    // Each lane flips its own `b` once: 0 + its neighbour's x, summed; then + 0.
    let sum: u32 = (0..32).map(|l| x[l ^ 1]).sum();
    assert_eq!(out, [sum; 32]);
}

/// The loop of `flag_by_name_step` with a warp instruction that only some turns reach: a turn
/// that skips it never goes through the engine, so the kernel keeps the per-lane form.
#[warp_kernel]
fn flag_by_name_step_sometimes_synced(w: &Warp, data: GlobalSlice<'_, u32>, step: usize) -> usize {
    if w.lane_id() == 3 {
        data.store(0, 7);
    }
    let mut i = 0;
    while i < data.len() {
        if data.load(0) == 7 {
            return i;
        }
        if i == 5 {
            w.syncwarp();
        }
        i += step;
    }
    i
}

#[test]
fn a_loop_whose_turns_may_skip_its_instruction_keeps_the_per_lane_form() {
    // Forms on and off: with a form, the per-lane body would not pause at its loads either, and
    // lane 0 would spin before lane 3 sets the flag.
    for wide in [true, false] {
        let out = ends_within(Duration::from_secs(60), move || {
            let buf = GlobalBuffer::<u32>::zeroed(64);
            let d = buf.slice();
            let before = warpkit::wide_runs();
            let out = Executor::new().wide(wide).races(false).run(async |w: &Warp<'_>| flag_by_name_step_sometimes_synced(w, d, 0).await);
            (out.map(|o| o.to_vec()), warpkit::wide_runs() - before)
        });
        let (out, forms) = out.unwrap_or_else(|| panic!("wide {wide}: the run ends (lane 3 sets the flag)"));
        assert_eq!(forms, 0, "wide {wide}");
        assert_eq!(out.unwrap(), vec![0; 32], "wide {wide}");
    }
}
