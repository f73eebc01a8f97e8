//! `gpu-bench`: times warpkit's PTX kernels against the same algorithms compiled by nvcc, on one
//! GPU, in one run, with CUDA events; checks every result against sequential Rust.
//!
//! ```text
//! gpu-bench --warpkit FILE [--cuda FILE] [--diag FILE] [--warpkit-90a FILE] [--cuda-90a FILE]
//!           [--log2n N] [--reps R] [--warmup W] [--seed S]
//! gpu-bench --cpu-check [--seed S]   (no GPU: the warpkit kernels on the CPU runtime, small sizes)
//! ```
//!
//! `--warpkit`: the module holding the warpkit kernels (`bench_*` from `benches/gpu/kernels.rs`,
//! `histogram_ffs` from `examples/histogram.rs`): the sm_90 PTX, or a cubin that `ptxas -O3
//! -arch=sm_90` made from it. `--cuda`: the cubin `nvcc -O3 -arch=sm_90 -cubin` made from
//! `benches/gpu/kernels.cu` (`cuda_*`). `--diag`: a diagnostic module with the warpkit kernel
//! names (run.sh passes the warpkit PTX with its generic `ld`/`st` rewritten to `ld.global`/
//! `st.global`), reported in rows of its own. `--warpkit-90a`/`--cuda-90a`: the modules the
//! mbarrier pipeline rows use (run.sh: the warpkit PTX through `ptxas -O3 -arch=sm_90a`, and
//! `kernels.cu` through `nvcc -O3 -arch=sm_90a`, as issue 16 asks); without them those rows use
//! `--warpkit` and `--cuda`. `cargo xtask gpu-bench` bundles the program with a `run.sh` that
//! builds the modules and dumps the SASS on the GPU machine.
//!
//! What is timed, each with a pair of CUDA events around the launches alone, `--warmup` runs then
//! `--reps` runs per implementation, the implementations alternating run by run; the table gives
//! the median (min and max in the detail lines):
//!
//! * copy: `cuMemcpyDtoDAsync` of the 2^N-element input (the bandwidth ceiling; its bytes are read
//!   plus written);
//! * reduce: sum of 2^N `u32` (wrapping), `redux.sync` and `shfl.sync.down` warp sums;
//! * scan: inclusive prefix sums of the same input, reduce-then-scan (every launch of it);
//! * histogram: `histogram_ffs` over 2^N values, geometric (the example's data, 10 buckets, about
//!   6% padding) and uniform (256 buckets);
//! * mbarrier pipeline: `examples/mbarrier_pipeline.rs`'s `mbarrier_reduce_entry` (per-block sums
//!   of 1 KiB tiles moved by `cp.async.bulk` through 3 mbarrier-guarded stages, 96 threads per
//!   block) against `cuda_mbarrier_reduce` (`cuda::barrier`, `memcpy_async_tx`, a spin on
//!   `mbarrier_try_wait_parity`) and `cuda_mbarrier_reduce_wait_parity` (the same with
//!   `cuda::barrier::wait_parity`), at full occupancy and at 4 blocks per SM.
//!
//! Every run of the reductions, histograms and pipelines is checked; each scan implementation runs once more
//! into a poisoned output, which is compared element by element. Exit status 0 when every check
//! passed, 1 on a wrong result or a CUDA error, 2 when there is no driver or device.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use rng::{Draw, Rng, SeedableRng};
use warpkit::cuda::cudarc::driver::{sys, CudaContext, CudaStream};
use warpkit::cuda::{DeviceBuffer, Gpu, Kernel, LaunchConfig, Module, RawArg};
use warpkit::{GlobalBuffer, GlobalSlice, Grid, Warp};

mod rng;

#[allow(dead_code, unused_imports, clippy::needless_range_loop)]
#[path = "../../benches/gpu/kernels.rs"]
mod kernels;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/histogram.rs"]
mod histogram;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/mbarrier_pipeline.rs"]
mod mbarrier_pipeline;

/// Threads per block for every launch.
const BLOCK: u32 = 256;
/// Elements per warp in the scan's first level, and in the levels that scan the chunk sums.
const TOP_CHUNK: u32 = 4096;
const INNER_CHUNK: u32 = 1024;
/// The histograms' bucket counts.
const GEO_BUCKETS: usize = 10;
const UNIFORM_BUCKETS: usize = 256;

// ---------------------------------------------------------------------------------------------
// Data and sequential references
// ---------------------------------------------------------------------------------------------

/// `n` uniformly random `u32`.
fn uniform(n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng::seed_from_u64(seed);
    (0..n).map(|_| r.u32()).collect()
}

/// `n` values as `examples/histogram.rs` draws them: geometric over 0..=10 (bucket 10 folds onto
/// 0), with 1 in 17 [`histogram::IGNORE`] (padding, not counted).
fn geometric(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::seed_from_u64(seed.rotate_left(17));
    (0..n)
        .map(|_| {
            let r = rng.u32();
            if r % 17 == 0 {
                histogram::IGNORE
            } else {
                (r >> 8 & 1023).leading_zeros() - 22
            }
        })
        .collect()
}

fn ref_sum(x: &[u32]) -> u32 {
    x.iter().fold(0u32, |a, &b| a.wrapping_add(b))
}

fn ref_scan(x: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    x.iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect()
}

fn ref_histogram(x: &[u32], buckets: usize) -> Vec<u32> {
    let mut h = vec![0u32; buckets];
    for &v in x.iter().filter(|&&v| v != histogram::IGNORE) {
        h[histogram::bucket(v, buckets as u32) as usize] += 1;
    }
    h
}

/// The first index where `got` differs from `want`, described.
fn first_difference(got: &[u32], want: &[u32]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("length {} instead of {}", got.len(), want.len()));
    }
    let i = got.iter().zip(want).position(|(a, b)| a != b)?;
    let wrong = got.iter().zip(want).filter(|(a, b)| a != b).count();
    Some(format!("{wrong} elements differ; first at {i}: {} instead of {}", got[i], want[i]))
}

// ---------------------------------------------------------------------------------------------
// The scan's launches
// ---------------------------------------------------------------------------------------------

/// A buffer of the scan: its input, its output, or the chunk sums of a level.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SBuf {
    Input,
    Output,
    Sums(usize),
}

/// One launch of the scan: `warps` warps of `bench_scan_sums` or `bench_scan_chunks`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Sums { input: SBuf, sums: SBuf, chunk: u32, warps: usize },
    Chunks { input: SBuf, output: SBuf, carries: SBuf, chunk: u32, warps: usize },
}

/// The launches of an inclusive scan of `n` elements, and the length of each level's sums
/// buffer: reduce-then-scan, recursively, until one warp scans a whole level. `chunks[0]` is the
/// first level's chunk, `chunks[1]` every deeper level's.
fn scan_plan(n: usize, chunks: [u32; 2]) -> (Vec<Step>, Vec<usize>) {
    fn level(len: usize, src: SBuf, dst: SBuf, depth: usize, chunks: [u32; 2], steps: &mut Vec<Step>, sizes: &mut Vec<usize>) {
        let chunk = chunks[depth.min(1)];
        if len <= chunk as usize {
            // One warp; it is warp 0, so it never reads `carries`.
            steps.push(Step::Chunks { input: src, output: dst, carries: src, chunk, warps: 1 });
            return;
        }
        let warps = len.div_ceil(chunk as usize);
        sizes.push(warps);
        let sums = SBuf::Sums(sizes.len() - 1);
        steps.push(Step::Sums { input: src, sums, chunk, warps });
        level(warps, sums, sums, depth + 1, chunks, steps, sizes);
        steps.push(Step::Chunks { input: src, output: dst, carries: sums, chunk, warps });
    }
    let (mut steps, mut sizes) = (Vec::new(), Vec::new());
    if n > 0 {
        level(n, SBuf::Input, SBuf::Output, 0, chunks, &mut steps, &mut sizes);
    }
    (steps, sizes)
}

// ---------------------------------------------------------------------------------------------
// The CPU runtime (`--cpu-check` and the tests): the warpkit kernels at small sizes
// ---------------------------------------------------------------------------------------------

fn cpu_reduce(x: &[u32], threads: u32, shfl: bool) -> Result<u32, String> {
    let input = GlobalBuffer::from_slice(x);
    let out = GlobalBuffer::<u32>::zeroed(1);
    let (i, o) = (input.slice(), out.slice());
    let grid = Grid::new(threads as u64).cpu_threads(2);
    let r = if shfl {
        grid.run(async |w: &Warp<'_>| kernels::bench_reduce_shfl(w, i, o, threads).await)
    } else {
        grid.run(async |w: &Warp<'_>| kernels::bench_reduce_redux(w, i, o, threads).await)
    };
    r.map_err(|e| e.to_string())?;
    Ok(out.to_vec()[0])
}

fn cpu_block_reduce(x: &[u32], blocks: u32) -> Result<u32, String> {
    let input = GlobalBuffer::from_slice(x);
    let out = GlobalBuffer::<u32>::zeroed(1);
    let (i, o) = (input.slice(), out.slice());
    let threads = blocks * kernels::BLOCK;
    Grid::blocks(blocks, kernels::BLOCK)
        .cpu_threads(2)
        .run(async |w: &Warp<'_>| kernels::bench_block_reduce(w, i, o, threads).await)
        .map_err(|e| e.to_string())?;
    Ok(out.to_vec()[0])
}

fn cpu_lookback_scan(x: &[u32], schedule: warpkit::Schedule) -> Result<Vec<u32>, String> {
    let tiles_n = x.len().div_ceil(kernels::SCAN_TILE);
    let input = GlobalBuffer::from_slice(x);
    let output = GlobalBuffer::<u32>::zeroed(x.len());
    let tiles = GlobalBuffer::<u32>::zeroed(1);
    let status = GlobalBuffer::<u64>::zeroed(tiles_n);
    let (i, o, t, st) = (input.slice(), output.slice(), tiles.slice(), status.slice());
    Grid::blocks(tiles_n as u32, kernels::SCAN_BLOCK)
        .schedule(schedule)
        .resident_blocks(3)
        .run(async |w: &Warp<'_>| kernels::bench_lookback_scan(w, i, o, t, st).await)
        .map_err(|e| e.to_string())?;
    Ok(output.to_vec())
}

fn cpu_scan(x: &[u32], chunks: [u32; 2]) -> Result<Vec<u32>, String> {
    let (steps, sizes) = scan_plan(x.len(), chunks);
    let input = GlobalBuffer::from_slice(x);
    let output = GlobalBuffer::<u32>::from_slice(&vec![0xdead_beef; x.len()]);
    let sums: Vec<GlobalBuffer<u32>> = sizes.iter().map(|&s| GlobalBuffer::from_slice(&vec![0xdead_beef; s])).collect();
    let slice = |b: SBuf| -> GlobalSlice<'_, u32> {
        match b {
            SBuf::Input => input.slice(),
            SBuf::Output => output.slice(),
            SBuf::Sums(k) => sums[k].slice(),
        }
    };
    for step in steps {
        match step {
            Step::Sums { input, sums, chunk, warps } => {
                let (i, s) = (slice(input), slice(sums));
                Grid::new(warps as u64 * 32)
                    .cpu_threads(2)
                    .run(async |w: &Warp<'_>| kernels::bench_scan_sums(w, i, s, chunk).await)
            }
            Step::Chunks { input, output, carries, chunk, warps } => {
                let (i, o, c) = (slice(input), slice(output), slice(carries));
                Grid::new(warps as u64 * 32)
                    .cpu_threads(2)
                    .run(async |w: &Warp<'_>| kernels::bench_scan_chunks(w, i, o, c, chunk).await)
            }
        }
        .map_err(|e| e.to_string())?;
    }
    Ok(output.to_vec())
}

fn cpu_histogram(x: &[u32], buckets: usize) -> Result<Vec<u32>, String> {
    let input = GlobalBuffer::from_slice(x);
    let counts = GlobalBuffer::<u32>::zeroed(buckets);
    let (i, c) = (input.slice(), counts.slice());
    Grid::new(x.len() as u64)
        .cpu_threads(2)
        .run(async |w: &Warp<'_>| histogram::histogram_ffs(w, i, c).await)
        .map_err(|e| e.to_string())?;
    Ok(counts.to_vec())
}

fn cpu_mbarrier_reduce(x: &[u32], blocks: u32) -> Result<Vec<u32>, String> {
    mbarrier_pipeline::mbarrier_reduce(x, blocks, |g| g.cpu_threads(2)).map_err(|e| e.to_string())
}

/// The warpkit kernels on the CPU runtime against sequential Rust, at sizes that take every path
/// (unrolled loops and their tails, one- and multi-level scans, partial last chunks).
fn cpu_check(seed: u64) -> Vec<String> {
    let mut failures = Vec::new();
    let mut check = |what: String, r: Result<Option<String>, String>| {
        let verdict = match &r {
            Ok(None) => "ok".to_string(),
            Ok(Some(d)) => format!("WRONG: {d}"),
            Err(e) => format!("ERROR: {e}"),
        };
        println!("  {what:<58} {verdict}");
        if !matches!(r, Ok(None)) {
            failures.push(what);
        }
    };
    println!("warpkit kernels on the CPU runtime, against sequential Rust:");
    for (n, threads) in [(0usize, 64u32), (1, 32), (1000, 64), (100_003, 1024), (70_000, 2048)] {
        let x = uniform(n, seed ^ n as u64);
        let want = ref_sum(&x);
        for shfl in [false, true] {
            let name = if shfl { "bench_reduce_shfl" } else { "bench_reduce_redux" };
            check(
                format!("{name}, n = {n}, {threads} threads"),
                cpu_reduce(&x, threads, shfl).map(|g| (g != want).then(|| format!("{g} instead of {want}"))),
            );
        }
    }
    for (n, blocks) in [(0usize, 1u32), (1, 1), (1000, 3), (100_003, 8)] {
        let x = uniform(n, seed ^ n as u64);
        let want = ref_sum(&x);
        check(
            format!("bench_block_reduce, n = {n}, {blocks} blocks of {}", kernels::BLOCK),
            cpu_block_reduce(&x, blocks).map(|g| (g != want).then(|| format!("{g} instead of {want}"))),
        );
    }
    for (n, schedule) in [
        (1usize, warpkit::Schedule::InOrder),
        (4096, warpkit::Schedule::InOrder),
        (50_001, warpkit::Schedule::InOrder),
        (50_001, warpkit::Schedule::Random { seed }),
        (50_001, warpkit::Schedule::pct(seed, 3)),
    ] {
        let x = uniform(n, seed ^ (n as u64) << 2);
        let want = ref_scan(&x);
        check(
            format!("bench_lookback_scan, n = {n}, {schedule:?}"),
            cpu_lookback_scan(&x, schedule).map(|g| first_difference(&g, &want)),
        );
    }
    for (n, chunks) in [(1usize, [256u32, 64]), (200, [256, 64]), (10_000, [512, 256]), (70_001, [256, 64]), (300_000, [4096, 1024])] {
        let x = uniform(n, seed ^ (n as u64) << 1);
        let want = ref_scan(&x);
        let (steps, _) = scan_plan(n, chunks);
        check(
            format!("scan (bench_scan_*), n = {n}, chunks {chunks:?}, {} launches", steps.len()),
            cpu_scan(&x, chunks).map(|g| first_difference(&g, &want)),
        );
    }
    // Lengths are multiples of 4 (a bulk copy moves a multiple of 16 bytes); partial last tiles,
    // blocks without a tile, and several passes over the 3 stages.
    for (n, blocks) in [(4usize, 1u32), (4, 3), (1000, 3), (10_000, 4), (65_548, 5)] {
        let x = uniform(n, seed ^ (n as u64) << 3);
        let want = mbarrier_pipeline::reduce_reference(&x, blocks);
        check(
            format!("mbarrier_reduce_entry, n = {n}, {blocks} blocks of {}", mbarrier_pipeline::BLOCK),
            cpu_mbarrier_reduce(&x, blocks).map(|g| first_difference(&g, &want)),
        );
    }
    for (n, geo) in [(5000usize, true), (20_000, true), (20_000, false)] {
        let (x, buckets) = if geo { (geometric(n, seed), GEO_BUCKETS) } else { (uniform(n, seed), UNIFORM_BUCKETS) };
        let want = ref_histogram(&x, buckets);
        check(
            format!("histogram_ffs, n = {n}, {} data, {buckets} buckets", if geo { "geometric" } else { "uniform" }),
            cpu_histogram(&x, buckets).map(|g| first_difference(&g, &want)),
        );
    }
    failures
}

// ---------------------------------------------------------------------------------------------
// The GPU
// ---------------------------------------------------------------------------------------------

/// A kernel argument: a buffer (a `GlobalSlice`), or a `u32`.
#[derive(Clone, Copy)]
enum Arg<'a> {
    S(&'a DeviceBuffer<u32>),
    S64(&'a DeviceBuffer<u64>),
    U(u32),
}

type Res<T> = Result<T, String>;

fn cu<T>(what: &str, r: Result<T, warpkit::cuda::cudarc::driver::DriverError>) -> Res<T> {
    r.map_err(|e| format!("{what}: {e:?}"))
}

/// Queues `f` with `blocks` blocks of [`BLOCK`] threads, through warpkit's `Kernel::launch_raw`. A
/// warpkit kernel takes each buffer as one `GlobalSlice` (pointer and length in one 16-byte
/// parameter); a CUDA kernel (`split`) as two, the pointer and a `size_t` length, which lay out
/// the same in the parameter space.
fn launch(f: &BenchKernel, blocks: u32, args: &[Arg<'_>]) -> Res<()> {
    launch_block(f, blocks, BLOCK, args)
}

/// Queues `f` with `blocks` blocks of `block` threads (see [`launch`] for the argument layout).
fn launch_block(f: &BenchKernel, blocks: u32, block: u32, args: &[Arg<'_>]) -> Res<()> {
    launch_shared(f, blocks, block, 0, args)
}

/// Queues `f` with `blocks` blocks of `block` threads and `shared` bytes of dynamic shared memory
/// (see [`launch`] for the argument layout).
fn launch_shared(f: &BenchKernel, blocks: u32, block: u32, shared: u32, args: &[Arg<'_>]) -> Res<()> {
    let mut raw = Vec::new();
    for a in args {
        match *a {
            Arg::S(b) if f.split => raw.extend([RawArg::ptr(b), RawArg::from(b.len() as u64)]),
            Arg::S(b) => raw.push(RawArg::slice(b)),
            Arg::S64(b) if f.split => raw.extend([RawArg::ptr(b), RawArg::from(b.len() as u64)]),
            Arg::S64(b) => raw.push(RawArg::slice(b)),
            Arg::U(x) => raw.push(RawArg::from(x)),
        }
    }
    f.k.launch_raw(&LaunchConfig::blocks((blocks, 1, 1), (block, 1, 1)).dynamic_shared_bytes(shared), &raw).map_err(|e| e.to_string())
}

/// `cub::DeviceScan::InclusiveSum` from the shared library run.sh builds from
/// `benches/gpu/cub_scan.cu` (its C ABI), loaded at run time.
struct CubScan {
    _lib: libloading::Library,
    scan: unsafe extern "C" fn(*mut core::ffi::c_void, usize, *const u32, *mut u32, usize, *mut core::ffi::c_void) -> i32,
    temp_bytes: usize,
}

impl CubScan {
    fn load(path: &PathBuf, n: usize) -> Res<CubScan> {
        // SAFETY: the library is ours (cub_scan.cu), with no initialisers beyond the CUDA
        // runtime's; the symbols have the C signatures declared there.
        unsafe {
            let lib = libloading::Library::new(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let temp: libloading::Symbol<unsafe extern "C" fn(usize, *mut usize) -> i32> =
                lib.get(b"warpkit_cub_scan_temp_bytes").map_err(|e| e.to_string())?;
            let mut temp_bytes = 0usize;
            let status = temp(n, &mut temp_bytes);
            if status != 0 {
                return Err(format!("cub::DeviceScan temp size: cudaError {status}"));
            }
            let scan = *lib.get(b"warpkit_cub_scan").map_err(|e| e.to_string())?;
            Ok(CubScan { _lib: lib, scan, temp_bytes })
        }
    }

    fn scan(&self, temp: &DeviceBuffer<u32>, input: &DeviceBuffer<u32>, output: &DeviceBuffer<u32>, n: usize, s: &CudaStream) -> Res<()> {
        // SAFETY: device pointers of live buffers of at least `n` elements (and `temp_bytes` of
        // temporary storage) in the context the runtime API shares; the stream is that context's.
        let status = unsafe {
            (self.scan)(
                temp.device_ptr() as *mut core::ffi::c_void,
                self.temp_bytes,
                input.device_ptr() as *const u32,
                output.device_ptr() as *mut u32,
                n,
                s.cu_stream() as *mut core::ffi::c_void,
            )
        };
        if status == 0 { Ok(()) } else { Err(format!("cub::DeviceScan: cudaError {status}")) }
    }
}

/// A loaded kernel, and whether it takes slices as (pointer, length) pairs.
struct BenchKernel {
    k: Kernel,
    split: bool,
}

fn blocks_for_warps(warps: usize) -> u32 {
    (warps * 32).div_ceil(BLOCK as usize) as u32
}

/// One implementation: warpkit, nvcc, or the diagnostic module.
struct Impl {
    label: &'static str,
    module: Module,
    /// The kernel name prefix: `bench_` (warpkit) or `cuda_`.
    cuda: bool,
}

impl Impl {
    fn function(&self, bench_name: &str) -> Res<BenchKernel> {
        let name = match (self.cuda, bench_name) {
            (false, "histogram_ffs") => "histogram_ffs".to_string(),
            (true, n) => format!("cuda_{n}"),
            (false, n) => format!("bench_{n}"),
        };
        let k = self.module.kernel(&name).map_err(|e| format!("{}: {e}", self.label))?;
        Ok(BenchKernel { k, split: self.cuda })
    }
}

struct Timing {
    ms: Vec<f32>,
}

impl Timing {
    fn sorted(&self) -> Vec<f32> {
        let mut v = self.ms.clone();
        v.sort_by(|a, b| a.total_cmp(b));
        v
    }
    fn median(&self) -> f64 {
        let v = self.sorted();
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2] as f64
        } else {
            (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
        }
    }
}

struct Row {
    bench: String,
    label: &'static str,
    launch: String,
    timing: Timing,
    bytes: f64,
    verified: Result<(), String>,
}

struct Bench<'a> {
    ctx: &'a Arc<CudaContext>,
    s: Arc<CudaStream>,
    reps: usize,
    warmup: usize,
}

impl Bench<'_> {
    /// Times `run` (the launches only) `warmup + reps` times; `reset` runs before each, `check`
    /// after each (both outside the events). Returns the timed runs.
    fn time(
        &self,
        impls: &[&Impl],
        mut reset: impl FnMut(&Impl) -> Res<()>,
        mut run: impl FnMut(&Impl) -> Res<()>,
        mut check: impl FnMut(&Impl) -> Res<Option<String>>,
    ) -> Res<Vec<(Timing, Result<(), String>)>> {
        let mut out: Vec<(Timing, Result<(), String>)> = impls.iter().map(|_| (Timing { ms: Vec::new() }, Ok(()))).collect();
        let start = cu("event", self.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)))?;
        let end = cu("event", self.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)))?;
        for rep in 0..self.warmup + self.reps {
            for (k, imp) in impls.iter().enumerate() {
                reset(imp)?;
                cu("record", start.record(&self.s))?;
                run(imp)?;
                cu("record", end.record(&self.s))?;
                cu("synchronize", self.s.synchronize())?;
                let ms = cu("elapsed", start.elapsed_ms(&end))?;
                if rep >= self.warmup {
                    out[k].0.ms.push(ms);
                }
                if let Some(d) = check(imp)? {
                    if out[k].1.is_ok() {
                        out[k].1 = Err(format!("run {rep}: {d}"));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The command line.
#[derive(Parser)]
#[command(name = "gpu-bench", about = "Times warpkit's PTX against nvcc's build of the same kernels on GPU 0, every result checked; --cpu-check runs the warpkit kernels on the CPU runtime instead")]
struct Args {
    /// The warpkit module: the sm_90 PTX, or a cubin ptxas made from it
    #[arg(long, value_name = "FILE", required_unless_present = "cpu_check")]
    warpkit: Option<PathBuf>,
    /// The nvcc module (`cuda_*` kernels of benches/gpu/kernels.cu)
    #[arg(long, value_name = "FILE")]
    cuda: Option<PathBuf>,
    /// A diagnostic module with the warpkit kernel names, in rows of its own
    #[arg(long, value_name = "FILE")]
    diag: Option<PathBuf>,
    /// The warpkit module of the mbarrier pipeline rows (run.sh: ptxas -O3 -arch=sm_90a of the PTX);
    /// default: --warpkit
    #[arg(long = "warpkit-90a", value_name = "FILE")]
    warpkit_90a: Option<PathBuf>,
    /// The nvcc module of the mbarrier pipeline rows (run.sh: nvcc -O3 -arch=sm_90a -cubin
    /// kernels.cu); default: --cuda
    #[arg(long = "cuda-90a", value_name = "FILE")]
    cuda_90a: Option<PathBuf>,
    /// The shared library built from benches/gpu/cub_scan.cu (cub::DeviceScan behind a C ABI)
    #[arg(long, value_name = "FILE")]
    cub: Option<PathBuf>,
    /// Another build of `bench_lookback_scan`, timed in rows of its own: `FILE:BLOCK:ITEMS`, the
    /// module and the `SCAN_BLOCK` and `SCAN_ITEMS` it was built with (tile-size tuning)
    #[arg(long, value_name = "FILE:BLOCK:ITEMS", value_parser = ScanVariant::parse)]
    scan_variant: Vec<ScanVariant>,
    /// 2^N elements
    #[arg(long, value_name = "N", default_value_t = 28, value_parser = clap::value_parser!(u32).range(10..=30))]
    log2n: u32,
    /// Timed runs of each implementation
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Untimed warm-up runs first
    #[arg(long, value_name = "W", default_value_t = 3)]
    warmup: usize,
    /// The data's seed
    #[arg(long, default_value_t = 0x5eed_0006)]
    seed: u64,
    /// No GPU: run the warpkit kernels on the CPU runtime at small sizes, against sequential Rust
    #[arg(long)]
    cpu_check: bool,
}

/// A `--scan-variant`: a module and the scan geometry it was built with.
#[derive(Clone, Debug)]
struct ScanVariant {
    module: PathBuf,
    block: u32,
    items: usize,
}

impl ScanVariant {
    fn parse(s: &str) -> Result<ScanVariant, String> {
        let mut parts = s.rsplitn(3, ':');
        let (items, block, module) = (parts.next(), parts.next(), parts.next());
        let (Some(items), Some(block), Some(module)) = (items, block, module) else {
            return Err(format!("`{s}`: expected FILE:BLOCK:ITEMS"));
        };
        let block: u32 = block.parse().map_err(|e| format!("block `{block}`: {e}"))?;
        let items: usize = items.parse().map_err(|e| format!("items `{items}`: {e}"))?;
        if block == 0 || block % 32 != 0 || block > 1024 || items == 0 {
            return Err(format!("`{s}`: the block must be a multiple of 32 up to 1024, the items at least 1"));
        }
        Ok(ScanVariant { module: module.into(), block, items })
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.cpu_check {
        let failures = cpu_check(args.seed);
        if failures.is_empty() {
            println!("all agree");
            return ExitCode::SUCCESS;
        }
        println!("{} disagree", failures.len());
        return ExitCode::from(1);
    }
    let warpkit = args.warpkit.clone().expect("clap requires --warpkit without --cpu-check");

    // The driver first: a clear message, not a panic, when there is none.
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e} (or use --cpu-check)");
            return ExitCode::from(2);
        }
    };
    match gpu_main(&gpu, &args, warpkit) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// A PTX file or a cubin, for sm_90.
fn load(gpu: &Gpu, path: &PathBuf) -> Res<Module> {
    gpu.load_file("sm_90", path).map_err(|e| e.to_string())
}

fn gpu_main(gpu: &Gpu, args: &Args, warpkit: PathBuf) -> Res<bool> {
    let ctx = gpu.context();
    let name = gpu.name();
    let (major, minor) = gpu.compute_capability();
    let sms = cu("attribute", ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))? as u32;
    let mem_clock_khz = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0);
    let bus_bits = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0);
    println!("device 0: {name}, sm_{major}{minor}, {sms} SMs, memory clock {} MHz x {bus_bits}-bit bus", mem_clock_khz / 1000);
    if (major, minor) < (9, 0) {
        return Err(format!("the kernels are built for sm_90; this device is sm_{major}{minor}"));
    }
    let s = gpu.stream().clone();
    let mut impls = vec![Impl { label: "warpkit", module: load(gpu, &warpkit)?, cuda: false }];
    println!("warpkit module: {}", warpkit.display());
    if let Some(p) = &args.cuda {
        impls.push(Impl { label: "nvcc", module: load(gpu, p)?, cuda: true });
        println!("nvcc module:    {}", p.display());
    } else {
        println!("no --cuda module: warpkit only, no ratios");
    }
    if let Some(p) = &args.diag {
        impls.push(Impl { label: "diag", module: load(gpu, p)?, cuda: false });
        println!("diag module:    {} (warpkit PTX, generic ld/st rewritten to ld.global/st.global)", p.display());
    }
    let all: Vec<&Impl> = impls.iter().collect();
    for imp in &impls {
        let mut regs = Vec::new();
        for k in ["reduce_redux", "reduce_shfl", "block_reduce", "scan_sums", "scan_chunks", "lookback_scan", "histogram_ffs"] {
            if imp.cuda && k == "lookback_scan" {
                continue;
            }
            let f = imp.function(k)?;
            regs.push(format!("{k} {}", f.k.function().num_regs().map(|r| r.to_string()).unwrap_or("?".into())));
        }
        println!("  {:<8} registers per thread: {}", imp.label, regs.join(", "));
    }

    let n = 1usize << args.log2n;
    let bytes = (n * 4) as f64;
    println!("n = 2^{} = {n} u32 ({:.3} GB); {} warm-up runs, then {} timed runs of each, alternating", args.log2n, bytes / 1e9, args.warmup, args.reps);
    print!("generating data and sequential references ... ");
    let t0 = std::time::Instant::now();
    let x = uniform(n, args.seed);
    let xg = geometric(n, args.seed);
    let want_sum = ref_sum(&x);
    let want_scan = ref_scan(&x);
    let want_geo = ref_histogram(&xg, GEO_BUCKETS);
    let want_uni = ref_histogram(&x, UNIFORM_BUCKETS);
    println!("{:.1} s", t0.elapsed().as_secs_f64());

    let e = |e: warpkit::cuda::CudaError| e.to_string();
    let input = gpu.upload(&x).map_err(e)?;
    let input_geo = gpu.upload(&xg).map_err(e)?;
    let output = gpu.zeros::<u32>(n).map_err(e)?;
    let copy_dst = gpu.zeros::<u32>(n).map_err(e)?;
    let red_out = gpu.zeros::<u32>(1).map_err(e)?;
    let hist_geo = gpu.zeros::<u32>(GEO_BUCKETS).map_err(e)?;
    let hist_uni = gpu.zeros::<u32>(UNIFORM_BUCKETS).map_err(e)?;
    let (steps, sizes) = scan_plan(n, [TOP_CHUNK, INNER_CHUNK]);
    let sums: Vec<DeviceBuffer<u32>> = sizes.iter().map(|&k| gpu.zeros::<u32>(k)).collect::<Result<_, _>>().map_err(e)?;
    gpu.synchronize().map_err(e)?;
    let (d_in, d_geo, d_out, d_copy, d_red, d_hgeo, d_huni) = (&input, &input_geo, &output, &copy_dst, &red_out, &hist_geo, &hist_uni);
    let d_sums: Vec<&DeviceBuffer<u32>> = sums.iter().collect();
    let memset = |d: &DeviceBuffer<u32>, byte: u8| {
        cu("memset", unsafe { warpkit::cuda::cudarc::driver::result::memset_d8_async(d.device_ptr(), byte, d.len() * 4, s.cu_stream()) })
    };
    let read = |b: &DeviceBuffer<u32>| b.to_vec().map_err(e);

    let bench = Bench { ctx, s: s.clone(), reps: args.reps as usize, warmup: args.warmup };
    let mut rows: Vec<Row> = Vec::new();

    // ---- copy: the bandwidth ceiling ----
    {
        let copy = Impl { label: "memcpy", module: impls[0].module.clone(), cuda: false };
        let r = bench.time(
            &[&copy],
            |_| Ok(()),
            |_| cu("memcpy", unsafe { warpkit::cuda::cudarc::driver::result::memcpy_dtod_async(d_copy.device_ptr(), d_in.device_ptr(), n * 4, s.cu_stream()) }),
            |_| Ok(None),
        )?;
        let last = read(&copy_dst)?;
        let verified = match first_difference(&last, &x) {
            None => Ok(()),
            Some(d) => Err(d),
        };
        for (timing, _) in r {
            rows.push(Row { bench: "copy (cuMemcpyDtoD)".into(), label: "driver", launch: "-".into(), timing, bytes: 2.0 * bytes, verified: verified.clone() });
        }
    }

    // ---- reductions ----
    for (kernel, title) in [
        ("reduce_redux", "reduce, redux.sync"),
        ("reduce_shfl", "reduce, shfl.down tree"),
        ("block_reduce", "reduce, BlockReduce<256> (bar.sync, shared)"),
    ] {
        let mut fs = Vec::new();
        let mut launches = Vec::new();
        for imp in &impls {
            let f = imp.function(kernel)?;
            let per_sm = cu("occupancy", f.k.function().occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None))?.max(1);
            let blocks = per_sm * sms;
            launches.push(format!("{blocks}x{BLOCK}"));
            fs.push((f, blocks));
        }
        let r = bench.time(
            &all,
            |_| memset(d_red, 0),
            |imp| {
                let k = impls.iter().position(|i| std::ptr::eq(i, imp)).unwrap();
                let (f, blocks) = &fs[k];
                launch(f, *blocks, &[Arg::S(d_in), Arg::S(d_red), Arg::U(blocks * BLOCK)])
            },
            |_| {
                let got = read(&red_out)?[0];
                Ok((got != want_sum).then(|| format!("sum {got} instead of {want_sum}")))
            },
        )?;
        for (k, (timing, verified)) in r.into_iter().enumerate() {
            rows.push(Row { bench: title.into(), label: impls[k].label, launch: launches[k].clone(), timing, bytes, verified });
        }
    }

    // ---- scan ----
    {
        let fs: Vec<(BenchKernel, BenchKernel)> = impls.iter().map(|i| Ok((i.function("scan_sums")?, i.function("scan_chunks")?))).collect::<Res<_>>()?;
        let sb = |b: SBuf| match b {
            SBuf::Input => d_in,
            SBuf::Output => d_out,
            SBuf::Sums(k) => d_sums[k],
        };
        let run = |k: usize| -> Res<()> {
            for step in &steps {
                match *step {
                    Step::Sums { input, sums, chunk, warps } => {
                        launch(&fs[k].0, blocks_for_warps(warps), &[Arg::S(sb(input)), Arg::S(sb(sums)), Arg::U(chunk)])?
                    }
                    Step::Chunks { input, output, carries, chunk, warps } => launch(
                        &fs[k].1,
                        blocks_for_warps(warps),
                        &[Arg::S(sb(input)), Arg::S(sb(output)), Arg::S(sb(carries)), Arg::U(chunk)],
                    )?,
                }
            }
            Ok(())
        };
        let index = |imp: &Impl| impls.iter().position(|i| std::ptr::eq(i, imp)).unwrap();
        let r = bench.time(&all, |_| Ok(()), |imp| run(index(imp)), |_| Ok(None))?;
        let launch_desc = steps
            .iter()
            .map(|st| match st {
                Step::Sums { warps, chunk, .. } => format!("sums {warps}w/{chunk}"),
                Step::Chunks { warps, chunk, .. } => format!("chunks {warps}w/{chunk}"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        println!("scan launches: {launch_desc}");
        // Bytes: the first level reads the input twice and writes the output once.
        let scan_bytes = 3.0 * bytes;
        for (k, (timing, _)) in r.into_iter().enumerate() {
            // A last run into a poisoned output, compared element by element.
            memset(d_out, 0xab)?;
            for d in &d_sums {
                memset(d, 0xab)?;
            }
            run(k)?;
            cu("synchronize", s.synchronize())?;
            let got = read(&output)?;
            let verified = match first_difference(&got, &want_scan) {
                None => Ok(()),
                Some(d) => Err(d),
            };
            rows.push(Row {
                bench: "inclusive scan (3 passes over 4n bytes)".into(),
                label: impls[k].label,
                launch: format!("{} launches", steps.len()),
                timing,
                bytes: scan_bytes,
                verified,
            });
        }
    }

    // ---- single-pass scan: decoupled look-back (warpkit) against cub::DeviceScan ----
    {
        // The kernel as built (`SCAN_BLOCK` x `SCAN_ITEMS`), then each `--scan-variant`.
        let mut geometry = vec![(kernels::SCAN_BLOCK, kernels::SCAN_ITEMS)];
        let mut scan_impls = vec![Impl { label: "warpkit", module: impls[0].module.clone(), cuda: false }];
        for v in &args.scan_variant {
            scan_impls.push(Impl { label: Box::leak(format!("warpkit {}x{}", v.block, v.items).into_boxed_str()), module: load(gpu, &v.module)?, cuda: false });
            geometry.push((v.block, v.items));
        }
        let fs: Vec<BenchKernel> = scan_impls.iter().map(|i| i.function("lookback_scan")).collect::<Res<_>>()?;
        let tiles_of = |k: usize| n.div_ceil(geometry[k].0 as usize * geometry[k].1);
        let most_tiles = (0..geometry.len()).map(tiles_of).max().unwrap_or(1);
        let tiles = gpu.zeros::<u32>(1).map_err(e)?;
        let status = gpu.zeros::<u64>(most_tiles).map_err(e)?;
        let cub = args.cub.as_ref().map(|p| CubScan::load(p, n)).transpose()?;
        let cub_temp = match &cub {
            Some(c) => Some(gpu.zeros::<u32>(c.temp_bytes.div_ceil(4).max(1)).map_err(e)?),
            None => None,
        };
        if cub.is_some() {
            scan_impls.push(Impl { label: "cub", module: impls[0].module.clone(), cuda: true });
        }
        let scan_all: Vec<&Impl> = scan_impls.iter().collect();
        let index = |imp: &Impl| scan_impls.iter().position(|i| std::ptr::eq(i, imp)).unwrap();
        let d_tiles = &tiles;
        let d_status = &status;
        // The flags and the tile counter are reset inside the timed region: CUB's scan
        // initializes its tile states in a kernel of its own, which its time includes.
        let run = |imp: &Impl| -> Res<()> {
            if imp.cuda {
                let (c, temp) = (cub.as_ref().expect("cub loaded"), cub_temp.as_ref().expect("cub temp"));
                c.scan(temp, d_in, d_out, n, &s)
            } else {
                let k = index(imp);
                let tiles_n = tiles_of(k);
                cu("memset", unsafe { warpkit::cuda::cudarc::driver::result::memset_d8_async(d_tiles.device_ptr(), 0, 4, s.cu_stream()) })?;
                cu("memset", unsafe { warpkit::cuda::cudarc::driver::result::memset_d8_async(d_status.device_ptr(), 0, tiles_n * 8, s.cu_stream()) })?;
                launch_block(&fs[k], tiles_n as u32, geometry[k].0, &[Arg::S(d_in), Arg::S(d_out), Arg::S(d_tiles), Arg::S64(d_status)])
            }
        };
        let r = bench.time(&scan_all, |_| memset(d_out, 0xab), run, |_| Ok(first_difference(&read(&output)?, &want_scan)))?;
        for (k, (timing, verified)) in r.into_iter().enumerate() {
            let launch = if scan_impls[k].cuda { "cub::DeviceScan".to_string() } else { format!("{}x{}", tiles_of(k), geometry[k].0) };
            rows.push(Row { bench: "inclusive scan, single pass (2 x 4n bytes)".into(), label: scan_impls[k].label, launch, timing, bytes: 2.0 * bytes, verified });
        }
    }

    // ---- histograms ----
    for (title, d_input, d_hist, hist, want) in [
        ("histogram, geometric, 10 buckets", d_geo, d_hgeo, &hist_geo, &want_geo),
        ("histogram, uniform, 256 buckets", d_in, d_huni, &hist_uni, &want_uni),
    ] {
        let fs: Vec<BenchKernel> = impls.iter().map(|i| i.function("histogram_ffs")).collect::<Res<_>>()?;
        let blocks = n.div_ceil(BLOCK as usize) as u32;
        let index = |imp: &Impl| impls.iter().position(|i| std::ptr::eq(i, imp)).unwrap();
        let r = bench.time(
            &all,
            |_| memset(d_hist, 0),
            |imp| launch(&fs[index(imp)], blocks, &[Arg::S(d_input), Arg::S(d_hist)]),
            |_| Ok(first_difference(&read(hist)?, want)),
        )?;
        for (k, (timing, verified)) in r.into_iter().enumerate() {
            rows.push(Row { bench: title.into(), label: impls[k].label, launch: format!("{blocks}x{BLOCK}"), timing, bytes, verified });
        }
    }

    // ---- the mbarrier pipeline (issue 16): warpkit against cuda::barrier ----
    {
        use mbarrier_pipeline::{BLOCK as PIPE_BLOCK, SHARED_BYTES};
        let warpkit_module = match &args.warpkit_90a {
            Some(p) => load(gpu, p)?,
            None => impls[0].module.clone(),
        };
        let cuda_module = match &args.cuda_90a {
            Some(p) => Some(load(gpu, p)?),
            None => impls.iter().find(|i| i.label == "nvcc").map(|i| i.module.clone()),
        };
        // (implementation, kernel name)
        let mut pipe: Vec<(Impl, &str)> = vec![(Impl { label: "warpkit", module: warpkit_module, cuda: false }, "mbarrier_reduce_entry")];
        if let Some(m) = cuda_module {
            pipe.push((Impl { label: "nvcc", module: m.clone(), cuda: true }, "cuda_mbarrier_reduce"));
            pipe.push((Impl { label: "nvcc wait_parity", module: m, cuda: true }, "cuda_mbarrier_reduce_wait_parity"));
        }
        let mut fs = Vec::new();
        let mut regs = Vec::new();
        let mut per_sm = u32::MAX;
        for (imp, name) in &pipe {
            let k = imp.module.kernel(name).map_err(|e| format!("{}: {e}", imp.label))?;
            let f = BenchKernel { k, split: imp.cuda };
            let occ = cu("occupancy", f.k.function().occupancy_max_active_blocks_per_multiprocessor(PIPE_BLOCK, SHARED_BYTES as usize, None))?;
            per_sm = per_sm.min(occ.max(1));
            regs.push(format!("{name} {} registers, {occ} blocks/SM", f.k.function().num_regs().map(|r| r.to_string()).unwrap_or("?".into())));
            fs.push(f);
        }
        println!("mbarrier pipeline, blocks of {PIPE_BLOCK} threads with {SHARED_BYTES} B of dynamic shared memory: {}", regs.join("; "));
        println!(
            "mbarrier pipeline modules: warpkit {}, nvcc {}",
            args.warpkit_90a.as_ref().unwrap_or(&warpkit).display(),
            args.cuda_90a.as_ref().or(args.cuda.as_ref()).map(|p| p.display().to_string()).unwrap_or("-".into())
        );
        let pipe_all: Vec<&Impl> = pipe.iter().map(|(i, _)| i).collect();
        let index = |imp: &Impl| pipe.iter().position(|(i, _)| std::ptr::eq(i, imp)).unwrap();
        // Full occupancy (the smaller of the kernels' occupancies, so both get one grid), then 4
        // blocks per SM (3 KiB of stages each: fewer bytes in flight per SM).
        let mut configs = vec![per_sm];
        if per_sm != 4 {
            configs.push(4);
        }
        for per_sm in configs {
            let blocks = per_sm * sms;
            let want = mbarrier_pipeline::reduce_reference(&x, blocks);
            let pipe_out = gpu.zeros::<u32>(blocks as usize).map_err(e)?;
            let d_pipe = &pipe_out;
            let r = bench.time(
                &pipe_all,
                |_| memset(d_pipe, 0xab),
                |imp| launch_shared(&fs[index(imp)], blocks, PIPE_BLOCK, SHARED_BYTES, &[Arg::S(d_in), Arg::S(d_pipe)]),
                |_| Ok(first_difference(&read(&pipe_out)?, &want)),
            )?;
            for (k, (timing, verified)) in r.into_iter().enumerate() {
                rows.push(Row {
                    bench: format!("mbarrier pipeline, {per_sm} blocks/SM"),
                    label: pipe[k].0.label,
                    launch: format!("{blocks}x{PIPE_BLOCK}"),
                    timing,
                    bytes,
                    verified,
                });
            }
        }
    }

    // ---- the table ----
    let copy_gbs = rows[0].bytes / (rows[0].timing.median() * 1e-3) / 1e9;
    println!();
    println!("detail (ms of each timed run, in order):");
    for r in &rows {
        let v: Vec<String> = r.timing.ms.iter().map(|m| format!("{m:.4}")).collect();
        println!("  {:<42} {:<8} {}", r.bench, r.label, v.join(" "));
    }
    println!();
    println!("| benchmark | implementation | launch | median ms | min ms | max ms | GB/s | % of copy | warpkit / nvcc (or cub) | result |");
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---|");
    let mut ok = true;
    for r in &rows {
        let med = r.timing.median();
        let sorted = r.timing.sorted();
        let gbs = r.bytes / (med * 1e-3) / 1e9;
        let nvcc = rows.iter().find(|o| o.bench == r.bench && (o.label == "nvcc" || o.label == "cub")).map(|o| o.timing.median());
        let warpkit = rows.iter().find(|o| o.bench == r.bench && o.label == "warpkit").map(|o| o.timing.median());
        let ratio = match (r.label, nvcc, warpkit) {
            ("warpkit" | "diag", Some(nv), _) => format!("{:.3}", med / nv),
            // A second CUDA variant of the same benchmark: warpkit over it.
            ("nvcc wait_parity", _, Some(wk)) => format!("({:.3} over this)", wk / med),
            _ => "".into(),
        };
        let verdict = match &r.verified {
            Ok(()) => "correct".to_string(),
            Err(e) => {
                ok = false;
                format!("WRONG: {e}")
            }
        };
        println!(
            "| {} | {} | {} | {:.4} | {:.4} | {:.4} | {:.0} | {:.1}% | {} | {} |",
            r.bench,
            r.label,
            r.launch,
            med,
            sorted[0],
            sorted[sorted.len() - 1],
            gbs,
            100.0 * gbs / copy_gbs,
            ratio,
            verdict
        );
    }
    println!();
    println!(
        "GB/s = bytes / median time, 1 GB = 1e9 bytes. Bytes counted: copy and single-pass scan {:.3} GB (read + write); reduce and histogram {:.3} GB (each input element read once); scan {:.3} GB (its first level reads the input twice and writes the output once; the chunk sums are {:.2}% more).",
        2.0 * bytes / 1e9,
        bytes / 1e9,
        3.0 * bytes / 1e9,
        100.0 * sizes.iter().map(|&k| 3 * k).sum::<usize>() as f64 / (3 * n) as f64
    );
    println!("% of copy = GB/s over the copy's GB/s measured above in this run.");
    println!("{}", if ok { "every result agrees with sequential Rust" } else { "SOME RESULTS ARE WRONG" });
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_plan_levels() {
        let (steps, sizes) = scan_plan(1 << 28, [TOP_CHUNK, INNER_CHUNK]);
        assert_eq!(sizes, [65536, 64]);
        assert_eq!(steps.len(), 5);
        assert_eq!(steps[2], Step::Chunks { input: SBuf::Sums(1), output: SBuf::Sums(1), carries: SBuf::Sums(1), chunk: 1024, warps: 1 });
        assert_eq!(scan_plan(0, [64, 64]).0, []);
        assert_eq!(scan_plan(64, [64, 64]).0.len(), 1);
        assert_eq!(scan_plan(65, [64, 64]).0.len(), 3);
    }

    /// The warpkit kernels compute what sequential Rust does, on the CPU runtime.
    #[test]
    fn warpkit_kernels_agree_with_sequential_rust() {
        assert_eq!(cpu_check(7), Vec::<String>::new());
    }

    #[test]
    fn data_is_what_it_says() {
        let g = geometric(100_000, 1);
        let pad = g.iter().filter(|&&v| v == histogram::IGNORE).count();
        assert!((5000..7000).contains(&pad), "{pad}");
        assert!(g.iter().all(|&v| v == histogram::IGNORE || v <= 10));
        let u = uniform(1000, 1);
        assert!(u.iter().collect::<std::collections::BTreeSet<_>>().len() > 990);
    }
}
