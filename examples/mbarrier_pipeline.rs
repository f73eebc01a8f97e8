//! A multistage producer/consumer pipeline in the shape of CUTLASS's (issue 16): a tiled
//! reduction whose tiles reach shared memory by bulk asynchronous copies (`cp.async.bulk`, the
//! TMA's unit-stride form) and whose stages are handed over with mbarriers.
//!
//! Each block reduces the tiles `block, block + blocks, ...` of `x` through `STAGES` stage
//! buffers in dynamic shared memory. Warp 0 is the producer: its elected lane waits until a
//! stage is `empty`, announces the tile's bytes on the stage's `full` barrier
//! (`mbarrier.arrive.expect_tx`) and starts the copy, which completes those bytes on the same
//! barrier. The other warps consume: they wait on `full` with the phase's parity, add their part
//! of the tile, and arrive on `empty`. The producer's first wait on each `empty` barrier is for
//! the parity of the phase before phase 0 (1), so it passes at once; each stage's parity flips
//! every `STAGES` tiles.
//!
//! `x.len()` must be a multiple of 4 (a bulk copy moves a multiple of 16 bytes). `out[block]` is
//! the wrapping sum of the block's tiles. Run: `cargo run --example mbarrier_pipeline`.

use warpkit::prelude::*;

/// Stage buffers per block.
pub const STAGES: usize = 3;
/// `u32`s per tile (1 KiB).
pub const TILE: usize = 256;
/// Consumer warps per block (the producer is warp 0).
pub const CONSUMER_WARPS: usize = 2;
/// Threads per block.
pub const BLOCK: u32 = 32 * (1 + CONSUMER_WARPS as u32);
/// The dynamic shared memory a block needs: the stages.
pub const SHARED_BYTES: u32 = (STAGES * TILE * 4) as u32;
/// `u64` slots of the barrier array: `full[s]` at `s`, `empty[s]` at `STAGES + s`. The stages
/// (dynamic shared memory, which warpkit declares 128-byte aligned, as CUDA code declares
/// `extern __shared__ __align__(128)`) start on a 128-byte line: 48 bytes into one, on the H100
/// the kernel took 1.33x nvcc's time at full occupancy, varying from run to run
/// (benches/gpu/h100/README.md).
#[cfg_attr(all(target_arch = "nvptx64", not(target_feature = "sm_90")), allow(dead_code))]
const BAR_SLOTS: usize = 2 * STAGES;
// The consumers split a tile into `TILE / consumers` rounds of one element each.
const _: () = assert!(TILE % (32 * CONSUMER_WARPS) == 0);

/// The pipeline (see the module docs); launch with `BLOCK` threads per block and
/// `SHARED_BYTES` of dynamic shared memory.
///
/// Its bounds checks stay off the per-tile path. The stages are one view of `STAGES * TILE`
/// elements, checked once against the launch's dynamic shared memory. Each tile's stage is a
/// `subslice` of it at `(k % STAGES) * TILE`, which the compiler proves in range. A consumer's
/// part of a tile is `TILE / consumers` (4) indices `c + consumers * j`, each read when below the
/// tile's length (at most `TILE`), so the loop unrolls fully and needs no other check. The
/// producer's copy source is a `subslice` of `x`, whose length the compiler knows is at least 1:
/// one check per tile.
#[warp_kernel(entry)]
pub fn mbarrier_reduce_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        // full[s] at s, empty[s] at STAGES + s (see BAR_SLOTS).
        let bars = w.shared_array::<u64, BAR_SLOTS>();
        let stages = w.dynamic_shared_at::<u32>(0, STAGES * TILE);
        let partial = w.shared_array::<u32, { 32 * CONSUMER_WARPS }>();
        let consumers = 32 * CONSUMER_WARPS;
        let n = x.len();
        let (block, blocks) = (w.ctaid().x as usize, w.nctaid().x as usize);
        let tiles = n.div_ceil(TILE);
        let mine = if block < tiles { (tiles - block).div_ceil(blocks) } else { 0 };
        if w.thread_rank() == 0 {
            let mut s = 0;
            while s < STAGES {
                bars.mbarrier_init(s, 1);
                bars.mbarrier_init(STAGES + s, consumers as u32);
                s += 1;
            }
        }
        w.sync_threads();
        if w.warp_in_block() == 0 {
            let (_, leader) = w.elect();
            if leader {
                let mut k = 0;
                while k < mine {
                    let s = k % STAGES;
                    while !bars.mbarrier_try_wait_parity(STAGES + s, ((k / STAGES) as u32 & 1) ^ 1) {}
                    let start = (block + k * blocks) * TILE;
                    // The tile's elements, min(n - start, TILE), written as 1 + min(n - start - 1,
                    // TILE - 1) (start < n here): at least 1 for the compiler too, so the check
                    // of `subslice` (start + len <= n) is the copy's only one.
                    let rest = n - start - 1;
                    let len = 1 + if rest < TILE - 1 { rest } else { TILE - 1 };
                    let src = x.subslice(start, len);
                    bars.mbarrier_arrive_expect_tx(s, (len * 4) as u32);
                    stages.cp_async_bulk(s * TILE, src, 0, len, bars, s);
                    k += 1;
                }
            }
        } else {
            let c = (w.thread_rank() - 32) as usize;
            let mut acc = 0u32;
            let mut k = 0;
            while k < mine {
                let s = k % STAGES;
                while !bars.mbarrier_try_wait_parity(s, (k / STAGES) as u32 & 1) {}
                let start = (block + k * blocks) * TILE;
                let len = if n - start < TILE { n - start } else { TILE };
                let stage = stages.subslice(s * TILE, TILE);
                let mut j = 0;
                while j < TILE / consumers {
                    let i = c + j * consumers;
                    if i < len {
                        acc = acc.wrapping_add(stage.load(i));
                    }
                    j += 1;
                }
                bars.mbarrier_arrive(STAGES + s);
                k += 1;
            }
            partial.store(c, acc);
        }
        w.sync_threads();
        if w.thread_rank() == 0 {
            let mut total = 0u32;
            let mut c = 0;
            while c < consumers {
                total = total.wrapping_add(partial.load(c));
                c += 1;
            }
            out.store(block, total);
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, out);
        w.sync_threads();
    }
}

/// The pipeline on the CPU runtime (sm_90), over `blocks` blocks, on the grid `grid` makes of
/// the launch (a schedule, CPU threads): each block's sum.
#[cfg(not(target_arch = "nvptx64"))]
pub fn mbarrier_reduce(x: &[u32], blocks: u32, grid: impl FnOnce(Grid) -> Grid) -> Result<Vec<u32>, WarpError> {
    assert!(x.len() % 4 == 0, "a bulk copy moves a multiple of 16 bytes: x.len() must be a multiple of 4");
    let input = GlobalBuffer::from_slice(x);
    let out = GlobalBuffer::<u32>::zeroed(blocks as usize);
    let (xs, o) = (input.slice(), out.slice());
    grid(Grid::blocks(blocks, BLOCK))
        .dynamic_shared_bytes(SHARED_BYTES)
        .executor(Executor::new().target(Target::SM_90))
        .run(async |w: &Warp<'_>| mbarrier_reduce_entry(w, xs, o).await)?;
    Ok(out.to_vec())
}

/// What `mbarrier_reduce` computes, sequentially.
#[cfg(not(target_arch = "nvptx64"))]
pub fn reduce_reference(x: &[u32], blocks: u32) -> Vec<u32> {
    let mut out = vec![0u32; blocks as usize];
    for (t, tile) in x.chunks(TILE).enumerate() {
        let b = t % blocks as usize;
        out[b] = tile.iter().fold(out[b], |a, &v| a.wrapping_add(v));
    }
    out
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: Vec<u32> = (0..10_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let blocks = 4;
    let sums = mbarrier_reduce(&x, blocks, |g| g).expect("the pipeline is defined behaviour");
    assert_eq!(sums, reduce_reference(&x, blocks));
    println!("{} tiles of {TILE} through {STAGES} stages in {blocks} blocks: per-block sums {sums:?} (equal to the sequential reduction)", x.len().div_ceil(TILE));
}
