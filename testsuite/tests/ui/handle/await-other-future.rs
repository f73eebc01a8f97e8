use warpkit::prelude::*;

async fn ready() -> u32 {
    1
}

// An `.await` the macro did not insert: it compiled on the host and failed only for nvptx64
// (E0728), so it is an error on both.
#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    x + ready().await + w.lane_id()
}

fn main() {}
