//! Warp-cooperative linear search: the warp examines 32 elements per step, one per lane, and
//! `ballot` tells every lane at once whether any lane found the target. The whole warp stops at
//! the first step with a hit; the lowest set bit of the ballot (find-first-set, `__ffs - 1`) is the
//! first match in that step, so the result is the first occurrence in the array.
//!
//! The ballot is the same in every lane, so the loop's exit is uniform: no lane is left behind at
//! a later `ballot`. The kernel also works for a warp in which only some lanes run (a partial
//! warp, or inside a branch): each step covers as many elements as there are lanes, and each lane
//! takes the element at its rank among them.
//!
//! Run it: `cargo run --example search`.

use warpkit::prelude::*;

/// The index of the first element equal to `target`, and how many steps the warp took.
#[warp_kernel]
pub fn find_first(w: &Warp, data: GlobalSlice<'_, u32>, target: u32) -> (Option<usize>, u32) {
    let members = w.ballot(true);
    let lanes = members.count_ones() as usize;
    let rank = (members & w.lanemask_lt()).count_ones() as usize;
    let mut base = 0;
    let mut steps = 0;
    while base < data.len() {
        let i = base + rank;
        let hit = i < data.len() && data.load(i) == target;
        let hits = w.ballot(hit);
        steps += 1;
        if hits != 0 {
            // The rank of the lowest lane with a hit: the running lanes below it.
            let first = hits.trailing_zeros();
            let below = (members & ((1u32 << first) - 1)).count_ones() as usize;
            return (Some(base + below), steps);
        }
        base += lanes;
    }
    (None, steps)
}

/// GPU entry point: a grid of `out.len() / 2` threads (the last warp may be partial); warp `k`
/// searches `data` for `targets[k]` with the lanes named in `members[k]` (the others return at
/// once, as in a branch). A running thread `i` writes (index found or `u32::MAX`, steps) to
/// `out[2i..2i + 2]`.
#[warp_kernel(entry)]
pub fn find_first_entry(w: &Warp, data: GlobalSlice<'_, u32>, targets: GlobalSlice<'_, u32>, members: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let k = w.warp_index() as usize;
    if i >= out.len() / 2 || members.load(k) >> w.lane_id() & 1 == 0 {
        return;
    }
    let (found, steps) = find_first(w, data, targets.load(k));
    out.store(2 * i, found.map_or(u32::MAX, |f| f as u32));
    out.store(2 * i + 1, steps);
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    use warpkit::GlobalBuffer;

    let data: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 500).collect();
    let buf = GlobalBuffer::from_slice(&data);
    let d = buf.slice();
    println!("searching {} values (first 10: {:?})", data.len(), &data[..10]);
    for target in [data[0], data[77], data[999], 12345] {
        let out = Executor::new().run(async |w: &Warp<'_>| find_first(w, d, target).await).unwrap();
        let (found, steps) = out[0];
        let reference = data.iter().position(|&x| x == target);
        println!(
            "  target {target:5}: warp says {:<10} after {steps:2} of {} steps; sequential {:<10} {}",
            format!("{found:?}"),
            data.len().div_ceil(32),
            format!("{reference:?}"),
            if found == reference { "ok" } else { "MISMATCH" }
        );
    }
    let out = Executor::new().run_partial(0x0000_0fff, async |w: &Warp<'_>| find_first(w, d, data[500]).await).unwrap();
    let (found, steps) = out[0].unwrap();
    println!("  12-lane warp, target {}: {found:?} after {steps} steps (sequential {:?})", data[500], data.iter().position(|&x| x == data[500]));
}
