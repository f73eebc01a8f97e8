//! A converged full-warp 5-step `shfl_down` sum through the executor, against the same sum in
//! plain sequential Rust, measured in one run. Prints ns per warp and the ratio.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use warp_runtime::{Executor, Warp};

fn inputs() -> [u32; 32] {
    core::array::from_fn(|l| (l as u32).wrapping_mul(2_654_435_761))
}

fn executor_sum(exec: &Executor, data: &[u32; 32]) -> u32 {
    let out = exec
        .run(async |w: &Warp<'_>| {
            let mut v = data[w.lane_id() as usize];
            for offset in [16, 8, 4, 2, 1] {
                v = v.wrapping_add(w.shfl_down(v, offset).await);
            }
            v
        })
        .expect("a converged sum is defined behaviour");
    out[0]
}

fn sequential_sum(data: &[u32; 32]) -> u32 {
    data.iter().fold(0u32, |a, &x| a.wrapping_add(x))
}

fn bench(c: &mut Criterion) {
    let data = inputs();
    let exec = Executor::new();
    assert_eq!(executor_sum(&exec, &data), sequential_sum(&data));

    let mut group = c.benchmark_group("warp_sum");
    group.bench_function("executor_shfl_down_5_steps", |b| b.iter(|| executor_sum(&exec, black_box(&data))));
    group.bench_function("sequential_rust", |b| b.iter(|| sequential_sum(black_box(&data))));
    group.finish();

    // Print the figures and the ratio from one measurement of each in this run.
    let time = |f: &dyn Fn() -> u32| {
        let iters = 200_000u32;
        let start = std::time::Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        start.elapsed().as_nanos() as f64 / iters as f64
    };
    let exec_ns = time(&|| executor_sum(&exec, black_box(&data)));
    let seq_ns = time(&|| sequential_sum(black_box(&data)));
    println!("warp_sum: executor {exec_ns:.1} ns/warp, sequential {seq_ns:.2} ns/warp, ratio {:.0}x", exec_ns / seq_ns);
}

criterion_group!(benches, bench);
criterion_main!(benches);
