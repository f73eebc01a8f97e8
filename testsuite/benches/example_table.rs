//! Every example on the CPU runtime against a sequential Rust reference computing the same
//! result, per element, measured in the same run; and the memory a running warp of each
//! example's kernel occupies.
//!
//! Each row launches the example's GPU entry kernel through its type (`run_cpu`, as a user's
//! test does; each warp starts in the kernel's warp-wide form where it has one) or, for
//! `compact`, its grid kernel through a closure, over a grid of 512 warps on one CPU thread, and
//! the reference computes the same output buffers with plain loops. The footprint column is
//! the per-lane executor's (the closure's). Outputs are compared before anything is timed. `bug_gallery` is left out: its
//! kernels are undefined behaviour by design.
//!
//! `cargo bench --bench example_table`

use criterion::{criterion_group, criterion_main, Criterion};
use warpkit::prelude::*;
use warpkit::{warp_footprint, EntryKernel, Footprint};

mod common;
use common::{random_u32, thousands, Group, Recorder};

#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code)]
#[path = "../../examples/compact.rs"]
mod compact;
#[allow(dead_code)]
#[path = "../../examples/histogram.rs"]
mod histogram;
#[allow(dead_code)]
#[path = "../../examples/radix_rank.rs"]
mod radix_rank;
#[allow(dead_code)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;
#[allow(dead_code)]
#[path = "../../examples/search.rs"]
mod search;

const WARPS: usize = 512;
const N: usize = 32 * WARPS;
const GROUP: &str = "example_table";

/// One row of the table, once both sides are measured.
struct Row {
    example: &'static str,
    kernel: &'static str,
    elements: usize,
    footprint: Footprint,
    times: Option<(f64, f64)>,
}

struct Table<'r, 'c> {
    rec: &'r Recorder,
    group: Group<'r, 'c>,
    rows: Vec<Row>,
}

impl Table<'_, '_> {
    /// Times `runtime` (a grid launch) and `sequential` (the reference) over `elements` elements.
    fn row<A, B>(&mut self, example: &'static str, kernel: &'static str, elements: usize, footprint: Footprint, runtime: impl FnMut() -> A, sequential: impl FnMut() -> B) {
        let id: String = example.chars().filter(|c| c.is_alphanumeric() || *c == '_' || *c == ' ').collect::<String>().replace(' ', "_");
        let (warpkit, reference) = (format!("{id}/warpkit"), format!("{id}/sequential"));
        self.group.bench(&warpkit, runtime);
        self.group.bench(&reference, sequential);
        let times = self.rec.ns(GROUP, &warpkit).zip(self.rec.ns(GROUP, &reference));
        self.rows.push(Row { example, kernel, elements, footprint, times });
    }
}

/// Copies `src` into `dst` (reused, so the timed reference does not allocate).
fn fill(dst: &mut Vec<u32>, src: impl IntoIterator<Item = u32>) {
    dst.clear();
    dst.extend(src);
}

fn bench(c: &mut Criterion) {
    let rec = Recorder::default();
    let mut t = Table { rec: &rec, group: rec.group(c, GROUP), rows: Vec::new() };
    let grid = Grid::new(N as u64); // one CPU thread: the per-element cost of the runtime itself

    // ---- reduce: reduce_u32_entry, out[6i..6i+6] = the warp's tree and redux sum/min/max.
    {
        let data = random_u32(N, 1);
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(6 * N));
        let out = &cpu.1;
        let (i, o) = (cpu.0.slice(), out.slice());
        let kernel = async |w: &Warp<'_>| reduce::reduce_u32_entry(w, i, o).await;
        let mut seq = Vec::with_capacity(6 * N);
        let reference = |seq: &mut Vec<u32>| {
            seq.clear();
            for chunk in data.chunks(32) {
                let sum = chunk.iter().fold(0u32, |a, &b| a.wrapping_add(b));
                let (min, max) = (*chunk.iter().min().unwrap(), *chunk.iter().max().unwrap());
                for _ in chunk {
                    seq.extend_from_slice(&[sum, min, max, sum, min, max]);
                }
            }
            seq[0]
        };
        let launch = || reduce::reduce_u32_entry::run_cpu(&grid, &cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(out.to_vec() == seq, "reduce differs from the sequential reference");
        t.row("reduce", "reduce_u32_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- scan: scan_u32_entry, out[6i..6i+6] = warp inclusive/exclusive, tiles of 8, tiles of 16.
    {
        let data = random_u32(N, 2);
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(6 * N));
        let out = &cpu.1;
        let (i, o) = (cpu.0.slice(), out.slice());
        let kernel = async |w: &Warp<'_>| scan::scan_u32_entry(w, i, o).await;
        let mut seq = vec![0u32; 6 * N];
        let reference = |seq: &mut Vec<u32>| {
            for (c, chunk) in data.chunks(32).enumerate() {
                let (mut s32, mut s8, mut s16) = (0u32, 0u32, 0u32);
                for (l, &x) in chunk.iter().enumerate() {
                    if l % 8 == 0 {
                        s8 = 0;
                    }
                    if l % 16 == 0 {
                        s16 = 0;
                    }
                    let r = &mut seq[6 * (32 * c + l)..][..6];
                    r[1] = s32;
                    r[3] = s8;
                    r[5] = s16;
                    s32 = s32.wrapping_add(x);
                    s8 = s8.wrapping_add(x);
                    s16 = s16.wrapping_add(x);
                    r[0] = s32;
                    r[2] = s8;
                    r[4] = s16;
                }
            }
            seq[0]
        };
        let launch = || scan::scan_u32_entry::run_cpu(&grid, &cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(out.to_vec() == seq, "scan differs from the sequential reference");
        t.row("scan", "scan_u32_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- segmented_reduce: segmented_sum_u32_entry, out[2i..2i+2] = (the sum from lane i to the
    // end of its segment, which for a segment's first lane is the segment's sum; segment index).
    {
        let data = random_u32(N, 3);
        let heads: Vec<u32> = random_u32(N, 4).iter().map(|r| (r % 5 == 0) as u32).collect();
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::from_slice(&heads), GlobalBuffer::<u32>::zeroed(2 * N));
        let out = &cpu.2;
        let (v, h, o) = (cpu.0.slice(), cpu.1.slice(), out.slice());
        let kernel = async |w: &Warp<'_>| segmented_reduce::segmented_sum_u32_entry(w, v, h, o).await;
        let mut seq = vec![0u32; 2 * N];
        let reference = |seq: &mut Vec<u32>| {
            for (c, (xs, hs)) in data.chunks(32).zip(heads.chunks(32)).enumerate() {
                let base = 32 * c;
                // Suffix sums within each segment, from the warp's last lane down.
                let mut acc = 0u32;
                for l in (0..xs.len()).rev() {
                    acc = acc.wrapping_add(xs[l]);
                    seq[2 * (base + l)] = acc;
                    if l == 0 || hs[l] != 0 {
                        acc = 0;
                    }
                }
                let mut segment = 0;
                for l in 0..xs.len() {
                    if l > 0 && hs[l] != 0 {
                        segment += 1;
                    }
                    seq[2 * (base + l) + 1] = segment;
                }
            }
            seq[0]
        };
        let launch = || segmented_reduce::segmented_sum_u32_entry::run_cpu(&grid, &cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(out.to_vec() == seq, "segmented_reduce differs from the sequential reference");
        t.row("segmented_reduce", "segmented_sum_u32_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- compact: compact_grid (one CPU thread, so warps reserve their ranges in order and the
    // output is exactly the sequential filter).
    {
        let limit = u32::MAX / 3;
        let data = random_u32(N, 5);
        let (input, output, count) = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(N), GlobalBuffer::<u32>::zeroed(1));
        let (i, o, n) = (input.slice(), output.slice(), count.slice());
        let kernel = async |w: &Warp<'_>| {
            compact::compact_grid(w, i, o, n, limit).await;
        };
        let launch = || {
            n.store(0, 0);
            grid.run(&kernel).unwrap()
        };
        let mut seq = Vec::with_capacity(N);
        let reference = |seq: &mut Vec<u32>| {
            fill(seq, data.iter().copied().filter(|&x| compact::keep(x, limit)));
            seq.len()
        };
        launch();
        reference(&mut seq);
        let kept = count.to_vec()[0] as usize;
        assert!(output.to_vec()[..kept] == seq[..], "compact differs from the sequential filter");
        t.row("compact", "compact_grid", N, warp_footprint(&kernel), launch, || reference(&mut seq));

        // The same through the entry that also writes each thread's slot, launched through its
        // type (its warps start in its form).
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(N), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(N), limit);
        let launch = || {
            cpu.2.slice().store(0, 0);
            compact::compact_grid_entry::run_cpu(&grid, &cpu).unwrap()
        };
        let slots = Vec::with_capacity(N);
        let reference = |(seq, slots): &mut (Vec<u32>, Vec<u32>)| {
            seq.clear();
            slots.clear();
            for &x in &data {
                let keep = compact::keep(x, limit);
                slots.push(if keep { seq.len() as u32 } else { u32::MAX });
                if keep {
                    seq.push(x);
                }
            }
            seq.len()
        };
        let mut both = (seq, slots);
        launch();
        reference(&mut both);
        assert!(cpu.1.to_vec()[..kept] == both.0[..] && cpu.3.to_vec() == both.1, "compact_grid_entry differs from the sequential filter");
        let (i, o, n, s) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice(), cpu.3.slice());
        let entry = async |w: &Warp<'_>| compact::compact_grid_entry(w, i, o, n, s, limit).await;
        t.row("compact (entry)", "compact_grid_entry", N, warp_footprint(&entry), launch, || reference(&mut both));
    }

    // ---- histogram: histogram_ffs on the example's skewed data, 10 buckets.
    {
        const BUCKETS: usize = 10;
        let data: Vec<u32> = (0..N as u32)
            .map(|i| {
                let r = i.wrapping_mul(2_654_435_761).rotate_left(13);
                if r % 17 == 0 { histogram::IGNORE } else { (r >> 8 & 1023).leading_zeros() - 22 }
            })
            .collect();
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(BUCKETS));
        let counts = &cpu.1;
        let (i, h) = (cpu.0.slice(), counts.slice());
        let kernel = async |w: &Warp<'_>| histogram::histogram_ffs(w, i, h).await;
        let launch = || {
            (0..BUCKETS).for_each(|b| h.store(b, 0));
            histogram::histogram_ffs::run_cpu(&grid, &cpu).unwrap()
        };
        let mut seq = vec![0u32; BUCKETS];
        let reference = |seq: &mut Vec<u32>| {
            seq.fill(0);
            for &x in data.iter().filter(|&&x| x != histogram::IGNORE) {
                seq[histogram::bucket(x, BUCKETS as u32) as usize] += 1;
            }
            seq[0]
        };
        launch();
        reference(&mut seq);
        assert_eq!(counts.to_vec(), seq, "histogram differs from the sequential counts");
        t.row("histogram", "histogram_ffs", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- radix_rank: radix_rank_entry by the lowest 5-bit digit (ranks = stable counting-sort
    // positions within each warp), and radix_sort_entry (7 passes) against sorting each warp's keys.
    {
        let data = random_u32(N, 6);
        let cpu = (GlobalBuffer::from_slice(&data), 0u32, GlobalBuffer::<u32>::zeroed(32 * WARPS), GlobalBuffer::<u32>::zeroed(N));
        let ranks = &cpu.3;
        let (k, b, r) = (cpu.0.slice(), cpu.2.slice(), ranks.slice());
        let kernel = async |w: &Warp<'_>| radix_rank::radix_rank_entry(w, k, 0, b, r).await;
        let mut seq = vec![0u32; N];
        let reference = |seq: &mut Vec<u32>| {
            for (c, chunk) in data.chunks(32).enumerate() {
                let mut offsets = [0u32; 32];
                for &key in chunk {
                    offsets[radix_rank::digit(key, 0) as usize] += 1;
                }
                let mut sum = 0;
                for o in offsets.iter_mut() {
                    (*o, sum) = (sum, sum + *o);
                }
                for (l, &key) in chunk.iter().enumerate() {
                    let d = radix_rank::digit(key, 0) as usize;
                    seq[32 * c + l] = offsets[d];
                    offsets[d] += 1;
                }
            }
            seq[0]
        };
        let launch = || radix_rank::radix_rank_entry::run_cpu(&grid, &cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(ranks.to_vec() == seq, "radix_rank differs from the stable counting-sort positions");
        t.row("radix_rank", "radix_rank_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));

        let sort_cpu = (cpu.0.clone(), cpu.2.clone(), GlobalBuffer::<u32>::zeroed(N), GlobalBuffer::<u32>::zeroed(N));
        let sorted = &sort_cpu.3;
        let (k, b, e, s) = (sort_cpu.0.slice(), sort_cpu.1.slice(), sort_cpu.2.slice(), sorted.slice());
        let kernel = async |w: &Warp<'_>| radix_rank::radix_sort_entry(w, k, b, e, s).await;
        let mut seq = data.clone();
        let reference = |seq: &mut Vec<u32>| {
            seq.copy_from_slice(&data);
            seq.chunks_mut(32).for_each(|c| c.sort_unstable());
            seq[0]
        };
        let launch = || radix_rank::radix_sort_entry::run_cpu(&grid, &sort_cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(sorted.to_vec() == seq, "radix_sort differs from sorting each warp's keys");
        t.row("radix_rank (sort)", "radix_sort_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- bitonic_sort: sort_u32_entry, each warp's 32 keys sorted.
    {
        let data = random_u32(N, 7);
        let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(N));
        let out = &cpu.1;
        let (k, o) = (cpu.0.slice(), out.slice());
        let kernel = async |w: &Warp<'_>| bitonic_sort::sort_u32_entry(w, k, o).await;
        let mut seq = data.clone();
        let reference = |seq: &mut Vec<u32>| {
            seq.copy_from_slice(&data);
            seq.chunks_mut(32).for_each(|c| c.sort_unstable());
            seq[0]
        };
        let launch = || bitonic_sort::sort_u32_entry::run_cpu(&grid, &cpu).unwrap();
        launch();
        reference(&mut seq);
        assert!(out.to_vec() == seq, "bitonic_sort differs from sorting each warp's keys");
        t.row("bitonic_sort", "sort_u32_entry", N, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    // ---- search: find_first_entry, 64 warps each searching 4,096 values for its own target
    // (every 8th target absent). Elements are those a sequential search examines.
    {
        const SEARCH_WARPS: usize = 64;
        let data: Vec<u32> = random_u32(4096, 8).iter().map(|r| r % 8192).collect();
        let targets: Vec<u32> = random_u32(SEARCH_WARPS, 9)
            .iter()
            .enumerate()
            .map(|(k, r)| if k % 8 == 7 { 9000 } else { data[*r as usize % data.len()] })
            .collect();
        let members = vec![u32::MAX; SEARCH_WARPS];
        let cpu = (
            GlobalBuffer::from_slice(&data),
            GlobalBuffer::from_slice(&targets),
            GlobalBuffer::from_slice(&members),
            GlobalBuffer::<u32>::zeroed(2 * 32 * SEARCH_WARPS),
        );
        let out = &cpu.3;
        let (ds, ts, ms, os) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice(), out.slice());
        let kernel = async |w: &Warp<'_>| search::find_first_entry(w, ds, ts, ms, os).await;
        let search_grid = Grid::new(32 * SEARCH_WARPS as u64);
        let mut seq = vec![0u32; 2 * 32 * SEARCH_WARPS];
        let reference = |seq: &mut Vec<u32>| {
            let mut examined = 0;
            for (k, &target) in targets.iter().enumerate() {
                let found = data.iter().position(|&x| x == target);
                examined += found.map_or(data.len(), |p| p + 1);
                let steps = found.map_or(data.len().div_ceil(32), |p| p / 32 + 1) as u32;
                for l in 0..32 {
                    seq[2 * (32 * k + l)] = found.map_or(u32::MAX, |p| p as u32);
                    seq[2 * (32 * k + l) + 1] = steps;
                }
            }
            examined
        };
        let launch = || search::find_first_entry::run_cpu(&search_grid, &cpu).unwrap();
        launch();
        let elements = reference(&mut seq);
        assert!(out.to_vec() == seq, "search differs from the sequential search");
        t.row("search", "find_first_entry", elements, warp_footprint(&kernel), launch, || reference(&mut seq));
    }

    let Table { group, rows, .. } = t;
    group.finish();

    println!("bug_gallery: not measured (its kernels are undefined behaviour by design)");
    for row in &rows {
        println!("footprint {} ({}): {}", row.example, row.kernel, row.footprint);
    }
    if rows.iter().any(|r| r.times.is_some()) {
        println!("| example | kernel | elements | CPU runtime ns/element | sequential ns/element | ratio | bytes per running warp |");
        println!("|---|---|---:|---:|---:|---:|---:|");
        for row in &rows {
            let Some((runtime, sequential)) = row.times else { continue };
            let e = row.elements as f64;
            println!(
                "| {} | `{}` | {} | {:.1} | {:.2} | {}x | {} |",
                row.example,
                row.kernel,
                thousands(e),
                runtime / e,
                sequential / e,
                thousands(runtime / sequential),
                thousands(row.footprint.total() as f64),
            );
        }
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
