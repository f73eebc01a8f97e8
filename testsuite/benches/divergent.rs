//! Divergent warps against their converged equivalents, measured in the same run.
//!
//! Each divergent kernel executes the same number of warp instructions per lane (or, for early
//! exit, the same number of warp-wide steps) as its converged twin, where all 32 lanes run one
//! sequence with the full membermask:
//!
//! - `parity`: even and odd lanes take different branches, each a different sequence of 5
//!   shuffles and 2 reductions over its own membermask (0x55555555 / 0xaaaaaaaa). In every step
//!   the two groups wait at different instructions.
//! - `halves`: lanes 0-15 and 16-31 take different branches (xor butterflies and `redux` over
//!   0x0000ffff; up-shuffles with width 16 and `redux` over 0xffff0000).
//! - `parity_reconverge`: `parity` with 6 instructions per branch, then a full-warp `redux.sync`
//!   after the branches join.
//! - `early_exit`: lane `i` returns after `i % 8` steps; each step is a shuffle and a `redux` over
//!   the lanes still running (a shrinking membermask). Its twin runs all 7 steps on all lanes.
//!
//! Every kernel's results are checked against a plain Rust model before timing. Prints ns per
//! warp (one `Executor::run_with` of 32 lanes) and the ratio to the converged twin.
//!
//! `cargo bench --bench divergent`

use criterion::{criterion_group, criterion_main, Criterion};
use warpkit::prelude::*;

mod common;
use common::{random_u32, Recorder};

const EVEN: u32 = 0x5555_5555;
const ODD: u32 = 0xaaaa_aaaa;
const LOW: u32 = 0x0000_ffff;
const HIGH: u32 = 0xffff_0000;

// ------------------------------------------------------------------------------- kernels

/// 7 full-warp instructions: 4 xor shuffles, a broadcast, 2 reductions.
#[warp_kernel]
fn converged7(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    v = v.wrapping_add(w.shfl_idx(v, 0));
    let sum = w.redux_add(v);
    sum ^ w.redux_max(v)
}

/// Even lanes: [`converged7`]'s sequence over the even lanes; odd lanes: down-shuffles, a
/// broadcast from lane 1 and the reductions in the other order.
#[warp_kernel]
fn parity(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    if w.lane_id() % 2 == 0 {
        let g = w.group(EVEN);
        for offset in [16, 8, 4, 2] {
            v = v.wrapping_add(g.shfl_xor(v, offset));
        }
        v = v.wrapping_add(g.shfl_idx(v, 0));
        let sum = g.redux_add(v);
        sum ^ g.redux_max(v)
    } else {
        let g = w.group(ODD);
        for offset in [16, 8, 4, 2] {
            v = v.wrapping_add(g.shfl_down(v, offset));
        }
        v = v.wrapping_add(g.shfl_idx(v, 1));
        let max = g.redux_max(v);
        max ^ g.redux_add(v)
    }
}

/// Lanes 0-15: xor butterfly and reductions over the low half; lanes 16-31: up-shuffles in a
/// segment of 16 and the reductions in the other order over the high half.
#[warp_kernel]
fn halves(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    if w.lane_id() < 16 {
        let g = w.group(LOW);
        for offset in [8, 4, 2, 1] {
            v = v.wrapping_add(g.shfl_xor(v, offset));
        }
        v = v.wrapping_add(g.shfl_idx(v, 0));
        let sum = g.redux_add(v);
        sum ^ g.redux_max(v)
    } else {
        for offset in [1, 2, 4, 8] {
            v = v.wrapping_add(w.shfl_up_sync(HIGH, v, offset, 16));
        }
        v = v.wrapping_add(w.shfl_idx_sync(HIGH, v, 31, 16));
        let g = w.group(HIGH);
        let max = g.redux_max(v);
        max ^ g.redux_add(v)
    }
}

/// 6 instructions in each parity branch, then a full-warp `redux.sync.add` after they join.
#[warp_kernel]
fn parity_reconverge(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    if w.lane_id() % 2 == 0 {
        let g = w.group(EVEN);
        for offset in [16, 8, 4, 2] {
            v = v.wrapping_add(g.shfl_xor(v, offset));
        }
        v = v.wrapping_add(g.shfl_idx(v, 0));
        v ^= g.redux_max(v);
    } else {
        let g = w.group(ODD);
        for offset in [16, 8, 4, 2] {
            v = v.wrapping_add(g.shfl_down(v, offset));
        }
        v = v.wrapping_add(g.shfl_idx(v, 1));
        v ^= g.redux_add(v);
    }
    w.redux_add(v)
}

/// The lanes still running at step `s` of [`early_exit`]: those with `lane % 8 > s`.
fn running_at(s: u32) -> u32 {
    ((0xffu32 << (s + 1)) & 0xff) * 0x0101_0101
}

/// Lane `i` runs `i % 8` steps of a shuffle and a `redux` over the lanes still running, then
/// returns; the shuffles (xor 8, xor 16) stay within those lanes.
#[warp_kernel]
fn early_exit(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let steps = w.lane_id() % 8;
    let mut s = 0;
    while s < steps {
        let g = w.group(running_at(s));
        v = v.wrapping_add(g.shfl_xor(v, 8 << (s % 2)));
        v ^= g.redux_max(v);
        s += 1;
    }
    v
}

/// [`early_exit`]'s 7 steps on every lane with the full membermask.
#[warp_kernel]
fn early_exit_converged(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut s = 0;
    while s < 7 {
        v = v.wrapping_add(w.shfl_xor(v, 8 << (s % 2)));
        v ^= w.redux_max(v);
        s += 1;
    }
    v
}

// ------------------------------------------------------------------------------- models

/// Each lane of `lanes` adds the value of `src(lane)` (its own when `src` is `None`).
fn add_from(v: &mut [u32; 32], lanes: u32, src: impl Fn(usize) -> Option<usize>) {
    let old = *v;
    for l in (0..32).filter(|&l| lanes >> l & 1 == 1) {
        v[l] = old[l].wrapping_add(old[src(l).unwrap_or(l)]);
    }
}

fn reduce(v: &[u32; 32], lanes: u32, op: fn(u32, u32) -> u32) -> u32 {
    (0..32).filter(|&l| lanes >> l & 1 == 1).map(|l| v[l]).reduce(op).unwrap()
}

fn set(v: &mut [u32; 32], lanes: u32, f: impl Fn(u32) -> u32) {
    (0..32).filter(|&l| lanes >> l & 1 == 1).for_each(|l| v[l] = f(v[l]));
}

fn model_converged7(x: &[u32; 32]) -> [u32; 32] {
    let mut v = *x;
    for off in [16, 8, 4, 2] {
        add_from(&mut v, !0, |l| Some(l ^ off));
    }
    add_from(&mut v, !0, |_| Some(0));
    let (s, m) = (reduce(&v, !0, u32::wrapping_add), reduce(&v, !0, u32::max));
    [s ^ m; 32]
}

fn model_parity(x: &[u32; 32], reconverge: bool) -> [u32; 32] {
    let mut v = *x;
    for off in [16, 8, 4, 2] {
        add_from(&mut v, EVEN, |l| Some(l ^ off));
        add_from(&mut v, ODD, |l| (l + off < 32).then_some(l + off));
    }
    add_from(&mut v, EVEN, |_| Some(0));
    add_from(&mut v, ODD, |_| Some(1));
    let (es, em) = (reduce(&v, EVEN, u32::wrapping_add), reduce(&v, EVEN, u32::max));
    let (os, om) = (reduce(&v, ODD, u32::wrapping_add), reduce(&v, ODD, u32::max));
    if !reconverge {
        return core::array::from_fn(|l| if l % 2 == 0 { es ^ em } else { om ^ os });
    }
    set(&mut v, EVEN, |x| x ^ em);
    set(&mut v, ODD, |x| x ^ os);
    [reduce(&v, !0, u32::wrapping_add); 32]
}

fn model_halves(x: &[u32; 32]) -> [u32; 32] {
    let mut v = *x;
    for off in [8, 4, 2, 1] {
        add_from(&mut v, LOW, |l| Some(l ^ off));
    }
    add_from(&mut v, LOW, |_| Some(0));
    for off in [1, 2, 4, 8] {
        add_from(&mut v, HIGH, |l| (l >= 16 + off).then(|| l - off));
    }
    add_from(&mut v, HIGH, |_| Some(31));
    let (ls, lm) = (reduce(&v, LOW, u32::wrapping_add), reduce(&v, LOW, u32::max));
    let (hs, hm) = (reduce(&v, HIGH, u32::wrapping_add), reduce(&v, HIGH, u32::max));
    core::array::from_fn(|l| if l < 16 { ls ^ lm } else { hm ^ hs })
}

fn model_early_exit(x: &[u32; 32], converged: bool) -> [u32; 32] {
    let mut v = *x;
    for s in 0..7 {
        let lanes = if converged { !0 } else { running_at(s) };
        add_from(&mut v, lanes, |l| Some(l ^ (8 << (s % 2))));
        let m = reduce(&v, lanes, u32::max);
        set(&mut v, lanes, |x| x ^ m);
    }
    v
}

// ------------------------------------------------------------------------------- bench

type Kernel = fn(&[u32; 32]) -> [u32; 32];

fn bench(c: &mut Criterion) {
    let data: [u32; 32] = random_u32(32, 7).try_into().unwrap();
    let run = |k: Kernel| k(&data);
    let kernels: [(&str, Kernel, Kernel); 6] = [
        ("converged7", |x| Executor::new().run_with(x, converged7).unwrap(), model_converged7),
        ("parity", |x| Executor::new().run_with(x, parity).unwrap(), |x| model_parity(x, false)),
        ("halves", |x| Executor::new().run_with(x, halves).unwrap(), model_halves),
        ("parity_reconverge", |x| Executor::new().run_with(x, parity_reconverge).unwrap(), |x| model_parity(x, true)),
        ("early_exit_converged", |x| Executor::new().run_with(x, early_exit_converged).unwrap(), |x| model_early_exit(x, true)),
        ("early_exit", |x| Executor::new().run_with(x, early_exit).unwrap(), |x| model_early_exit(x, false)),
    ];
    for (name, kernel, model) in kernels {
        assert_eq!(run(kernel), run(model), "{name}: the executor and the plain Rust model differ");
    }
    // Which path each timed run takes (issue 15): the executor's default, warp-wide only where
    // the kernel has the form and the default allows it (`WARPKIT_WIDE=1`).
    for (name, kernel, _) in kernels {
        let before = warpkit::wide_runs();
        run(kernel);
        let path = if warpkit::wide_runs() > before { "warp-wide" } else { "per lane" };
        println!("divergent {name}: path taken: {path}");
    }

    let rec = Recorder::default();
    let mut g = rec.group(c, "divergent");
    for (name, kernel, _) in kernels {
        g.bench(name, || kernel(criterion::black_box(&data)));
    }
    g.finish();

    let pairs = [
        ("parity", "two groups (even/odd lanes), different sequences, 7 instructions per lane", "converged7"),
        ("halves", "two groups (lanes 0-15/16-31), different sequences, 7 instructions per lane", "converged7"),
        ("parity_reconverge", "two groups for 6 instructions, then a full-warp redux", "converged7"),
        ("early_exit", "lane i exits after i%8 steps of shfl+redux on the lanes left (7 steps)", "early_exit_converged"),
    ];
    for (name, what, twin) in pairs {
        if let (Some(ns), Some(base)) = (rec.ns("divergent", name), rec.ns("divergent", twin)) {
            println!("divergent {name} ({what}): {ns:.0} ns/warp; converged equivalent {twin}: {base:.0} ns/warp; ratio {:.2}", ns / base);
        }
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = bench
}
criterion_main!(benches);
