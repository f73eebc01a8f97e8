//! Stream compaction: keep the elements that satisfy a predicate, packed and in order.
//!
//! Inside a warp, `ballot(keep)` tells every lane which lanes keep their element, and the number
//! of keeping lanes below this one, `popc(ballot & %lanemask_lt)`, is this element's slot. Over a
//! grid of many warps, one lane per warp reserves the warp's slots with a single global
//! `atom.add` on the output counter and broadcasts the base with `shfl.sync.idx`: one atomic per
//! warp instead of one per element (the pattern of "warp-aggregated atomics" in NVIDIA's
//! CUDA Pro Tip on filtering).
//!
//! Warps reserve their ranges in whatever order they reach the atomic, so across warps the output
//! is ordered by warp only when warps run in order (one CPU thread here; not on a GPU). Within a
//! warp, the order of the input is always kept.
//!
//! Run it: `cargo run --example compact`.

use warpkit::prelude::*;

/// The predicate: keep values below `limit`.
#[inline(always)]
pub fn keep(x: u32, limit: u32) -> bool {
    x < limit
}

/// One warp: `(slot, kept)` where `slot` is this lane's output index if it keeps its element and
/// `kept` is how many lanes keep theirs.
#[warp_kernel]
pub fn compact_warp(w: &Warp, x: u32, limit: u32) -> (Option<u32>, u32) {
    let keeps = keep(x, limit);
    let kept = w.ballot(keeps);
    let slot = (kept & w.lanemask_lt()).count_ones();
    (if keeps { Some(slot) } else { None }, kept.count_ones())
}

/// A grid of `input.len()` threads: appends the kept elements to `output` and counts them in
/// `count[0]` (which must start at 0). Returns the output index this lane's element went to.
#[warp_kernel]
pub fn compact_grid(w: &Warp, input: GlobalSlice<'_, u32>, output: GlobalSlice<'_, u32>, count: GlobalSlice<'_, u32>, limit: u32) -> Option<u32> {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return None;
    }
    let x = input.load(i);
    let keeps = keep(x, limit);
    let kept = w.ballot(keeps);
    // The lowest lane still running reserves the warp's range.
    let (leader, is_leader) = w.elect();
    let mut base = 0;
    if is_leader && kept != 0 {
        base = count.atomic_add(0, kept.count_ones());
    }
    let base = w.shfl_idx(base, leader);
    if keeps {
        let slot = base + (kept & w.lanemask_lt()).count_ones();
        output.store(slot as usize, x);
        Some(slot)
    } else {
        None
    }
}

// GPU entry points: one thread per element of `input` (the last warp may be partial).

/// [`compact_warp`] over a grid: `out[2i..2i + 2]` = (slot in the warp's packing, or `u32::MAX`
/// when the element is dropped; the number the warp keeps).
#[warp_kernel(entry)]
pub fn compact_warp_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, limit: u32) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let (slot, kept) = compact_warp(w, input.load(i), limit);
    out.store(2 * i, slot.unwrap_or(u32::MAX));
    out.store(2 * i + 1, kept);
}

/// [`compact_grid`], also writing each thread's output index to `slots[i]` (`u32::MAX` when its
/// element is dropped). Where each warp's range lands depends on the order warps reach the atomic;
/// the slots let the caller compare results independently of that order.
#[warp_kernel(entry)]
pub fn compact_grid_entry(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    output: GlobalSlice<'_, u32>,
    count: GlobalSlice<'_, u32>,
    slots: GlobalSlice<'_, u32>,
    limit: u32,
) {
    let slot = compact_grid(w, input, output, count, limit);
    let i = w.global_id() as usize;
    if i < input.len() {
        slots.store(i, slot.unwrap_or(u32::MAX));
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    use warpkit::{launch, GlobalBuffer};

    let x: [u32; 32] = core::array::from_fn(|l| (l as u32 * 37 + 11) % 100);
    let out = Executor::new().run_with(&x, async |w: &Warp<'_>, x| compact_warp(w, x, 50).await).unwrap();
    println!("one warp, keep x < 50");
    println!("  input  {:?}", x);
    println!("  slots  {}", out.iter().map(|o| o.0.map_or(" .".to_string(), |s| format!("{s:2}"))).collect::<Vec<_>>().join(" "));
    let mut packed = vec![0; out[0].1 as usize];
    for (l, o) in out.iter().enumerate() {
        if let Some(s) = o.0 {
            packed[s as usize] = x[l];
        }
    }
    let reference: Vec<u32> = x.iter().copied().filter(|&v| keep(v, 50)).collect();
    println!("  packed {:?}  (sequential filter equal: {})", packed, packed == reference);

    // A grid of 1000 threads: 32 warps, the last with 8 lanes.
    let n = 1000;
    let data: Vec<u32> = (0..n).map(|i: u32| i.wrapping_mul(2_654_435_761) % 1000).collect();
    let input = GlobalBuffer::from_slice(&data);
    let output = GlobalBuffer::<u32>::zeroed(data.len());
    let count = GlobalBuffer::<u32>::zeroed(1);
    let (i, o, c) = (input.slice(), output.slice(), count.slice());
    launch(n as u64, async |w: &Warp<'_>| {
        compact_grid(w, i, o, c, 100).await;
    })
    .unwrap();
    let kept = count.to_vec()[0] as usize;
    let result = &output.to_vec()[..kept];
    let reference: Vec<u32> = data.iter().copied().filter(|&v| keep(v, 100)).collect();
    println!("grid of {n} threads ({} warps), keep x < 100: {kept} kept, at most {} global atomics instead of {kept}", n.div_ceil(32), n.div_ceil(32));
    println!("  first 16 kept {:?}", &result[..16.min(kept)]);
    println!("  equal to the sequential filter: {}", result == reference);
}
