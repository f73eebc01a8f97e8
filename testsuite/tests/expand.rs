//! The expansion snapshots' inputs (`tests/expand/*.rs`), compiled and run: the snapshots
//! (`cargo test -p warp-macros`) show the generated code, this checks it compiles and computes the
//! right thing. The `warpkit-testsuite` package builds it as edition 2021 and
//! `warpkit-testsuite-2024` (testsuite/edition2024/) as edition 2024.

#![allow(dead_code)]

#[path = "../../tests/expand/block.rs"]
mod block;
#[path = "../../tests/expand/control_flow.rs"]
mod control_flow;
#[path = "../../tests/expand/derive.rs"]
mod derive;
#[path = "../../tests/expand/entry.rs"]
mod entry;
#[path = "../../tests/expand/warp_sum.rs"]
mod warp_sum;

use warpkit::{EntryKernel, Executor, GlobalBuffer, Grid, LaunchConfig, Target, Warp, WarpValue, WarpWords};

/// The block snapshot: every thread gets its block's sum, and the atomic adds each block's sum
/// once.
#[test]
fn the_block_kernel_sums_each_block() {
    let total = GlobalBuffer::<u32>::zeroed(1);
    let t = total.slice();
    let sums = Grid::blocks(3, 96).map(async |w: &Warp<'_>| block::block_total(w, w.thread_rank() + 1, t).await).unwrap();
    assert_eq!(sums, vec![96 * 97 / 2; 3 * 96]);
    assert_eq!(total.to_vec(), vec![3 * (96 * 97 / 2)]);
}

#[test]
fn warp_sum_is_the_sum_in_every_lane() {
    let out = Executor::new().run(async |w: &Warp<'_>| warp_sum::warp_sum(w, w.lane_id() * 3).await).unwrap();
    assert_eq!(out, [3 * 496; 32]);
}

#[test]
fn tile_calls_sum_pairs_in_each_tile() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * l as u32 + 1);
    // Runs per lane until the call sites learn, then in the form: the same sums every time.
    for _ in 0..4 {
        let out = Executor::new().run_with(&x, warp_sum::tile_pairs).unwrap();
        assert_eq!(out, core::array::from_fn(|l| 2 * (x[l] + x[l ^ 1])));
    }
    // Then every run is three forms: `tile_pairs`, and `pair_sum` on each tile.
    let before = warpkit::wide_runs();
    let _ = Executor::new().run_with(&x, warp_sum::tile_pairs).unwrap();
    assert_eq!(warpkit::wide_runs() - before, 3);
}

#[test]
fn control_flow_takes_every_path() {
    // Lane values 0..32: none above 100, so the ballot of the tile of 8 decides; every tile has even
    // lanes, so each lane reads the tile's lowest even lane, its own tile base.
    let data: Vec<u32> = (0..32).collect();
    let out = Executor::new().run(async |w: &Warp<'_>| control_flow::kernel(w, &data).await).unwrap();
    let want: Vec<Option<u32>> = (0..32).map(|l| Some(l / 8 * 8)).collect();
    assert_eq!(out.to_vec(), want);
    let leaders = Executor::new().run(async |w: &Warp<'_>| control_flow::Reducer.reduce(w, 1).await).unwrap();
    assert_eq!(leaders[0], 32, "the elected lane 0 gets the warp's sum");
    assert!(leaders[1..].iter().all(|&x| x == 0));
}

/// The entry kernel of the snapshot as a type: the same sums as plain Rust, per warp.
#[test]
fn the_entry_kernel_runs_as_a_type() {
    assert_eq!(entry::warp_sums::PARAMS, ["input", "out", "scale"]);
    let input: Vec<u32> = (0..70).collect();
    let out = entry::warp_sums::run_host(&LaunchConfig::threads(70), Target::SM_90, (input.clone(), vec![0; 70], 3)).unwrap();
    let got = out[1].to_vec::<u32>();
    for (i, g) in got.iter().enumerate() {
        let warp = i / 32 * 32..(i / 32 * 32 + 32).min(70);
        assert_eq!(*g, 3 * input[warp].iter().sum::<u32>(), "thread {i}");
    }
}

/// The wrapper entry of the snapshot: once its call site has learnt `warp_total`'s form (the
/// first launch, per lane), a launch through its type starts every warp in its form, which
/// probes instead of offering; the sums are plain Rust's either way, and a closure's launch
/// (per lane, `warp_total`'s form) starts none.
#[test]
fn a_wrapper_entry_starts_in_its_form() {
    let input: Vec<u32> = (0..128).map(|i| i * 3 + 1).collect();
    let want: Vec<u32> = input.chunks(32).flat_map(|c| [c.iter().sum::<u32>(); 32]).collect();
    let grid = Grid::new(128);
    let cpu = (GlobalBuffer::from_slice(&input), GlobalBuffer::<u32>::zeroed(128));
    let mut starts = Vec::new();
    for _ in 0..3 {
        let before = warpkit::direct_starts();
        entry::warp_totals::run_cpu(&grid, &cpu).unwrap();
        starts.push(warpkit::direct_starts() - before);
        assert_eq!(cpu.1.to_vec(), want);
    }
    assert_eq!(starts[1..], [4, 4], "{starts:?}");
    let (i, o) = (cpu.0.slice(), cpu.1.slice());
    let before = warpkit::direct_starts();
    grid.run(async |w: &Warp<'_>| entry::warp_totals(w, i, o).await).unwrap();
    assert_eq!(warpkit::direct_starts(), before);
    assert_eq!(cpu.1.to_vec(), want);
    // A run of a closure that goes on after the wrapper: the wrapper does not probe there (the
    // closure's code after it would run twice in the first lane).
    let after = core::cell::Cell::new(0);
    Executor::new().run(async |w: &Warp<'_>| {
        entry::warp_totals(w, i, o).await;
        after.set(after.get() + 1);
    })
    .unwrap();
    assert_eq!(after.get(), 32);
}

/// `odd_counts` (a last call of a warp function whose lanes past the input return early, and an
/// atomic in its lane code) counts the odd inputs, and starts its whole warps in its form once
/// the call site has seen its callee's form run.
#[test]
fn a_tail_call_runs_a_form_whose_lanes_return_early() {
    for n in [1usize, 31, 32, 100, 128] {
        let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let want = input.iter().filter(|&&x| x % 2 == 1).count() as u32;
        let grid = Grid::new(128);
        let cpu = (GlobalBuffer::from_slice(&input), GlobalBuffer::<u32>::zeroed(1));
        let mut starts = Vec::new();
        for _ in 0..3 {
            cpu.1.slice().store(0, 0);
            let before = warpkit::direct_starts();
            entry::odd_counts::run_cpu(&grid, &cpu).unwrap();
            starts.push(warpkit::direct_starts() - before);
            assert_eq!(cpu.1.to_vec(), [want], "{n} inputs");
        }
        // Every warp of the grid (those past the input return at once, which is exiting).
        assert_eq!(starts[1..], [4, 4], "{n} inputs: {starts:?}");
        let (i, c) = (cpu.0.slice(), cpu.1.slice());
        c.store(0, 0);
        Executor::new().wide(false).run(async |w: &Warp<'_>| entry::odd_counts(w, i, c).await).unwrap();
        let first_warp = input.iter().take(32).filter(|&&x| x % 2 == 1).count() as u32;
        assert_eq!(cpu.1.to_vec(), [first_warp], "{n} inputs, one warp per lane");
    }
}

#[test]
fn derived_values_round_trip() {
    let k = derive::Key { bucket: 3, flag: true, weight: 0.5 };
    let back = derive::Key::from_bits(k.to_bits());
    assert_eq!((back.bucket, back.flag, back.weight), (3, true, 0.5));
    let p = derive::Particle([1.0, 2.0, 3.0], 9);
    let mut words = [0u32; 4];
    p.to_words(&mut words);
    assert_eq!(words, [1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits(), 9]);
}
