//! CTA barriers (PTX ISA 9.7.13.1, `bar`/`barrier`): every form, litmus style, each test named
//! for the rule it checks; and every undefined case of the section reported with its rule.
//!
//! Kernels here use the runtime directly (async closures, `.await` written out).

use proptest::prelude::*;
use warp_runtime::{BarRed, BarrierRule, Executor, GlobalBuffer, Grid, LaneState, Schedule, Target, Warp, WarpError};

/// The rule of a barrier report, or a panic showing the error.
fn rule(err: &WarpError) -> BarrierRule {
    match err {
        WarpError::Barrier { rule, .. } => *rule,
        other => panic!("expected a barrier report, got: {other}"),
    }
}

fn detail(err: &WarpError) -> &str {
    match err {
        WarpError::Barrier { detail, .. } => detail,
        other => panic!("expected a barrier report, got: {other}"),
    }
}

// ---- completion ----

/// "bar.sync ... wait for all threads in CTA to also arrive": a write before the barrier is seen
/// by every thread of the block after it, across warps.
#[test]
fn bar_sync_orders_shared_memory_across_warps() {
    let out = Grid::blocks(2, 96)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 96>();
            let t = w.thread_rank() as usize;
            s.store(t, 1000 * w.ctaid().x + t as u32);
            w.sync_threads().await;
            s.load((t + 33) % 96)
        })
        .unwrap();
    for b in 0..2u32 {
        for t in 0..96u32 {
            assert_eq!(out[(96 * b + t) as usize], 1000 * b + (t + 33) % 96);
        }
    }
}

/// "If no thread count is specified, all threads in the CTA participate": and a thread that has
/// exited does not count (measured on an H100), so an early return before `__syncthreads` does
/// not hang the others.
#[test]
fn exited_threads_are_not_counted() {
    for block in [64u32, 70, 96, 128] {
        let out = Grid::blocks(1, block)
            .map(async |w: &Warp<'_>| {
                let s = w.shared_array::<u32, 128>();
                let t = w.thread_rank();
                if t >= 50 {
                    return None; // threads 50.. (and warps 2.. entirely) exit first
                }
                s.store(t as usize, t * 3);
                w.sync_threads().await;
                Some(s.load(((t + 1) % 50) as usize))
            })
            .unwrap();
        for t in 0..block {
            let want = (t < 50).then_some(((t + 1) % 50) * 3);
            assert_eq!(out[t as usize], want, "block {block}, thread {t}");
        }
    }
}

/// "When a barrier completes, the waiting threads are restarted without delay, and the barrier is
/// reinitialized so that it can be immediately reused."
#[test]
fn a_barrier_is_reusable_right_after_it_completes() {
    let rounds = 20u32;
    let out = Grid::blocks(1, 128)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 128>();
            let t = w.thread_rank() as usize;
            let mut acc = 0u32;
            for i in 0..rounds {
                s.store(t, i * 1000 + t as u32);
                w.sync_threads().await;
                acc = acc.wrapping_add(s.load((t + 1 + i as usize) % 128));
                w.sync_threads().await;
            }
            acc
        })
        .unwrap();
    for t in 0..128u32 {
        let want = (0..rounds).fold(0u32, |a, i| a.wrapping_add(i * 1000 + (t + 1 + i) % 128));
        assert_eq!(out[t as usize], want);
    }
}

/// A counted barrier completes when `b` threads have arrived, a whole warp at a time: two pairs of
/// warps synchronize on barriers 1 and 2 independently, and a count that covers a partial last
/// warp rounds up to the warp (measured on an H100).
#[test]
fn a_counted_barrier_completes_at_its_count() {
    let out = Grid::blocks(1, 128)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 128>();
            let t = w.thread_rank() as usize;
            s.store(t, t as u32);
            let pair = w.warp_in_block() / 2;
            w.bar_sync_count(1 + pair, 64).await;
            // Read the other warp of the pair.
            s.load(t ^ 32)
        })
        .unwrap();
    assert!((0..128).all(|t| out[t] == (t ^ 32) as u32));

    // 48 threads: warp 1 has 16 lanes, and a count of 64 covers both warps.
    let out = Grid::blocks(1, 48)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 48>();
            let t = w.thread_rank() as usize;
            s.store(t, 7 * t as u32);
            w.bar_sync_count(3, 64).await;
            s.load(47 - t)
        })
        .unwrap();
    assert!((0..48).all(|t| out[t] == 7 * (47 - t) as u32));
}

/// The spec's producer/consumer model: "The producer threads execute barrier.arrive to announce
/// their arrival at the barrier and continue execution without delay to produce the next value,
/// while the consumer threads execute barrier.sync to wait for a resource to be produced. The
/// roles are then reversed, using a different barrier."
#[test]
fn producer_and_consumer_on_two_named_barriers() {
    let items = 16u32;
    let received = GlobalBuffer::<u32>::zeroed(32 * items as usize);
    let r = received.slice();
    Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            let slot = w.shared_array::<u32, 32>();
            let lane = w.lane_id() as usize;
            if w.warp_in_block() == 0 {
                // Producer.
                for k in 0..items {
                    if k > 0 {
                        w.bar_sync_count(1, 64).await; // wait until the slot was consumed
                    }
                    slot.store(lane, k * 100 + lane as u32);
                    w.bar_arrive(0, 64).await; // produced
                }
            } else {
                // Consumer.
                for k in 0..items {
                    w.bar_sync_count(0, 64).await; // wait for a value
                    r.store(k as usize * 32 + lane, slot.load(lane));
                    if k + 1 < items {
                        w.bar_arrive(1, 64).await; // consumed
                    }
                }
            }
        })
        .unwrap();
    let want: Vec<u32> = (0..items).flat_map(|k| (0..32).map(move |l| k * 100 + l)).collect();
    assert_eq!(received.to_vec(), want);
}

/// "barrier{.cta} instruction causes executing thread to wait for all non-exited threads from
/// its warp": lanes that reach the barrier first wait for the rest of their warp, which may
/// first complete warp instructions of its own.
#[test]
fn a_warp_arrives_when_all_its_non_exited_lanes_have() {
    let out = Grid::blocks(1, 64)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            s.store(t, t as u32);
            if w.lane_id() >= 16 {
                // These lanes shuffle among themselves before reaching the barrier.
                let v = w.group(0xffff_0000).shfl_xor(t as u32, 1).await;
                s.store(t, v);
            }
            w.barrier_sync(0).await;
            s.load(63 - t)
        })
        .unwrap();
    for t in 0..64usize {
        let u = 63 - t;
        let want = if u % 32 >= 16 { (u ^ 1) as u32 } else { u as u32 };
        assert_eq!(out[t], want, "thread {t}");
    }
}

/// Without `.aligned`, the threads of a warp may reach the barrier from different instructions
/// (sm_70 and later): a `barrier.sync` in both arms of a divergent branch.
#[test]
fn a_non_aligned_barrier_may_be_reached_from_divergent_branches() {
    let out = Grid::blocks(1, 96)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 96>();
            let t = w.thread_rank() as usize;
            if t % 3 == 0 {
                s.store(t, 1);
                w.barrier_sync(5).await;
            } else {
                s.store(t, 2);
                w.barrier_sync(5).await;
            }
            (0..96).map(|i| s.load(i)).sum::<u32>()
        })
        .unwrap();
    assert!(out.iter().all(|&v| v == 32 + 2 * 64));
}

/// A warp alone (the single-warp executor) is a block of one warp: `bar.sync` completes when its
/// non-exited lanes arrive.
#[test]
fn a_single_warp_is_a_block_of_one_warp() {
    let out = Executor::new()
        .run_partial(0x00ff_ffff, async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            s.store(w.lane_id() as usize, w.lane_id() * 2);
            w.sync_threads().await;
            w.sync_threads_count(w.lane_id() % 3 == 0).await + s.load(23 - w.lane_id() as usize)
        })
        .unwrap();
    // 24 lanes launched; lanes 0, 3, .., 21: 8 of them.
    assert_eq!(out[0], Some(8 + 46));
    assert_eq!(out[23], Some(8));
    assert_eq!(out[24], None);
}

// ---- bar.red ----

/// The reference for `bar.red`: "The result of .popc is the number of threads with a True
/// predicate, while .and and .or indicate if all the threads had a True predicate or if any of the
/// threads had a True predicate", over the threads that take part (not exited).
fn red_reference(op: BarRed, preds: &[bool]) -> u32 {
    let n = preds.iter().filter(|&&p| p).count() as u32;
    match op {
        BarRed::Popc => n,
        BarRed::And => (n == preds.len() as u32) as u32,
        BarRed::Or => (n > 0) as u32,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `bar.red` on random predicates, block sizes (partial warps included), exited threads,
    /// `!c`, with and without a thread count, aligned and not: every thread that takes part gets
    /// the reduction over the non-exited threads.
    #[test]
    fn bar_red_reduces_the_predicates_of_the_non_exited_threads(
        block in 1u32..=256,
        seed in any::<u64>(),
        exit_percent in prop_oneof![Just(0u64), 0u64..60],
        op in prop_oneof![Just(BarRed::Popc), Just(BarRed::And), Just(BarRed::Or)],
        negate in any::<bool>(),
        aligned in any::<bool>(),
        counted in any::<bool>(),
        bias in prop_oneof![Just(0u64), Just(100u64), 0u64..100],
    ) {
        let hash = |t: u32, k: u64| (seed ^ (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k).wrapping_mul(0xbf58_476d_1ce4_e5b9) >> 33;
        let pred = |t: u32| hash(t, 1) % 100 < bias;
        // Whole warps exit, never all of them (a barrier with nobody left is not a barrier).
        let warps = block.div_ceil(32);
        let exits = |t: u32| t / 32 != 0 && hash(t / 32, 2) % 100 < exit_percent;
        let live: Vec<u32> = (0..block).filter(|&t| !exits(t)).collect();
        let count = 32 * live.iter().map(|t| t / 32).collect::<std::collections::BTreeSet<_>>().len() as u32;
        let out = Grid::blocks(1, block)
            .map(async |w: &Warp<'_>| {
                let t = w.thread_rank();
                if exits(t) {
                    return None;
                }
                Some(match (aligned, counted) {
                    (true, false) => w.bar_red(op, 0, pred(t), negate).await,
                    (true, true) => w.bar_red_count(op, 2, count, pred(t), negate).await,
                    (false, false) => w.barrier_red(op, 7, pred(t), negate).await,
                    (false, true) => w.barrier_red_count(op, 15, count, pred(t), negate).await,
                })
            })
            .unwrap();
        let preds: Vec<bool> = live.iter().map(|&t| pred(t) ^ negate).collect();
        let want = red_reference(op, &preds);
        for t in 0..block {
            prop_assert_eq!(out[t as usize], (!exits(t)).then_some(want), "thread {} of {} ({} warps)", t, block, warps);
        }
    }
}

/// CUDA's `__syncthreads_count/and/or` are `bar.red.{popc,and,or}` on barrier 0.
#[test]
fn sync_threads_count_and_or() {
    let out = Grid::blocks(1, 100)
        .map(async |w: &Warp<'_>| {
            let t = w.thread_rank();
            (w.sync_threads_count(t % 7 == 0).await, w.sync_threads_and(t < 100).await, w.sync_threads_or(t == 99).await, w.sync_threads_and(t < 99).await)
        })
        .unwrap();
    assert!(out.iter().all(|&r| r == (15, true, true, false)));
}

// ---- the undefined cases, each reported ----

/// "In conditionally executed code, an aligned barrier{.cta} instruction should only be used if it
/// is known that all threads in CTA evaluate the condition identically, otherwise behavior is
/// undefined": `__syncthreads()` in both arms of a branch that splits a warp.
#[test]
fn an_aligned_barrier_from_different_instructions_is_reported() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 16 {
                w.sync_threads().await;
            } else {
                w.sync_threads().await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::AlignedDifferentSites);
    assert!(detail(&err).contains("lane 0 reaches `bar.sync`") && detail(&err).contains("lane 16"), "{err}");
    assert!(err.to_string().contains("all threads in CTA will execute the same barrier{.cta} instruction"), "{err}");
}

/// An aligned barrier reached by part of a warp whose other lanes wait elsewhere.
#[test]
fn an_aligned_barrier_reached_by_part_of_a_warp_is_reported() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 16 {
                w.sync_threads().await;
            }
            w.syncwarp().await; // lanes 16-31 wait here for lanes 0-15
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::AlignedPartialWarp, "{err}");
    let WarpError::Barrier { report, .. } = &err else { unreachable!() };
    let warp0 = &report.warps[0];
    assert!(matches!(warp0.lanes[0], LaneState::AtBarrier { barrier: 0, arrived: false, .. }), "{err}");
    assert!(matches!(warp0.lanes[20], LaneState::Waiting { .. }), "{err}");
}

/// Below sm_70 "barrier{.cta} instruction without .aligned modifier is equivalent to .aligned
/// variant" and "All threads in warp (except for those have exited) must execute barrier{.cta}
/// instruction in convergence": the same divergent `barrier.sync` that sm_70 allows is reported.
#[test]
fn below_sm_70_a_barrier_must_be_executed_in_convergence() {
    let kernel = async |w: &Warp<'_>| {
        if w.lane_id() % 2 == 0 {
            w.barrier_sync(1).await;
        } else {
            w.barrier_sync(1).await;
        }
    };
    let err = Grid::blocks(1, 64).executor(Executor::new().target(Target::SM_60)).run(kernel).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::NotConverged, "{err}");
    assert!(err.to_string().contains("sm_6x"), "{err}");
    Grid::blocks(1, 64).executor(Executor::new().target(Target::SM_70)).run(kernel).unwrap();
}

/// Below sm_70 "All threads in warp (except for those have exited) must execute barrier{.cta}
/// instruction in convergence": the threads that returned are excepted, so half of each warp
/// returning before `bar.sync` is converged there (unlike a full membermask of `shfl.sync`,
/// `vote.sync` or `bar.warp.sync` naming them: `diagnostics.rs`).
#[test]
fn below_sm_70_a_barrier_excepts_the_exited_threads() {
    let out = Grid::blocks(1, 64)
        .executor(Executor::new().target(Target::SM_60))
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            if w.lane_id() < 16 {
                return 0;
            }
            s.store(t, t as u32 + 100);
            w.sync_threads().await;
            s.load(t ^ 32)
        })
        .unwrap();
    for t in 0..64 {
        assert_eq!(out[t], if t % 32 < 16 { 0 } else { (t ^ 32) as u32 + 100 }, "thread {t}");
    }
}

/// The lanes of one warp at different barriers: the warp's arrival is undefined.
#[test]
fn lanes_of_one_warp_at_different_barriers_are_reported() {
    let err = Grid::blocks(1, 32)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 8 {
                w.barrier_sync(1).await;
            } else {
                w.barrier_sync(2).await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::WarpDisagrees, "{err}");
    assert!(detail(&err).contains("barrier 1") && detail(&err).contains("barrier 2"), "{err}");
}

/// "Each CTA instance has sixteen barriers numbered 0..15."
#[test]
// (`lane_id() & 0`: an id of 16 that the compiler cannot see is a constant.)
#[allow(clippy::erasing_op)]
fn a_barrier_id_above_15_is_reported() {
    let err = Grid::blocks(1, 32).run(async |w: &Warp<'_>| w.bar_sync(15 + w.lane_id() / 31 + 1).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::WarpDisagrees, "lanes 0-30 name 16, lane 31 names 17: {err}");
    let err = Grid::blocks(1, 32).run(async |w: &Warp<'_>| w.bar_sync(16 + (w.lane_id() & 0)).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::IdOutOfRange, "{err}");
    assert!(detail(&err).contains("barrier id 16"), "{err}");
}

/// "When specifying a thread count, the value must be a multiple of the warp size. Note that a
/// non-zero thread count is required for barrier{.cta}.arrive."
#[test]
fn a_thread_count_that_is_not_a_multiple_of_32_is_reported() {
    let count = |n: u32| std::hint::black_box(n);
    let err = Grid::blocks(1, 64).run(async |w: &Warp<'_>| w.bar_sync_count(1, count(48)).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::BadCount, "{err}");
    assert!(detail(&err).contains("thread count 48"), "{err}");
    let err = Grid::blocks(1, 64).run(async |w: &Warp<'_>| w.bar_arrive(1, count(0)).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::BadCount, "{err}");
}

/// "Different warps may execute different forms of the barrier{.cta} instruction using the same
/// barrier name and thread count": different counts for one barrier in flight are undefined.
#[test]
fn different_counts_for_one_barrier_are_reported() {
    let err = Grid::blocks(1, 96)
        .run(async |w: &Warp<'_>| {
            let n = if w.warp_in_block() == 0 { 64 } else { 96 };
            w.bar_sync_count(1, n).await;
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::CountMismatch, "{err}");
    assert!(detail(&err).contains("64 threads") && detail(&err).contains("96 threads"), "{err}");
}

/// "Operand b specifies the number of threads participating in the barrier": a warp's arrival
/// counts 32 threads, so with a count that is a multiple of 32 a phase fills exactly; a count of
/// zero (a multiple of 32, so not rejected as such) is exceeded by the first warp to arrive.
#[test]
fn more_arrivals_than_the_count_are_reported() {
    let err = Grid::blocks(1, 64).run(async |w: &Warp<'_>| w.bar_sync_count(4, std::hint::black_box(0)).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::TooManyArrivals, "{err}");
    assert!(detail(&err).contains("arrived at barrier 4 of 0 threads"), "{err}");
    // Three warps on a barrier of 64 threads: warps 0 and 1 fill the first phase, warp 2 starts a
    // second that nobody completes.
    let err = Grid::blocks(1, 96).run(async |w: &Warp<'_>| w.bar_sync_count(4, 64).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::NeverCompletes, "{err}");
    assert!(err.to_string().contains("barrier 4 waits for 64 threads; warp 2 arrived (32 threads)"), "{err}");
}

/// "barrier{.cta}.red should not be intermixed with barrier{.cta}.sync or barrier{.cta}.arrive
/// using the same active barrier. Execution in this case is unpredictable."
#[test]
fn bar_red_mixed_with_bar_sync_is_reported() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.warp_in_block() == 0 {
                w.bar_red_popc(3, true).await;
            } else {
                w.bar_sync(3).await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::RedMixed, "{err}");
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.warp_in_block() == 0 {
                w.bar_red_and(3, true).await;
            } else {
                w.bar_red_or(3, true).await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::RedMixed, "two reductions: {err}");
}

/// "Care must be taken to keep a warp from executing more barrier{.cta} instructions than intended
/// (barrier{.cta}.arrive followed by any other barrier{.cta} instruction to the same barrier) prior
/// to the reset of the barrier."
#[test]
fn a_second_operation_on_a_barrier_before_it_resets_is_reported() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.warp_in_block() == 0 {
                w.bar_arrive(2, 64).await;
                w.bar_sync_count(2, 64).await;
            } else {
                w.bar_sync_count(2, 64).await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::ArrivedTwice, "{err}");
    assert!(detail(&err).contains("warp 0 arrived at barrier 2"), "{err}");
}

/// A barrier that can never complete: the report shows every warp, its barrier, count and site.
#[test]
fn a_barrier_that_can_never_complete_is_reported_with_every_warp() {
    let err = Grid::blocks(1, 96)
        .run(async |w: &Warp<'_>| match w.warp_in_block() {
            0 => w.bar_sync_count(1, 96).await,
            1 => w.bar_sync(2).await,
            _ => {}
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::NeverCompletes, "{err}");
    let WarpError::Barrier { report, .. } = &err else { unreachable!() };
    assert_eq!(report.warps.len(), 3);
    assert!(matches!(report.warps[0].lanes[5], LaneState::AtBarrier { barrier: 1, count: Some(96), arrived: true, .. }), "{err}");
    assert!(matches!(report.warps[1].lanes[5], LaneState::AtBarrier { barrier: 2, count: None, arrived: true, .. }), "{err}");
    assert_eq!(report.warps[2].lanes[5], LaneState::Exited);
    let text = err.to_string();
    assert!(text.contains("barrier 1 waits for 96 threads; warp 0 arrived (32 threads)"), "{text}");
    assert!(text.contains("barrier 2 waits for 64 threads; warp 1 arrived"), "{text}");

    // Alone in a block, a warp cannot complete a barrier of 64 threads.
    let err = Executor::new().run(async |w: &Warp<'_>| w.bar_sync_count(0, 64).await).unwrap_err();
    assert_eq!(rule(&err), BarrierRule::NeverCompletes, "{err}");
}

/// The reports carry the schedule, and replaying it reproduces them.
#[test]
fn a_report_names_its_schedule() {
    let schedule = Schedule::Random { seed: 77 };
    let run = || {
        Grid::blocks(2, 64)
            .schedule(schedule)
            .run(async |w: &Warp<'_>| {
                if w.ctaid().x == 1 && w.warp_in_block() == 1 {
                    w.bar_sync(1).await;
                } else {
                    w.bar_sync(0).await;
                }
            })
            .unwrap_err()
    };
    let err = run();
    assert_eq!(err.report().unwrap().schedule, schedule);
    assert!(err.to_string().contains("Schedule::Random { seed: 0x4d }"), "{err}");
    assert_eq!(err.to_string(), run().to_string());
}

/// `__syncthreads()` (`bar.sync 0`, aligned, the whole CTA) reached by different warps from
/// different instructions: "all threads in CTA will execute the same barrier{.cta} instruction".
/// With a thread count, different instructions are the spec's producer/consumer model and fine
/// (see `producer_and_consumer_on_two_named_barriers`).
#[test]
fn sync_threads_from_different_instructions_in_different_warps_is_reported() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.warp_in_block() == 0 {
                w.sync_threads().await;
            } else {
                w.sync_threads().await;
            }
        })
        .unwrap_err();
    assert_eq!(rule(&err), BarrierRule::AlignedDifferentSites, "{err}");
    assert!(detail(&err).contains("warp 0 executes `bar.sync` at") && detail(&err).contains("warp 1 executes `bar.sync` at"), "{err}");
    // Not aligned: fine.
    Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            if w.warp_in_block() == 0 {
                w.barrier_sync(0).await;
            } else {
                w.barrier_sync(0).await;
            }
        })
        .unwrap();
}
