//! Under `panic = "abort"`: an isolated run whose lane 3 panics prints the report and exits 0,
//! which the host process survives to do.
use warp_runtime::{Executor, Warp};

fn main() {
    let err = Executor::new()
        .isolated(true)
        .run(async |w: &Warp<'_>| {
            w.syncwarp().await;
            if w.lane_id() == 3 {
                panic!("lane 3 panics under panic = abort");
            }
        })
        .unwrap_err();
    println!("{err}");
    println!("the host survived");
}
