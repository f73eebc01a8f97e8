//! A producer/consumer pipeline on named barriers, the model of the PTX ISA's `bar` section: "The
//! producer threads execute `bar.arrive` to announce their arrival at the barrier and continue
//! execution without delay to produce the next value, while the consumer threads execute
//! `bar.sync` to wait for a resource to be produced. The roles are then reversed, using a
//! different barrier."
//!
//! Warp 0 of each block is the producer: it loads tiles of 32 values from global memory into one
//! of two shared stages. The other warps are consumers: each takes every value of the stage,
//! computes `3x + 1` and its warp's share of the tile's sum. Each stage `s` has two barriers of
//! the whole block's thread count: `FULL + s` (the producer arrives when the stage is filled, the
//! consumers sync on it) and `EMPTY + s` (the consumers arrive when they have read it, the
//! producer syncs on it before filling it again). With two stages, the producer fills stage 1
//! while the consumers work on stage 0.
//!
//! Block `b` handles tiles `b, b + nctaid, b + 2 nctaid, ...`.
//!
//! Run it: `cargo run --example pipeline`.

use warpkit::prelude::*;

/// The barriers: `FULL + s` and `EMPTY + s` for stage `s` of 2.
pub const FULL: u32 = 1;
pub const EMPTY: u32 = 3;
/// Values per tile (one per producer lane).
pub const TILE: usize = 32;

/// The pipeline: `output[i] = 3 * input[i] + 1` and `sums[tile]` the sum of the tile's outputs
/// (each consumer warp adds its share with one `atom.add`). Blocks of 2 to 32 warps, whole.
#[warp_kernel]
pub fn pipeline(w: &Warp, input: GlobalSlice<'_, u32>, output: GlobalSlice<'_, u32>, sums: GlobalSlice<'_, u32>) {
    let stages = w.shared_array::<u32, 64>();
    let threads = w.block_size();
    let consumers = threads / 32 - 1;
    let tiles = input.len().div_ceil(TILE);
    let lane = w.lane_id() as usize;
    // This block's tiles.
    let mine = (tiles as u32).saturating_sub(w.block_rank() as u32).div_ceil(w.nctaid().x);
    let mut k = 0;
    while k < mine {
        let tile = w.block_rank() as usize + k as usize * w.nctaid().x as usize;
        let stage = k % 2;
        let slot = stage as usize * TILE + lane;
        if w.warp_in_block() == 0 {
            // Producer: wait until the consumers have emptied the stage (not the first time).
            if k >= 2 {
                w.bar_sync_count(EMPTY + stage, threads);
            }
            let i = tile * TILE + lane;
            stages.store(slot, if i < input.len() { input.load(i) } else { 0 });
            w.bar_arrive(FULL + stage, threads);
        } else {
            // Consumer warp c takes values c-1, c-1 + consumers, ... of the tile.
            w.bar_sync_count(FULL + stage, threads);
            let c = w.warp_in_block() as usize - 1;
            let mut share = 0u32;
            let mut v = c;
            while v < TILE {
                let y = 3u32.wrapping_mul(stages.load(stage as usize * TILE + v)).wrapping_add(1);
                let i = tile * TILE + v;
                if lane == 0 && i < output.len() {
                    output.store(i, y);
                    share = share.wrapping_add(y);
                }
                v += consumers as usize;
            }
            if lane == 0 {
                sums.atomic_add(tile, share);
            }
            // Done with the stage (the producer waits for it only if it has another tile).
            if k + 2 < mine {
                w.bar_arrive(EMPTY + stage, threads);
            }
        }
        k += 1;
    }
}

/// GPU entry point: [`pipeline`] with `sums` zeroed, one per tile of 32 values.
#[warp_kernel(entry)]
pub fn pipeline_entry(w: &Warp, input: GlobalSlice<'_, u32>, output: GlobalSlice<'_, u32>, sums: GlobalSlice<'_, u32>) {
    pipeline(w, input, output, sums);
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let n = 1000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i * i % 977).collect();
    let want: Vec<u32> = data.iter().map(|x| 3 * x + 1).collect();
    let want_sums: Vec<u32> = want.chunks(TILE).map(|c| c.iter().sum()).collect();
    for (blocks, warps) in [(1u32, 2u32), (3, 4), (8, 9)] {
        let input = GlobalBuffer::from_slice(&data);
        let output = GlobalBuffer::<u32>::zeroed(n);
        let sums = GlobalBuffer::<u32>::zeroed(want_sums.len());
        let (x, y, s) = (input.slice(), output.slice(), sums.slice());
        Grid::blocks(blocks, 32 * warps).run(async |w: &Warp<'_>| pipeline_entry(w, x, y, s).await).unwrap();
        println!(
            "{blocks} blocks of 1 producer + {} consumer warps over {} tiles: outputs {:?} ..., tile sums {:?} ...  {}",
            warps - 1,
            want_sums.len(),
            &output.to_vec()[..4],
            &sums.to_vec()[..3],
            if output.to_vec() == want && sums.to_vec() == want_sums { "ok" } else { "MISMATCH" }
        );
    }
}
