//! Spin-waits on plain loads complete, as on sm_70+ hardware, and a spin nothing will end is a
//! report naming the plain load, with its warning (issue 13).

use warpkit::prelude::*;

/// Lane 0 waits for a flag lane 31 sets after its own work: with plain loads. This hung in the
/// default (ascending) lane order and passed in `Descending`.
#[warp_kernel]
fn lane_waits_for_lane(w: &Warp, flag: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    if w.lane_id() == 0 {
        while flag.load(0) == 0 {}
        out.store(0, flag.load(0) + 1);
    }
    if w.lane_id() == 31 {
        flag.store(0, 41);
    }
}

#[test]
fn a_lane_spinning_on_a_plain_load_lets_the_other_lanes_run() {
    for order in [LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Seeded(3)] {
        let (flag, out) = (GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(1));
        let (f, o) = (flag.slice(), out.slice());
        // The scheduling is under test here: a spin on a plain load is a data race, which the
        // detector reports (below).
        Executor::new().order(order).races(false).run(async |w: &Warp<'_>| lane_waits_for_lane(w, f, o).await).unwrap();
        assert_eq!(out.to_vec(), vec![42], "{order:?}");
    }
    let (flag, out) = (GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(1));
    let (f, o) = (flag.slice(), out.slice());
    let err = Executor::new().races(true).run(async |w: &Warp<'_>| lane_waits_for_lane(w, f, o).await).unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("{err}") };
    assert!(races.iter().any(|r| r.first.op == "ld.global" && r.second.op == "st.global" && (r.first.lane, r.second.lane) == (0, 31)), "{err}");
}

/// Warp k waits for warp k + 1 (one block each in `Grid::new`): warp 7 sets the first flag. This
/// hung on 1 and 2 CPU threads.
#[warp_kernel]
fn warp_waits_for_next(w: &Warp, flags: GlobalSlice<'_, u32>) {
    let k = w.warp_index() as usize;
    if w.lane_id() == 0 {
        if k + 1 < flags.len() {
            while flags.load(k + 1) == 0 {}
        }
        flags.store(k, 1);
    }
}

#[test]
fn a_warp_spinning_on_a_plain_load_lets_later_warps_run() {
    for threads in [1, 2] {
        let flags = GlobalBuffer::<u32>::zeroed(8);
        let f = flags.slice();
        Grid::new(8 * 32).cpu_threads(threads).races(false).run(async |w: &Warp<'_>| warp_waits_for_next(w, f).await).unwrap();
        assert_eq!(flags.to_vec(), vec![1; 8], "{threads} CPU threads");
    }
}

/// A spin nothing ends is a forward-progress report that names the plain load and warns that the
/// GPU's compiler may hoist it.
#[warp_kernel]
fn waits_forever(w: &Warp, flag: GlobalSlice<'_, u32>) {
    if w.lane_id() == 5 {
        while flag.load(0) == 0 {}
    }
}

/// The line of the load in `waits_forever`.
const WAITS_AT: u32 = line!() - 5;

#[test]
fn a_spin_nothing_ends_is_reported_with_the_plain_load() {
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let f = flag.slice();
    let err = Executor::new().run(async |w: &Warp<'_>| waits_forever(w, f).await).unwrap_err();
    let text = err.to_string();
    eprintln!("{text}");
    assert!(text.contains("lane 5") || text.contains("lanes 5"), "{text}");
    // The load itself (the receiver's position), not the kernel's attribute.
    assert!(text.contains(&format!("a plain load at tests/spin.rs:{WAITS_AT}:15")), "{text}");
    assert!(text.contains("spin on `load_volatile`"), "{text}");
}
