//! A cluster-wide reduction through distributed shared memory and `barrier.cluster` (issue 16).
//!
//! Each thread sums its grid-stride share of `x`; each block reduces its threads' sums to one
//! partial in its shared memory (`redux.sync` per warp, then warp 0 over the warps' sums); after
//! a `barrier.cluster` arrive and wait, warp 0 of the cluster's rank-0 block reads every block's
//! partial from that block's shared memory (`mapa` + `ld.shared::cluster`, one lane per block)
//! and reduces them. A second cluster barrier keeps every block alive until rank 0 has read its
//! partial: a block's shared memory is gone once it exits.
//!
//! `out[c]` is the wrapping sum of the elements cluster `c`'s blocks own. Launch one-dimensional
//! grids of whole clusters (up to 8 blocks each), blocks of whole warps. Run:
//! `cargo run --example cluster_reduce`.

use warpkit::prelude::*;

/// The reduction (see the module docs): `out[c]` for each cluster `c`.
#[warp_kernel(entry)]
pub fn cluster_reduce_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let warp_sums = w.shared_array::<u32, 32>();
        let partial = w.shared_array::<u32, 1>();
        let (t, n) = (w.thread_rank() as usize, w.block_size() as usize);
        let threads = n * w.nctaid().x as usize;
        let mut i = w.block_rank() as usize * n + t;
        let mut acc = 0u32;
        while i < x.len() {
            acc = acc.wrapping_add(x.load(i));
            i += threads;
        }
        let warp_sum = w.redux_add(acc);
        if w.lane_id() == 0 {
            warp_sums.store(w.warp_in_block() as usize, warp_sum);
        }
        w.sync_threads();
        if w.warp_in_block() == 0 {
            let l = w.lane_id() as usize;
            let mine = if l < n / 32 { warp_sums.load(l) } else { 0 };
            let block_sum = w.redux_add(mine);
            if l == 0 {
                partial.store(0, block_sum);
            }
        }
        // Every block's partial is written before any block reads it ...
        w.cluster_sync();
        if w.cluster_ctarank() == 0 && w.warp_in_block() == 0 {
            let l = w.lane_id();
            let theirs = if l < w.cluster_nctarank() { partial.map_shared_rank(l).load(0) } else { 0 };
            let total = w.redux_add(theirs);
            if l == 0 {
                out.store(w.clusterid().x as usize, total);
            }
        }
        // ... and no block exits before rank 0 has read it.
        w.cluster_sync();
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, out);
        w.sync_threads();
    }
}

/// The reduction on the CPU runtime (sm_90): `blocks` blocks of `block` threads in clusters of
/// `cluster`, on the grid `grid` makes of the launch (a schedule, CPU threads).
#[cfg(not(target_arch = "nvptx64"))]
pub fn cluster_reduce(x: &[u32], blocks: u32, block: u32, cluster: u32, grid: impl FnOnce(Grid) -> Grid) -> Result<Vec<u32>, WarpError> {
    let input = GlobalBuffer::from_slice(x);
    let out = GlobalBuffer::<u32>::zeroed((blocks / cluster) as usize);
    let (xs, o) = (input.slice(), out.slice());
    grid(Grid::blocks(blocks, block).cluster(cluster))
        .executor(Executor::new().target(Target::SM_90))
        .run(async |w: &Warp<'_>| cluster_reduce_entry(w, xs, o).await)?;
    Ok(out.to_vec())
}

/// What `cluster_reduce` computes, sequentially: element `i` belongs to thread
/// `i % (blocks * block)`, so to block `(i % (blocks * block)) / block`, so to that block's
/// cluster.
#[cfg(not(target_arch = "nvptx64"))]
pub fn cluster_reference(x: &[u32], blocks: u32, block: u32, cluster: u32) -> Vec<u32> {
    let threads = (blocks * block) as usize;
    let mut out = vec![0u32; (blocks / cluster) as usize];
    for (i, &v) in x.iter().enumerate() {
        let b = (i % threads) / block as usize;
        let c = b / cluster as usize;
        out[c] = out[c].wrapping_add(v);
    }
    out
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: Vec<u32> = (0..100_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let (blocks, block, cluster) = (16, 128, 4);
    let sums = cluster_reduce(&x, blocks, block, cluster, |g| g).expect("the reduction is defined behaviour");
    assert_eq!(sums, cluster_reference(&x, blocks, block, cluster));
    println!("{} values in {blocks} blocks of {block} threads, clusters of {cluster}: per-cluster sums {sums:?} (equal to the sequential reduction)", x.len());
}
