//! Warp-wide forms against the per-lane executor (issue 15), measured in the same run.
//!
//! - `warp_sum`: the converged 5-step `shfl_down` sum through `Executor::run_with` on a
//!   `#[warp_kernel]` fn, warp-wide on the CPU's vector units (the level detected at run time)
//!   and with the portable code (`Executor::simd(false)`), per lane, and the same sum in
//!   sequential Rust. Targets: 50 ns per warp with SIMD, 150 ns portable; the ratio to
//!   sequential Rust is printed.
//! - `empty`: a kernel that only returns its argument, per lane: the cost of a run itself
//!   (registers, block, lane futures), the floor under any kernel started through `run_with`.
//! - `grid`: the same sum in an entry kernel (load, sum, store) over 4,096 warps on one CPU
//!   thread, through its type (`run_cpu`), per warp, against sequential Rust over the same
//!   4,096 warps: what a warp costs where a launch's fixed cost is shared, as in the issue's
//!   first measurements (which summed 4,096 warps). Not the target's measure, which is one
//!   warp per `run_with`.
//!
//! Each figure is checked against sequential Rust first, and each warp-wide row asserts that the
//! run took the warp-wide path.
//!
//! `cargo bench -p warpkit-testsuite --bench wide`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use warpkit::prelude::*;
use warpkit::{EntryKernel, GlobalBuffer};

mod common;
use common::{random_u32, Recorder};

#[path = "kernels/warp_sum.rs"]
mod kernels;
use kernels::{warp_sum, warp_sum_entry};

/// Warps in the `grid` rows.
const GRID_WARPS: usize = 4096;

/// No instruction: what running a kernel costs, with and without the warp-wide form.
#[warp_kernel]
fn identity(_w: &Warp, x: u32) -> u32 {
    x
}

/// The same tree in plain Rust: lane `l` adds lane `l + offset`, or its own value when that is
/// past lane 31 (`shfl.sync.down` with the clamp 31 leaves `d` the lane's own `a`).
fn sequential(x: &[u32; 32]) -> [u32; 32] {
    let mut v = *x;
    for offset in [16, 8, 4, 2, 1] {
        let prev = v;
        for l in 0..32 - offset {
            v[l] = v[l].wrapping_add(prev[l + offset]);
        }
        for l in 32 - offset..32 {
            v[l] = v[l].wrapping_add(prev[l]);
        }
    }
    v
}

fn bench(c: &mut Criterion) {
    let data: [u32; 32] = random_u32(32, 15).try_into().unwrap();
    let wide = Executor::new().races(false).wide(true);
    let portable = wide.simd(false);
    let per_lane = wide.wide(false);
    assert_eq!(portable.run_with(&data, warp_sum).unwrap(), sequential(&data));
    let before = warpkit::wide_runs();
    assert_eq!(wide.run_with(&data, warp_sum).unwrap(), sequential(&data));
    assert_eq!(warpkit::wide_runs(), before + 1, "warp_sum runs warp-wide");
    assert_eq!(per_lane.run_with(&data, warp_sum).unwrap(), sequential(&data));
    assert_eq!(warpkit::wide_runs(), before + 1, "warp_sum with wide(false) runs per lane");

    let rec = Recorder::default();
    let mut g = rec.group(c, "wide");
    g.bench("warp_sum/wide", || wide.run_with(black_box(&data), warp_sum).unwrap());
    g.bench("warp_sum/portable", || portable.run_with(black_box(&data), warp_sum).unwrap());
    g.bench("warp_sum/per_lane", || per_lane.run_with(black_box(&data), warp_sum).unwrap());
    g.bench("warp_sum/sequential", || sequential(black_box(&data)));
    g.bench("empty/per_lane", || per_lane.run_with(black_box(&data), identity).unwrap());
    g.bench("empty/wide", || wide.run_with(black_box(&data), identity).unwrap());

    // The grid rows: the sum of each warp of 4,096, in every lane, stored (`warp_sum_entry`).
    let input = random_u32(32 * GRID_WARPS, 16);
    let grid = Grid::new(input.len() as u64);
    let cpu = (GlobalBuffer::from_slice(&input), GlobalBuffer::<u32>::zeroed(input.len()));
    let mut seq = vec![0u32; input.len()];
    let reference = |seq: &mut Vec<u32>| {
        for (chunk, out) in input.chunks_exact(32).zip(seq.chunks_exact_mut(32)) {
            out.copy_from_slice(&sequential(black_box(chunk.try_into().unwrap())));
        }
        seq[0]
    };
    // The first launch's first warp learns that the call's callee has a form; from then on each
    // warp runs the entry's form, which runs the callee's: two forms a warp.
    warp_sum_entry::run_cpu(&grid, &cpu).unwrap();
    let before = warpkit::wide_runs();
    warp_sum_entry::run_cpu(&grid, &cpu).unwrap();
    assert_eq!(warpkit::wide_runs(), before + 2 * GRID_WARPS as u64, "every warp of the grid runs warp-wide");
    reference(&mut seq);
    assert!(cpu.1.to_vec() == seq, "the grid's sums differ from sequential Rust's");
    g.bench("grid/wide", || warp_sum_entry::run_cpu(&grid, &cpu).unwrap());
    g.bench("grid/sequential", || reference(&mut seq));
    g.finish();

    let ns = |id: &str| rec.ns("wide", id);
    if let (Some(w), Some(p), Some(s), Some(e)) = (ns("warp_sum/wide"), ns("warp_sum/per_lane"), ns("warp_sum/sequential"), ns("empty/per_lane")) {
        println!("| warp_sum | ns per warp | x sequential |");
        println!("|---|---|---|");
        println!("| warp-wide, {:?} | {w:.0} | {:.0}x |", wide.current_simd(), w / s);
        if let Some(wp) = ns("warp_sum/portable") {
            println!("| warp-wide, portable code | {wp:.0} | {:.0}x |", wp / s);
        }
        println!("| per lane | {p:.0} | {:.0}x |", p / s);
        println!("| sequential Rust | {s:.1} | 1x |");
        println!("| a kernel without instructions, per lane (the cost of a run) | {e:.0} | {:.0}x |", e / s);
        if let Some(ew) = ns("empty/wide") {
            println!("| a kernel without instructions, warp-wide | {ew:.0} | {:.0}x |", ew / s);
        }
        if let (Some(gw), Some(gs)) = (ns("grid/wide"), ns("grid/sequential")) {
            let (gw, gs) = (gw / GRID_WARPS as f64, gs / GRID_WARPS as f64);
            println!("| grid of {GRID_WARPS} warps, entry kernel (load, sum, store), warp-wide, per warp | {gw:.0} | {:.0}x its own sequential ({gs:.1} ns) |", gw / gs);
        }
        println!("warp_sum: warp-wide {w:.0} ns/warp, {:.2}x the per-lane executor's {p:.0}; targets 50 ns (SIMD), 150 ns (portable)", w / p);
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
