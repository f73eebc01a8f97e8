//! A converged full-warp 5-step `shfl_down` sum through the executor, against the same sum in
//! plain sequential Rust, measured in one run. Prints ns per warp and the ratio.
//!
//! A third figure is the floor of the executor's design: the same kernel as 32 `async` lane
//! futures polled in lockstep by a bare loop that only moves values (no membermask, no checks,
//! no reports, no panic capture). What the executor costs above it is its bookkeeping; the floor
//! itself is the cost of resuming 32 compiler-generated state machines 6 times each.
//!
//! A fourth is the same run traced ([`warp_runtime::trace::Tracer::last`], a ring of 64 steps),
//! for what recording costs when it is on. With tracing off the executor's figure and its ratio
//! to the floor are what they were before tracing existed (DEVELOPMENT.md has the comparison).

use core::cell::Cell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

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

/// The bare lockstep loop's registers: each lane's operand and delta, and each lane's result.
struct Bare {
    a: [Cell<u32>; 32],
    delta: [Cell<u32>; 32],
    d: [Cell<u32>; 32],
}

/// A shuffle in flight: pending once, then the lane's result.
struct BareShfl<'a> {
    regs: &'a Bare,
    lane: usize,
    issued: bool,
}

impl Future for BareShfl<'_> {
    type Output = u32;
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        if !self.issued {
            self.issued = true;
            Poll::Pending
        } else {
            Poll::Ready(self.regs.d[self.lane].get())
        }
    }
}

#[inline(always)]
fn bare_shfl_down(regs: &Bare, lane: usize, v: u32, delta: u32) -> BareShfl<'_> {
    regs.a[lane & 31].set(v);
    regs.delta[lane & 31].set(delta);
    BareShfl { regs, lane: lane & 31, issued: false }
}

fn bare_lockstep_sum(data: &[u32; 32]) -> u32 {
    let regs = Bare { a: Default::default(), delta: Default::default(), d: Default::default() };
    let kernel = async |lane: usize| {
        let mut v = data[lane];
        for offset in [16, 8, 4, 2, 1] {
            v = v.wrapping_add(bare_shfl_down(&regs, lane, v, offset).await);
        }
        v
    };
    let mut lanes: [_; 32] = core::array::from_fn(|l| Some(kernel(l)));
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = [0u32; 32];
    loop {
        let mut returned = 0;
        for (l, lane) in lanes.iter_mut().enumerate() {
            let Some(f) = lane.as_mut() else { continue };
            // SAFETY: the futures stay in `lanes`, which is not moved while they are polled.
            if let Poll::Ready(v) = unsafe { Pin::new_unchecked(f) }.poll(&mut cx) {
                out[l] = v;
                returned += 1;
            }
        }
        if returned == 32 {
            return out[0];
        }
        // shfl.sync.down with a uniform delta: lane l reads lane l + delta when that exists.
        let delta = regs.delta[0].get() as usize;
        for l in 0..32 {
            let src = if l + delta < 32 { l + delta } else { l };
            regs.d[l].set(regs.a[src].get());
        }
    }
}

fn sequential_sum(data: &[u32; 32]) -> u32 {
    data.iter().fold(0u32, |a, &x| a.wrapping_add(x))
}

fn bench(c: &mut Criterion) {
    let data = inputs();
    let exec = Executor::new();
    assert_eq!(executor_sum(&exec, &data), sequential_sum(&data));
    assert_eq!(bare_lockstep_sum(&data), sequential_sum(&data));

    let mut group = c.benchmark_group("warp_sum");
    group.bench_function("executor_shfl_down_5_steps", |b| b.iter(|| executor_sum(&exec, black_box(&data))));
    group.bench_function("bare_lockstep_floor", |b| b.iter(|| bare_lockstep_sum(black_box(&data))));
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
    let tracer = warp_runtime::trace::Tracer::last(64);
    let traced = exec.trace(&tracer);
    assert_eq!(executor_sum(&traced, &data), sequential_sum(&data));
    assert_eq!(tracer.trace().warps[0].steps.len(), 6, "the five shuffles and the return");
    let traced_ns = time(&|| executor_sum(&traced, black_box(&data)));
    let bare_ns = time(&|| bare_lockstep_sum(black_box(&data)));
    let seq_ns = time(&|| sequential_sum(black_box(&data)));
    println!("warp_sum: executor {exec_ns:.1} ns/warp, sequential {seq_ns:.2} ns/warp, ratio {:.0}x", exec_ns / seq_ns);
    println!(
        "warp_sum: bare lockstep floor (32 futures, no checks) {bare_ns:.1} ns/warp; executor / floor {:.2}x",
        exec_ns / bare_ns
    );
    println!("warp_sum: traced (ring of 64 steps) {traced_ns:.1} ns/warp; traced / untraced {:.1}x", traced_ns / exec_ns);
}

criterion_group!(benches, bench);
criterion_main!(benches);
