//! Isolated runs (`Executor::isolated`, `Grid::isolated`): what kills a process, a stack overflow,
//! an abort, an allocation failure, a lane stuck in computation, ends a child process instead,
//! and the host gets `WarpError::Aborted` with the lanes the child was running. Each of these
//! kernels, run without isolation, would kill this test binary (or hang it).
#![cfg(unix)]

use std::hint::black_box;
use std::time::Duration;

use warp_runtime::{Executor, GlobalBuffer, Grid, LaneState, Warp, WarpError};

/// Recursion that no stack holds: 10^7 frames of at least 32 bytes.
fn depth(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let pad = black_box([n; 4]);
    1 + depth(black_box(n - 1)) + pad[3] - n
}

#[test]
fn a_stack_overflow_in_a_lane_is_reported_with_the_lane() {
    let err = Executor::new()
        .isolated(true)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 5 {
                return 0;
            }
            w.syncwarp().await;
            if w.lane_id() == 5 { depth(10_000_000) } else { 0 }
        })
        .unwrap_err();
    let WarpError::Aborted { ref cause, lane, ref report, .. } = err else { panic!("{err}") };
    assert!(cause.contains("SIGSEGV") || cause.contains("SIGABRT"), "{err}");
    assert_eq!(lane, Some(5), "{err}");
    let report = report.as_ref().expect("the child recorded its registers");
    // Lanes 0-4 had returned; the others had completed the `syncwarp`: running, with that call
    // site as their last.
    assert!(report.lanes[..5].iter().all(|s| *s == LaneState::Exited), "{err}");
    assert!(report.lanes[5..].iter().all(|s| *s == LaneState::Running), "{err}");
    let site = report.last_site[5].expect("lane 5's last call site");
    assert_eq!((site.file(), site.line()), (file!(), line!() - 13), "{err}");
    assert!(report.last_site[..5].iter().all(Option::is_none), "{err}");
    assert!(err.to_string().contains("it was running lane 5 of warp 0"), "{err}");
}

/// A lane panics, and a value it owns panics again in its `Drop` while the first panic unwinds:
/// Rust aborts the process.
#[test]
fn a_panic_while_panicking_is_reported_with_both_messages() {
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("second panic, in Drop");
        }
    }
    let err = Grid::new(64)
        .isolated(true)
        .run(async |w: &Warp<'_>| {
            let _bomb = Bomb;
            if w.global_id() == 40 {
                panic!("first panic in lane 8 of warp 1");
            }
            core::mem::forget(_bomb);
        })
        .unwrap_err();
    let WarpError::Aborted { ref cause, ref panics, ref report, .. } = err else { panic!("{err}") };
    assert!(cause.contains("SIGABRT"), "{err}");
    let lines: Vec<&str> = panics.lines().collect();
    assert!(lines[0].starts_with("first panic in lane 8 of warp 1 at ") && lines[0].contains(file!()), "{err}");
    assert!(lines.iter().any(|l| l.starts_with("second panic, in Drop at ")), "{err}");
    assert_eq!(report.as_ref().map(|r| r.warp), Some(1), "{err}");
}

/// `handle_alloc_error` aborts: "memory allocation of N bytes failed" on standard error.
#[test]
fn an_allocation_failure_is_reported() {
    let err = Executor::new()
        .isolated(true)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 3 {
                let v: Vec<u8> = Vec::with_capacity(1 << 46);
                black_box(&v);
            }
        })
        .unwrap_err();
    let WarpError::Aborted { ref cause, lane, ref output, .. } = err else { panic!("{err}") };
    assert!(cause.contains("SIGABRT"), "{err}");
    assert_eq!(lane, Some(3), "{err}");
    assert!(output.contains("memory allocation of 70368744177664 bytes failed"), "{err}");
}

/// A lane that loops without reaching a warp instruction or a memory operation never gives the
/// runtime control back; the host ends the child at the time limit, which first records the lane.
#[test]
fn a_lane_stuck_in_computation_is_ended_at_the_time_limit() {
    let t0 = std::time::Instant::now();
    let err = Executor::new()
        .isolated(true)
        .time_limit(Some(Duration::from_millis(300)))
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 7 {
                let mut x = 1u64;
                while black_box(x) != 0 {
                    x = x.wrapping_mul(3) | 1;
                }
            }
            w.syncwarp().await;
        })
        .unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    let WarpError::Aborted { ref cause, lane, ref report, .. } = err else { panic!("{err}") };
    assert!(cause.contains("ran past its time limit of 300ms"), "{err}");
    assert_eq!(lane, Some(7), "{err}");
    // Lanes 0-6 reached the `syncwarp` and wait there; lane 7 is the one being polled.
    let report = report.as_ref().expect("registers recorded at the time limit");
    assert!(report.lanes[..7].iter().all(|s| matches!(s, LaneState::Waiting { .. })), "{err}");
    assert_eq!(report.lanes[7], LaneState::Running, "{err}");
}

/// A child that survives: the launch then runs in this process, with its results and its writes
/// to global memory, and an error is the structured one.
#[test]
fn a_launch_that_survives_runs_in_process() {
    let buf = GlobalBuffer::<u32>::zeroed(64);
    let b = buf.slice();
    let out = Grid::new(64)
        .isolated(true)
        .map(async |w: &Warp<'_>| {
            let x = w.shfl_xor(w.lane_id(), 1).await;
            b.store(w.global_id() as usize, x + 1);
            x
        })
        .unwrap();
    assert_eq!(out[..4], [1, 0, 3, 2]);
    assert_eq!(buf.to_vec()[..4], [2, 1, 4, 3]);

    let err = Executor::new()
        .isolated(true)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 9 {
                panic!("lane 9 gives up");
            }
        })
        .unwrap_err();
    let WarpError::LanePanicked { lane, ref message, .. } = err else { panic!("{err}") };
    assert_eq!((lane, message.as_str()), (9, "lane 9 gives up"));
}

/// A program built with `panic = "abort"` (`tests/abort-fixture`, a crate of its own): its first
/// lane panic aborts the process, so only an isolated run reports it. The fixture prints the
/// report and then that it survived.
#[test]
fn a_lane_panic_under_panic_abort_is_reported() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/abort-fixture");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/abort-fixture");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline", "--manifest-path"])
        .arg(fixture.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("the child process died of signal 6 (SIGABRT"), "{stdout}");
    assert!(stdout.contains("it was running lane 3 of warp 0"), "{stdout}");
    assert!(stdout.contains("panic: lane 3 panics under panic = abort at src/main.rs:11:17"), "{stdout}");
    assert!(stdout.contains("last warp instruction at src/main.rs:9:15"), "{stdout}");
    assert!(stdout.trim_end().ends_with("the host survived"), "{stdout}");
}

