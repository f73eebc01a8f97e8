//! A lane's panic is reported with its message and location whatever panic hooks the program
//! installs, before or after the first run (issue 13). One test: hooks are process-wide.

use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};

use warp_runtime::{Executor, Warp, WarpError};

/// Runs a warp whose lane 3 panics, and returns the reported message and location.
fn lane_3_panics() -> (String, String) {
    let err = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 3 {
                panic!("lane three gives up");
            }
            w.lane_id()
        })
        .unwrap_err();
    match err {
        WarpError::LanePanicked { lane, message, location, .. } => {
            assert_eq!(lane, 3);
            (message, location)
        }
        other => panic!("expected LanePanicked, got {other}"),
    }
}

static USER_HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn panics_are_captured_whatever_the_hook_order() {
    let here = file!();
    // 1. A user hook installed before the first run: warpkit wraps it.
    panic::set_hook(Box::new(|_| {
        USER_HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
    }));
    let (message, location) = lane_3_panics();
    assert_eq!(message, "lane three gives up");
    assert!(location.starts_with(here), "{location}");
    assert_eq!(USER_HOOK_CALLS.load(Ordering::SeqCst), 0, "a captured lane panic does not reach the user's hook");

    // 2. A hook installed after the first run, replacing warpkit's without chaining (the case of
    //    issue 13, which lost message and location).
    panic::set_hook(Box::new(|_| {
        USER_HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
    }));
    let (message, location) = lane_3_panics();
    assert_eq!(message, "lane three gives up");
    assert!(location.starts_with(here), "{location}");
    assert_eq!(USER_HOOK_CALLS.load(Ordering::SeqCst), 0);

    // 3. The hook taken and dropped, leaving the default.
    drop(panic::take_hook());
    let (message, location) = lane_3_panics();
    assert_eq!(message, "lane three gives up");
    assert!(location.starts_with(here), "{location}");

    // 4. A chaining hook installed after the run: warpkit's hook runs inside it.
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        USER_HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
        previous(info);
    }));
    let (message, location) = lane_3_panics();
    assert_eq!(message, "lane three gives up");
    assert!(location.starts_with(here), "{location}");
    assert_eq!(USER_HOOK_CALLS.load(Ordering::SeqCst), 1, "the chaining hook itself ran once");

    // 5. Panics outside lanes still reach the program's hooks.
    let before = USER_HOOK_CALLS.load(Ordering::SeqCst);
    let _ = panic::catch_unwind(|| panic!("host panic"));
    assert_eq!(USER_HOOK_CALLS.load(Ordering::SeqCst), before + 1);
}
