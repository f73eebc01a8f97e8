//! Entry kernels launched through their type (`EntryKernel::run_cpu`) start each warp in the
//! kernel's warp-wide form, without the lanes' futures (issue 15). That start must change
//! nothing but the speed: here each kernel runs through a closure per lane (`Grid::run`, the
//! reference), then through `run_cpu` per lane, with portable forms and with SIMD forms, on
//! proptest-generated inputs and grids (partial last warps, inputs shorter than the grid, blocks
//! of several warps, two CPU threads, every target), and every run must give the same outputs
//! or print the same report. Kernels that offer a form are checked to have started in it.

use proptest::prelude::*;
use warpkit::prelude::*;
use warpkit::{EntryKernel, Params};

#[path = "../../tests/common/both.rs"]
mod both;

#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;
#[allow(dead_code)]
#[path = "../../examples/histogram.rs"]
mod histogram;
#[allow(dead_code)]
#[path = "../../examples/radix_rank.rs"]
mod radix_rank;
#[allow(dead_code)]
#[path = "../../examples/compact.rs"]
mod compact;

// ---- entry kernels with forms of their own.

/// Each thread: its warp's sum (a butterfly in a uniform loop) and its inclusive prefix sum
/// (`shfl_up`, added where the lane has a source), xor the warp's ballot of odd inputs. Threads
/// past the input return first: a warp with some of them has exited lanes in its full masks.
#[warp_kernel(entry)]
pub fn sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= input.len() {
        return;
    }
    let x = input.load(i);
    let mut s = x;
    for k in 0..5 {
        s = s.wrapping_add(w.shfl_xor(s, 1 << k));
    }
    let mut p = x;
    for k in 0..5 {
        let up = w.shfl_up(p, 1 << k);
        if w.lane_id() >= 1 << k {
            p = p.wrapping_add(up);
        }
    }
    let odd = w.ballot(x & 1 == 1);
    out.store(2 * i, s);
    out.store(2 * i + 1, p ^ odd);
}

/// A uniform parameter: each thread's input times `scale`, rotated by `shift` lanes. A lane
/// whose input is 0 divides by it (a lane's panic, in the form's lane code).
#[warp_kernel(entry)]
pub fn rotated(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, scale: u32, shift: u32) {
    let i = w.global_id() as usize;
    let n = input.len();
    let x = input.load(i % n);
    let q = 1_000_000 / x;
    let r = w.shfl_idx(q.wrapping_mul(scale), (w.lane_id() + shift) % 32);
    out.store(i, r);
}

/// Every warp writes the same 32 words (a race between warps that no barrier orders), then votes.
#[warp_kernel(entry)]
pub fn same_words(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let n = input.len();
    let x = input.load(i % n);
    out.store(w.lane_id() as usize, x);
    let v = w.ballot(x > 7);
    out.store(32 + i, v);
}

type Cpu<K> = <<K as EntryKernel>::Params as Params>::Cpu;

/// Runs `K` on `grid` with buffers from `make`: through `closure` per lane (the reference), then
/// through `K::run_cpu` per lane, with portable forms and with SIMD forms; asserts that every
/// run agrees: the outputs (read by `read`), or the printed report. (After a report, what other
/// warps wrote may differ: a warp that starts in its form runs to its end in one step, where per
/// lane it takes turns with the others.) Returns the outcome and how many warps started
/// directly in the form in the two warp-wide runs.
fn entry_agrees<K: EntryKernel>(
    grid: Grid,
    ex: Executor,
    make: impl Fn() -> Cpu<K>,
    read: impl Fn(&Cpu<K>) -> Vec<u32>,
    closure: impl Fn(Grid, &Cpu<K>) -> Result<(), WarpError>,
) -> (Result<Vec<u32>, WarpError>, u64) {
    let cpu = make();
    let reference = closure(grid.executor(ex.wide(false)), &cpu);
    let written = read(&cpu);
    let before = warpkit::direct_starts();
    let through_type = both::compare(
        |ex| {
            let cpu = make();
            K::run_cpu(&grid.executor(ex), &cpu).map(|()| read(&cpu))
        },
        ex,
    );
    let direct = warpkit::direct_starts() - before;
    both::agree(&reference.map(|()| written), &through_type);
    (through_type, direct)
}

/// A grid, and whether it runs on one CPU thread (this one: `direct_starts` counts its warps).
fn grids() -> impl Strategy<Value = (Grid, bool)> {
    prop_oneof![
        (1u64..=200).prop_map(|n| (Grid::new(n), true)),
        (1u32..=3, prop_oneof![Just(32u32), Just(64), Just(96)]).prop_map(|(b, t)| (Grid::blocks(b, t), true)),
        (2u32..=5).prop_map(|b| (Grid::blocks(b, 64).cpu_threads(2), false)),
    ]
}

fn targets() -> impl Strategy<Value = Target> {
    prop_oneof![Just(Target::SM_70), Just(Target::SM_80), Just(Target::SM_90), Just(Target::default())]
}

/// Whether every warp of `grid` is whole and reads an input that has a word for each thread.
fn whole(grid: &Grid, len: usize) -> bool {
    let threads = grid.block_count() * grid.block_size();
    grid.block_size() % 32 == 0 && len as u64 >= threads && grid.threads() == threads
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    #[test]
    fn local_entries_agree(xs in proptest::collection::vec(0u32..40, 1..=320), (grid, here) in grids(), target in targets(), scale in any::<u32>(), shift in 0u32..32) {
        let ex = Executor::new().target(target).races(true);
        let len = xs.len();
        let threads = (grid.block_count() * grid.block_size()) as usize;
        let (r, direct) = entry_agrees::<sums>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(2 * len)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| sums(w, i, o).await) },
        );
        if whole(&grid, len) {
            prop_assert!(r.is_ok(), "{r:?}");
            prop_assert!(direct > 0 || !here, "sums: no warp started in its form");
        }
        let (_, direct) = entry_agrees::<rotated>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(threads), scale, shift),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| rotated(w, i, o, scale, shift).await) },
        );
        // `scale` and `shift` are the same in every lane: the form starts wherever a warp is whole
        // (it returns a lane's panic as the per-lane executor does).
        if here && grid.block_size() % 32 == 0 && grid.threads() == grid.block_count() * grid.block_size() {
            prop_assert!(direct > 0, "rotated: no warp started in its form");
        }
        // On two CPU threads, which pair of racing accesses a report shows depends on the threads'
        // timing (the race is found either way): this one runs on one.
        let _ = entry_agrees::<same_words>(
            grid.cpu_threads(1),
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(32 + threads)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| same_words(w, i, o).await) },
        );
    }

    #[test]
    fn example_entries_agree(xs in proptest::collection::vec(any::<u32>(), 1..=300), (grid, _) in grids()) {
        let ex = Executor::new().races(true);
        let len = xs.len();
        let heads: Vec<u32> = xs.iter().map(|x| (x % 3 == 0) as u32).collect();
        let keys: Vec<u32> = xs.iter().map(|x| x % 1000).collect();
        // Calls of warp functions: each call site learns in the first runs (per lane) that its
        // callee offers a form; the example's other tests have run it before, or not.
        let (_, _) = entry_agrees::<reduce::reduce_u32_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(6 * len)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| reduce::reduce_u32_entry(w, i, o).await) },
        );
        let _ = entry_agrees::<scan::scan_u32_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(6 * len)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| scan::scan_u32_entry(w, i, o).await) },
        );
        let _ = entry_agrees::<segmented_reduce::segmented_sum_u32_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::from_slice(&heads), GlobalBuffer::<u32>::zeroed(2 * len)),
            |cpu| cpu.2.to_vec(),
            |g, cpu| { let (v, h, o) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice()); g.run(async |w: &Warp<'_>| segmented_reduce::segmented_sum_u32_entry(w, v, h, o).await) },
        );
        let _ = entry_agrees::<bitonic_sort::sort_u32_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&keys), GlobalBuffer::<u32>::zeroed(len)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (k, o) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| bitonic_sort::sort_u32_entry(w, k, o).await) },
        );
        // Atomics as lane code, and a last call (the caller reaches no other warp instruction or
        // call after it) of a warp function whose lanes return early (elements past the end,
        // and `IGNORE`d ones).
        let _ = entry_agrees::<histogram::histogram_ffs>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(16)),
            |cpu| cpu.1.to_vec(),
            |g, cpu| { let (i, c) = (cpu.0.slice(), cpu.1.slice()); g.run(async |w: &Warp<'_>| histogram::histogram_ffs(w, i, c).await) },
        );
        // Atomics on per-warp counters, `bar.warp.sync`, loads of what the warp's atomics wrote.
        let warps = (grid.block_count() * grid.block_size().div_ceil(32)) as usize;
        let _ = entry_agrees::<radix_rank::radix_rank_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&keys), 3, GlobalBuffer::<u32>::zeroed(radix_rank::RADIX as usize * warps), GlobalBuffer::<u32>::zeroed(len)),
            |cpu| cpu.3.to_vec(),
            |g, cpu| { let (k, b, r) = (cpu.0.slice(), cpu.2.slice(), cpu.3.slice()); g.run(async |w: &Warp<'_>| radix_rank::radix_rank_entry(w, k, 3, b, r).await) },
        );
        // Loads in a `while` loop that counts the digits, and a call per digit.
        let _ = entry_agrees::<radix_rank::radix_sort_entry>(
            grid,
            ex,
            || (GlobalBuffer::from_slice(&keys), GlobalBuffer::<u32>::zeroed(radix_rank::RADIX as usize * warps), GlobalBuffer::<u32>::zeroed(32 * warps), GlobalBuffer::<u32>::zeroed(len)),
            |cpu| cpu.3.to_vec(),
            |g, cpu| {
                let (k, b, e, s) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice(), cpu.3.slice());
                g.run(async |w: &Warp<'_>| radix_rank::radix_sort_entry(w, k, b, e, s).await)
            },
        );
        // A warp's atomic reserves its range: where each range lands depends on the order of the
        // warps, which one CPU thread makes the same every way.
        let _ = entry_agrees::<compact::compact_grid_entry>(
            grid.cpu_threads(1),
            ex,
            || (GlobalBuffer::from_slice(&xs), GlobalBuffer::<u32>::zeroed(len), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(len), u32::MAX / 3),
            |cpu| [cpu.1.to_vec(), cpu.2.to_vec(), cpu.3.to_vec()].concat(),
            |g, cpu| {
                let (i, o, c, s) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice(), cpu.3.slice());
                g.run(async |w: &Warp<'_>| compact::compact_grid_entry(w, i, o, c, s, u32::MAX / 3).await)
            },
        );
        // CTA barriers after a call that some lanes leave early (their input is `IGNORE`): the
        // first step of a warp polls its first lane alone (for its offer), then the others.
        let ignored: Vec<u32> = xs.iter().map(|x| if x % 3 == 0 { histogram::IGNORE } else { x % 1000 }).collect();
        let blocks = Grid::blocks(ignored.len().div_ceil(128) as u32, 128);
        let _ = entry_agrees::<histogram::histogram_done_entry>(
            blocks,
            ex,
            || (GlobalBuffer::from_slice(&ignored), GlobalBuffer::<u32>::zeroed(14), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(2), 1),
            |cpu| [cpu.1.to_vec(), cpu.3.to_vec()].concat(),
            |g, cpu| {
                let (i, c, d, s) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice(), cpu.3.slice());
                g.run(async |w: &Warp<'_>| histogram::histogram_done_entry(w, i, c, d, s, 1).await)
            },
        );
    }
}

/// After their call sites have learned, whole warps of the examples' entries that call warp
/// functions start in the entry's form: `reduce_u32_entry` (three `tree_reduce` calls),
/// `segmented_sum_u32_entry`, `sort_u32_entry` (a wrapper of a wrapper), `histogram_ffs` (a
/// wrapper whose callee's lanes return early, and an atomic), `radix_rank_entry` (atomics, and
/// `bar.warp.sync`), `radix_sort_entry` (loads in a `while` loop that counts the digits) and
/// `compact_grid_entry` (a store after a call whose lanes return early), and `scan_u32_entry`
/// (whose callee `tile_prefix_sums` hands `scans` tiles of 8 and 16).
#[test]
fn example_entries_start_in_their_forms() {
    let grid = Grid::blocks(4, 64);
    let xs: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let heads: Vec<u32> = xs.iter().map(|x| (x % 3 == 0) as u32).collect();
    let starts = |f: &dyn Fn()| {
        for _ in 0..3 {
            f();
        }
        let before = warpkit::direct_starts();
        f();
        warpkit::direct_starts() - before
    };
    let input = GlobalBuffer::from_slice(&xs);
    let out = GlobalBuffer::<u32>::zeroed(6 * xs.len());
    let h = GlobalBuffer::from_slice(&heads);
    assert_eq!(starts(&|| reduce::reduce_u32_entry::run_cpu(&grid, &(input.clone(), out.clone())).unwrap()), 8, "reduce_u32_entry");
    assert_eq!(starts(&|| segmented_reduce::segmented_sum_u32_entry::run_cpu(&grid, &(input.clone(), h.clone(), out.clone())).unwrap()), 8, "segmented_sum_u32_entry");
    assert_eq!(starts(&|| bitonic_sort::sort_u32_entry::run_cpu(&grid, &(input.clone(), out.clone())).unwrap()), 8, "sort_u32_entry");
    let counts = GlobalBuffer::<u32>::zeroed(10);
    assert_eq!(starts(&|| histogram::histogram_ffs::run_cpu(&grid, &(input.clone(), counts.clone())).unwrap()), 8, "histogram_ffs");
    let bins = GlobalBuffer::<u32>::zeroed(32 * 8);
    assert_eq!(starts(&|| radix_rank::radix_rank_entry::run_cpu(&grid, &(input.clone(), 0, bins.clone(), out.clone())).unwrap()), 8, "radix_rank_entry");
    let exchange = GlobalBuffer::<u32>::zeroed(32 * 8);
    assert_eq!(starts(&|| radix_rank::radix_sort_entry::run_cpu(&grid, &(input.clone(), bins.clone(), exchange.clone(), out.clone())).unwrap()), 8, "radix_sort_entry");
    let count = GlobalBuffer::<u32>::zeroed(1);
    assert_eq!(starts(&|| compact::compact_grid_entry::run_cpu(&grid, &(input.clone(), out.clone(), count.clone(), bins.clone(), u32::MAX / 2)).unwrap()), 8, "compact_grid_entry");
    assert_eq!(starts(&|| scan::scan_u32_entry::run_cpu(&grid, &(input.clone(), out.clone())).unwrap()), 8, "scan_u32_entry");
    // Off, never; and the results are the reference's.
    let off = Grid::blocks(4, 64).executor(Executor::new().wide(false));
    assert_eq!(starts(&|| reduce::reduce_u32_entry::run_cpu(&off, &(input.clone(), out.clone())).unwrap()), 0, "wide(false)");
}

/// An endless uniform loop: the grid's time limit ends it, started in the form or not.
#[allow(clippy::while_immutable_condition)]
#[warp_kernel(entry)]
pub fn endless(w: &Warp, out: GlobalSlice<'_, u32>) {
    let n = 0u32;
    let mut v = w.lane_id();
    while n < 1 {
        v = w.shfl_xor(v, 1);
    }
    out.store(w.lane_id() as usize, v);
}

#[test]
fn an_endless_entry_ends_at_the_grids_time_limit() {
    let limit = std::time::Duration::from_millis(150);
    for wide in [false, true] {
        let grid = Grid::new(64).executor(Executor::new().wide(wide)).time_limit(Some(limit));
        let out = (GlobalBuffer::<u32>::zeroed(32),);
        let before = warpkit::direct_starts();
        let started = std::time::Instant::now();
        let r = endless::run_cpu(&grid, &out);
        let took = started.elapsed();
        assert!(matches!(r, Err(WarpError::TimeLimit { .. })), "wide {wide}: {r:?}");
        assert!(took < limit * 4, "wide {wide}: the launch ran {took:?} under a limit of {limit:?}");
        assert_eq!(warpkit::direct_starts() - before > 0, wide, "wide {wide}: direct starts");
    }
}

/// An entry kernel written inside a `macro_rules!` macro, its parameters' and variables' names
/// from the macro's arguments: launched through its type, each warp starts in its form.
macro_rules! rotated_named {
    ($name:ident, $w:ident, $input:ident, $out:ident, $i:ident, $x:ident) => {
        #[warp_kernel(entry)]
        pub fn $name($w: &Warp, $input: GlobalSlice<'_, u32>, $out: GlobalSlice<'_, u32>) {
            let $i = $w.global_id() as usize;
            let $x = $input.load($i);
            let r = $w.shfl_idx($x * 3, ($w.lane_id() + 5) % 32);
            $out.store($i, r);
        }
    };
}

rotated_named!(rotated_by_a_macro, warp, data, results, index, value);

#[test]
fn a_macro_made_entry_starts_in_its_form() {
    let n = 128;
    let input: Vec<u32> = (0..n as u32).map(|v| v.wrapping_mul(2_654_435_761) >> 9).collect();
    let grid = Grid::new(n as u64).cpu_threads(1);
    let (out, direct) = entry_agrees::<rotated_by_a_macro>(
        grid,
        Executor::new(),
        || (GlobalBuffer::from_slice(&input), GlobalBuffer::<u32>::zeroed(n)),
        |cpu| cpu.1.to_vec(),
        |grid, cpu| {
            let (i, o) = (cpu.0.slice(), cpu.1.slice());
            grid.run(async |w: &Warp<'_>| rotated_by_a_macro(w, i, o).await)
        },
    );
    let expected: Vec<u32> = (0..n).map(|i| input[i / 32 * 32 + (i % 32 + 5) % 32] * 3).collect();
    assert_eq!(out.unwrap(), expected);
    assert_eq!(direct, 2 * (n as u64 / 32), "every warp started in its form, in both warp-wide runs");
}
