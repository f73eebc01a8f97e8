//! What the CPU-runtime benchmarks share: criterion settings that keep the whole suite short, and
//! a recorder that keeps criterion's own measurement samples, so that each bench prints its
//! figures (ns per warp, ratios to a baseline measured in the same run) from the very samples
//! criterion analysed instead of timing everything a second time.

#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{black_box, BenchmarkGroup, Criterion};

/// Samples per benchmark. A routine's last `SAMPLES` calls are criterion's measurement (the calls
/// before them are its warm-up).
pub const SAMPLES: usize = 10;

/// Criterion with small sample counts and short warm-up and measurement times.
pub fn criterion() -> Criterion {
    Criterion::default()
        .sample_size(SAMPLES)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(800))
        .without_plots()
}

/// Whether this run measures: `cargo bench` passes `--bench`. Under `cargo test --benches`
/// criterion calls each routine once, and no figures are printed.
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// Every (iterations, elapsed) sample criterion took, by `group/id`.
#[derive(Default)]
pub struct Recorder {
    samples: RefCell<HashMap<String, Vec<(u64, Duration)>>>,
}

/// A criterion benchmark group whose samples go to a [`Recorder`] as well.
pub struct Group<'r, 'c> {
    name: String,
    recorder: &'r Recorder,
    /// The criterion group, for settings such as throughput or sampling mode.
    pub inner: BenchmarkGroup<'c, WallTime>,
}

impl Recorder {
    /// A criterion group named `name` that records its samples here.
    pub fn group<'r, 'c>(&'r self, c: &'c mut Criterion, name: &str) -> Group<'r, 'c> {
        Group { name: name.to_string(), recorder: self, inner: c.benchmark_group(name) }
    }

    /// The median ns per iteration over criterion's measurement samples of `group/id`, or `None`
    /// when it did not run (filtered out, or not measuring).
    pub fn ns(&self, group: &str, id: &str) -> Option<f64> {
        if !measuring() {
            return None;
        }
        let samples = self.samples.borrow();
        let all = samples.get(&format!("{group}/{id}"))?;
        let last = &all[all.len().saturating_sub(SAMPLES)..];
        let mut per_iter: Vec<f64> = last.iter().map(|&(n, d)| d.as_nanos() as f64 / n as f64).collect();
        per_iter.sort_by(f64::total_cmp);
        let mid = per_iter.len() / 2;
        Some(if per_iter.len() % 2 == 1 { per_iter[mid] } else { (per_iter[mid - 1] + per_iter[mid]) / 2.0 })
    }
}

impl Group<'_, '_> {
    /// Registers `f` under `id`, timed with `iter_custom` so that every sample is recorded.
    pub fn bench<R>(&mut self, id: &str, mut f: impl FnMut() -> R) {
        let key = format!("{}/{id}", self.name);
        let recorder = self.recorder;
        self.inner.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(f());
                }
                let elapsed = start.elapsed();
                recorder.samples.borrow_mut().entry(key.clone()).or_default().push((iters, elapsed));
                elapsed
            })
        });
    }

    /// Ends the group (criterion prints its summary).
    pub fn finish(self) {
        self.inner.finish();
    }
}

/// `n` with thousands separators: 1,234,567.
pub fn thousands(n: f64) -> String {
    let s = format!("{:.0}", n);
    let (sign, digits) = s.split_at(if s.starts_with('-') { 1 } else { 0 });
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// Deterministic bench data: ChaCha8, the one seeded generator of the tests, benches, GPU
/// programs and the runtime's schedules.
pub fn random_u32(n: usize, seed: u64) -> Vec<u32> {
    use rand_chacha::rand_core::{Rng, SeedableRng};
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| r.next_u32()).collect()
}
