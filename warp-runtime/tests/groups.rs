//! Tiles and groups narrow their parent, never widen it (issue 13: `tile(8).tile(16)` and
//! `group(0xff).tile(32)` silently widened the membermask).
//!
//! CUDA's cooperative groups: "`tiled_partition` ... divides a parent group into a
//! one-dimensional, row-major, tiling of subgroups"; a tile larger than its parent is a
//! compile-time error there. PTX: an instruction's membermask names the threads that take part,
//! so a tile or group's membermask may only hold lanes of the group it was derived from.

use warp_runtime::{Executor, Warp, WarpError};

#[test]
fn a_tile_of_a_group_holds_only_the_groups_lanes() {
    let out = Executor::new()
        .run_partial(0xff, async |w: &Warp<'_>| {
            let t = w.group(0xff).tile(32);
            (t.membermask(), t.ballot(true).await)
        })
        .unwrap();
    for (lane, r) in out.iter().enumerate().take(8) {
        assert_eq!(*r, Some((0xff, 0xff)), "lane {lane}");
    }
    // A tile of 4 of the even lanes: lanes 0 and 2 of each 4-lane segment.
    let out = Executor::new()
        .run(async |w: &Warp<'_>| if w.lane_id() % 2 == 0 { Some(w.group(0x5555_5555).tile(4).membermask()) } else { None })
        .unwrap();
    assert_eq!(out[0], Some(0b0101));
    assert_eq!(out[6], Some(0b0101 << 4));
}

#[test]
fn a_tile_wider_than_its_parent_is_reported() {
    let err = Executor::new().run(async |w: &Warp<'_>| w.tile(8).tile(16).membermask()).unwrap_err();
    match err {
        WarpError::LanePanicked { message, .. } => assert!(message.contains("tile width 16 is wider than its parent tile of 8"), "{message}"),
        other => panic!("expected a lane panic, got {other}"),
    }
}

#[test]
fn a_group_outside_its_parent_is_reported() {
    let err = Executor::new().run(async |w: &Warp<'_>| w.tile(8).group(0xffff).membermask()).unwrap_err();
    match err {
        WarpError::LanePanicked { lane, message, .. } => {
            assert_eq!(lane, 0);
            assert!(message.contains("names lanes outside its parent's lanes 0x000000ff"), "{message}");
        }
        other => panic!("expected a lane panic, got {other}"),
    }
    // Within the tile it is fine, and keeps the tile's shuffle segment.
    let out = Executor::new().run(async |w: &Warp<'_>| w.tile(8).group(0xff << (w.lane_id() / 8 * 8)).shfl_xor(w.lane_id(), 4).await).unwrap();
    assert_eq!(out[1], 5);
    assert_eq!(out[13], 9);
}
