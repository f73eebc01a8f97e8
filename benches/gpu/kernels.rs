//! The warpkit side of the GPU benchmark (`cargo xtask gpu-bench`): a reduction and an inclusive
//! scan over `u32` values, written with `#[warp_kernel]`. `benches/gpu/kernels.cu` holds the same
//! algorithms in CUDA C++, line for line: the same loads per thread, the same unrolling (written
//! out in the source on both sides, `UNROLL` loads in flight per thread), the same warp
//! instructions. The histogram of the benchmark is `examples/histogram.rs`'s `histogram_ffs`, as
//! it is.
//!
//! Built to PTX by the `ptx/` crate (which includes this file) and run on the CPU runtime by the
//! `gpu-bench` program's tests and `--cpu-check`, against sequential Rust.
//!
//! There is no shared memory and no block barrier in warpkit, so every kernel is warp-level: a
//! warp cooperates only through its warp instructions, and warps only through global memory and
//! separate launches.
//!
//! * [`bench_reduce_redux`], [`bench_reduce_shfl`]: one grid-stride loop accumulating per thread
//!   (`UNROLL` independent loads per iteration), one warp sum (`redux.sync.add`, or a 5-step
//!   `shfl.sync.down` tree), one `atom.global.add` per warp.
//! * the scan, reduce-then-scan over per-warp chunks of `chunk` elements: [`bench_scan_sums`]
//!   writes each chunk's sum; the host scans those sums the same way (recursively, until one warp
//!   holds all of them); [`bench_scan_chunks`] then scans every chunk in strips of 32 (one
//!   element per lane, a 5-step `shfl.sync.up` scan per strip), starting from the inclusive sum of
//!   the chunks before it.

use warpkit::prelude::*;

/// Independent loads each thread has in flight per loop iteration (the CUDA kernels use the same).
///
/// The unrolled loops index their arrays (`for k in 0..UNROLL { .. v[k] .. }`): iterating an array
/// by value (`for x in v`) kept it in local memory (`st.local`/`ld.local` and a rolled loop) with
/// the nightly of `cargo xtask ptx`.
pub const UNROLL: usize = 8;

/// Sum (wrapping) of `input` into `out[0]`, with `threads` threads (the launch's total; a multiple
/// of 32): thread `t` adds elements `t, t + threads, t + 2 threads, ...`, `UNROLL` of them per
/// iteration; each warp's sum is one `redux.sync.add.u32`, added by lane 0 with one atomic.
#[warp_kernel(entry)]
pub fn bench_reduce_redux(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, threads: u32) {
    let acc = thread_sum(w, input, threads);
    let sum = w.redux_add(acc);
    if w.lane_id() == 0 {
        out.atomic_add(0, sum);
    }
}

/// [`bench_reduce_redux`] with the warp sum as a `shfl.sync.down` tree (offsets 16, 8, 4, 2, 1;
/// lane 0 ends with the sum).
#[warp_kernel(entry)]
pub fn bench_reduce_shfl(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, threads: u32) {
    let mut sum = thread_sum(w, input, threads);
    let mut offset = 16;
    while offset > 0 {
        sum = sum.wrapping_add(w.shfl_down(sum, offset));
        offset /= 2;
    }
    if w.lane_id() == 0 {
        out.atomic_add(0, sum);
    }
}

/// This thread's share of a grid-stride sum: `UNROLL` loads, then their sum, per iteration.
#[warp_kernel]
fn thread_sum(w: &Warp, input: GlobalSlice<'_, u32>, threads: u32) -> u32 {
    let n = input.len();
    let stride = threads as usize;
    let mut i = w.global_id() as usize;
    let mut acc = 0u32;
    while i + (UNROLL - 1) * stride < n {
        let mut v = [0u32; UNROLL];
        for k in 0..UNROLL {
            v[k] = input.load(i + k * stride);
        }
        for k in 0..UNROLL {
            acc = acc.wrapping_add(v[k]);
        }
        i += UNROLL * stride;
    }
    while i < n {
        acc = acc.wrapping_add(input.load(i));
        i += stride;
    }
    acc
}

/// Scan, first pass: warp `k` writes the sum (wrapping) of `input[k * chunk .. (k + 1) * chunk]`
/// to `sums[k]`. Launch at least `sums.len()` warps (`sums.len() == ceil(input.len() / chunk)`);
/// `chunk` a multiple of 32. Lane `l` adds elements `l, l + 32, ...` of the chunk, `UNROLL` strips
/// of 32 per iteration (coalesced loads).
#[warp_kernel(entry)]
pub fn bench_scan_sums(w: &Warp, input: GlobalSlice<'_, u32>, sums: GlobalSlice<'_, u32>, chunk: u32) {
    let warp = w.warp_index() as usize;
    if warp >= sums.len() {
        return;
    }
    let lane = w.lane_id() as usize;
    let begin = warp * chunk as usize;
    let end = input.len().min(begin + chunk as usize);
    let mut acc = 0u32;
    let mut s = begin;
    while s + 32 * UNROLL <= end {
        let mut v = [0u32; UNROLL];
        for k in 0..UNROLL {
            v[k] = input.load(s + 32 * k + lane);
        }
        for k in 0..UNROLL {
            acc = acc.wrapping_add(v[k]);
        }
        s += 32 * UNROLL;
    }
    while s < end {
        if s + lane < end {
            acc = acc.wrapping_add(input.load(s + lane));
        }
        s += 32;
    }
    let sum = w.redux_add(acc);
    if lane == 0 {
        sums.store(warp, sum);
    }
}

/// Scan, last pass: warp `k` writes the inclusive prefix sums (wrapping) of
/// `input[k * chunk .. (k + 1) * chunk]` to `output`, each plus `carries[k - 1]` (the inclusive sum
/// of all elements before the chunk; 0 for warp 0, which does not read `carries`). `output` may be
/// `input`. Each strip of 32 elements is one element per lane: a warp scan, plus the carry, and the
/// carry grows by the strip's total (`shfl.sync.idx` from lane 31). Launch at least
/// `ceil(input.len() / chunk)` warps; `chunk` a multiple of 32.
#[warp_kernel(entry)]
pub fn bench_scan_chunks(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    output: GlobalSlice<'_, u32>,
    carries: GlobalSlice<'_, u32>,
    chunk: u32,
) {
    let warp = w.warp_index() as usize;
    let begin = warp * chunk as usize;
    if begin >= input.len() {
        return;
    }
    let lane = w.lane_id() as usize;
    let end = input.len().min(begin + chunk as usize);
    let mut carry = if warp == 0 { 0 } else { carries.load(warp - 1) };
    let mut s = begin;
    while s + 32 * UNROLL <= end {
        let mut v = [0u32; UNROLL];
        for k in 0..UNROLL {
            v[k] = input.load(s + 32 * k + lane);
        }
        // The strips' scans and totals first, then the stores: the warp instructions of the
        // eight independent scans stay together (no store, and no store's bounds check, between
        // them), so the GPU can overlap their latencies.
        let mut total = [0u32; UNROLL];
        for k in 0..UNROLL {
            v[k] = inclusive_sum(w, v[k]);
            total[k] = w.shfl_idx(v[k], 31);
        }
        for k in 0..UNROLL {
            output.store(s + 32 * k + lane, v[k].wrapping_add(carry));
            carry = carry.wrapping_add(total[k]);
        }
        s += 32 * UNROLL;
    }
    while s < end {
        let j = s + lane;
        let v = if j < end { input.load(j) } else { 0 };
        let x = inclusive_sum(w, v);
        let total = w.shfl_idx(x, 31);
        if j < end {
            output.store(j, x.wrapping_add(carry));
        }
        carry = carry.wrapping_add(total);
        s += 32;
    }
}

/// Inclusive prefix sum (wrapping) over the warp: 5 steps of `shfl.sync.up`, lane `l` adding the
/// value `offset` lanes below when `l >= offset` (CUDA's idiom, as in `kernels.cu`).
#[warp_kernel]
fn inclusive_sum(w: &Warp, x: u32) -> u32 {
    let lane = w.lane_id();
    let mut v = x;
    let mut offset = 1;
    while offset < 32 {
        let up = w.shfl_up(v, offset);
        if lane >= offset {
            v = v.wrapping_add(up);
        }
        offset *= 2;
    }
    v
}
