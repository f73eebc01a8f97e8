//! The block level on the CPU runtime (issue 11), each figure beside a baseline from the same run:
//!
//! - a 256-thread BlockReduce (`examples/block_reduce.rs`: warp `shfl.down` trees, shared
//!   partials, `bar.sync`, then the broadcast behind a second barrier): ns per block, against the
//!   same sums in sequential Rust;
//! - a block sum written so that it runs warp-wide (issue 15: `redux` per warp, the partials in
//!   shared memory, one barrier, a second `redux` over the partials): ns per block warp-wide and
//!   per lane, against the same sums in sequential Rust;
//! - one CTA barrier: a block of 8 warps that executes `bar.sync 0` 64 times, as ns per barrier
//!   per warp, against the same kernel with `bar.warp.sync` (a warp instruction with no block
//!   bookkeeping) in its place;
//! - the decoupled look-back scan (`examples/lookback_scan.rs`) over 2^20 elements on 1 and 2 CPU
//!   threads, against a sequential inclusive scan;
//! - the mbarrier pipeline (`examples/mbarrier_pipeline.rs`, issue 16): 2^16 elements, 256
//!   stages of 256 words through 3 stage buffers in 4 blocks, as ns per stage (one bulk copy, its
//!   `arrive.expect_tx`, 64 consumer waits and arrivals, the producer's wait), against the same
//!   sums in sequential Rust.
//!
//! `cargo bench -p warpkit-testsuite --bench blocks`

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use warpkit::prelude::*;

mod common;
use common::{random_u32, Recorder};

#[allow(dead_code)]
#[path = "../../examples/block_reduce.rs"]
mod block_reduce;
#[allow(dead_code)]
#[path = "../../examples/lookback_scan.rs"]
mod lookback_scan;
#[allow(dead_code)]
#[path = "../../examples/mbarrier_pipeline.rs"]
mod mbarrier_pipeline;

const BLOCK: u32 = 256;
const BLOCKS: usize = 256;
const ROUNDS: u32 = 64;
const SCAN_N: usize = 1 << 20;

/// `rounds` CTA barriers.
#[warp_kernel]
fn barriers(w: &Warp, rounds: u32) -> u32 {
    let mut k = 0;
    while k < rounds {
        w.sync_threads();
        k += 1;
    }
    k
}

/// A block's sum that has a warp-wide form (no warp-function call): each warp's `redux` into a
/// shared slot, a barrier, and each warp adds the slots with a second `redux`.
#[warp_kernel]
fn block_sum_wide(w: &Warp, x: u32) -> u32 {
    let partials = w.shared_array::<u32, 32>();
    let warps = w.block_size().div_ceil(32) as usize;
    let mine = w.redux_add(x);
    if w.lane_id() == 0 {
        partials.store(w.warp_in_block() as usize, mine);
    }
    w.sync_threads();
    let l = w.lane_id() as usize;
    w.redux_add(if l < warps { partials.load(l) } else { 0 })
}

/// The control: `rounds` `bar.warp.sync`s.
#[warp_kernel]
fn warp_syncs(w: &Warp, rounds: u32) -> u32 {
    let mut k = 0;
    while k < rounds {
        w.syncwarp();
        k += 1;
    }
    k
}

fn bench(c: &mut Criterion) {
    let rec = Recorder::default();

    // BlockReduce.
    let data = random_u32(BLOCKS * BLOCK as usize, 11);
    let input = GlobalBuffer::from_slice(&data);
    let out = GlobalBuffer::<u32>::zeroed(BLOCKS);
    let all = GlobalBuffer::<u32>::zeroed(data.len());
    let (x, o, a) = (input.slice(), out.slice(), all.slice());
    let grid = Grid::blocks(BLOCKS as u32, BLOCK);
    let reduce = || grid.run(async |w: &Warp<'_>| block_reduce::block_reduce_entry(w, x, o, a).await).unwrap();
    let sequential = || -> Vec<u32> { data.chunks(BLOCK as usize).map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v))).collect() };
    reduce();
    assert_eq!(out.to_vec(), sequential(), "BlockReduce differs from the sequential sums");
    let mut g = rec.group(c, "block_reduce_256");
    g.inner.throughput(Throughput::Elements(BLOCKS as u64)).sampling_mode(SamplingMode::Flat);
    g.bench("warpkit", reduce);
    g.bench("sequential", || criterion::black_box(sequential()));
    g.finish();

    // A block sum that runs warp-wide, and the same per lane.
    let sums = |wide: bool| {
        Grid::blocks(BLOCKS as u32, BLOCK).executor(Executor::new().wide(wide)).map(async |w: &Warp<'_>| block_sum_wide(w, data[w.global_id() as usize]).await).unwrap()
    };
    let before = warpkit::wide_runs();
    let want: Vec<u32> = sequential().iter().flat_map(|&s| core::iter::repeat_n(s, BLOCK as usize)).collect();
    assert!(sums(true) == want && sums(false) == want, "the block sum differs from the sequential sums");
    assert!(warpkit::wide_runs() > before, "the block sum runs warp-wide");
    let mut g = rec.group(c, "block_sum_wide_256");
    g.inner.throughput(Throughput::Elements(BLOCKS as u64)).sampling_mode(SamplingMode::Flat);
    g.bench("warp_wide", || sums(true));
    g.bench("per_lane", || sums(false));
    g.bench("sequential", || criterion::black_box(sequential()));
    g.finish();

    // One barrier per warp.
    let grid = Grid::blocks(BLOCKS as u32, BLOCK);
    let run_bar = || grid.map(async |w: &Warp<'_>| barriers(w, ROUNDS).await).unwrap();
    let run_warp = || grid.map(async |w: &Warp<'_>| warp_syncs(w, ROUNDS).await).unwrap();
    assert!(run_bar().iter().chain(&run_warp()).all(|&k| k == ROUNDS));
    let mut g = rec.group(c, "barrier");
    g.inner.sampling_mode(SamplingMode::Flat);
    g.bench("bar_sync", run_bar);
    g.bench("bar_warp_sync", run_warp);
    g.finish();

    // The look-back scan.
    let data = random_u32(SCAN_N, 12);
    let tiles_n = SCAN_N.div_ceil(lookback_scan::ITEMS * BLOCK as usize);
    let input = GlobalBuffer::from_slice(&data);
    let output = GlobalBuffer::<u32>::zeroed(SCAN_N);
    let tiles = GlobalBuffer::<u32>::zeroed(1);
    let status = GlobalBuffer::<u64>::zeroed(tiles_n);
    let (x, y, t, s) = (input.slice(), output.slice(), tiles.slice(), status.slice());
    let scan = |threads: usize| {
        t.store(0, 0);
        (0..tiles_n).for_each(|k| s.store(k, 0));
        Grid::blocks(tiles_n as u32, BLOCK)
            .cpu_threads(threads)
            .run(async |w: &Warp<'_>| lookback_scan::lookback_scan_entry(w, x, y, t, s).await)
            .unwrap()
    };
    let sequential_scan = || -> Vec<u32> {
        data.iter()
            .scan(0u32, |run, &v| {
                *run = run.wrapping_add(v);
                Some(*run)
            })
            .collect()
    };
    let want = sequential_scan();
    for threads in [1, 2] {
        y.store(0, want[0].wrapping_add(1));
        scan(threads);
        assert!(output.to_vec() == want, "the look-back scan on {threads} CPU threads differs from the sequential scan");
    }
    let mut g = rec.group(c, "lookback_scan_2^20");
    g.inner.throughput(Throughput::Elements(SCAN_N as u64)).sampling_mode(SamplingMode::Flat);
    g.bench("1_thread", || scan(1));
    g.bench("2_threads", || scan(2));
    g.bench("sequential", || criterion::black_box(sequential_scan()));
    g.finish();

    // The mbarrier pipeline.
    const PIPE_N: usize = 1 << 16;
    const PIPE_BLOCKS: u32 = 4;
    let data = random_u32(PIPE_N, 13);
    let pipe = || mbarrier_pipeline::mbarrier_reduce(&data, PIPE_BLOCKS, |g| g).unwrap();
    let pipe_seq = || mbarrier_pipeline::reduce_reference(&data, PIPE_BLOCKS);
    assert_eq!(pipe(), pipe_seq(), "the mbarrier pipeline differs from the sequential sums");
    let mut g = rec.group(c, "mbarrier_pipeline_2^16");
    g.inner.sampling_mode(SamplingMode::Flat);
    g.bench("warpkit", pipe);
    g.bench("sequential", || criterion::black_box(pipe_seq()));
    g.finish();

    if let (Some(wk), Some(seq)) = (rec.ns("block_reduce_256", "warpkit"), rec.ns("block_reduce_256", "sequential")) {
        let (wk, seq) = (wk / BLOCKS as f64, seq / BLOCKS as f64);
        println!("BlockReduce, 256 threads: {wk:.0} ns per block; sequential Rust {seq:.1} ns per block; ratio {:.0}x", wk / seq);
    }
    if let (Some(wide), Some(lane), Some(seq)) =
        (rec.ns("block_sum_wide_256", "warp_wide"), rec.ns("block_sum_wide_256", "per_lane"), rec.ns("block_sum_wide_256", "sequential"))
    {
        let per = |ns: f64| ns / BLOCKS as f64;
        println!(
            "block sum (redux, shared partials, one barrier), 256 threads: {:.0} ns per block warp-wide, {:.0} per lane ({:.2}x); sequential Rust {:.1} ns per block; warp-wide / sequential {:.0}x",
            per(wide),
            per(lane),
            lane / wide,
            per(seq),
            wide / seq
        );
    }
    if let (Some(bar), Some(warp)) = (rec.ns("barrier", "bar_sync"), rec.ns("barrier", "bar_warp_sync")) {
        let per = |ns: f64| ns / (BLOCKS as f64 * (BLOCK / 32) as f64 * ROUNDS as f64);
        println!(
            "one barrier: {:.1} ns per warp (bar.sync 0 in blocks of 8 warps); bar.warp.sync in its place {:.1} ns per warp; ratio {:.2}x",
            per(bar),
            per(warp),
            bar / warp
        );
    }
    if let (Some(one), Some(two), Some(seq)) =
        (rec.ns("lookback_scan_2^20", "1_thread"), rec.ns("lookback_scan_2^20", "2_threads"), rec.ns("lookback_scan_2^20", "sequential"))
    {
        let per = |ns: f64| ns / SCAN_N as f64;
        println!(
            "look-back scan, 2^20 elements in {tiles_n} blocks of {BLOCK}: {:.2} ms on 1 CPU thread ({:.1} ns/element), {:.2} ms on 2 ({:.2}x); sequential Rust {:.3} ms ({:.2} ns/element); 1 thread / sequential {:.0}x",
            one / 1e6,
            per(one),
            two / 1e6,
            one / two,
            seq / 1e6,
            per(seq),
            one / seq
        );
    }
    if let (Some(wk), Some(seq)) = (rec.ns("mbarrier_pipeline_2^16", "warpkit"), rec.ns("mbarrier_pipeline_2^16", "sequential")) {
        let stages = PIPE_N.div_ceil(mbarrier_pipeline::TILE) as f64;
        println!(
            "mbarrier pipeline, 2^16 elements: {:.0} ns per stage ({} stages of {} words, {} buffers, {PIPE_BLOCKS} blocks of {} threads); sequential Rust {:.1} ns per tile; ratio {:.0}x",
            wk / stages,
            stages,
            mbarrier_pipeline::TILE,
            mbarrier_pipeline::STAGES,
            mbarrier_pipeline::BLOCK,
            seq / stages,
            wk / seq
        );
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
