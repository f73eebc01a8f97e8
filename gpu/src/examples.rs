//! The example kernels (`examples/*.rs`, their `#[warp_kernel(entry)]` functions): random grids
//! run on the GPU (the sm_90 PTX) and in the CPU runtime, through warpkit's public comparison API
//! (`Module::differential(..).outputs::<kernel>(..)`, then `warpkit::cuda::compare`), every global
//! buffer compared afterwards.
//!
//! A case is one launch, `LaunchConfig::threads(threads)`: the CPU runs `Grid::new(threads)`, whose
//! last warp may be partial; the GPU runs `ceil(threads / 32)` blocks of 32 threads, and the entry
//! kernels return at once on threads past the end. With it come the initial contents of every
//! buffer parameter and the scalar parameters. After the launch every buffer, inputs included, is
//! compared element by element, bitwise, with two stated exceptions:
//!
//! * `compact_grid_entry`: warps reserve their output ranges with an atomic, in whatever order they
//!   reach it (on the CPU in warp order). Compared: the count, each kept thread's position within
//!   its warp's range and the value stored there, and that the ranges tile `0..count` exactly.
//! * floating-point *sums* (`reduce_f32/f64` sum, `scan_f64`): where both results are NaN, the
//!   payloads may differ (x86 keeps an operand's payload, or gives `0xffc00000` for
//!   `inf + -inf`; PTX `add` gives the canonical NaN): such elements count as agreeing (a
//!   `NanRule` on the `out` buffer) and are tallied in the row's note. Every other float (min/max,
//!   sorted keys) is compared bitwise.
//!
//! The bug gallery's kernels are undefined behaviour and are not run.

use warpkit::cuda::{compare, Buffer, CudaError, DeviceParams, Elem, Element, EntryKernel, LaunchConfig, Module, NanRule, Params};
use warpkit::{Dim3, Target, WarpError};

use super::rng::{Draw, Rng, SeedableRng};
use super::Row;

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
#[allow(dead_code, unused_imports)]
#[path = "../../examples/block_reduce.rs"]
mod block_reduce;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/block_scan.rs"]
mod block_scan;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/block_radix_sort.rs"]
mod block_radix_sort;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/lookback_scan.rs"]
mod lookback_scan;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/pipeline.rs"]
mod pipeline;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/block_compact.rs"]
mod block_compact;
/// The block-level conformance kernels (`conf_bar_red`, ...): the same source the PTX crate builds.
#[allow(dead_code, unused_imports)]
#[path = "../../ptx/src/blocks.rs"]
mod blocks;
/// `conf_activemask_paths`: `activemask` in a helper called from several places.
#[allow(dead_code, unused_imports)]
#[path = "../../ptx/src/paths.rs"]
mod paths;

#[path = "../../ptx/src/ordered.rs"]
mod ordered;

#[allow(dead_code, unused_imports)]
#[path = "../../examples/mbarrier_pipeline.rs"]
mod mbarrier_pipeline;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/cluster_reduce.rs"]
mod cluster_reduce;

/// `conf_mbarrier`: programs of mbarrier operations.
#[path = "../../ptx/src/mbarrier.rs"]
mod mbarrier;

/// `conf_cluster`, `conf_red_async`: clusters, distributed shared memory, `red.async`.
#[path = "../../ptx/src/cluster.rs"]
mod cluster;

#[path = "../../examples/bug_gallery.rs"]
#[allow(dead_code)]
mod bug_gallery;

// ---------------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------------

/// A buffer's initial contents as bit patterns (zero-extended to 64 bits).
#[derive(Clone, Debug, PartialEq)]
struct HostBuf {
    ty: Elem,
    bits: Vec<u64>,
}

fn host<T: Element>(v: impl IntoIterator<Item = T>) -> HostBuf {
    HostBuf { ty: T::ELEM, bits: v.into_iter().map(T::elem_bits).collect() }
}
fn zeros(ty: Elem, n: usize) -> HostBuf {
    HostBuf { ty, bits: vec![0; n] }
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
    HistDone,
    RadixRank,
    RadixSort,
    SortU32,
    SortPairsF32,
    SortPairsGrid,
    FindFirst,
    BarRed,
    BarDivergent,
    NamedBarriers,
    Geometry,
    SharedAtomics,
    DynamicShared,
    BlockReduce,
    BlockScan,
    BlockRadixSort,
    LookbackScan,
    Pipeline,
    BlockCompact,
    ActivemaskPaths,
    Ordered,
    Mbarrier,
    MbarrierPipeline,
    Cluster,
    RedAsync,
    ClusterReduce,
    CpAsync,
    /// Not in `ALL`: `tensormap_row` runs it last.
    Tensormap,
}

const ALL: [Ex; 40] = [
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
    Ex::HistDone,
    Ex::RadixRank,
    Ex::RadixSort,
    Ex::SortU32,
    Ex::SortPairsF32,
    Ex::SortPairsGrid,
    Ex::FindFirst,
    Ex::BarRed,
    Ex::BarDivergent,
    Ex::NamedBarriers,
    Ex::Geometry,
    Ex::SharedAtomics,
    Ex::DynamicShared,
    Ex::BlockReduce,
    Ex::BlockScan,
    Ex::BlockRadixSort,
    Ex::LookbackScan,
    Ex::Pipeline,
    Ex::BlockCompact,
    Ex::ActivemaskPaths,
    Ex::Ordered,
    Ex::Mbarrier,
    Ex::MbarrierPipeline,
    Ex::Cluster,
    Ex::RedAsync,
    Ex::ClusterReduce,
    Ex::CpAsync,
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
            Ex::HistDone => "histogram_done_entry",
            Ex::RadixRank => "radix_rank_entry",
            Ex::RadixSort => "radix_sort_entry",
            Ex::SortU32 => "sort_u32_entry",
            Ex::SortPairsF32 => "sort_pairs_f32_entry",
            Ex::SortPairsGrid => "sort_pairs_grid",
            Ex::FindFirst => "find_first_entry",
            Ex::BarRed => "conf_bar_red",
            Ex::BarDivergent => "conf_bar_divergent",
            Ex::NamedBarriers => "conf_named_barriers",
            Ex::Geometry => "conf_geometry",
            Ex::SharedAtomics => "conf_shared_atomics",
            Ex::DynamicShared => "conf_dynamic_shared",
            Ex::BlockReduce => "block_reduce_entry",
            Ex::BlockScan => "block_scan_entry",
            Ex::BlockRadixSort => "block_radix_sort_entry",
            Ex::LookbackScan => "lookback_scan_entry",
            Ex::Pipeline => "pipeline_entry",
            Ex::BlockCompact => "block_compact_entry",
            Ex::ActivemaskPaths => "conf_activemask_paths",
            Ex::Ordered => "conf_ordered",
            Ex::Mbarrier => "conf_mbarrier",
            Ex::MbarrierPipeline => "mbarrier_reduce_entry",
            Ex::Cluster => "conf_cluster",
            Ex::RedAsync => "conf_red_async",
            Ex::ClusterReduce => "cluster_reduce_entry",
            Ex::CpAsync => "conf_cp_async",
            Ex::Tensormap => "conf_tensormap",
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
            Ex::HistDone => "example histogram: last block's summary (fences)",
            Ex::RadixRank => "example radix_rank: rank by digit",
            Ex::RadixSort => "example radix_rank: LSD radix sort",
            Ex::SortU32 => "example bitonic_sort: u32 keys",
            Ex::SortPairsF32 => "example bitonic_sort: f32 key-value",
            Ex::SortPairsGrid => "example bitonic_sort: stable pairs grid",
            Ex::FindFirst => "example search: find_first",
            Ex::BarRed => "bar/barrier.red{.popc,.and,.or}{,count} (24 forms)",
            Ex::BarDivergent => "barrier.sync from three branches",
            Ex::NamedBarriers => "named barriers: barrier.arrive + bar.sync",
            Ex::Geometry => "%tid %ntid %ctaid %nctaid (1-3 dims)",
            Ex::SharedAtomics => "atom.shared.{add,min,max,and,or,xor}",
            Ex::DynamicShared => "dynamic shared memory, two views",
            Ex::BlockReduce => "example block_reduce: CUB BlockReduce",
            Ex::BlockScan => "example block_scan: CUB BlockScan",
            Ex::BlockRadixSort => "example block_radix_sort",
            Ex::LookbackScan => "example lookback_scan: decoupled look-back",
            Ex::Pipeline => "example pipeline: named-barrier stages",
            Ex::BlockCompact => "example block_compact: bar.red.popc",
            Ex::ActivemaskPaths => "activemask in a helper, one per call",
            Ex::Ordered => "ld/st .relaxed/.acquire/.release/.volatile, fences",
            Ex::Mbarrier => "mbarrier programs (18 forms): states, pending_count, waits",
            Ex::MbarrierPipeline => "example mbarrier_pipeline: cp.async.bulk stages",
            Ex::Cluster => "clusters: registers, barrier.cluster, DSMEM ld/atom",
            Ex::RedAsync => "red.async (11 forms) + st.async + remote arrive",
            Ex::ClusterReduce => "example cluster_reduce: DSMEM + barrier.cluster",
            Ex::CpAsync => "cp.async 4/8/16 B + cp.async.mbarrier.arrive{,.noinc}",
            Ex::Tensormap => "tensormap.cp_fenceproxy (4 scopes)",
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

    /// Which elements of `out` (parameter 1) are floating-point sums, whose NaN payloads may differ.
    fn nan_rules(self) -> Vec<(usize, NanRule)> {
        match self {
            Ex::ReduceF32 => vec![(1, NanRule::Where(|i| i % 5 == 0))],
            Ex::ReduceF64 => vec![(1, NanRule::Where(|i| i % 3 == 0))],
            Ex::ScanF64 => vec![(1, NanRule::All)],
            _ => vec![],
        }
    }
}

/// A kernel parameter after the handle, as a report shows it.
#[derive(Clone, Copy, Debug)]
enum P {
    /// The case's buffer `k`.
    Buf(#[allow(dead_code)] usize),
    U32(u32),
}

#[derive(Clone, Debug)]
struct Case {
    threads: usize,
    bufs: Vec<HostBuf>,
    params: Vec<P>,
    /// The launch, where it is not `LaunchConfig::threads(threads)` (the block kernels).
    launch: Option<LaunchConfig>,
}

impl Case {
    /// The launch: `threads` one-dimensional threads in blocks of 32, or the case's own shape.
    fn cfg(&self) -> LaunchConfig {
        self.launch.unwrap_or(LaunchConfig::threads(self.threads as u32))
    }

    /// Buffer `k`'s initial contents as `T`.
    fn v<T: Element>(&self, k: usize) -> Vec<T> {
        assert_eq!(self.bufs[k].ty, T::ELEM);
        self.bufs[k].bits.iter().map(|&b| T::from_elem_bits(b)).collect()
    }

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

/// Block sizes: whole warps, partial warps, the extremes.
fn gen_block(r: &mut Rng) -> u32 {
    match r.below(3) {
        0 => r.pick(&[1, 31, 32, 33, 64, 96, 128, 256, 1000, 1024]),
        1 => 32 * (1 + r.below(32)),
        _ => 1 + r.below(1024),
    }
}

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
    let case = |threads: usize, bufs: Vec<HostBuf>, params: Vec<P>| Case { threads, bufs, params, launch: None };
    let blocks_case = |launch: LaunchConfig, bufs: Vec<HostBuf>, params: Vec<P>| Case {
        threads: launch.gpu_threads() as usize,
        bufs,
        params,
        launch: Some(launch),
    };
    let b = |k: usize| P::Buf(k);
    match ex {
        Ex::ReduceU32 | Ex::ScanU32 => {
            let f = style_u32(r);
            let x = host((0..n).map(|_| f(r)));
            case(n, vec![x, zeros(Elem::U32, 6 * n)], vec![b(0), b(1)])
        }
        Ex::ReduceI32 | Ex::ScanI32 => {
            let x = host((0..n).map(|_| adv_i32(r)));
            let words = if ex == Ex::ReduceI32 { 6 } else { 2 };
            case(n, vec![x, zeros(Elem::I32, words * n)], vec![b(0), b(1)])
        }
        Ex::ReduceF32 => {
            let x = host((0..n).map(|_| adv_f32(r)));
            case(n, vec![x, zeros(Elem::F32, 5 * n)], vec![b(0), b(1)])
        }
        Ex::ReduceF64 | Ex::ScanF64 => {
            let plain = r.chance(1, 3);
            let x = host((0..n).map(|_| if plain { (r.below(2_000_000) as f64 - 1e6) / 7.0 } else { adv_f64(r) }));
            let words = if ex == Ex::ReduceF64 { 3 } else { 1 };
            case(n, vec![x, zeros(Elem::F64, words * n)], vec![b(0), b(1)])
        }
        Ex::SegSumU32 | Ex::SegMaxI32 => {
            let density = r.pick(&[0u32, 1, 4, 8, 32]);
            let heads = host((0..n).map(|_| match density {
                0 => 0u32,
                32 => 1,
                d => r.chance(d, 32) as u32,
            }));
            let (x, ty) = if ex == Ex::SegSumU32 {
                (host((0..n).map(|_| adv_u32(r))), Elem::U32)
            } else {
                (host((0..n).map(|_| adv_i32(r))), Elem::I32)
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
                case(n, vec![x, zeros(Elem::U32, 2 * n)], vec![b(0), b(1), P::U32(limit)])
            } else {
                let bufs = vec![x, zeros(Elem::U32, n), zeros(Elem::U32, 1), zeros(Elem::U32, n)];
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
                case(n, vec![x, zeros(Elem::U32, buckets)], vec![b(0), b(1)])
            } else {
                case(n, vec![x, zeros(Elem::U32, buckets), zeros(Elem::U32, n)], vec![b(0), b(1), b(2)])
            }
        }
        Ex::HistDone => {
            let (blocks, block) = (1 + r.below(8), 32 * (1 + r.below(8)));
            let len = (blocks * block) as usize;
            let buckets = 1 + r.below(40) as usize;
            let x = host((0..len).map(|_| if r.chance(1, 8) { histogram::IGNORE } else { r.below(100) }));
            let bufs = vec![x, zeros(Elem::U32, buckets), zeros(Elem::U32, 1), zeros(Elem::U32, 2)];
            blocks_case(LaunchConfig::blocks(blocks, block), bufs, vec![b(0), b(1), b(2), b(3), P::U32(1)])
        }
        Ex::RadixRank | Ex::RadixSort => {
            let small = r.chance(1, 3);
            let keys = host((0..n).map(|_| if small { r.below(4) } else { r.u32() }));
            let bins = zeros(Elem::U32, 32 * warps);
            if ex == Ex::RadixRank {
                let shift = r.below(32);
                case(whole, vec![keys, bins, zeros(Elem::U32, n)], vec![b(0), P::U32(shift), b(1), b(2)])
            } else {
                case(whole, vec![keys, bins, zeros(Elem::U32, 32 * warps), zeros(Elem::U32, n)], vec![b(0), b(1), b(2), b(3)])
            }
        }
        Ex::SortU32 => {
            let keys = host((0..n).map(|_| match r.below(3) {
                0 => r.u32(),
                1 => r.below(3),
                _ => u32::MAX,
            }));
            case(whole, vec![keys, zeros(Elem::U32, n)], vec![b(0), b(1)])
        }
        Ex::SortPairsF32 => {
            let keys = host((0..n).map(|_| if r.chance(1, 3) { r.below(3) as f32 - 1.0 } else { adv_f32(r) }));
            let values = host(0..n as u32);
            case(whole, vec![keys, values, zeros(Elem::F32, n), zeros(Elem::U32, n)], vec![b(0), b(1), b(2), b(3)])
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
            case(n, vec![data, targets, members, zeros(Elem::U32, 2 * n)], vec![b(0), b(1), b(2), b(3)])
        }
        Ex::BarRed => {
            let form = r.below(24);
            let counted = form / 12 == 1;
            // Whole warps when the form names a count; the count is 32 per warp with a live
            // thread, the same set of warps in every block (the count is uniform).
            let block = if counted { 32 * (1 + r.below(32)) } else { gen_block(r) };
            let blocks = 1 + r.below(4);
            let warps = block.div_ceil(32);
            let live_warps: Vec<bool> = (0..warps).map(|_| !r.chance(1, 5)).collect();
            let exits = r.pick(&[0u32, 1, 8, 31]);
            let threads = (blocks * block) as usize;
            let mut active = vec![0u32; threads];
            for b in 0..blocks as usize {
                for w in 0..warps as usize {
                    if !live_warps[w] {
                        continue;
                    }
                    let lanes: Vec<usize> = (32 * w..(32 * w + 32).min(block as usize)).collect();
                    for &t in &lanes {
                        active[b * block as usize + t] = (!r.chance(exits, 32)) as u32;
                    }
                    // At least one live thread in a live warp.
                    active[b * block as usize + r.pick(&lanes)] = 1;
                }
            }
            let count = 32 * live_warps.iter().filter(|&&l| l).count() as u32;
            let bias = r.below(4);
            let pred = host((0..threads).map(|_| match bias {
                0 => 0u32,
                1 => 1,
                _ => r.below(2),
            }));
            let id = r.below(16);
            blocks_case(LaunchConfig::blocks(blocks, block), vec![host(active), pred, zeros(Elem::U32, threads)], vec![b(0), b(1), P::U32(form), P::U32(id), P::U32(count), b(2)])
        }
        Ex::BarDivergent => {
            let (blocks, block) = (1 + r.below(4), gen_block(r));
            let threads = (blocks * block) as usize;
            let branch = host((0..threads).map(|_| r.below(3)));
            let x = host((0..threads).map(|_| r.u32()));
            blocks_case(LaunchConfig::blocks(blocks, block), vec![branch, x, zeros(Elem::U32, threads)], vec![b(0), b(1), b(2)])
        }
        Ex::NamedBarriers => {
            let warps = 2 + r.below(31);
            let (blocks, producers) = (1 + r.below(4), 1 + r.below(warps - 1));
            let threads = (blocks * 32 * warps) as usize;
            let x = host((0..threads).map(|_| r.u32()));
            blocks_case(LaunchConfig::blocks(blocks, 32 * warps), vec![x, zeros(Elem::U32, threads)], vec![P::U32(producers), b(0), b(1)])
        }
        Ex::Geometry => {
            let dims = |r: &mut Rng, limit: u32| match r.below(3) {
                0 => Dim3::new(1 + r.below(limit), 1, 1),
                1 => Dim3::new(1 + r.below(limit), 1 + r.below(4), 1),
                _ => Dim3::new(1 + r.below(limit), 1 + r.below(3), 1 + r.below(3)),
            };
            let (grid, block) = (dims(r, 5), dims(r, 64));
            let launch = LaunchConfig::blocks(grid, block);
            blocks_case(launch, vec![zeros(Elem::U32, 12 * launch.gpu_threads() as usize)], vec![b(0)])
        }
        Ex::SharedAtomics => {
            let (blocks, block) = (1 + r.below(4), gen_block(r));
            let threads = (blocks * block) as usize;
            let f = style_u32(r);
            let x = host((0..threads).map(|_| f(r)));
            blocks_case(LaunchConfig::blocks(blocks, block), vec![x, zeros(Elem::U64, 9 * blocks as usize)], vec![b(0), b(1)])
        }
        Ex::DynamicShared => {
            let (blocks, block) = (1 + r.below(4), gen_block(r));
            let threads = (blocks * block) as usize;
            let x = host((0..threads).map(|_| r.u32()));
            let launch = LaunchConfig::blocks(blocks, block).dynamic_shared_bytes(8 * block + 16);
            blocks_case(launch, vec![x, zeros(Elem::U64, 2 * threads)], vec![b(0), b(1)])
        }
        Ex::BlockReduce | Ex::BlockScan | Ex::BlockCompact => {
            let block = gen_block(r);
            let f = style_u32(r);
            let len = 1 + r.below(3000) as usize;
            let blocks = len.div_ceil(block as usize) as u32;
            let x = host((0..len).map(|_| f(r)));
            let launch = LaunchConfig::blocks(blocks, block);
            match ex {
                Ex::BlockReduce => blocks_case(launch, vec![x, zeros(Elem::U32, blocks as usize), zeros(Elem::U32, len)], vec![b(0), b(1), b(2)]),
                Ex::BlockScan => blocks_case(
                    launch,
                    vec![x, zeros(Elem::U32, len), zeros(Elem::U32, len), zeros(Elem::U32, blocks as usize)],
                    vec![b(0), b(1), b(2), b(3)],
                ),
                _ => blocks_case(launch, vec![x, zeros(Elem::U32, len), zeros(Elem::U32, 1)], vec![b(0), b(1), b(2)]),
            }
        }
        Ex::BlockRadixSort => {
            let block = 32 * (1 + r.below(32));
            let len = 1 + r.below(2500) as usize;
            let blocks = len.div_ceil(block as usize) as u32;
            let small = r.chance(1, 3);
            let x = host((0..len).map(|_| if small { r.below(4) } else { r.u32() }));
            blocks_case(LaunchConfig::blocks(blocks, block), vec![x, zeros(Elem::U32, len)], vec![b(0), b(1)])
        }
        Ex::LookbackScan => {
            let block = r.pick(&[32u32, 64, 128, 256]);
            let len = 1 + r.below(20_000) as usize;
            let tile = lookback_scan::ITEMS * block as usize;
            let blocks = len.div_ceil(tile);
            let f = style_u32(r);
            let x = host((0..len).map(|_| f(r)));
            let bufs = vec![x, zeros(Elem::U32, len), zeros(Elem::U32, 1), zeros(Elem::U64, blocks)];
            blocks_case(LaunchConfig::blocks(blocks as u32, block), bufs, vec![b(0), b(1), b(2), b(3)])
        }
        Ex::ActivemaskPaths => {
            // Arms: random, by lane parity, all one arm; the loop's trip count in bits 2..4.
            let style = r.below(3);
            let arm = host((0..n).map(|t| match style {
                0 => r.u32(),
                1 => t as u32 % 2 | r.below(16) << 2,
                _ => r.below(16) << 2,
            }));
            case(n, vec![arm, zeros(Elem::U32, 4 * n)], vec![b(0), P::U32(r.below(4)), b(1)])
        }
        Ex::Ordered => {
            // Up to 256 threads per block (the kernel's shared slots), any number of blocks.
            let (blocks, block) = (1 + r.below(4), 1 + r.below(256));
            let n = (blocks * block) as usize;
            let x = host((0..n).map(|_| r.u32()));
            let wide = host((0..n).map(|_| r.next()));
            let slots = ordered::ORDERED_SLOTS * n;
            let bufs = vec![x, wide, zeros(Elem::U32, slots), zeros(Elem::U64, slots), zeros(Elem::U64, 4 * n)];
            blocks_case(LaunchConfig::blocks(blocks, block), bufs, vec![b(0), b(1), b(2), b(3), b(4)])
        }
        Ex::Mbarrier => {
            let blocks = 1 + r.below(8);
            let mut ops = Vec::new();
            for _ in 0..blocks {
                ops.extend(mbarrier_program(r));
            }
            let d = zeros(Elem::U32, blocks as usize * mbarrier::MBAR_OPS * 32);
            blocks_case(LaunchConfig::blocks(blocks, 32), vec![host(ops), d], vec![b(0), b(1)])
        }
        Ex::MbarrierPipeline => {
            let blocks = 1 + r.below(8);
            let len = 4 * (1 + r.below(5000) as usize);
            let f = style_u32(r);
            let x = host((0..len).map(|_| f(r)));
            let launch = LaunchConfig::blocks(blocks, mbarrier_pipeline::BLOCK).dynamic_shared_bytes(mbarrier_pipeline::SHARED_BYTES);
            blocks_case(launch, vec![x, zeros(Elem::U32, blocks as usize)], vec![b(0), b(1)])
        }
        Ex::Cluster => {
            // Clusters of up to 8 blocks in two dimensions, a whole number of them per grid
            // dimension, blocks of 1..=256 threads (partial warps, exited lanes).
            let (cx, cy) = r.pick(&[(1u32, 1u32), (2, 1), (4, 1), (8, 1), (2, 2), (1, 2), (2, 4), (3, 1), (1, 3), (3, 2)]);
            let (gx, gy) = (cx * (1 + r.below(3)), cy * (1 + r.below(2)));
            let block = 1 + r.below(cluster::CLUSTER_MAX_BLOCK as u32);
            let n = (gx * gy * block) as usize;
            let x = host((0..n).map(|_| r.u32()));
            let launch = LaunchConfig::blocks((gx, gy), block).cluster_dims((cx, cy));
            blocks_case(launch, vec![x, zeros(Elem::U32, n * cluster::CLUSTER_WORDS)], vec![b(0), b(1)])
        }
        Ex::RedAsync => {
            let c = 1 + r.below(8);
            let clusters = 1 + r.below(4);
            let blocks = c * clusters;
            let f = style_u32(r);
            let x = host((0..blocks as usize * 8).map(|_| f(r)));
            let launch = LaunchConfig::blocks(blocks, 32).cluster_dims(c);
            blocks_case(launch, vec![x, zeros(Elem::U32, clusters as usize * cluster::RED_ASYNC_WORDS)], vec![b(0), b(1)])
        }
        Ex::Tensormap => {
            let (blocks, warps) = (1 + r.below(8), 1 + r.below(8));
            let n = (blocks * warps * 32) as usize;
            let x = host((0..n).map(|_| r.u32()));
            blocks_case(LaunchConfig::blocks(blocks, 32 * warps), vec![x, zeros(Elem::U32, n), zeros(Elem::U32, n)], vec![b(0), b(1), b(2)])
        }
        Ex::CpAsync => {
            let blocks = 1 + r.below(8) as usize;
            let x = host((0..blocks * mbarrier::CP_X).map(|_| r.u32()));
            let wide = host((0..blocks * mbarrier::CP_WIDE).map(|_| r.next()));
            let d = zeros(Elem::U32, blocks * 64 * mbarrier::CP_WORDS);
            blocks_case(LaunchConfig::blocks(blocks as u32, 64), vec![x, wide, d], vec![b(0), b(1), b(2)])
        }
        Ex::ClusterReduce => {
            let c = 1 + r.below(8);
            let blocks = c * (1 + r.below(4));
            let block = 32 * (1 + r.below(8));
            let len = r.below(20_000) as usize;
            let f = style_u32(r);
            let x = host((0..len).map(|_| f(r)));
            let launch = LaunchConfig::blocks(blocks, block).cluster_dims(c);
            blocks_case(launch, vec![x, zeros(Elem::U32, (blocks / c) as usize)], vec![b(0), b(1)])
        }
        Ex::Pipeline => {
            let (blocks, warps) = (1 + r.below(5), 2 + r.below(9));
            let len = 1 + r.below(2000) as usize;
            let x = host((0..len).map(|_| r.u32()));
            let bufs = vec![x, zeros(Elem::U32, len), zeros(Elem::U32, len.div_ceil(pipeline::TILE))];
            blocks_case(LaunchConfig::blocks(blocks, 32 * warps), bufs, vec![b(0), b(1), b(2)])
        }
    }
}

/// One block's program for `conf_mbarrier`: `MBAR_OPS` operations (3 words each) that stay
/// defined, tracked with the spec's model of the barrier: arrivals within what is pending (a
/// warp's lanes at one operation are one arrive-on), `.noComplete` arrivals that leave something
/// pending, waits on states of the current or the previous phase, a wait that returns true after
/// each completed phase before the next arrival, tx-counts within range (single-lane tx
/// operations, so that no intermediate sum matters).
fn mbarrier_program(r: &mut Rng) -> Vec<u32> {
    use mbarrier::*;
    use warpkit::semantics::mbarrier::Mbarrier;
    let lanes_of = |r: &mut Rng| -> u32 {
        match r.below(4) {
            0 => u32::MAX,
            1 => 1 << r.below(32),
            _ => r.u32() | 1 << r.below(32),
        }
    };
    let mut ops: Vec<[u32; 3]> = Vec::new();
    let init = r.pick(&[1, 2, 31, 32, 33, 64, 100, 1000]);
    ops.push([OP_INIT, 1 << r.below(32), init]);
    let mut m = Mbarrier::init(init).unwrap();
    let mut waited = true;
    // Each lane's last state's phase.
    let mut states: [Option<u64>; 32] = [None; 32];
    while ops.len() < MBAR_OPS {
        let phase_before = m.phase;
        if !waited {
            // Some lanes see the completed phase before anyone arrives again.
            ops.push([r.pick(&[OP_TEST_WAIT_PARITY, OP_TRY_WAIT_PARITY, OP_TRY_WAIT_PARITY_RELAXED, OP_TRY_WAIT_PARITY_HINT]), lanes_of(r), ((m.phase - 1) & 1) as u32]);
            waited = true;
            continue;
        }
        let kind = r.below(14);
        let mask = lanes_of(r);
        let n = mask.count_ones();
        let valid_states = (0..32).filter(|&l| states[l].is_some_and(|p| m.phase - p <= 1)).fold(0u32, |a, l| a | 1 << l);
        let op = match kind {
            0 if n <= m.pending => {
                for (l, s) in states.iter_mut().enumerate() {
                    if mask >> l & 1 == 1 {
                        *s = Some(m.phase);
                    }
                }
                m.arrive(n, false).map(|_| [OP_ARRIVE, mask, 0]).ok()
            }
            1 => {
                // `.noComplete`: count x per lane, leaving at least one pending (or a tx-count).
                let room = if m.tx != 0 { m.pending } else { m.pending.saturating_sub(1) };
                let x = if n == 0 { 0 } else { (room / n).min(1 + r.below(4)) };
                (x > 0 && n * x <= room).then(|| {
                    for l in 0..32 {
                        if mask >> l & 1 == 1 {
                            states[l] = Some(m.phase);
                            m.arrive(x, true).unwrap();
                        }
                    }
                    [OP_ARRIVE_NO_COMPLETE, mask, x]
                })
            }
            2 if n <= m.pending && n <= m.expected && m.expected - n >= 1 => {
                for (l, s) in states.iter_mut().enumerate() {
                    if mask >> l & 1 == 1 {
                        *s = Some(m.phase);
                    }
                }
                m.arrive_drop(n, false).map(|_| [OP_ARRIVE_DROP, mask, 0]).ok()
            }
            3 => {
                let x = 1;
                let room = if m.tx != 0 { m.pending } else { m.pending.saturating_sub(1) };
                (n * x <= room && n * x < m.expected).then(|| {
                    for l in 0..32 {
                        if mask >> l & 1 == 1 {
                            states[l] = Some(m.phase);
                            m.arrive_drop(x, true).unwrap();
                        }
                    }
                    [OP_ARRIVE_DROP_NO_COMPLETE, mask, x]
                })
            }
            4 if n <= m.pending => {
                let tx = r.pick(&[0, 4, 16, 128, 1000]);
                (m.tx as i64 + (n * tx) as i64 <= warpkit::semantics::mbarrier::MAX_COUNT as i64).then(|| {
                    for l in 0..32 {
                        if mask >> l & 1 == 1 {
                            states[l] = Some(m.phase);
                        }
                    }
                    m.expect_tx(n * tx).unwrap();
                    m.arrive(n, false).unwrap();
                    [OP_ARRIVE_EXPECT_TX, mask, tx]
                })
            }
            5 | 6 => {
                let one = 1 << r.below(32);
                let tx = r.pick(&[1, 4, 64, 1000]);
                if kind == 5 { m.expect_tx(tx).ok().map(|_| [OP_EXPECT_TX, one, tx]) } else { m.complete_tx(tx).ok().map(|_| [OP_COMPLETE_TX, one, tx]) }
            }
            7 | 8 if valid_states != 0 => {
                let op = if kind == 7 { OP_TEST_WAIT } else { r.pick(&[OP_TRY_WAIT, OP_TRY_WAIT_HINT]) };
                Some([op, valid_states & mask | valid_states & valid_states.wrapping_neg(), 0])
            }
            9 | 10 => Some([if kind == 9 { OP_TEST_WAIT_PARITY } else { r.pick(&[OP_TRY_WAIT_PARITY, OP_TRY_WAIT_PARITY_HINT]) }, mask, r.below(2)]),
            11 | 12 => {
                let x = if n == 0 { 0 } else { (m.pending / n).min(r.below(5)) };
                (n * x <= m.pending).then(|| {
                    for l in 0..32 {
                        if mask >> l & 1 == 1 {
                            states[l] = Some(m.phase);
                        }
                    }
                    m.arrive(n * x, false).unwrap();
                    [if kind == 11 { OP_ARRIVE_COUNT } else { OP_ARRIVE_RELAXED_CLUSTER }, mask, x]
                })
            }
            13 if r.chance(1, 4) => {
                let count = r.pick(&[1, 3, 32, 64, 500]);
                m = Mbarrier::init(count).unwrap();
                states = [None; 32];
                Some([OP_REINIT, 1 << r.below(32), count])
            }
            _ => None,
        };
        if let Some(op) = op {
            ops.push(op);
            // A new object (after `inval`) starts in phase 0, which has no predecessor to wait for.
            if op[0] != OP_REINIT && m.phase != phase_before {
                waited = false;
            }
        }
    }
    ops.truncate(MBAR_OPS);
    ops.concat()
}

// ---------------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------------

/// Where a case runs: the CPU runtime only (`--cpu-only`), or both sides.
pub(crate) enum Side<'m> {
    Cpu,
    Both(&'m Module),
}

/// Both sides' buffers after a case, by buffer parameter (`gpu` is `None` on the CPU only).
struct Outputs {
    gpu: Option<Vec<Buffer>>,
    cpu: Result<Vec<Buffer>, WarpError>,
}

/// Runs entry kernel `K` on the case's launch and host values.
fn go<K: EntryKernel>(side: &Side<'_>, ex: Ex, c: &Case, host: <K::Params as Params>::Host) -> Result<Outputs, CudaError>
where
    K::Params: DeviceParams,
{
    let cfg = c.cfg();
    match side {
        Side::Cpu => Ok(Outputs { gpu: None, cpu: K::run_host(&cfg, ex.target(), host) }),
        Side::Both(m) => {
            let (gpu, cpu) = m.differential(cfg).cpu_target(ex.target()).outputs::<K>(host)?;
            Ok(Outputs { gpu: Some(gpu), cpu })
        }
    }
}

/// Runs the case (one CPU thread on the CPU side: warps in order).
fn run_case(side: &Side<'_>, ex: Ex, c: &Case) -> Result<Outputs, CudaError> {
    let s = |k| c.scalar(k);
    match ex {
        Ex::ReduceU32 => go::<reduce::reduce_u32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ReduceI32 => go::<reduce::reduce_i32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ReduceF32 => go::<reduce::reduce_f32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ReduceF64 => go::<reduce::reduce_f64_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ScanU32 => go::<scan::scan_u32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ScanI32 => go::<scan::scan_i32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ScanF64 => go::<scan::scan_f64_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::SegSumU32 => go::<segmented_reduce::segmented_sum_u32_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::SegMaxI32 => go::<segmented_reduce::segmented_max_i32_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::CompactWarp => go::<compact::compact_warp_entry>(side, ex, c, (c.v(0), c.v(1), s(0))),
        Ex::CompactGrid => go::<compact::compact_grid_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3), s(0))),
        Ex::HistFfs => go::<histogram::histogram_ffs>(side, ex, c, (c.v(0), c.v(1))),
        Ex::HistElect => go::<histogram::histogram_elect_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::HistDone => go::<histogram::histogram_done_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3), 1)),
        Ex::RadixRank => go::<radix_rank::radix_rank_entry>(side, ex, c, (c.v(0), s(0), c.v(1), c.v(2))),
        Ex::RadixSort => go::<radix_rank::radix_sort_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3))),
        Ex::SortU32 => go::<bitonic_sort::sort_u32_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::SortPairsF32 => go::<bitonic_sort::sort_pairs_f32_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3))),
        Ex::SortPairsGrid => go::<bitonic_sort::sort_pairs_grid>(side, ex, c, (c.v(0), c.v(1))),
        Ex::FindFirst => go::<search::find_first_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3))),
        Ex::BarRed => go::<blocks::conf_bar_red>(side, ex, c, (c.v(0), c.v(1), s(0), s(1), s(2), c.v(2))),
        Ex::BarDivergent => go::<blocks::conf_bar_divergent>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::NamedBarriers => go::<blocks::conf_named_barriers>(side, ex, c, (s(0), c.v(0), c.v(1))),
        Ex::Geometry => go::<blocks::conf_geometry>(side, ex, c, (c.v(0),)),
        Ex::SharedAtomics => go::<blocks::conf_shared_atomics>(side, ex, c, (c.v(0), c.v(1))),
        Ex::DynamicShared => go::<blocks::conf_dynamic_shared>(side, ex, c, (c.v(0), c.v(1))),
        Ex::BlockReduce => go::<block_reduce::block_reduce_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::BlockScan => go::<block_scan::block_scan_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3))),
        Ex::BlockRadixSort => go::<block_radix_sort::block_radix_sort_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::LookbackScan => go::<lookback_scan::lookback_scan_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3))),
        Ex::Pipeline => go::<pipeline::pipeline_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::BlockCompact => go::<block_compact::block_compact_entry>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::ActivemaskPaths => go::<paths::conf_activemask_paths>(side, ex, c, (c.v(0), s(0), c.v(1))),
        Ex::Ordered => go::<ordered::conf_ordered>(side, ex, c, (c.v(0), c.v(1), c.v(2), c.v(3), c.v(4))),
        Ex::Mbarrier => go::<mbarrier::conf_mbarrier>(side, ex, c, (c.v(0), c.v(1))),
        Ex::MbarrierPipeline => go::<mbarrier_pipeline::mbarrier_reduce_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::Cluster => go::<cluster::conf_cluster>(side, ex, c, (c.v(0), c.v(1))),
        Ex::RedAsync => go::<cluster::conf_red_async>(side, ex, c, (c.v(0), c.v(1))),
        Ex::ClusterReduce => go::<cluster_reduce::cluster_reduce_entry>(side, ex, c, (c.v(0), c.v(1))),
        Ex::CpAsync => go::<mbarrier::conf_cp_async>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
        Ex::Tensormap => go::<cluster::conf_tensormap>(side, ex, c, (c.v(0), c.v(1), c.v(2))),
    }
}

/// The CPU runtime's buffers after the case.
#[cfg(test)]
fn cpu(ex: Ex, c: &Case) -> Result<Vec<Buffer>, WarpError> {
    run_case(&Side::Cpu, ex, c).expect("the CPU side needs no GPU").cpu
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/// `block_compact_entry`'s buffers without the order in which blocks reached the atomic: each
/// block keeps its values' order within its range, but the ranges follow the atomics' order. The
/// output's first `count` values are sorted (the CPU proptests check the ranges themselves).
fn canonical_block_compact(bufs: &[Buffer]) -> Vec<Buffer> {
    let count = bufs[2].bits[0] as usize;
    let mut out = bufs[1].bits.clone();
    let n = count.min(out.len());
    out[..n].sort_unstable();
    vec![bufs[0].clone(), Buffer { bits: out, ..bufs[1].clone() }, bufs[2].clone()]
}

/// `compact_grid_entry`'s buffers in a form that does not depend on the order in which warps
/// reached the atomic: output is replaced by, per thread, (position within its warp's range,
/// value stored there), slots by whether the kept threads' slots tile `0..count` exactly.
fn canonical_compact(threads: usize, bufs: &[Buffer]) -> Vec<Buffer> {
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
    let with = |b: &Buffer, bits: Vec<u64>| Buffer { bits, ..b.clone() };
    vec![bufs[0].clone(), with(&bufs[1], pos), bufs[2].clone(), with(&bufs[3], vec![tiles as u64])]
}

/// Compares the case's outputs with the public `warpkit::cuda::compare` (after the canonical form
/// for `compact_grid`), under the kernel's NaN rules.
fn compare_case(ex: Ex, c: &Case, device: &str, gpu: &[Buffer], cpu: Result<Vec<Buffer>, WarpError>) -> warpkit::cuda::Comparison {
    let (gpu, cpu) = if ex == Ex::CompactGrid {
        (canonical_compact(c.threads, gpu), cpu.map(|b| canonical_compact(c.threads, &b)))
    } else if ex == Ex::BlockCompact {
        (canonical_block_compact(gpu), cpu.map(|b| canonical_block_compact(&b)))
    } else {
        (gpu.to_vec(), cpu)
    };
    compare(ex.kernel(), device, &c.cfg(), ex.target(), &gpu, cpu, &ex.nan_rules())
}

fn describe(ex: Ex, c: &Case, report: &str) -> String {
    let cfg = c.cfg();
    let mut s = format!(
        "    {} ({}): grid {} x block {} ({} threads, {} B dynamic shared), params {:?}\n",
        ex.name(),
        ex.kernel(),
        cfg.grid_dim(),
        cfg.block_dim(),
        c.threads,
        cfg.shared_bytes(),
        c.params
    );
    for (k, b) in c.bufs.iter().enumerate() {
        let head: Vec<String> = b.bits.iter().take(40).map(|x| format!("{x:#x}")).collect();
        s += &format!("    buffer {k} ({}, {} elements): [{}{}]\n", b.ty.name(), b.bits.len(), head.join(", "), if b.bits.len() > 40 { ", ..." } else { "" });
    }
    for line in report.lines() {
        s += &format!("    {line}\n");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

/// One row per example kernel. `Side::Cpu` runs the CPU side only (`--cpu-only`).
/// `conf_pdl`: a programmatic dependent launch of its two phases, on the GPU (the second launch
/// with programmatic stream serialization) and in the CPU runtime (`launch_dependent`), both
/// output buffers compared word by word. Returns the row and whether a GPU call failed.
pub(crate) fn pdl_row(side: &Side<'_>, seed: u64, scale: usize, show: usize, flip: bool) -> (Row, bool) {
    use warpkit::cuda::RawArg;
    let mut rng = Rng::seed_from_u64(seed ^ 0x9d1c_0000_0000_0000);
    let mut row = empty_row("griddepcontrol: programmatic dependent launch", "conf_pdl", side);
    for _ in 0..48 * scale {
        let r = &mut rng;
        let (blocks, block) = (1 + r.below(16), 32 * (1 + r.below(8)));
        let n = r.below(blocks * block + 1) as usize;
        let x: Vec<u32> = (0..n).map(|_| r.u32()).collect();
        let cfg = LaunchConfig::blocks(blocks, block);
        // The CPU runtime.
        let (xb, ab, bb) = (warpkit::GlobalBuffer::from_slice(&x), warpkit::GlobalBuffer::<u32>::zeroed(n), warpkit::GlobalBuffer::<u32>::zeroed(n));
        let (xs, as_, bs) = (xb.slice(), ab.slice(), bb.slice());
        let grid = cfg.cpu_grid(warpkit::Executor::new().target(Target::SM_90));
        let cpu = warpkit::grid::launch_dependent(
            &grid,
            async |w: &warpkit::Warp<'_>| cluster::conf_pdl(w, 0, xs, as_, bs).await,
            &grid,
            async |w: &warpkit::Warp<'_>| cluster::conf_pdl(w, 1, xs, as_, bs).await,
        )
        .map(|()| (ab.to_vec(), bb.to_vec()));
        row.cases += 1;
        let gpu = match side {
            Side::Cpu => None,
            Side::Both(m) => {
                let go = || -> Result<(Vec<u32>, Vec<u32>), CudaError> {
                    let gpu = m.gpu();
                    let (dx, da, db) = (gpu.upload(&x)?, gpu.zeros::<u32>(n)?, gpu.zeros::<u32>(n)?);
                    let kernel = m.kernel("conf_pdl")?;
                    let args = |phase: u32| [RawArg::from(phase), RawArg::slice(&dx), RawArg::slice(&da), RawArg::slice(&db)];
                    kernel.launch_raw(&cfg, &args(0))?;
                    kernel.launch_raw(&cfg.programmatic_dependent(), &args(1))?;
                    gpu.synchronize()?;
                    Ok((da.to_vec()?, db.to_vec()?))
                };
                match go() {
                    Ok(out) => Some(out),
                    Err(e) => {
                        row.note = Some(format!("GPU error: {e}"));
                        return (row, true);
                    }
                }
            }
        };
        let verdict = match (gpu, cpu) {
            (_, Err(e)) => Err(format!("CPU runtime reported: {e}")),
            (None, Ok(_)) => Ok(()),
            (Some((ga, mut gb)), Ok((ca, cb))) => {
                if flip {
                    if let Some(v) = gb.first_mut() {
                        *v ^= 1;
                    }
                }
                if (&ga, &gb) == (&ca, &cb) {
                    Ok(())
                } else {
                    let first = (0..n).find(|&i| ga[i] != ca[i] || gb[i] != cb[i]).unwrap_or(0);
                    Err(format!("element {first}: GPU a/b = {:?}, CPU a/b = {:?}", (ga.get(first), gb.get(first)), (ca.get(first), cb.get(first))))
                }
            }
        };
        match verdict {
            Ok(()) => row.agree += 1,
            Err(what) => {
                row.disagree += 1;
                if row.shown.len() < show {
                    row.shown.push(format!("    conf_pdl: grid {} x block {}, n = {n}: {what}", cfg.grid_dim(), cfg.block_dim()));
                }
            }
        }
    }
    (row, false)
}

/// A row of no cases yet.
fn empty_row(name: &str, kernel: &str, side: &Side<'_>) -> Row {
    Row {
        name: name.to_string(),
        kernel: kernel.to_string(),
        module: if matches!(side, Side::Both(_)) { "sm_90" } else { "-" },
        cases: 0,
        agree: 0,
        disagree: 0,
        shown: Vec::new(),
        note: None,
    }
}

pub(crate) fn run(side: Side<'_>, seed: u64, scale: usize, show: usize, flip: bool) -> (Vec<Row>, bool) {
    run_rows(side, seed, scale, show, flip, &ALL)
}

/// `conf_tensormap` (`tensormap.cp_fenceproxy`): run last, apart from the other rows (an address
/// the GPU refused would end the context). Returns its row and whether a GPU call failed.
pub(crate) fn tensormap_row(side: Side<'_>, seed: u64, scale: usize, show: usize, flip: bool) -> (Row, bool) {
    let (mut rows, failed) = run_rows(side, seed, scale, show, flip, &[Ex::Tensormap]);
    (rows.remove(0), failed)
}

/// The rows of `exs`, each `ex.cases(scale)` random cases (see `run`).
fn run_rows(side: Side<'_>, seed: u64, scale: usize, show: usize, flip: bool, exs: &[Ex]) -> (Vec<Row>, bool) {
    let mut rng = Rng::seed_from_u64(seed ^ 0xe8a3_91c5_0000_0000);
    let mut rows = Vec::new();
    let mut failed = false;
    let device = match &side {
        Side::Both(m) => format!("{} ({})", m.gpu().name(), m.gpu().sm()),
        Side::Cpu => String::new(),
    };
    for &ex in exs {
        let mut row = empty_row(ex.name(), ex.kernel(), &side);
        let mut nan_payloads = 0;
        for _ in 0..ex.cases(scale) {
            let case = gen_case(&mut rng, ex);
            let out = match run_case(&side, ex, &case) {
                Ok(o) => o,
                Err(e) => {
                    row.note = Some(format!("GPU error: {e}"));
                    failed = true;
                    break;
                }
            };
            row.cases += 1;
            let Some(mut gpu_out) = out.gpu else {
                match out.cpu {
                    Ok(_) => row.agree += 1,
                    Err(e) => {
                        row.disagree += 1;
                        if row.shown.len() < show {
                            row.shown.push(describe(ex, &case, &format!("CPU runtime reported: {e}")));
                        }
                    }
                }
                continue;
            };
            if flip {
                // The last buffer is an output (or, for sort_pairs_grid, sorted in place).
                // Floats: the exponent's lowest bit, so that a NaN does not stay a NaN.
                if let Some(b) = gpu_out.last_mut() {
                    let bit = match b.elem {
                        Elem::F32 => 1 << 23,
                        Elem::F64 => 1 << 52,
                        _ => 1,
                    };
                    if let Some(x) = b.bits.first_mut() {
                        *x ^= bit;
                    }
                }
            }
            let comparison = compare_case(ex, &case, &device, &gpu_out, out.cpu);
            nan_payloads += comparison.nan_payloads();
            if comparison.agrees() {
                row.agree += 1;
            } else {
                row.disagree += 1;
                if row.shown.len() < show {
                    row.shown.push(describe(ex, &case, &comparison.to_string()));
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

    fn first_case(ex: Ex, seed: u64, pred: impl Fn(&Case) -> bool) -> (Case, Vec<Buffer>) {
        let mut r = Rng::seed_from_u64(seed);
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

    /// `conf_ordered` on the CPU: each thread's loads read back what its stores wrote, in every
    /// form (nine u32 slots and three u64 slots in global memory, six and three in shared).
    #[test]
    fn cpu_ordered_accesses_read_back_their_stores() {
        let mut r = Rng::seed_from_u64(3);
        for _ in 0..4 {
            let c = gen_case(&mut r, Ex::Ordered);
            let n = c.threads;
            let (x, wide): (Vec<u32>, Vec<u64>) = (c.v(0), c.v(1));
            let out = &cpu(Ex::Ordered, &c).unwrap()[4].bits;
            for t in 0..n {
                let (v, w) = (x[t], wide[t]);
                let sum = |k: u32| (0..k).fold(0u32, |a, i| a.wrapping_add(v.wrapping_add(i)));
                let wide_sum = w.wrapping_add(w ^ 1).wrapping_add(w ^ 2);
                assert_eq!(out[2 * t], sum(9) as u64, "thread {t}, global u32");
                assert_eq!(out[2 * t + 1], wide_sum, "thread {t}, global u64");
                assert_eq!(out[2 * n + 2 * t], sum(6) as u64, "thread {t}, shared u32");
                assert_eq!(out[2 * n + 2 * t + 1], wide_sum, "thread {t}, shared u64");
            }
        }
    }

    /// `conf_activemask_paths` on the CPU gives each call of the helper the lanes of its warp that
    /// make that call: "activemask queries predicated-on active threads from the executing warp",
    /// with one instruction per call of the helper, as inlined on the GPU.
    #[test]
    fn cpu_activemask_paths_are_each_calls_lanes() {
        let mut r = Rng::seed_from_u64(7);
        let mut shapes = [0; 4];
        while shapes.iter().any(|&k| k < 3) {
            let c = gen_case(&mut r, Ex::ActivemaskPaths);
            let (n, shape) = (c.threads, c.scalar(0) % 4);
            shapes[shape as usize] += 1;
            let arm: Vec<u32> = c.v(0);
            let out = &cpu(Ex::ActivemaskPaths, &c).unwrap()[1].bits;
            for t in 0..n {
                let warp = t / 32 * 32..(t / 32 * 32 + 32).min(n);
                let lanes = |pred: &dyn Fn(usize) -> bool| warp.clone().filter(|&u| pred(u)).fold(0u32, |m, u| m | 1 << (u % 32));
                let a = arm[t];
                let same_arm = |u: usize| arm[u] & 1 == a & 1;
                let trips = |u: usize| (arm[u] >> 2) % 4;
                let want: [u32; 4] = match shape {
                    0 => [lanes(&same_arm), 0, 0, 0],
                    1 => [lanes(&|u| same_arm(u) && arm[u] & 2 == a & 2), 0, 0, 0],
                    2 if a & 1 == 0 => [lanes(&same_arm), lanes(&same_arm), 0, 0],
                    2 => [lanes(&same_arm), 0, 0, 0],
                    _ => core::array::from_fn(|i| if (i as u32) < trips(t) { lanes(&|u| same_arm(u) && trips(u) > i as u32) } else { 0 }),
                };
                let got: Vec<u32> = out[4 * t..4 * t + 4].iter().map(|&v| v as u32).collect();
                assert_eq!(got, want, "thread {t} of {n}, shape {shape}, arm {a:#x}");
            }
        }
    }

    /// The order in which warps reserve their ranges does not change the canonical form; a
    /// wrong value or slot does.
    /// The cluster rows' CPU side against their definitions written out: every register, the
    /// neighbour's and the mirror block's values, the cluster totals; every `red.async`
    /// operation folded over the other blocks; the example's sums.
    #[test]
    fn cpu_cluster_rows_follow_their_definitions() {
        let mut r = Rng::seed_from_u64(11);
        for _ in 0..6 {
            let c = gen_case(&mut r, Ex::Cluster);
            let (cfg, x): (LaunchConfig, Vec<u32>) = (c.cfg(), c.v(0));
            let d = &cpu(Ex::Cluster, &c).unwrap()[1].bits;
            let (g, cd, n) = (cfg.grid_dim(), cfg.cluster_dim().unwrap(), cfg.block_dim().x as usize);
            let nrank = cd.count() as u32;
            let pack = |v: Dim3| (v.x | v.y << 8 | v.z << 16) as u64;
            let block_of = |cid: Dim3, cc: Dim3| (cid.y * cd.y + cc.y) * g.x + cid.x * cd.x + cc.x;
            for b in 0..g.count() as u32 {
                let ctaid = Dim3::new(b % g.x, b / g.x, 0);
                let (cid, cc) = (Dim3::new(ctaid.x / cd.x, ctaid.y / cd.y, 0), Dim3::new(ctaid.x % cd.x, ctaid.y % cd.y, 0));
                let rank = cc.x + cd.x * cc.y;
                let at_rank = |k: u32| block_of(cid, Dim3::new(k % cd.x, k / cd.x, 0)) as usize;
                for t in 0..n {
                    let gi = b as usize * n + t;
                    let rec = &d[gi * cluster::CLUSTER_WORDS..(gi + 1) * cluster::CLUSTER_WORDS];
                    assert_eq!(rec[..7], [rank as u64, nrank as u64, pack(cid), pack(Dim3::new(g.x / cd.x, g.y / cd.y, 1)), pack(cc), pack(cd), 1]);
                    let right = at_rank((rank + 1) % nrank);
                    assert_eq!(rec[7], x[right * n + n - 1 - t] as u64);
                    assert_eq!((rec[8], rec[9]), ((right * n + t) as u64, x[right * n + t] as u64));
                    assert_eq!(rec[10], (at_rank(nrank - 1 - rank) * n + t) as u64);
                    let total = (0..nrank).flat_map(|k| &x[at_rank(k) * n..(at_rank(k) + 1) * n]).fold(0u32, |a, &v| a.wrapping_add(v));
                    assert_eq!(rec[11], if rank == 0 && t == 0 { total as u64 } else { 0 });
                }
            }
        }
        for _ in 0..6 {
            let c = gen_case(&mut r, Ex::RedAsync);
            let (cfg, x): (LaunchConfig, Vec<u32>) = (c.cfg(), c.v(0));
            let d = &cpu(Ex::RedAsync, &c).unwrap()[1].bits;
            let n = cfg.cluster_dim().unwrap().x as usize;
            for cl in 0..cfg.grid_dim().x as usize / n {
                let at = |b: usize, k: usize| x[(cl * n + b) * 8 + k];
                let peers = 1..n;
                let mut want = vec![
                    peers.clone().fold(at(0, 0), |a, b| a.wrapping_add(at(b, 0))),
                    peers.clone().fold(u32::MAX, |a, b| a.min(at(b, 1))),
                    peers.clone().fold(0, |a, b| a.max(at(b, 2))),
                    peers.clone().fold(u32::MAX, |a, b| a & (at(b, 3) | at(b, 4))),
                    peers.clone().fold(0, |a, b| a | (at(b, 4) & at(b, 5))),
                    peers.clone().fold(at(0, 5), |a, b| a ^ at(b, 5)),
                    (n - 1) as u32,
                    peers.clone().fold(at(0, 1) as i32, |a, b| a.wrapping_add(at(b, 1) as i32)) as u32,
                    peers.clone().fold(i32::MAX, |a, b| a.min(at(b, 6) as i32)) as u32,
                    peers.clone().fold(i32::MIN, |a, b| a.max(at(b, 7) as i32)) as u32,
                ];
                let wide = peers.clone().fold(at(0, 2) as u64, |a, b| a.wrapping_add((at(b, 6) as u64) << 24 | at(b, 7) as u64));
                want.extend([wide as u32, (wide >> 32) as u32, at(0, 3)]);
                want.extend(peers.map(|b| at(b, 3)));
                want.resize(cluster::RED_ASYNC_WORDS, 0);
                let got: Vec<u32> = d[cl * cluster::RED_ASYNC_WORDS..(cl + 1) * cluster::RED_ASYNC_WORDS].iter().map(|&v| v as u32).collect();
                assert_eq!(got, want, "cluster {cl} of {n} blocks");
            }
        }
        for _ in 0..6 {
            let c = gen_case(&mut r, Ex::ClusterReduce);
            let (cfg, x): (LaunchConfig, Vec<u32>) = (c.cfg(), c.v(0));
            let got: Vec<u32> = cpu(Ex::ClusterReduce, &c).unwrap()[1].bits.iter().map(|&v| v as u32).collect();
            assert_eq!(got, cluster_reduce::cluster_reference(&x, cfg.grid_dim().x, cfg.block_dim().x, cfg.cluster_dim().unwrap().x));
        }
    }

    /// `conf_cp_async` on the CPU: each record is what the neighbour's copies brought.
    #[test]
    fn cpu_cp_async_row_follows_its_definition() {
        let mut r = Rng::seed_from_u64(9);
        for _ in 0..4 {
            let c = gen_case(&mut r, Ex::CpAsync);
            let (x, wide): (Vec<u32>, Vec<u64>) = (c.v(0), c.v(1));
            let d = &cpu(Ex::CpAsync, &c).unwrap()[2].bits;
            for b in 0..x.len() / mbarrier::CP_X {
                let (x, wide) = (&x[b * mbarrier::CP_X..], &wide[b * mbarrier::CP_WIDE..]);
                for t in 0..64 {
                    let n = (t + 1) % 64;
                    let want = [x[n], wide[n] as u32, (wide[n] >> 32) as u32, x[64 + 2 * n + 1], wide[64 + 2 * n] as u32, x[192 + 4 * n + 3], x[192 + 4 * n], (wide[64 + 2 * n + 1] >> 32) as u32];
                    let at = (b * 64 + t) * mbarrier::CP_WORDS;
                    let got: Vec<u32> = d[at..at + mbarrier::CP_WORDS].iter().map(|&v| v as u32).collect();
                    assert_eq!(got, want, "block {b} thread {t}");
                }
            }
        }
    }

    /// `conf_tensormap` on the CPU: each thread's word of another warp's copy.
    #[test]
    fn cpu_tensormap_row_follows_its_definition() {
        let (row, _) = tensormap_row(Side::Cpu, 3, 1, 3, false);
        assert!(row.disagree == 0 && row.agree == 48, "{:?}", row.shown);
        let mut r = Rng::seed_from_u64(4);
        for _ in 0..4 {
            let c = gen_case(&mut r, Ex::Tensormap);
            let (x, cfg): (Vec<u32>, LaunchConfig) = (c.v(0), c.cfg());
            let out = cpu(Ex::Tensormap, &c).unwrap();
            let e: Vec<u32> = out[2].bits.iter().map(|&v| v as u32).collect();
            let warps = cfg.block_dim().x as usize / 32;
            for b in 0..cfg.grid_dim().x as usize {
                let base = b * warps * 32;
                for t in 0..warps * 32 {
                    let (wi, l) = (t / 32, t % 32);
                    assert_eq!(e[base + t], x[base + ((wi + 1) % warps) * 32 + 31 - l]);
                }
            }
            assert_eq!(out[1].bits.iter().map(|&v| v as u32).collect::<Vec<_>>(), x);
        }
    }

    /// `conf_pdl` on the CPU: the dependent's output is the formula over the primary's, and
    /// the race detector (on in tests) finds the waits sufficient.
    #[test]
    fn cpu_pdl_row_follows_its_definition() {
        let (row, failed) = pdl_row(&Side::Cpu, 5, 1, 3, false);
        assert!(!failed && row.disagree == 0 && row.agree == 48, "{:?}", row.shown);
        let x: Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let (xb, ab, bb) = (warpkit::GlobalBuffer::from_slice(&x), warpkit::GlobalBuffer::<u32>::zeroed(200), warpkit::GlobalBuffer::<u32>::zeroed(200));
        let (xs, as_, bs) = (xb.slice(), ab.slice(), bb.slice());
        let grid = LaunchConfig::blocks(4, 64).cpu_grid(warpkit::Executor::new().target(Target::SM_90));
        warpkit::grid::launch_dependent(
            &grid,
            async |w: &warpkit::Warp<'_>| cluster::conf_pdl(w, 0, xs, as_, bs).await,
            &grid,
            async |w: &warpkit::Warp<'_>| cluster::conf_pdl(w, 1, xs, as_, bs).await,
        )
        .unwrap();
        let a: Vec<u32> = (0..200).map(|i| x[i].wrapping_mul(3) ^ i as u32).collect();
        let b: Vec<u32> = (0..200).map(|i| a[199 - i].wrapping_add(x[i])).collect();
        assert_eq!((ab.to_vec(), bb.to_vec()), (a, b));
    }

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
        let c1 = compare_case(Ex::CompactGrid, &c, "d", &moved, Ok(out.clone()));
        assert!(c1.agrees(), "{c1}");
        moved[1].bits[0] ^= 1;
        assert!(!compare_case(Ex::CompactGrid, &c, "d", &moved, Ok(out)).agrees());
    }

    /// The NaN rule covers exactly the sums of `out`: a NaN payload difference there agrees, in a
    /// min/max element it does not.
    #[test]
    fn nan_payloads_are_allowed_only_in_sums() {
        let (c, out) = first_case(Ex::ReduceF32, 6, |c| c.threads >= 32);
        let mut gpu = out.clone();
        let nan = |b: &mut u64| *b = 0x7fff_ffff;
        let mut cpu = out;
        cpu[1].bits[0] = 0xffc0_0000; // a sum (element 0 of 5)
        nan(&mut gpu[1].bits[0]);
        let r = compare_case(Ex::ReduceF32, &c, "d", &gpu, Ok(cpu.clone()));
        assert!(r.agrees() && r.nan_payloads() == 1, "{r}");
        cpu[1].bits[1] = 0xffc0_0000; // a min
        nan(&mut gpu[1].bits[1]);
        assert!(!compare_case(Ex::ReduceF32, &c, "d", &gpu, Ok(cpu)).agrees());
    }
}

/// `--gallery-races`: the bug gallery's racy kernels (cases 6 to 8) and their fixed twins, once
/// each on the GPU, for `compute-sanitizer --tool racecheck` to watch; prints what the GPU
/// computed and what the CPU runtime reported. Their GPU results are timing-dependent, so they
/// are not compared.
pub(crate) fn gallery_races(m: &Module) -> Result<(), CudaError> {
    let first = |r: &Result<Vec<Buffer>, WarpError>| match r {
        Ok(_) => "clean".to_string(),
        Err(e) => e.to_string().lines().next().unwrap_or_default().to_string(),
    };
    let x: Vec<u32> = (1..=128).collect();
    for fixed in [0u32, 1] {
        let cfg = LaunchConfig::blocks(1, 128);
        let (gpu, cpu) = m.differential(cfg).cpu_target(Target::SM_90).outputs::<bug_gallery::gallery_block_total_entry>((x.clone(), fixed, vec![0u32; 128]))?;
        println!("case 6 (fixed={fixed}) gallery_block_total_entry: GPU out[0..4] = {:?}; CPU: {}", &gpu[1].bits[..4], first(&cpu));
    }
    let x64: Vec<u32> = (1..=64).collect();
    for fixed in [0u32, 1] {
        let cfg = LaunchConfig::blocks(1, 32);
        let (gpu, cpu) = m.differential(cfg).cpu_target(Target::SM_90).outputs::<bug_gallery::gallery_warp_reduce_entry>((x64.clone(), fixed, vec![0u32; 1]))?;
        println!("case 7 (fixed={fixed}) gallery_warp_reduce_entry: GPU sum = {} (want 2080); CPU: {}", gpu[1].bits[0], first(&cpu));
    }
    for fixed in [0u32, 1] {
        let cfg = LaunchConfig::blocks(1, 64);
        let (gpu, cpu) = m.differential(cfg).cpu_target(Target::SM_90).outputs::<bug_gallery::gallery_lost_update_entry>((vec![0u32; 1], fixed))?;
        println!("case 8 (fixed={fixed}) gallery_lost_update_entry: GPU counter = {} (64 threads); CPU: {}", gpu[0].bits[0], first(&cpu));
    }
    Ok(())
}


/// The bug gallery's mbarrier pipelines (cases 9-11) on the GPU: each fixed twin against the
/// CPU runtime, every word; then the parity bug (case 9) launched as it is, under a watchdog that
/// ends this process if the kernel has not finished after `seconds` (a hung kernel cannot be
/// stopped otherwise). Returns whether every fixed twin agreed; does not return if the GPU hangs.
pub(crate) fn gallery_hang(m: &Module, seconds: u64) -> Result<bool, CudaError> {
    let first = |r: &Result<Vec<Buffer>, WarpError>| match r {
        Ok(_) => "clean".to_string(),
        Err(e) => e.to_string().lines().next().unwrap_or_default().to_string(),
    };
    let n = bug_gallery::STAGE * bug_gallery::ROUNDS as usize;
    let x: Vec<u32> = (0..n as u32).map(|v| v * 3 + 1).collect();
    let cfg = LaunchConfig::blocks(1, 64);
    let mut all = true;
    for case in 9..=11u32 {
        let host = (x.clone(), 1u32, vec![0u32; n]);
        let d = m.differential(cfg).cpu_target(Target::SM_90);
        let (gpu, cpu) = match case {
            9 => d.outputs::<bug_gallery::gallery_mbarrier_parity_entry>(host)?,
            10 => d.outputs::<bug_gallery::gallery_mbarrier_expect_tx_entry>(host)?,
            _ => d.outputs::<bug_gallery::gallery_mbarrier_early_read_entry>(host)?,
        };
        let agree = cpu.as_ref().is_ok_and(|c| c[1].bits == gpu[1].bits);
        all &= agree;
        println!("case {case} (fixed): GPU and CPU runtime outputs {}; CPU: {}", if agree { "agree" } else { "DIFFER" }, first(&cpu));
    }
    let cpu = bug_gallery::mbarrier_case_launch(9, false);
    println!("case 9 (broken) on the CPU runtime: {}", cpu.as_ref().map_or_else(|e| e.to_string().lines().next().unwrap_or_default().to_string(), |_| "clean".into()));
    println!("case 9 (broken) on the GPU, with a {seconds} s watchdog:");
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(seconds));
        println!("case 9 (broken): the GPU kernel had not finished after {seconds} s: it hangs, as the CPU runtime's report says");
        std::process::exit(if all { 0 } else { 1 });
    });
    let (gpu, _) = m.differential(cfg).cpu_target(Target::SM_90).outputs::<bug_gallery::gallery_mbarrier_parity_entry>((x.clone(), 0u32, vec![0u32; n]))?;
    println!("case 9 (broken): the GPU kernel finished (out[0..4] = {:?}): it did not hang", &gpu[1].bits[..4]);
    Ok(false)
}
