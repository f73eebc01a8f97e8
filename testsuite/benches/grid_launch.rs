//! Grid launches of 4,096 warps of two examples, on 1 and 2 CPU threads: the reduction
//! (`reduce_u32_entry`: shuffle trees and `redux.sync` for sum/min/max, six stores per thread) and
//! the histogram with warp-aggregated atomics (`histogram_ffs`: `activemask`, `match.any.sync`,
//! one `atom.add` per bucket per warp, on the example's skewed data and 10 buckets). Prints
//! warps/s and elements/s for each and the speedup of 2 threads over 1, measured in the same run.
//!
//! A control isolates what the histogram's own atomics cost when two cores share its 10 counters
//! (one cache line, which then moves between the cores): `histogram_private`, the same kernel
//! with each warp's counters on a cache line of their own, so that it does the same work with
//! nothing shared.
//!
//! `cargo bench --bench grid_launch`

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use warpkit::prelude::*;

mod common;
use common::{random_u32, thousands, Recorder};

#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/histogram.rs"]
mod histogram;

const WARPS: usize = 4096;
const N: usize = 32 * WARPS;
const BUCKETS: usize = 10;
const THREADS: [usize; 2] = [1, 2];

/// [`histogram::histogram_ffs`] with warp `k`'s counters at `16 * k ..`, a 64-byte line per warp:
/// the same instructions and atomics, on counters no other warp touches.
#[warp_kernel]
fn histogram_private(w: &Warp, input: GlobalSlice<'_, u32>, counts: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let x = input.load(i);
    if x == histogram::IGNORE {
        return;
    }
    let b = histogram::bucket(x, BUCKETS as u32);
    let active = w.activemask();
    let peers = w.group(active).match_any(b);
    if w.lane_id() == peers.trailing_zeros() {
        counts.atomic_add(16 * w.warp_index() as usize + b as usize, peers.count_ones());
    }
}

/// The sequential result of `reduce_u32_entry`: for each element, its warp's tree sum/min/max and
/// `redux` sum/min/max.
fn reduce_reference(input: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(6 * input.len());
    for chunk in input.chunks(32) {
        let sum = chunk.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        let (min, max) = (*chunk.iter().min().unwrap(), *chunk.iter().max().unwrap());
        for _ in chunk {
            out.extend_from_slice(&[sum, min, max, sum, min, max]);
        }
    }
    out
}

/// The example's data: a geometric distribution over buckets 0..=9 with every 17th value or so
/// padding (`IGNORE`).
fn histogram_data(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| {
            let r = i.wrapping_mul(2_654_435_761).rotate_left(13);
            if r % 17 == 0 { histogram::IGNORE } else { (r >> 8 & 1023).leading_zeros() - 22 }
        })
        .collect()
}

fn histogram_reference(data: &[u32]) -> Vec<u32> {
    let mut counts = vec![0u32; BUCKETS];
    for &x in data.iter().filter(|&&x| x != histogram::IGNORE) {
        counts[histogram::bucket(x, BUCKETS as u32) as usize] += 1;
    }
    counts
}

fn bench(c: &mut Criterion) {
    let rec = Recorder::default();

    // The reduction.
    let data = random_u32(N, 1);
    let input = GlobalBuffer::from_slice(&data);
    let out = GlobalBuffer::<u32>::zeroed(6 * N);
    let (i, o) = (input.slice(), out.slice());
    let reduce = |threads: usize| {
        Grid::new(N as u64).cpu_threads(threads).run(async |w: &Warp<'_>| reduce::reduce_u32_entry(w, i, o).await).unwrap()
    };
    let expect = reduce_reference(&data);
    for threads in THREADS {
        o.store(0, 1); // not the expected value, so a launch that wrote nothing would fail
        reduce(threads);
        assert!(out.to_vec() == expect, "reduce_u32_entry on {threads} CPU threads differs from the sequential reduction");
    }
    let mut g = rec.group(c, "grid_reduce_u32");
    g.inner.throughput(Throughput::Elements(N as u64)).sampling_mode(SamplingMode::Flat);
    for threads in THREADS {
        g.bench(&format!("{threads}_threads"), || reduce(threads));
    }
    g.finish();

    // The histogram.
    let data = histogram_data(N);
    let input = GlobalBuffer::from_slice(&data);
    let counts = GlobalBuffer::<u32>::zeroed(BUCKETS);
    let (i, h) = (input.slice(), counts.slice());
    let hist = |threads: usize| {
        Grid::new(N as u64).cpu_threads(threads).run(async |w: &Warp<'_>| histogram::histogram_ffs(w, i, h).await).unwrap()
    };
    let expect = histogram_reference(&data);
    for threads in THREADS {
        (0..BUCKETS).for_each(|b| h.store(b, 0));
        hist(threads);
        assert_eq!(counts.to_vec(), expect, "histogram_ffs on {threads} CPU threads differs from the sequential histogram");
    }
    let mut g = rec.group(c, "grid_histogram");
    g.inner.throughput(Throughput::Elements(N as u64)).sampling_mode(SamplingMode::Flat);
    for threads in THREADS {
        g.bench(&format!("{threads}_threads"), || hist(threads));
    }
    g.finish();

    // The control: the same histogram with counters private to each warp.
    let private = GlobalBuffer::<u32>::zeroed(16 * WARPS);
    let p = private.slice();
    let hist_private = |threads: usize| {
        Grid::new(N as u64).cpu_threads(threads).run(async |w: &Warp<'_>| histogram_private(w, i, p).await).unwrap()
    };
    for threads in THREADS {
        (0..16 * WARPS).for_each(|k| p.store(k, 0));
        hist_private(threads);
        let counts = private.to_vec();
        let merged: Vec<u32> = (0..BUCKETS).map(|b| counts.chunks(16).map(|c| c[b]).sum()).collect();
        assert_eq!(merged, expect, "histogram_private on {threads} CPU threads differs from the sequential histogram");
    }
    let mut g = rec.group(c, "grid_histogram_private");
    g.inner.throughput(Throughput::Elements(N as u64)).sampling_mode(SamplingMode::Flat);
    for threads in THREADS {
        g.bench(&format!("{threads}_threads"), || hist_private(threads));
    }
    g.finish();

    for (group, kernel) in [
        ("grid_reduce_u32", "reduce_u32_entry"),
        ("grid_histogram", "histogram_ffs"),
        ("grid_histogram_private", "histogram_private (control: per-warp counters)"),
    ] {
        let mut per_thread = Vec::new();
        for threads in THREADS {
            let Some(ns) = rec.ns(group, &format!("{threads}_threads")) else { continue };
            per_thread.push((threads, ns));
            let s = ns * 1e-9;
            println!(
                "grid {kernel}, {WARPS} warps ({N} elements), {threads} CPU thread{}: {:.2} ms per launch, {} warps/s, {} elements/s",
                if threads == 1 { "" } else { "s" },
                ns / 1e6,
                thousands(WARPS as f64 / s),
                thousands(N as f64 / s),
            );
        }
        if let [(1, one), (2, two)] = per_thread[..] {
            let target = if group == "grid_histogram_private" { "" } else { " (target 1.8x)" };
            println!("grid {kernel}: speedup on 2 CPU threads over 1: {:.2}x{target}", one / two);
        }
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
