//! Single-pass inclusive scan over a whole grid with decoupled look-back (Merrill & Garland,
//! "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016; CUB's `DeviceScan`).
//!
//! Each block scans one tile of `ITEMS * block_size` consecutive values:
//!
//! 1. it takes its tile number from a global counter with `atom.add` (not from `%ctaid`), so a
//!    tile only ever waits for tiles that started earlier: blocks need not be resident in order;
//! 2. each thread sums its `ITEMS` values, and the block scans those sums ([`block_scan`]); the
//!    block's total is the tile's *aggregate*;
//! 3. thread 0 publishes the aggregate in the tile's status word, then looks back over the
//!    predecessors' status words: an aggregate is added and the look-back goes on, an *inclusive
//!    prefix* is added and ends it, a tile not yet published is waited for. It then publishes the
//!    tile's inclusive prefix, so that later tiles stop here;
//! 4. every thread adds the tile's exclusive prefix to its running sums and writes its values.
//!
//! A status word is a `u64`: the flag in the high 32 bits (0 not yet, 1 aggregate, 2 inclusive
//! prefix) and the value in the low 32, published with one `atom.exch` and read with one
//! `ld.volatile`, so a reader sees a flag and its value together.
//!
//! The look-back is a spin-wait on other blocks: on the CPU runtime it completes because a
//! volatile load is a scheduling point, and it completes with any number of resident blocks
//! because tiles are taken in order.
//!
//! Run it: `cargo run --example lookback_scan`.

use warpkit::prelude::*;

/// Values each thread scans.
pub const ITEMS: usize = 4;
/// Status flags.
pub const NOT_READY: u64 = 0;
pub const AGGREGATE: u64 = 1;
pub const PREFIX: u64 = 2;

/// The inclusive prefix sum over the warp's lanes (wrapping).
#[warp_kernel]
pub fn warp_inclusive_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for delta in [1, 2, 4, 8, 16] {
        let (up, in_range) = w.shfl_up_pred(v, delta);
        if in_range {
            v = v.wrapping_add(up);
        }
    }
    v
}

/// `(exclusive prefix, block total)` of `x` over the block's threads, in rank order. Blocks of a
/// multiple of 32 threads.
#[warp_kernel]
pub fn block_scan(w: &Warp, x: u32) -> (u32, u32) {
    let totals = w.shared_array::<u32, 33>();
    let warp = w.warp_in_block() as usize;
    let warps = w.block_size() / 32;
    let inclusive = warp_inclusive_sum(w, x);
    if w.lane_id() == 31 {
        totals.store(warp, inclusive);
    }
    w.sync_threads();
    if warp == 0 {
        let t = if w.lane_id() < warps { totals.load(w.lane_id() as usize) } else { 0 };
        let s = warp_inclusive_sum(w, t);
        if w.lane_id() < warps {
            totals.store(w.lane_id() as usize, s.wrapping_sub(t));
        }
        if w.lane_id() == warps - 1 {
            totals.store(32, s);
        }
    }
    w.sync_threads();
    (inclusive.wrapping_sub(x).wrapping_add(totals.load(warp)), totals.load(32))
}

/// The inclusive scan of `input` into `output`: one tile of `ITEMS * block_size` values per
/// block, `tiles[0]` a counter starting at 0, `status` one zeroed word per tile.
#[warp_kernel]
pub fn lookback_scan(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    output: GlobalSlice<'_, u32>,
    tiles: GlobalSlice<'_, u32>,
    status: GlobalSlice<'_, u64>,
) {
    let tile_of_block = w.shared_array::<u32, 1>();
    let exclusive_of_tile = w.shared_array::<u32, 1>();
    let t = w.thread_rank() as usize;
    // 1. A tile number in the order blocks start.
    if t == 0 {
        tile_of_block.store(0, tiles.atomic_add(0, 1));
    }
    w.sync_threads();
    let tile = tile_of_block.load(0) as usize;
    let base = tile * ITEMS * w.block_size() as usize + t * ITEMS;
    // 2. This thread's values, and the block's scan of their sums.
    let mut values = [0u32; ITEMS];
    let mut sum = 0u32;
    let mut k = 0;
    while k < ITEMS {
        if base + k < input.len() {
            values[k] = input.load(base + k);
        }
        sum = sum.wrapping_add(values[k]);
        k += 1;
    }
    let (before_me, aggregate) = block_scan(w, sum);
    // 3. Publish the aggregate, look back, publish the inclusive prefix.
    if t == 0 {
        let mut exclusive = 0u32;
        if tile == 0 {
            status.atomic_exch(0, PREFIX << 32 | aggregate as u64);
        } else {
            status.atomic_exch(tile, AGGREGATE << 32 | aggregate as u64);
            let mut p = tile - 1;
            loop {
                let word = status.load_volatile(p);
                let flag = word >> 32;
                if flag == NOT_READY {
                    continue;
                }
                exclusive = exclusive.wrapping_add(word as u32);
                if flag == PREFIX {
                    break;
                }
                p -= 1;
            }
            status.atomic_exch(tile, PREFIX << 32 | exclusive.wrapping_add(aggregate) as u64);
        }
        exclusive_of_tile.store(0, exclusive);
    }
    w.sync_threads();
    // 4. Write the scanned values.
    let mut running = exclusive_of_tile.load(0).wrapping_add(before_me);
    let mut k = 0;
    while k < ITEMS {
        running = running.wrapping_add(values[k]);
        if base + k < output.len() {
            output.store(base + k, running);
        }
        k += 1;
    }
}

/// GPU entry point: [`lookback_scan`]. Launch `ceil(input.len() / (ITEMS * B))` blocks of B
/// threads (a multiple of 32), with `tiles[0] == 0` and `status` zeroed, one word per block.
#[warp_kernel(entry)]
pub fn lookback_scan_entry(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    output: GlobalSlice<'_, u32>,
    tiles: GlobalSlice<'_, u32>,
    status: GlobalSlice<'_, u64>,
) {
    lookback_scan(w, input, output, tiles, status);
}

/// The inclusive scan of `data` on the CPU runtime: one tile of `ITEMS * block` values per block
/// of `block` threads, on the grid `configure` makes of it (schedule, resident blocks, CPU threads).
#[cfg(not(target_arch = "nvptx64"))]
pub fn scan_on_cpu(data: &[u32], block: u32, configure: impl FnOnce(Grid) -> Grid) -> Result<Vec<u32>, WarpError> {
    let blocks = data.len().div_ceil(ITEMS * block as usize);
    let input = GlobalBuffer::from_slice(data);
    let output = GlobalBuffer::<u32>::zeroed(data.len());
    let tiles = GlobalBuffer::<u32>::zeroed(1);
    let status = GlobalBuffer::<u64>::zeroed(blocks);
    let (x, y, c, s) = (input.slice(), output.slice(), tiles.slice(), status.slice());
    configure(Grid::blocks(blocks as u32, block)).run(async |w: &Warp<'_>| lookback_scan_entry(w, x, y, c, s).await)?;
    Ok(output.to_vec())
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 1 << 16;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 21).collect();
    let mut want = data.clone();
    for i in 1..n {
        want[i] = want[i - 1].wrapping_add(want[i]);
    }
    for (block, schedule, resident) in [(256u32, Schedule::InOrder, 8), (128, Schedule::Random { seed: 7 }, 4), (64, Schedule::pct(3, 3), 16)] {
        let got = scan_on_cpu(&data, block, |g| g.schedule(schedule).resident_blocks(resident)).unwrap();
        println!(
            "{n} values, {} tiles of {} ({schedule}, {resident} resident blocks): last prefix {}, sequential {}  {}",
            n.div_ceil(ITEMS * block as usize),
            ITEMS * block as usize,
            got[n - 1],
            want[n - 1],
            if got == want { "ok" } else { "MISMATCH" }
        );
    }
}
