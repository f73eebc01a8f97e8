//! The example kernels (`examples/*.rs`, their `#[warp_kernel(entry)]` functions): random grids
//! run on the GPU (the sm_90 PTX) and in the CPU runtime (`Grid` with `Target::SM_90`), every
//! global buffer compared afterwards.
//!
//! A case is one launch: `threads` threads (the CPU runs `Grid::new(threads)`, whose last warp may
//! be partial; the GPU runs `ceil(threads / 32)` blocks of 32 threads, and the entry kernels return
//! at once on threads past the end), the initial contents of every buffer parameter, and the
//! scalar parameters. After the launch every buffer, inputs included, is compared element by
//! element, bitwise, with two stated exceptions:
//!
//! * `compact_grid_entry`: warps reserve their output ranges with an atomic, in whatever order they
//!   reach it (on the CPU in warp order). Compared: the count, each kept thread's position within
//!   its warp's range and the value stored there, and that the ranges tile `0..count` exactly.
//! * floating-point *sums* (`reduce_f32/f64` sum, `scan_f64`): where both results are NaN, the
//!   payloads may differ (x86 keeps an operand's payload, or gives `0xffc00000` for
//!   `inf + -inf`; PTX `add` gives the canonical NaN): such elements count as agreeing and are
//!   tallied in the row's note. Every other float (min/max, sorted keys) is compared bitwise.
//!
//! The bug gallery's kernels are undefined behaviour and are not run.

use cudarc::driver::{DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};
use warpkit::{Executor, GlobalBuffer, GlobalValue, Grid, Target, Warp, WarpError};

use super::{Buf, Gpu, Rng, Row};

#[allow(dead_code, unused_imports)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/compact.rs"]
mod compact;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/histogram.rs"]
mod histogram;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/radix_rank.rs"]
mod radix_rank;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/search.rs"]
mod search;

// ---------------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    U32,
    I32,
    F32,
    F64,
}

impl Ty {
    fn wide(self) -> bool {
        self == Ty::F64
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    fn is_nan(self, bits: u64) -> bool {
        match self {
            Ty::F32 => f32::from_bits(bits as u32).is_nan(),
            Ty::F64 => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    }
}

/// A global buffer's contents as bit patterns (zero-extended to 64 bits).
#[derive(Clone, Debug, PartialEq)]
struct HostBuf {
    ty: Ty,
    bits: Vec<u64>,
}

trait Elem: GlobalValue {
    const TY: Ty;
    fn to_u64(self) -> u64;
    fn from_u64(b: u64) -> Self;
}
impl Elem for u32 {
    const TY: Ty = Ty::U32;
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn from_u64(b: u64) -> u32 {
        b as u32
    }
}
impl Elem for i32 {
    const TY: Ty = Ty::I32;
    fn to_u64(self) -> u64 {
        self as u32 as u64
    }
    fn from_u64(b: u64) -> i32 {
        b as u32 as i32
    }
}
impl Elem for f32 {
    const TY: Ty = Ty::F32;
    fn to_u64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_u64(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
}
impl Elem for f64 {
    const TY: Ty = Ty::F64;
    fn to_u64(self) -> u64 {
        self.to_bits()
    }
    fn from_u64(b: u64) -> f64 {
        f64::from_bits(b)
    }
}

fn host<T: Elem>(v: impl IntoIterator<Item = T>) -> HostBuf {
    HostBuf { ty: T::TY, bits: v.into_iter().map(T::to_u64).collect() }
}
fn zeros(ty: Ty, n: usize) -> HostBuf {
    HostBuf { ty, bits: vec![0; n] }
}
fn to_global<T: Elem>(b: &HostBuf) -> GlobalBuffer<T> {
    assert_eq!(b.ty, T::TY);
    GlobalBuffer::from_slice(&b.bits.iter().map(|&x| T::from_u64(x)).collect::<Vec<T>>())
}
fn from_global<T: Elem>(b: &GlobalBuffer<T>) -> HostBuf {
    host(b.to_vec())
}

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ex {
    ReduceU32,
    ReduceI32,
    ReduceF32,
    ReduceF64,
    ScanU32,
    ScanI32,
    ScanF64,
    SegSumU32,
    SegMaxI32,
    CompactWarp,
    CompactGrid,
    HistFfs,
    HistElect,
    RadixRank,
    RadixSort,
    SortU32,
    SortPairsF32,
    SortPairsGrid,
    FindFirst,
}

const ALL: [Ex; 19] = [
    Ex::ReduceU32,
    Ex::ReduceI32,
    Ex::ReduceF32,
    Ex::ReduceF64,
    Ex::ScanU32,
    Ex::ScanI32,
    Ex::ScanF64,
    Ex::SegSumU32,
    Ex::SegMaxI32,
    Ex::CompactWarp,
    Ex::CompactGrid,
    Ex::HistFfs,
    Ex::HistElect,
    Ex::RadixRank,
    Ex::RadixSort,
    Ex::SortU32,
    Ex::SortPairsF32,
    Ex::SortPairsGrid,
    Ex::FindFirst,
];

impl Ex {
    fn kernel(self) -> &'static str {
        match self {
            Ex::ReduceU32 => "reduce_u32_entry",
            Ex::ReduceI32 => "reduce_i32_entry",
            Ex::ReduceF32 => "reduce_f32_entry",
            Ex::ReduceF64 => "reduce_f64_entry",
            Ex::ScanU32 => "scan_u32_entry",
            Ex::ScanI32 => "scan_i32_entry",
            Ex::ScanF64 => "scan_f64_entry",
            Ex::SegSumU32 => "segmented_sum_u32_entry",
            Ex::SegMaxI32 => "segmented_max_i32_entry",
            Ex::CompactWarp => "compact_warp_entry",
            Ex::CompactGrid => "compact_grid_entry",
            Ex::HistFfs => "histogram_ffs",
            Ex::HistElect => "histogram_elect_entry",
            Ex::RadixRank => "radix_rank_entry",
            Ex::RadixSort => "radix_sort_entry",
            Ex::SortU32 => "sort_u32_entry",
            Ex::SortPairsF32 => "sort_pairs_f32_entry",
            Ex::SortPairsGrid => "sort_pairs_grid",
            Ex::FindFirst => "find_first_entry",
        }
    }

    /// The table row.
    fn name(self) -> &'static str {
        match self {
            Ex::ReduceU32 => "example reduce: u32 tree + redux.sync",
            Ex::ReduceI32 => "example reduce: i32 tree + redux.sync",
            Ex::ReduceF32 => "example reduce: f32 tree + redux min/max",
            Ex::ReduceF64 => "example reduce: f64 tree",
            Ex::ScanU32 => "example scan: u32 prefix sums, tiles 8/16",
            Ex::ScanI32 => "example scan: i32 running max",
            Ex::ScanF64 => "example scan: f64 prefix sum",
            Ex::SegSumU32 => "example segmented_reduce: u32 sum",
            Ex::SegMaxI32 => "example segmented_reduce: i32 max",
            Ex::CompactWarp => "example compact: warp slots",
            Ex::CompactGrid => "example compact: grid (atomic per warp)",
            Ex::HistFfs => "example histogram: __ffs leader",
            Ex::HistElect => "example histogram: elect leader",
            Ex::RadixRank => "example radix_rank: rank by digit",
            Ex::RadixSort => "example radix_rank: LSD radix sort",
            Ex::SortU32 => "example bitonic_sort: u32 keys",
            Ex::SortPairsF32 => "example bitonic_sort: f32 key-value",
            Ex::SortPairsGrid => "example bitonic_sort: stable pairs grid",
            Ex::FindFirst => "example search: find_first",
        }
    }

    /// The CPU target: sm_90, as the GPU; `reduce_f32` uses `redux.sync.{min,max}.f32`, which the
    /// runtime models from sm_100a on: on sm_90 the device handle runs its fallback, whose
    /// results are those of the sm_100a instruction (checked by the `Warp::redux_f32` row too).
    fn target(self) -> Target {
        if self == Ex::ReduceF32 {
            Target::SM_100A
        } else {
            Target::SM_90
        }
    }

    fn cases(self, scale: usize) -> usize {
        48 * scale
    }

    /// Whether element `i` of buffer `buf` is a floating-point sum (NaN payload not compared).
    fn sum_element(self, buf: usize, i: usize) -> bool {
        match self {
            Ex::ReduceF32 => buf == 1 && i % 5 == 0,
            Ex::ReduceF64 => buf == 1 && i % 3 == 0,
            Ex::ScanF64 => buf == 1,
            _ => false,
        }
    }
}

/// A kernel parameter after the handle.
#[derive(Clone, Copy, Debug)]
enum P {
    Buf(usize),
    U32(u32),
}

#[derive(Clone, Debug)]
struct Case {
    threads: usize,
    bufs: Vec<HostBuf>,
    params: Vec<P>,
}

impl Case {
    fn scalar(&self, k: usize) -> u32 {
        self.params
            .iter()
            .filter_map(|p| if let P::U32(v) = p { Some(*v) } else { None })
            .nth(k)
            .expect("scalar parameter")
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// Grid sizes: single threads, partial and whole warps, many warps with a partial last one.
fn gen_threads(r: &mut Rng) -> usize {
    match r.below(3) {
        0 => r.pick(&[1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 1000]),
        1 => 1 + r.below(128) as usize,
        _ => 1 + r.below(3000) as usize,
    }
}

/// As `tests/examples.rs`: the extremes over-represented.
fn adv_u32(r: &mut Rng) -> u32 {
    match r.below(6) {
        0..=2 => r.u32(),
        3 => u32::MAX,
        4 => 0,
        _ => r.below(4),
    }
}
fn adv_i32(r: &mut Rng) -> i32 {
    match r.below(6) {
        0..=2 => r.u32() as i32,
        3 => i32::MIN,
        4 => i32::MAX,
        _ => r.below(4) as i32 - 2,
    }
}
fn adv_f32(r: &mut Rng) -> f32 {
    match r.below(12) {
        0..=5 => (r.u32() as f64 / u32::MAX as f64 * 2e6 - 1e6) as f32,
        6 => f32::NAN,
        7 => -0.0,
        8 => 0.0,
        9 => f32::INFINITY,
        10 => f32::NEG_INFINITY,
        _ => f32::from_bits(r.u32()),
    }
}
fn adv_f64(r: &mut Rng) -> f64 {
    match r.below(10) {
        0..=5 => r.next() as f64 / u64::MAX as f64 * 2e12 - 1e12,
        6 => f64::NAN,
        7 => -0.0,
        8 => 0.0,
        _ => f64::from_bits(r.next()),
    }
}
/// Per-case value styles, so that some grids are all-equal or small-range.
fn style_u32(r: &mut Rng) -> impl Fn(&mut Rng) -> u32 {
    let style = r.below(4);
    move |r: &mut Rng| match style {
        0 => adv_u32(r),
        1 => r.below(8),
        2 => 7,
        _ => r.u32(),
    }
}

fn gen_case(r: &mut Rng, ex: Ex) -> Case {
    let n = gen_threads(r);
    let whole = n.div_ceil(32) * 32;
    let warps = n.div_ceil(32);
    let case = |threads: usize, bufs: Vec<HostBuf>, params: Vec<P>| Case { threads, bufs, params };
    let b = |k: usize| P::Buf(k);
    match ex {
        Ex::ReduceU32 | Ex::ScanU32 => {
            let f = style_u32(r);
            let x = host((0..n).map(|_| f(r)));
            case(n, vec![x, zeros(Ty::U32, 6 * n)], vec![b(0), b(1)])
        }
        Ex::ReduceI32 | Ex::ScanI32 => {
            let x = host((0..n).map(|_| adv_i32(r)));
            let words = if ex == Ex::ReduceI32 { 6 } else { 2 };
            case(n, vec![x, zeros(Ty::I32, words * n)], vec![b(0), b(1)])
        }
        Ex::ReduceF32 => {
            let x = host((0..n).map(|_| adv_f32(r)));
            case(n, vec![x, zeros(Ty::F32, 5 * n)], vec![b(0), b(1)])
        }
        Ex::ReduceF64 | Ex::ScanF64 => {
            let plain = r.chance(1, 3);
            let x = host((0..n).map(|_| if plain { (r.below(2_000_000) as f64 - 1e6) / 7.0 } else { adv_f64(r) }));
            let words = if ex == Ex::ReduceF64 { 3 } else { 1 };
            case(n, vec![x, zeros(Ty::F64, words * n)], vec![b(0), b(1)])
        }
        Ex::SegSumU32 | Ex::SegMaxI32 => {
            let density = r.pick(&[0u32, 1, 4, 8, 32]);
            let heads = host((0..n).map(|_| match density {
                0 => 0u32,
                32 => 1,
                d => r.chance(d, 32) as u32,
            }));
            let (x, ty) = if ex == Ex::SegSumU32 {
                (host((0..n).map(|_| adv_u32(r))), Ty::U32)
            } else {
                (host((0..n).map(|_| adv_i32(r))), Ty::I32)
            };
            case(n, vec![x, heads, zeros(ty, 2 * n)], vec![b(0), b(1), b(2)])
        }
        Ex::CompactWarp | Ex::CompactGrid => {
            let f = style_u32(r);
            let x = host((0..n).map(|_| f(r)));
            let limit = match r.below(4) {
                0 => adv_u32(r),
                1 => 0,
                2 => u32::MAX,
                _ => r.u32(),
            };
            if ex == Ex::CompactWarp {
                case(n, vec![x, zeros(Ty::U32, 2 * n)], vec![b(0), b(1), P::U32(limit)])
            } else {
                let bufs = vec![x, zeros(Ty::U32, n), zeros(Ty::U32, 1), zeros(Ty::U32, n)];
                case(n, bufs, vec![b(0), b(1), b(2), b(3), P::U32(limit)])
            }
        }
        Ex::HistFfs | Ex::HistElect => {
            let buckets = 1 + r.below(40) as usize;
            let x = host((0..n).map(|_| match r.below(7) {
                0..=3 => r.below(64),
                4 => histogram::IGNORE,
                5 => 7,
                _ => r.u32(),
            }));
            if ex == Ex::HistFfs {
                case(n, vec![x, zeros(Ty::U32, buckets)], vec![b(0), b(1)])
            } else {
                case(n, vec![x, zeros(Ty::U32, buckets), zeros(Ty::U32, n)], vec![b(0), b(1), b(2)])
            }
        }
        Ex::RadixRank | Ex::RadixSort => {
            let small = r.chance(1, 3);
            let keys = host((0..n).map(|_| if small { r.below(4) } else { r.u32() }));
            let bins = zeros(Ty::U32, 32 * warps);
            if ex == Ex::RadixRank {
                let shift = r.below(32);
                case(whole, vec![keys, bins, zeros(Ty::U32, n)], vec![b(0), P::U32(shift), b(1), b(2)])
            } else {
                case(whole, vec![keys, bins, zeros(Ty::U32, 32 * warps), zeros(Ty::U32, n)], vec![b(0), b(1), b(2), b(3)])
            }
        }
        Ex::SortU32 => {
            let keys = host((0..n).map(|_| match r.below(3) {
                0 => r.u32(),
                1 => r.below(3),
                _ => u32::MAX,
            }));
            case(whole, vec![keys, zeros(Ty::U32, n)], vec![b(0), b(1)])
        }
        Ex::SortPairsF32 => {
            let keys = host((0..n).map(|_| if r.chance(1, 3) { r.below(3) as f32 - 1.0 } else { adv_f32(r) }));
            let values = host(0..n as u32);
            case(whole, vec![keys, values, zeros(Ty::F32, n), zeros(Ty::U32, n)], vec![b(0), b(1), b(2), b(3)])
        }
        Ex::SortPairsGrid => {
            let keys = host((0..n).map(|_| match r.below(3) {
                0 => r.below(5),
                1 => u32::MAX,
                _ => r.u32(),
            }));
            let values = host(0..n as u32);
            case(whole, vec![keys, values], vec![b(0), b(1)])
        }
        Ex::FindFirst => {
            let len = r.below(400) as usize;
            let data = host((0..len).map(|_| r.below(50)));
            let targets = host((0..warps).map(|_| r.below(60)));
            let members = host((0..warps).map(|_| match r.below(3) {
                0 => u32::MAX,
                1 => r.u32() | 1 << r.below(32),
                _ => 1 << r.below(32),
            }));
            case(n, vec![data, targets, members, zeros(Ty::U32, 2 * n)], vec![b(0), b(1), b(2), b(3)])
        }
    }
}

// ---------------------------------------------------------------------------------------------
// CPU runtime
// ---------------------------------------------------------------------------------------------

/// Runs the case in the CPU runtime (one CPU thread: warps in order); returns every buffer.
fn cpu(ex: Ex, c: &Case) -> Result<Vec<HostBuf>, WarpError> {
    let grid = Grid::new(c.threads as u64).executor(Executor::new().target(ex.target()));
    let bufs = &c.bufs;
    let s0 = |k: usize| c.scalar(k);
    let out = match ex {
        Ex::ReduceU32 => {
            let (a, o) = (to_global::<u32>(&bufs[0]), to_global::<u32>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| reduce::reduce_u32_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ReduceI32 => {
            let (a, o) = (to_global::<i32>(&bufs[0]), to_global::<i32>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| reduce::reduce_i32_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ReduceF32 => {
            let (a, o) = (to_global::<f32>(&bufs[0]), to_global::<f32>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| reduce::reduce_f32_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ReduceF64 => {
            let (a, o) = (to_global::<f64>(&bufs[0]), to_global::<f64>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| reduce::reduce_f64_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ScanU32 => {
            let (a, o) = (to_global::<u32>(&bufs[0]), to_global::<u32>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| scan::scan_u32_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ScanI32 => {
            let (a, o) = (to_global::<i32>(&bufs[0]), to_global::<i32>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| scan::scan_i32_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::ScanF64 => {
            let (a, o) = (to_global::<f64>(&bufs[0]), to_global::<f64>(&bufs[1]));
            let (x, y) = (a.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| scan::scan_f64_entry(w, x, y).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::SegSumU32 => {
            let (a, h, o) = (to_global::<u32>(&bufs[0]), to_global::<u32>(&bufs[1]), to_global::<u32>(&bufs[2]));
            let (x, hs, y) = (a.slice(), h.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| segmented_reduce::segmented_sum_u32_entry(w, x, hs, y).await)?;
            vec![from_global(&a), from_global(&h), from_global(&o)]
        }
        Ex::SegMaxI32 => {
            let (a, h, o) = (to_global::<i32>(&bufs[0]), to_global::<u32>(&bufs[1]), to_global::<i32>(&bufs[2]));
            let (x, hs, y) = (a.slice(), h.slice(), o.slice());
            grid.run(async |w: &Warp<'_>| segmented_reduce::segmented_max_i32_entry(w, x, hs, y).await)?;
            vec![from_global(&a), from_global(&h), from_global(&o)]
        }
        Ex::CompactWarp => {
            let (a, o) = (to_global::<u32>(&bufs[0]), to_global::<u32>(&bufs[1]));
            let (x, y, limit) = (a.slice(), o.slice(), s0(0));
            grid.run(async |w: &Warp<'_>| compact::compact_warp_entry(w, x, y, limit).await)?;
            vec![from_global(&a), from_global(&o)]
        }
        Ex::CompactGrid => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (x, o, n, sl, limit) = (g[0].slice(), g[1].slice(), g[2].slice(), g[3].slice(), s0(0));
            grid.run(async |w: &Warp<'_>| compact::compact_grid_entry(w, x, o, n, sl, limit).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::HistFfs => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (x, h) = (g[0].slice(), g[1].slice());
            grid.run(async |w: &Warp<'_>| histogram::histogram_ffs(w, x, h).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::HistElect => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (x, h, l) = (g[0].slice(), g[1].slice(), g[2].slice());
            grid.run(async |w: &Warp<'_>| histogram::histogram_elect_entry(w, x, h, l).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::RadixRank => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (k, bins, ranks, shift) = (g[0].slice(), g[1].slice(), g[2].slice(), s0(0));
            grid.run(async |w: &Warp<'_>| radix_rank::radix_rank_entry(w, k, shift, bins, ranks).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::RadixSort => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (k, bins, xc, out) = (g[0].slice(), g[1].slice(), g[2].slice(), g[3].slice());
            grid.run(async |w: &Warp<'_>| radix_rank::radix_sort_entry(w, k, bins, xc, out).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::SortU32 => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (k, o) = (g[0].slice(), g[1].slice());
            grid.run(async |w: &Warp<'_>| bitonic_sort::sort_u32_entry(w, k, o).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::SortPairsF32 => {
            let (k, v) = (to_global::<f32>(&bufs[0]), to_global::<u32>(&bufs[1]));
            let (ok, ov) = (to_global::<f32>(&bufs[2]), to_global::<u32>(&bufs[3]));
            let (ks, vs, oks, ovs) = (k.slice(), v.slice(), ok.slice(), ov.slice());
            grid.run(async |w: &Warp<'_>| bitonic_sort::sort_pairs_f32_entry(w, ks, vs, oks, ovs).await)?;
            vec![from_global(&k), from_global(&v), from_global(&ok), from_global(&ov)]
        }
        Ex::SortPairsGrid => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (k, v) = (g[0].slice(), g[1].slice());
            grid.run(async |w: &Warp<'_>| bitonic_sort::sort_pairs_grid(w, k, v).await)?;
            g.iter().map(from_global).collect()
        }
        Ex::FindFirst => {
            let g: Vec<GlobalBuffer<u32>> = bufs.iter().map(to_global::<u32>).collect();
            let (d, t, m, o) = (g[0].slice(), g[1].slice(), g[2].slice(), g[3].slice());
            grid.run(async |w: &Warp<'_>| search::find_first_entry(w, d, t, m, o).await)?;
            g.iter().map(from_global).collect()
        }
    };
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// GPU
// ---------------------------------------------------------------------------------------------

/// `warp_runtime::GlobalSlice` on nvptx64: `#[repr(C)] { ptr: *mut T, len: usize }`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct DevSlice {
    ptr: u64,
    len: u64,
}
unsafe impl DeviceRepr for DevSlice {}

/// Runs the case on the GPU (sm_90 module): `ceil(threads / 32)` blocks of 32 threads.
fn gpu(g: &Gpu, ex: Ex, c: &Case) -> Result<Vec<HostBuf>, String> {
    let s = &g.stream;
    let e = |e: cudarc::driver::DriverError| format!("{e:?}");
    let f = g.sm90.load_function(ex.kernel()).map_err(|err| format!("{}: {err:?}", ex.kernel()))?;
    let mut dev = Vec::new();
    for b in &c.bufs {
        // At least one element: an empty buffer still gets a valid pointer (its `len` is 0).
        let buf = if b.ty.wide() {
            let mut v = b.bits.clone();
            v.resize(v.len().max(1), 0);
            Buf::U64(s.clone_htod(&v).map_err(e)?)
        } else {
            let mut v: Vec<u32> = b.bits.iter().map(|&x| x as u32).collect();
            v.resize(v.len().max(1), 0);
            Buf::U32(s.clone_htod(&v).map_err(e)?)
        };
        dev.push(buf);
    }
    let slices: Vec<DevSlice> = dev
        .iter()
        .zip(&c.bufs)
        .map(|(d, b)| {
            let ptr = match d {
                Buf::U32(x) => x.device_ptr(s).0,
                Buf::U64(x) => x.device_ptr(s).0,
            };
            DevSlice { ptr, len: b.bits.len() as u64 }
        })
        .collect();
    let scalars: Vec<u32> = c.params.iter().map(|p| if let P::U32(v) = p { *v } else { 0 }).collect();
    let mut launch = s.launch_builder(&f);
    for (i, p) in c.params.iter().enumerate() {
        match p {
            P::Buf(k) => launch.arg(&slices[*k]),
            P::U32(_) => launch.arg(&scalars[i]),
        };
    }
    let cfg = LaunchConfig { grid_dim: (c.threads.div_ceil(32) as u32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    unsafe { launch.launch(cfg) }.map_err(|err| format!("launch {}: {err:?}", ex.kernel()))?;
    s.synchronize().map_err(|err| format!("{}: {err:?}", ex.kernel()))?;
    let mut out = Vec::new();
    for (d, b) in dev.iter().zip(&c.bufs) {
        let mut bits: Vec<u64> = match d {
            Buf::U32(x) => s.clone_dtoh(x).map_err(e)?.into_iter().map(|v| v as u64).collect(),
            Buf::U64(x) => s.clone_dtoh(x).map_err(e)?,
        };
        bits.truncate(b.bits.len());
        out.push(HostBuf { ty: b.ty, bits });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/// `compact_grid_entry`'s buffers in a form that does not depend on the order in which warps
/// reached the atomic: output is replaced by, per thread, (position within its warp's range,
/// value stored there), slots by whether the kept threads' slots tile `0..count` exactly.
fn canonical_compact(threads: usize, bufs: &[HostBuf]) -> Vec<HostBuf> {
    let (output, count, slots) = (&bufs[1].bits, bufs[2].bits[0] as usize, &bufs[3].bits);
    let mut pos = vec![u64::MAX; 2 * threads];
    let mut seen = vec![false; count];
    let mut tiles = true;
    for warp in 0..threads.div_ceil(32) {
        let lanes = warp * 32..(warp * 32 + 32).min(threads);
        let base = lanes.clone().filter_map(|i| (slots[i] != u32::MAX as u64).then_some(slots[i])).min();
        for i in lanes {
            let slot = slots[i];
            if slot == u32::MAX as u64 {
                continue;
            }
            let (Some(base), true) = (base, (slot as usize) < count) else {
                tiles = false;
                continue;
            };
            tiles &= !std::mem::replace(&mut seen[slot as usize], true);
            pos[2 * i] = slot - base;
            pos[2 * i + 1] = output.get(slot as usize).copied().unwrap_or(u64::MAX);
        }
    }
    tiles &= seen.iter().all(|&s| s);
    vec![bufs[0].clone(), HostBuf { ty: Ty::U32, bits: pos }, bufs[2].clone(), HostBuf { ty: Ty::U32, bits: vec![tiles as u64] }]
}

/// Whether `gpu` and `cpu` agree; the number of sum elements where both are NaN with different
/// payloads is added to `nan_payloads`; the first differing elements are described in `diffs`.
fn compare(ex: Ex, c: &Case, gpu: &[HostBuf], cpu: &[HostBuf], nan_payloads: &mut usize, diffs: &mut Vec<String>) -> bool {
    let (gpu, cpu) = if ex == Ex::CompactGrid {
        (canonical_compact(c.threads, gpu), canonical_compact(c.threads, cpu))
    } else {
        (gpu.to_vec(), cpu.to_vec())
    };
    let mut ok = true;
    let mut payloads = 0;
    for (k, (g, cb)) in gpu.iter().zip(&cpu).enumerate() {
        if g.bits.len() != cb.bits.len() {
            ok = false;
            diffs.push(format!("buffer {k}: GPU {} elements, CPU {}", g.bits.len(), cb.bits.len()));
            continue;
        }
        for (i, (&x, &y)) in g.bits.iter().zip(&cb.bits).enumerate() {
            if x == y {
                continue;
            }
            if g.ty.is_float() && ex.sum_element(k, i) && g.ty.is_nan(x) && g.ty.is_nan(y) {
                payloads += 1;
                continue;
            }
            ok = false;
            if diffs.len() < 8 {
                diffs.push(format!("buffer {k} ({:?}) element {i}: GPU {x:#x}, CPU {y:#x}", g.ty));
            }
        }
    }
    *nan_payloads += payloads;
    ok
}

fn describe(ex: Ex, c: &Case, diffs: &[String]) -> String {
    let mut s = format!("    {} ({}): {} threads, params {:?}\n", ex.name(), ex.kernel(), c.threads, c.params);
    for (k, b) in c.bufs.iter().enumerate() {
        let head: Vec<String> = b.bits.iter().take(40).map(|x| format!("{x:#x}")).collect();
        s += &format!("    buffer {k} ({:?}, {} elements): [{}{}]\n", b.ty, b.bits.len(), head.join(", "), if b.bits.len() > 40 { ", ..." } else { "" });
    }
    for d in diffs {
        s += &format!("    {d}\n");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

/// One row per example kernel. `gpu`: `None` runs the CPU side only (`--cpu-only`).
pub(crate) fn run(g: Option<&Gpu>, seed: u64, scale: usize, show: usize, flip: bool) -> (Vec<Row>, bool) {
    let mut rng = Rng(seed ^ 0xe8a3_91c5_0000_0000);
    let mut rows = Vec::new();
    let mut failed = false;
    for ex in ALL {
        let mut row = Row {
            name: ex.name().to_string(),
            kernel: ex.kernel().to_string(),
            module: if g.is_some() { "sm_90" } else { "-" },
            cases: 0,
            agree: 0,
            disagree: 0,
            shown: Vec::new(),
            note: None,
        };
        let mut nan_payloads = 0;
        for _ in 0..ex.cases(scale) {
            let case = gen_case(&mut rng, ex);
            let cpu_out = cpu(ex, &case);
            let Some(g) = g else {
                row.cases += 1;
                match cpu_out {
                    Ok(_) => row.agree += 1,
                    Err(e) => {
                        row.disagree += 1;
                        if row.shown.len() < show {
                            row.shown.push(format!("{}    CPU runtime reported: {e}\n", describe(ex, &case, &[])));
                        }
                    }
                }
                continue;
            };
            let mut gpu_out = match gpu(g, ex, &case) {
                Ok(o) => o,
                Err(e) => {
                    row.note = Some(format!("GPU error: {e}"));
                    failed = true;
                    break;
                }
            };
            if flip {
                // The last buffer is an output (or, for sort_pairs_grid, sorted in place).
                // Floats: the exponent's lowest bit, so that a NaN does not stay a NaN.
                if let Some(b) = gpu_out.last_mut() {
                    let bit = match b.ty {
                        Ty::F32 => 1 << 23,
                        Ty::F64 => 1 << 52,
                        _ => 1,
                    };
                    if let Some(x) = b.bits.first_mut() {
                        *x ^= bit;
                    }
                }
            }
            row.cases += 1;
            let mut diffs = Vec::new();
            let ok = match &cpu_out {
                Ok(c) => compare(ex, &case, &gpu_out, c, &mut nan_payloads, &mut diffs),
                Err(e) => {
                    diffs.push(format!("CPU runtime reported: {e}"));
                    false
                }
            };
            if ok {
                row.agree += 1;
            } else {
                row.disagree += 1;
                if row.shown.len() < show {
                    row.shown.push(describe(ex, &case, &diffs));
                }
            }
        }
        if nan_payloads > 0 && row.note.is_none() {
            row.note = Some(format!("{nan_payloads} NaN sums with different payloads (both NaN)"));
        }
        rows.push(row);
    }
    (rows, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_case(ex: Ex, seed: u64, pred: impl Fn(&Case) -> bool) -> (Case, Vec<HostBuf>) {
        let mut r = Rng(seed);
        loop {
            let c = gen_case(&mut r, ex);
            if pred(&c) {
                let out = cpu(ex, &c).unwrap();
                return (c, out);
            }
        }
    }

    /// The CPU side computes what the examples say (so a GPU agreement means something).
    #[test]
    fn cpu_outputs_are_the_examples_results() {
        let (c, out) = first_case(Ex::ReduceU32, 1, |c| c.threads > 40 && c.threads % 32 != 0);
        let x = &c.bufs[0].bits;
        let warp0: u32 = x[..32].iter().fold(0u32, |a, &b| a.wrapping_add(b as u32));
        let last = (c.threads - 1) / 32 * 32;
        let warp_last: u32 = x[last..].iter().fold(0u32, |a, &b| a.wrapping_add(b as u32));
        assert_eq!(out[1].bits[0] as u32, warp0);
        assert_eq!(out[1].bits[3] as u32, warp0);
        assert_eq!(out[1].bits[6 * last] as u32, warp_last);

        let (c, out) = first_case(Ex::HistElect, 2, |c| c.threads > 100);
        let counted = c.bufs[0].bits.iter().filter(|&&v| v != histogram::IGNORE as u64).count() as u64;
        assert_eq!(out[1].bits.iter().sum::<u64>(), counted);

        let (c, out) = first_case(Ex::RadixSort, 3, |c| c.bufs[0].bits.len() > 40);
        let mut sorted = c.bufs[0].bits[..32].to_vec();
        sorted.sort();
        assert_eq!(out[3].bits[..32], sorted[..]);
        assert!(out[1].bits.iter().all(|&b| b == 0), "bins are zero again");

        let (c, out) = first_case(Ex::CompactGrid, 4, |c| c.threads > 100 && c.scalar(0) > 1 << 31);
        let canon = canonical_compact(c.threads, &out);
        assert_eq!(canon[3].bits, [1], "ranges tile 0..count");
        assert!(out[2].bits[0] > 0);
    }

    /// The order in which warps reserve their ranges does not change the canonical form; a
    /// wrong value or slot does.
    #[test]
    fn compact_canonical_form_ignores_warp_order_only() {
        let (c, out) = first_case(Ex::CompactGrid, 5, |c| c.threads > 64 && c.scalar(0) > 1 << 31);
        let (slots, output) = (&out[3].bits, &out[1].bits);
        // Move warp 0's range to the end.
        let k0 = slots[..32].iter().filter(|&&s| s != u32::MAX as u64).count() as u64;
        let count = out[2].bits[0];
        assert!(k0 > 0 && k0 < count);
        let mut moved = out.clone();
        for (i, s) in moved[3].bits.iter_mut().enumerate() {
            if *s != u32::MAX as u64 {
                *s = if i < 32 { *s + count - k0 } else { *s - k0 };
            }
        }
        for (i, &s) in moved[3].bits.clone().iter().enumerate() {
            if s != u32::MAX as u64 {
                moved[1].bits[s as usize] = output[slots[i] as usize];
            }
        }
        let mut n = 0;
        let mut d = Vec::new();
        assert!(compare(Ex::CompactGrid, &c, &moved, &out, &mut n, &mut d), "{d:?}");
        moved[1].bits[0] ^= 1;
        assert!(!compare(Ex::CompactGrid, &c, &moved, &out, &mut n, &mut d));
    }
}
