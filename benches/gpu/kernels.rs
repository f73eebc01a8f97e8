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
//! The block-level kernels (issue 11) use shared memory and CTA barriers; their CUDA side calls
//! CUB itself: `cub::BlockReduce` in `kernels.cu`, and `cub::DeviceScan::InclusiveSum` (a host
//! API) in `cub_scan.cu`, built as a shared library the host program calls.
//!
//! * [`bench_reduce_redux`], [`bench_reduce_shfl`]: one grid-stride loop accumulating per thread
//!   (`UNROLL` independent loads per iteration), one warp sum (`redux.sync.add`, or a 5-step
//!   `shfl.sync.down` tree), one `atom.global.add` per warp.
//! * the scan, reduce-then-scan over per-warp chunks of `chunk` elements: [`bench_scan_sums`]
//!   writes each chunk's sum; the host scans those sums the same way (recursively, until one warp
//!   holds all of them); [`bench_scan_chunks`] then scans every chunk in strips of 32 (one
//!   element per lane, a 5-step `shfl.sync.up` scan per strip), starting from the inclusive sum of
//!   the chunks before it.
//! * [`bench_block_reduce`]: the grid-stride sum of [`bench_reduce_shfl`], then a BlockReduce
//!   with CUB's `BLOCK_REDUCE_WARP_REDUCTIONS` algorithm (a `shfl.sync.down` tree per warp, the
//!   warps' partials in shared memory, `__syncthreads`, thread 0 adding them), one atomic per
//!   block. The CUDA side is the same loop around `cub::BlockReduce<unsigned, 256>`.
//! * [`bench_lookback_scan`]: a single-pass inclusive scan with decoupled look-back, the design of
//!   `cub::DeviceScan`: tiles of `SCAN_ITEMS * SCAN_BLOCK` values taken in order from an atomic counter;
//!   coalesced loads transposed to a blocked arrangement through shared memory; a thread scan, a
//!   warp scan and a block scan of the totals; warp 0 looks back 32 predecessors at a time; the
//!   results go back through shared memory to coalesced stores.

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

// ---------------------------------------------------------------- blocks (issue 11)

/// Threads per block of the block benchmarks.
pub const BLOCK: u32 = 256;
/// Warps per block.
const WARPS: usize = BLOCK as usize / 32;

/// Sum (wrapping) of `input` into `out[0]` with `threads` threads in blocks of [`BLOCK`]: the
/// grid-stride loop of [`bench_reduce_shfl`], then a BlockReduce as CUB's
/// `BLOCK_REDUCE_WARP_REDUCTIONS` does it, then one `atom.global.add` per block.
#[warp_kernel(entry)]
pub fn bench_block_reduce(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, threads: u32) {
    let partials = w.shared_array::<u32, WARPS>();
    let mut sum = thread_sum(w, input, threads);
    let mut offset = 16;
    while offset > 0 {
        sum = sum.wrapping_add(w.shfl_down(sum, offset));
        offset /= 2;
    }
    if w.lane_id() == 0 {
        partials.store(w.warp_in_block() as usize, sum);
    }
    w.sync_threads();
    if w.thread_rank() == 0 {
        let mut total = sum;
        for k in 1..WARPS {
            total = total.wrapping_add(partials.load(k));
        }
        out.atomic_add(0, total);
    }
}

/// Threads per block of [`bench_lookback_scan`]. Measured on the H100 (`--scan-variant`, see
/// `benches/gpu/h100/README.md`): 256 x 16 was the fastest of 128 x 16, 128 x 20, 128 x 24 (CUB's
/// tuning for 4-byte sums on sm_90), 256 x 16 and 256 x 24.
pub const SCAN_BLOCK: u32 = 256;
/// Warps per block of [`bench_lookback_scan`].
const SCAN_WARPS: usize = SCAN_BLOCK as usize / 32;
/// Values each thread scans in [`bench_lookback_scan`]. Above 16 the nightly's loop unroller
/// leaves the per-thread array in local memory unless its threshold is raised
/// (`-Cllvm-args=-unroll-threshold=2000`), which the 24-item variants were built with.
pub const SCAN_ITEMS: usize = 16;
/// Values per tile (per block) of [`bench_lookback_scan`].
pub const SCAN_TILE: usize = SCAN_BLOCK as usize * SCAN_ITEMS;
/// Values of a warp's part of a tile.
const STRIP: usize = 32 * SCAN_ITEMS;
/// Words of a warp's region of the exchange array: `STRIP`, padded by one word per 32.
const REGION: usize = STRIP + SCAN_ITEMS;
/// Look-back status flags (the high 32 bits of a status word; the value is the low 32).
const AGGREGATE: u64 = 1;
const PREFIX: u64 = 2;

/// Inclusive scan (wrapping) of `input` into `output` in one pass: launch
/// `ceil(input.len() / SCAN_TILE)` blocks of [`SCAN_BLOCK`] threads with `tiles[0] == 0` and
/// `status` zeroed, one word per block.
///
/// Each warp works in windows: its `STRIP` values of the input and output (`subslice`, checked
/// once per tile) and its `REGION` of the exchange array. Indices into a window are
/// `32 * k + lane` or `SCAN_ITEMS * lane + j`, which the compiler proves in range, so the loops
/// carry no bounds checks on the GPU; a partial last tile takes the checked path.
#[warp_kernel(entry)]
pub fn bench_lookback_scan(
    w: &Warp,
    input: GlobalSlice<'_, u32>,
    output: GlobalSlice<'_, u32>,
    tiles: GlobalSlice<'_, u32>,
    status: GlobalSlice<'_, u64>,
) {
    let exchange = w.shared_array::<u32, { SCAN_WARPS * REGION }>();
    let warp_totals = w.shared_array::<u32, SCAN_WARPS>();
    let broadcast = w.shared_array::<u32, 2>();
    let lane = w.lane_id() as usize;
    let warp = w.warp_in_block() as usize;
    // The tile, in the order blocks start.
    if w.thread_rank() == 0 {
        broadcast.store(0, tiles.atomic_add(0, 1));
    }
    w.sync_threads();
    let tile = broadcast.load(0) as usize;
    let base = tile * SCAN_TILE + warp * STRIP;
    let full = base + STRIP <= input.len();
    // This warp's words of the exchange array (a launch of more than `SCAN_BLOCK` threads stops here).
    let region = exchange.subslice(warp * REGION, REGION);
    // Coalesced loads (element `base + 32k + lane`), then through shared memory to the blocked
    // arrangement (lane `l` holds elements `base + SCAN_ITEMS * l ..`). One word of padding per
    // 32 keeps both directions free of bank conflicts.
    let mut v = [0u32; SCAN_ITEMS];
    if full {
        let strip = input.subslice(base, STRIP);
        for k in 0..SCAN_ITEMS {
            v[k] = strip.load(32 * k + lane);
        }
    } else {
        for k in 0..SCAN_ITEMS {
            let i = base + 32 * k + lane;
            v[k] = if i < input.len() { input.load(i) } else { 0 };
        }
    }
    for k in 0..SCAN_ITEMS {
        let at = 32 * k + lane;
        region.store(at + at / 32, v[k]);
    }
    w.syncwarp();
    for j in 0..SCAN_ITEMS {
        let at = lane * SCAN_ITEMS + j;
        v[j] = region.load(at + at / 32);
    }
    // The thread's scan, the warp's scan of the thread totals, the block's of the warp totals.
    for j in 1..SCAN_ITEMS {
        v[j] = v[j].wrapping_add(v[j - 1]);
    }
    let thread_total = v[SCAN_ITEMS - 1];
    let mut inclusive = thread_total;
    let mut offset = 1;
    while offset < 32 {
        let up = w.shfl_up(inclusive, offset);
        if lane as u32 >= offset {
            inclusive = inclusive.wrapping_add(up);
        }
        offset *= 2;
    }
    if lane == 31 {
        warp_totals.store(warp, inclusive);
    }
    w.sync_threads();
    let mut before_warp = 0u32;
    let mut aggregate = 0u32;
    for k in 0..SCAN_WARPS {
        let t = warp_totals.load(k);
        if k < warp {
            before_warp = before_warp.wrapping_add(t);
        }
        aggregate = aggregate.wrapping_add(t);
    }
    // The tile's exclusive prefix, from its predecessors.
    if warp == 0 {
        let exclusive = look_back(w, status, tile, aggregate);
        if lane == 0 {
            broadcast.store(1, exclusive);
        }
    }
    w.sync_threads();
    let prefix = broadcast.load(1).wrapping_add(before_warp).wrapping_add(inclusive.wrapping_sub(thread_total));
    // Back to the striped arrangement for coalesced stores (this lane wrote and read only its own
    // words of the region since the last `syncwarp`, so none is overwritten before it is read).
    for j in 0..SCAN_ITEMS {
        let at = lane * SCAN_ITEMS + j;
        region.store(at + at / 32, v[j].wrapping_add(prefix));
    }
    w.syncwarp();
    if full {
        let strip = output.subslice(base, STRIP);
        for k in 0..SCAN_ITEMS {
            let at = 32 * k + lane;
            strip.store(at, region.load(at + at / 32));
        }
    } else {
        for k in 0..SCAN_ITEMS {
            let (at, i) = (32 * k + lane, base + 32 * k + lane);
            if i < output.len() {
                output.store(i, region.load(at + at / 32));
            }
        }
    }
}

/// Warp 0's decoupled look-back for `tile`: publishes the tile's aggregate, sums its
/// predecessors' aggregates 32 at a time until one holds an inclusive prefix, publishes the tile's
/// inclusive prefix, and returns its exclusive prefix (in every lane).
#[warp_kernel]
fn look_back(w: &Warp, status: GlobalSlice<'_, u64>, tile: usize, aggregate: u32) -> u32 {
    let lane = w.lane_id() as usize;
    if tile == 0 {
        if lane == 0 {
            status.atomic_exch(0, PREFIX << 32 | aggregate as u64);
        }
        return 0;
    }
    if lane == 0 {
        status.atomic_exch(tile, AGGREGATE << 32 | aggregate as u64);
    }
    let mut exclusive = 0u32;
    let mut end = tile;
    loop {
        // Lane `l` looks at tile `end - 1 - l`; before tile 0, an inclusive prefix of 0.
        let p = end as i64 - 1 - lane as i64;
        let mut word = if p >= 0 { status.load_volatile(p as usize) } else { PREFIX << 32 };
        while w.any(word >> 32 == 0) {
            word = if p >= 0 { status.load_volatile(p as usize) } else { PREFIX << 32 };
        }
        // The nearest predecessor with an inclusive prefix ends the look-back; the lanes up to it
        // add their values.
        let prefixes = w.ballot(word >> 32 == PREFIX);
        let last = if prefixes != 0 { prefixes.trailing_zeros() } else { 31 };
        let mine = if lane as u32 <= last { word as u32 } else { 0 };
        exclusive = exclusive.wrapping_add(w.redux_add(mine));
        if prefixes != 0 {
            break;
        }
        end -= 32;
    }
    if lane == 0 {
        status.atomic_exch(tile, PREFIX << 32 | exclusive.wrapping_add(aggregate) as u64);
    }
    exclusive
}
