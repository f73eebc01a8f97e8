//! A histogram with warp-aggregated atomics: instead of one global `atom.add` per element, the
//! lanes of a warp that hit the same bucket elect one leader, which adds the group's count once.
//!
//! 1. `activemask` names the lanes that reached this point together (lanes past the end of the
//!    input, and lanes that skipped their element, have exited);
//! 2. `match.any.sync` over that mask groups the lanes by bucket: each lane gets the mask of its
//!    peers;
//! 3. one leader per group (the lowest set bit of the peer mask, or `elect.sync` over the group)
//!    does one `atom.global.add` of `popc(peers)`.
//!
//! With skewed data (many equal buckets) this turns up to 32 atomics on one address into one.
//! The counts equal the sequential histogram whatever order warps and lanes run in.
//!
//! Run it: `cargo run --example histogram`.

use warpkit::prelude::*;

/// Values equal to this are padding and are not counted.
pub const IGNORE: u32 = u32::MAX;

/// The bucket of a value.
#[inline(always)]
pub fn bucket(x: u32, buckets: u32) -> u32 {
    x % buckets
}

/// A grid of `input.len()` threads; the leader is the lowest lane of each peer group
/// (`__ffs(peers) - 1`). GPU entry point: [`histogram_ffs`].
#[warp_kernel]
pub fn histogram_lowest_leader(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let x = input.load(i);
    if x == IGNORE {
        return;
    }
    let b = bucket(x, counts.len() as u32);
    let active = w.activemask();
    let peers = w.group(active).match_any(b);
    if w.lane_id() == peers.trailing_zeros() {
        counts.atomic_add(b as usize, peers.count_ones());
    }
}

/// GPU entry point: [`histogram_lowest_leader`].
#[warp_kernel(entry)]
pub fn histogram_ffs(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
    histogram_lowest_leader(w, input, counts);
}

/// As [`histogram_lowest_leader`], with `elect.sync` over each peer group choosing the leader (sm_90).
/// Returns whether this lane was a leader, to count the atomics.
#[warp_kernel]
pub fn histogram_elect(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) -> bool {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return false;
    }
    let x = input.load(i);
    if x == IGNORE {
        return false;
    }
    let b = bucket(x, counts.len() as u32);
    let active = w.activemask();
    let peers = w.group(active).match_any(b);
    let (_, leader) = w.group(peers).elect();
    if leader {
        counts.atomic_add(b as usize, peers.count_ones());
    }
    leader
}

/// GPU entry point: [`histogram_elect`], writing whether thread `i` was a leader to `leaders[i]`.
#[warp_kernel(entry)]
pub fn histogram_elect_entry(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>, leaders: GlobalSlice<'_, u32>) {
    let leader = histogram_elect(w, input, counts);
    let i = w.global_id() as usize;
    if i < input.len() {
        leaders.store(i, leader as u32);
    }
}

/// [`histogram_lowest_leader`] in blocks, then a summary by the last block to finish: the classic
/// "last block" pattern (CUDA's `threadFenceReduction` sample). Each block, after a barrier,
/// *releases* its atomics with a fence and takes a ticket from `done[0]`; the block that draws the
/// last ticket *acquires* every block's atomics with a fence after its ticket, and only then reads
/// the histogram with plain loads: `summary[0]` is the total count, `summary[1]` the fullest
/// bucket. Without the fences (`fenced == 0`), the last block's loads race with the other blocks'
/// atomics: the race detector reports it, and on a GPU the summary may miss counts.
#[warp_kernel(entry)]
pub fn histogram_done_entry(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    counts: GlobalSlice<'_, u32>,
    done: GlobalSlice<'_, u32>,
    summary: GlobalSlice<'_, u32>,
    fenced: u32,
) {
    let last = w.shared_array::<u32, 1>();
    histogram_lowest_leader(w, input, counts);
    w.sync_threads();
    if w.thread_rank() == 0 {
        if fenced != 0 {
            // The release pattern: this block's atomics (ordered before thread 0 by the barrier),
            // then the fence, then the ticket.
            w.threadfence();
        }
        let ticket = done.atomic_add(0, 1);
        if fenced != 0 {
            // The acquire pattern: the ticket (which read every earlier block's), then the fence.
            w.threadfence();
        }
        let blocks = w.nctaid().x * w.nctaid().y * w.nctaid().z;
        last.store(0, (ticket == blocks - 1) as u32);
    }
    w.sync_threads();
    if last.load(0) == 1 && w.thread_rank() == 0 {
        let (mut total, mut fullest) = (0u32, 0u32);
        for b in 0..counts.len() {
            let c = counts.load(b);
            total += c;
            fullest = fullest.max(c);
        }
        summary.store(0, total);
        summary.store(1, fullest);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    use warpkit::{GlobalBuffer, Grid};

    // 5000 samples from a geometric distribution (bucket 10 folds onto 0), some of them padding; 5000 threads is 157 warps,
    // the last with 8 lanes.
    let n = 5000u32;
    let data: Vec<u32> = (0..n)
        .map(|i| {
            let r = i.wrapping_mul(2_654_435_761).rotate_left(13);
            if r % 17 == 0 { IGNORE } else { (r >> 8 & 1023).leading_zeros() - 22 }
        })
        .collect();
    let buckets = 10;
    let input = GlobalBuffer::from_slice(&data);
    let counts = GlobalBuffer::<u32>::zeroed(buckets);
    let (inp, cnt) = (input.slice(), counts.slice());
    let leaders = Grid::new(n as u64)
        .cpu_threads(std::thread::available_parallelism().map_or(1, |p| p.get()))
        .map(async |w: &Warp<'_>| histogram_elect(w, inp, cnt).await)
        .unwrap();
    let atomics = leaders.iter().filter(|&&l| l).count();

    let mut reference = vec![0u32; buckets];
    for &x in data.iter().filter(|&&x| x != IGNORE) {
        reference[bucket(x, buckets as u32) as usize] += 1;
    }
    let got = counts.to_vec();
    let total: u32 = reference.iter().sum();
    let most = *reference.iter().max().unwrap_or(&1);
    println!("{n} samples ({} padding), {buckets} buckets, {} warps on several CPU threads", n - total, (n as usize).div_ceil(32));
    for (b, (&g, &r)) in got.iter().zip(&reference).enumerate() {
        println!("  bucket {b}: {g:5} {:<40} sequential {r:5}", "#".repeat((g * 40 / most.max(1)) as usize));
    }
    println!("equal to the sequential histogram: {}", got == reference);
    println!("global atomics: {atomics} (one per bucket per warp) instead of {total} (one per sample)");

    // The same with the lowest-set-bit leader.
    let counts2 = GlobalBuffer::<u32>::zeroed(buckets);
    let cnt2 = counts2.slice();
    warpkit::launch(n as u64, async |w: &Warp<'_>| histogram_ffs(w, inp, cnt2).await).unwrap();
    println!("__ffs(peers) leader variant equal too: {}", counts2.to_vec() == reference);

    // The last block to finish summarises, after acquiring every block's atomics.
    for fenced in [1, 0] {
        let counts3 = GlobalBuffer::<u32>::zeroed(buckets);
        let (done, summary) = (GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(2));
        let (c3, d, s) = (counts3.slice(), done.slice(), summary.slice());
        let blocks = n.div_ceil(128);
        let run = Grid::blocks(blocks, 128).races(true).run(async |w: &Warp<'_>| histogram_done_entry(w, inp, c3, d, s, fenced).await);
        match run {
            Ok(()) => println!(
                "last-block summary with fences: total {} (sequential {total}), fullest bucket {} (sequential {most}), no race",
                summary.to_vec()[0],
                summary.to_vec()[1]
            ),
            Err(e) => println!("without the fences: {}", e.to_string().lines().take(4).collect::<Vec<_>>().join("\n")),
        }
    }
}
