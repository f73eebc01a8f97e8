//! Stream compaction with `bar.red.popc`: keep the values a predicate selects, in order within
//! each block, with one atomic per block.
//!
//! 1. `__syncthreads_count(keep)` (`bar.red.popc.u32`) gives every thread the number of kept values
//!    of its block while it synchronizes the block;
//! 2. thread 0 reserves that many output slots with one `atom.add` on a global counter and shares
//!    the base through shared memory;
//! 3. within each warp, `vote.sync.ballot` of the predicate and `%lanemask_lt` give a value's rank
//!    among the kept values of its warp; the warps' counts, in a shared array, give each warp's
//!    offset in the block's slots.
//!
//! The blocks' ranges follow the order in which blocks reach the atomic (as on a GPU); within a
//! block, kept values keep their order.
//!
//! Run it: `cargo run --example block_compact`.

use warpkit::prelude::*;

/// Whether a value is kept: here, the values divisible by 3.
pub fn keep(x: u32) -> bool {
    x % 3 == 0
}

/// Compacts `input` into `output` (`count[0]` starts at 0 and ends as the number kept); returns
/// this thread's output index if its value was kept.
#[warp_kernel]
pub fn block_compact(w: &Warp, input: GlobalSlice<'_, u32>, output: GlobalSlice<'_, u32>, count: GlobalSlice<'_, u32>) -> Option<u32> {
    let base = w.shared_array::<u32, 1>();
    let warp_counts = w.shared_array::<u32, 32>();
    let i = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    let x = if i < input.len() { input.load(i) } else { 0 };
    let kept = i < input.len() && keep(x);
    // 1. How many the block keeps, in every thread.
    let block_kept = w.sync_threads_count(kept);
    // 3 (first half). Rank within the warp; the warp's count to shared memory.
    let ballot = w.ballot(kept);
    let rank = (ballot & w.lanemask_lt()).count_ones();
    let warp = w.warp_in_block() as usize;
    if w.lane_id() == 0 {
        warp_counts.store(warp, ballot.count_ones());
    }
    // 2. One atomic per block.
    if w.thread_rank() == 0 && block_kept > 0 {
        base.store(0, count.atomic_add(0, block_kept));
    }
    w.sync_threads();
    if !kept {
        return None;
    }
    // 3. The warps before this one.
    let mut offset = base.load(0);
    for v in 0..warp {
        offset += warp_counts.load(v);
    }
    let at = offset + rank;
    output.store(at as usize, x);
    Some(at)
}

/// GPU entry point: [`block_compact`], with `count` zeroed and `output` as long as `input`.
#[warp_kernel(entry)]
pub fn block_compact_entry(w: &Warp, input: GlobalSlice<'_, u32>, output: GlobalSlice<'_, u32>, count: GlobalSlice<'_, u32>) {
    let _ = block_compact(w, input, output, count);
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 5000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
    let kept: Vec<u32> = data.iter().copied().filter(|&x| keep(x)).collect();
    for (block, cpu_threads) in [(256u32, 1), (100, 1), (1024, 2)] {
        let blocks = n.div_ceil(block as usize) as u32;
        let input = GlobalBuffer::from_slice(&data);
        let output = GlobalBuffer::<u32>::zeroed(n);
        let count = GlobalBuffer::<u32>::zeroed(1);
        let (x, y, c) = (input.slice(), output.slice(), count.slice());
        Grid::blocks(blocks, block).cpu_threads(cpu_threads).run(async |w: &Warp<'_>| block_compact_entry(w, x, y, c).await).unwrap();
        let got = count.to_vec()[0] as usize;
        let mut out = output.to_vec()[..got].to_vec();
        // With one CPU thread blocks reserve in order: the output is the sequential one.
        let in_order = out == kept;
        out.sort_unstable();
        let mut want = kept.clone();
        want.sort_unstable();
        println!(
            "{blocks} blocks of {block} threads on {cpu_threads} CPU threads: kept {got} of {n} (sequential: {}), same values {}, in order {in_order}  {}",
            kept.len(),
            out == want,
            if out == want && (cpu_threads > 1 || in_order) { "ok" } else { "MISMATCH" }
        );
    }
}
