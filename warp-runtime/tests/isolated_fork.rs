//! An isolated run forks while another thread of the host panics, in a test binary of its own:
//! the test installs a silent panic hook, which would race with the other isolated tests' hooks.
#![cfg(unix)]

use std::time::Duration;

use warp_runtime::{Executor, Warp};

/// Another thread of the host panics over and over (holding the panic-hook lock for a moment each
/// time) while isolated runs fork: the child takes no lock the host may hold, so every run
/// finishes. Before the hooks were installed in the host, 38 of 40 children waited for the lock
/// forever and came back as "ran past its time limit".
#[test]
fn forking_while_another_thread_panics_does_not_stall_the_child() {
    // A silent, slow hook: the other thread's panics print nothing, and each holds the hook lock
    // for a millisecond, so that most forks happen while it is held (isolated runs wrap it).
    std::panic::set_hook(Box::new(|_| std::thread::sleep(Duration::from_millis(1))));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let panicker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::panic::catch_unwind(|| panic!("noise"));
            }
        })
    };
    let results: Vec<_> = (0..20)
        .map(|_| Executor::new().isolated(true).time_limit(Some(Duration::from_secs(5))).run(async |w: &Warp<'_>| w.lane_id()))
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    panicker.join().unwrap();
    for r in results {
        assert_eq!(r.unwrap()[31], 31);
    }
}
