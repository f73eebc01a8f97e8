//! The block and registers a thread keeps between runs of one warp (`exec::Solo`), under Miri's
//! aliasing model: `MIRIFLAGS=-Zmiri-disable-isolation cargo +nightly miri test -p warp-runtime
//! --test miri_solo` (about a minute). Kept as a `Box` between runs, the registers' pointer to
//! their block was invalidated by each move of the box (Stacked Borrows); this fails then. Also
//! an ordinary test: the runs give what they give on a fresh thread.

use warp_runtime::{Executor, Warp};

#[test]
fn runs_on_one_thread_keep_their_registers_sound() {
    let ex = Executor::new().races(false).time_limit(None);
    for _ in 0..2 {
        assert_eq!(ex.run(async |w: &Warp<'_>| w.lane_id()).unwrap()[3], 3);
    }
    // A run that fails frees what it held; the next makes its own.
    let err = ex.run(async |w: &Warp<'_>| if w.lane_id() == 5 { panic!("lane 5") } else { w.lane_id() });
    assert!(err.is_err());
    // A run inside a lane holds its own while the outer run holds the thread's.
    let nested = ex.run(async |w: &Warp<'_>| {
        let inner = if w.lane_id() == 0 { ex.run(async |v: &Warp<'_>| v.lane_id() * 2).unwrap()[7] } else { 0 };
        inner + w.lane_id()
    });
    assert_eq!(nested.unwrap()[0], 14);
    assert_eq!(ex.run(async |w: &Warp<'_>| w.lane_id() + 1).unwrap()[31], 32);
}
