//! Programmatic dependent launch (9.7.13.13) on the CPU: `griddepcontrol.launch_dependents` and
//! `griddepcontrol.wait` between two grids, and the race detector's view of what orders the
//! primary grid's memory operations before the dependent's.

use warp_runtime::grid::launch_dependent;
use warp_runtime::{Executor, GlobalBuffer, Grid, Target, Warp, WarpError};

fn sm90(blocks: u32) -> Grid {
    Grid::blocks(blocks, 64).executor(Executor::new().target(Target::SM_90)).races(true)
}

#[test]
fn a_dependent_that_waits_reads_the_primarys_output() {
    let (a, b) = (GlobalBuffer::<u32>::zeroed(256), GlobalBuffer::<u32>::zeroed(256));
    let (sa, sb) = (a.slice(), b.slice());
    launch_dependent(
        &sm90(4),
        async |w: &Warp<'_>| {
            let i = w.global_id() as usize;
            sa.store(i, (i as u32).wrapping_mul(2654435761));
            w.griddepcontrol_launch_dependents().await;
            w.griddepcontrol_launch_dependents().await; // a second trigger changes nothing
        },
        &sm90(4),
        async |w: &Warp<'_>| {
            let i = w.global_id() as usize;
            let own = i as u32 + 1; // work before the wait that needs nothing of the primary
            w.griddepcontrol_wait().await;
            sb.store(i, sa.load(255 - i).wrapping_add(own));
        },
    )
    .unwrap();
    let want: Vec<u32> = (0..256u32).map(|i| (255 - i).wrapping_mul(2654435761).wrapping_add(i + 1)).collect();
    assert_eq!(b.to_vec(), want);
}

#[test]
fn reading_before_the_wait_is_a_race_naming_both_grids() {
    let (a, b) = (GlobalBuffer::<u32>::zeroed(128), GlobalBuffer::<u32>::zeroed(128));
    let (sa, sb) = (a.slice(), b.slice());
    let err = launch_dependent(
        &sm90(2),
        async |w: &Warp<'_>| {
            sa.store(w.global_id() as usize, 7);
            w.griddepcontrol_launch_dependents().await;
        },
        &sm90(2),
        async |w: &Warp<'_>| {
            let i = w.global_id() as usize;
            let early = sa.load(i);
            w.griddepcontrol_wait().await;
            sb.store(i, early);
        },
    )
    .unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("expected a race, got {err}") };
    let r = &races[0];
    assert!(!r.first.dependent && r.second.dependent, "{err}");
    assert_eq!((r.first.op, r.second.op), ("st.global", "ld.global"));
    let text = err.to_string();
    assert!(text.contains("of the dependent grid") && text.contains("griddepcontrol.wait"), "{text}");
}

#[test]
fn a_primary_block_that_never_triggers_has_completed_before_the_dependent_starts() {
    // Block 0 triggers early, block 1 never does. The dependent may read block 1's output
    // without waiting (it starts only after block 1 completed), but not block 0's.
    let run = |read_block: usize| {
        let (a, b) = (GlobalBuffer::<u32>::zeroed(128), GlobalBuffer::<u32>::zeroed(128));
        let (sa, sb) = (a.slice(), b.slice());
        let r = launch_dependent(
            &sm90(2),
            async |w: &Warp<'_>| {
                if w.ctaid().x == 0 {
                    w.griddepcontrol_launch_dependents().await;
                }
                sa.store(w.global_id() as usize, 5);
            },
            &sm90(1),
            async |w: &Warp<'_>| {
                let t = w.thread_rank() as usize;
                sb.store(t, sa.load(read_block * 64 + t));
            },
        );
        (r, b.to_vec()[0])
    };
    let (clean, v) = run(1);
    assert_eq!((clean.is_ok(), v), (true, 5), "{clean:?}");
    let (racy, _) = run(0);
    assert!(matches!(racy, Err(WarpError::Race { .. })), "{racy:?}");
}

#[test]
fn a_dependent_write_before_the_wait_races_with_the_primarys_reads() {
    let a = GlobalBuffer::<u32>::from_slice(&[1; 64]);
    let sa = a.slice();
    let err = launch_dependent(
        &sm90(1),
        async |w: &Warp<'_>| {
            w.griddepcontrol_launch_dependents().await;
            let _ = sa.load(w.thread_rank() as usize);
        },
        &sm90(1),
        async |w: &Warp<'_>| {
            sa.store(w.thread_rank() as usize, 2);
            w.griddepcontrol_wait().await;
        },
    )
    .unwrap_err();
    assert!(matches!(err, WarpError::Race { .. }), "{err}");
}

#[test]
fn griddepcontrol_needs_sm_90() {
    let g = Grid::blocks(1, 32).executor(Executor::new().target(Target::SM_80));
    let err = launch_dependent(&g, async |_: &Warp<'_>| {}, &g, async |_: &Warp<'_>| {}).unwrap_err();
    assert!(matches!(&err, WarpError::Launch { what } if what.contains("needs sm_90")), "{err}");
    // Outside such a launch the instructions are no-ops with a target check.
    let err = Grid::blocks(1, 32)
        .executor(Executor::new().target(Target::SM_80))
        .run(async |w: &Warp<'_>| {
            w.griddepcontrol_wait().await;
        })
        .unwrap_err();
    assert!(err.to_string().contains("griddepcontrol.wait"), "{err}");
    Grid::blocks(2, 32).executor(Executor::new().target(Target::SM_90)).run(async |w: &Warp<'_>| {
        w.griddepcontrol_launch_dependents().await;
        w.griddepcontrol_wait().await;
    }).unwrap();
}

/// The dependent starts while the primary still runs (once every primary block has triggered):
/// here the primary waits for a flag that only the dependent sets, before its own wait, which
/// completes only on a GPU (or here) that starts the dependent early.
#[test]
fn the_dependent_starts_once_every_primary_block_has_triggered() {
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let out = GlobalBuffer::<u32>::zeroed(128);
    let (f, o) = (flag.slice(), out.slice());
    launch_dependent(
        &sm90(2).spin_limit(1 << 40),
        async |w: &Warp<'_>| {
            w.griddepcontrol_launch_dependents().await;
            if w.thread_rank() == 0 {
                while f.load_volatile(0).await == 0 {}
            }
            o.store(w.global_id() as usize, 1);
        },
        &sm90(1),
        async |w: &Warp<'_>| {
            if w.thread_rank() == 0 {
                f.store_volatile(0, 1);
            }
            w.griddepcontrol_wait().await;
            // After the wait every primary write is visible and ordered.
            let t = w.thread_rank() as usize;
            assert_eq!((o.load(t), o.load(64 + t)), (1, 1));
        },
    )
    .unwrap();
}
