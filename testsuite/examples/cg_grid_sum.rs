//! A fixed workload for counting instructions per warp of a grid launch with `valgrind
//! --tool=callgrind`: `cg_grid_sum sum|inline|copy LAUNCHES` launches an entry kernel LAUNCHES
//! times over 4,096 warps on one CPU thread, through its type (`run_cpu`). `sum` loads, sums the
//! warp's values (the `wide` bench's 5-step `shfl_down` sum, a call of a warp function) and
//! stores in one statement; `inline` is the same with the sum written in the entry (the
//! difference is what the call costs); `copy` only loads and stores, the floor under both. Run
//! it with 1 and with 3 launches: the difference of the two totals, divided by 2 and by 4,096,
//! is a warp's cost. `cargo build --release -p warpkit-testsuite --example cg_grid_sum`.
use warpkit::prelude::*;
use warpkit::{EntryKernel, GlobalBuffer};

#[path = "../benches/kernels/warp_sum.rs"]
mod kernels;
use kernels::warp_sum_entry;

/// `warp_sum_entry` with the sum written inline.
#[warp_kernel(entry)]
fn inline_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let mut v = input.load(i);
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_down(v, offset));
    }
    out.store(i, v);
}

/// `out[i]` = `input[i]`.
#[warp_kernel(entry)]
fn copy_entry(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, input.load(i));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (which, n) = match (args.next(), args.next().and_then(|n| n.parse::<usize>().ok())) {
        (Some(w), Some(n)) if w == "sum" || w == "copy" || w == "inline" => (w, n),
        _ => {
            eprintln!("usage: cg_grid_sum sum|inline|copy LAUNCHES");
            std::process::exit(2);
        }
    };
    let input: Vec<u32> = (0..32 * 4096u32).collect();
    let grid = Grid::new(input.len() as u64);
    let cpu = (GlobalBuffer::from_slice(&input), GlobalBuffer::<u32>::zeroed(input.len()));
    for _ in 0..n {
        if which == "sum" {
            warp_sum_entry::run_cpu(&grid, &cpu).unwrap();
        } else if which == "inline" {
            inline_entry::run_cpu(&grid, &cpu).unwrap();
        } else {
            copy_entry::run_cpu(&grid, &cpu).unwrap();
        }
    }
    println!("{}", cpu.1.to_vec()[5]);
}
