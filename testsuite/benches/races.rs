//! The race detector's cost (issue 14), measured in one run: BlockReduce and the histogram with
//! the detector on and off (target: at most 3x slower with it on), and its shadow bytes per byte
//! of buffer.
//!
//! `cargo bench -p warpkit-testsuite --bench races`

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use warpkit::prelude::*;

mod common;
use common::{random_u32, Recorder};

#[allow(dead_code)]
#[path = "../../examples/block_reduce.rs"]
mod block_reduce;
#[allow(dead_code)]
#[path = "../../examples/histogram.rs"]
mod histogram;

const BLOCK: u32 = 256;
const BLOCKS: usize = 64;
const HIST_N: usize = 1 << 16;
const BUCKETS: usize = 64;

fn bench(c: &mut Criterion) {
    let rec = Recorder::default();

    // BlockReduce: shared partials, barriers, the broadcast.
    let data = random_u32(BLOCKS * BLOCK as usize, 21);
    let input = GlobalBuffer::from_slice(&data);
    let out = GlobalBuffer::<u32>::zeroed(BLOCKS);
    let all = GlobalBuffer::<u32>::zeroed(data.len());
    let (x, o, a) = (input.slice(), out.slice(), all.slice());
    let reduce = |races: bool| Grid::blocks(BLOCKS as u32, BLOCK).races(races).run(async |w: &Warp<'_>| block_reduce::block_reduce_entry(w, x, o, a).await).unwrap();
    let want: Vec<u32> = data.chunks(BLOCK as usize).map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v))).collect();
    for races in [false, true] {
        reduce(races);
        assert_eq!(out.to_vec(), want, "BlockReduce (detector {races}) differs from the sequential sums");
    }
    let mut g = rec.group(c, "block_reduce_races");
    g.inner.throughput(Throughput::Elements(BLOCKS as u64)).sampling_mode(SamplingMode::Flat);
    g.bench("off", || reduce(false));
    g.bench("on", || reduce(true));
    g.finish();

    // The histogram with warp-aggregated atomics and the last block's summary.
    let values: Vec<u32> = random_u32(HIST_N, 22).into_iter().map(|v| (v >> 7) % 97).collect();
    let hin = GlobalBuffer::from_slice(&values);
    let (counts, done, summary) = (GlobalBuffer::<u32>::zeroed(BUCKETS), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(2));
    let (hi, hc, hd, hs) = (hin.slice(), counts.slice(), done.slice(), summary.slice());
    let hist = |races: bool| {
        (0..BUCKETS).for_each(|b| hc.store(b, 0));
        hd.store(0, 0);
        Grid::blocks((HIST_N / 128) as u32, 128).races(races).run(async |w: &Warp<'_>| histogram::histogram_done_entry(w, hi, hc, hd, hs, 1).await).unwrap()
    };
    let mut want = vec![0u32; BUCKETS];
    values.iter().for_each(|&v| want[histogram::bucket(v, BUCKETS as u32) as usize] += 1);
    for races in [false, true] {
        hist(races);
        assert_eq!(counts.to_vec(), want, "histogram (detector {races}) differs from the sequential one");
    }
    let mut g = rec.group(c, "histogram_races");
    g.inner.throughput(Throughput::Elements(HIST_N as u64)).sampling_mode(SamplingMode::Flat);
    g.bench("off", || hist(false));
    g.bench("on", || hist(true));
    g.finish();

    for (name, group) in [("BlockReduce, 64 blocks of 256", "block_reduce_races"), ("histogram, 2^16 values, blocks of 128", "histogram_races")] {
        if let (Some(off), Some(on)) = (rec.ns(group, "off"), rec.ns(group, "on")) {
            println!("{name}: detector off {:.2} ms, on {:.2} ms; on / off {:.2}x (target <= 3x)", off / 1e6, on / 1e6, on / off);
        }
    }
    let per = |bytes: usize, elems: usize, size: usize| bytes as f64 / (elems * size) as f64;
    println!(
        "shadow bytes per byte of buffer (u32 elements, pages of every accessed element): input {:.1}, all {:.1}, histogram input {:.1}",
        per(input.shadow_bytes(), data.len(), 4),
        per(all.shadow_bytes(), data.len(), 4),
        per(hin.shadow_bytes(), HIST_N, 4)
    );
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
