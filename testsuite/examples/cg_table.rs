//! Fixed workloads of the example table's rows, for counting instructions per element with
//! `valgrind --tool=callgrind` (repeatable, unlike wall time on a shared machine):
//! `cg_table ROW LAUNCHES` launches the row's kernel LAUNCHES times over 512 warps on one CPU
//! thread, then prints the elements of one launch. Run it with 1 and with 3 launches; the
//! difference of the two totals, divided by 2 and by the elements, is the row's cost per element
//! without the process's start and the data's set-up. `cargo build --release -p
//! warpkit-testsuite --example cg_table`.
//!
//! Rows: `compact` (`compact_grid` through a closure, as the table launches it), `compact-entry`
//! (`compact_grid_entry` through its type), `compact-lane` (the closure with warp-wide forms
//! off: the per-lane executor), `reduce` (`reduce_u32_entry`), `scan` (`scan_u32_entry`),
//! `segmented` (`segmented_sum_u32_entry`, a head every 5th value on average), `bitonic`
//! (`sort_u32_entry`),
//! `search` (`find_first_entry`, on
//! the table's search data: elements are those a sequential search examines).
use warpkit::prelude::*;
use warpkit::{EntryKernel, GlobalBuffer};

#[allow(dead_code)]
#[path = "../../examples/compact.rs"]
mod compact;
#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code)]
#[path = "../../examples/search.rs"]
mod search;
#[allow(dead_code)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;

const N: usize = 16_384;

fn main() {
    let mut args = std::env::args().skip(1);
    let (row, launches) = match (args.next(), args.next().and_then(|n| n.parse::<usize>().ok())) {
        (Some(row), Some(n)) => (row, n),
        _ => {
            eprintln!("usage: cg_table compact|compact-entry|compact-lane|reduce|scan|segmented|bitonic|search LAUNCHES");
            std::process::exit(2);
        }
    };
    let data: Vec<u32> = (0..N as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let elements = match row.as_str() {
        "compact" | "compact-entry" | "compact-lane" => {
            let grid = match row.as_str() {
                "compact-lane" => Grid::new(N as u64).executor(Executor::new().wide(false)),
                _ => Grid::new(N as u64),
            };
            let limit = u32::MAX / 3;
            let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(N), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(N), limit);
            let (i, o, n) = (cpu.0.slice(), cpu.1.slice(), cpu.2.slice());
            let kernel = async |w: &Warp<'_>| {
                compact::compact_grid(w, i, o, n, limit).await;
            };
            for _ in 0..launches {
                n.store(0, 0);
                match row.as_str() {
                    "compact-entry" => compact::compact_grid_entry::run_cpu(&grid, &cpu).unwrap(),
                    _ => grid.run(&kernel).unwrap(),
                };
            }
            N
        }
        "reduce" => {
            let grid = Grid::new(N as u64);
            let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(6 * N));
            for _ in 0..launches {
                reduce::reduce_u32_entry::run_cpu(&grid, &cpu).unwrap();
            }
            N
        }
        "scan" => {
            let grid = Grid::new(N as u64);
            let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(6 * N));
            for _ in 0..launches {
                scan::scan_u32_entry::run_cpu(&grid, &cpu).unwrap();
            }
            N
        }
        "segmented" => {
            let grid = Grid::new(N as u64);
            let heads: Vec<u32> = data.iter().map(|x| (x % 5 == 0) as u32).collect();
            let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::from_slice(&heads), GlobalBuffer::<u32>::zeroed(2 * N));
            for _ in 0..launches {
                segmented_reduce::segmented_sum_u32_entry::run_cpu(&grid, &cpu).unwrap();
            }
            N
        }
        "bitonic" => {
            let grid = Grid::new(N as u64);
            let cpu = (GlobalBuffer::from_slice(&data), GlobalBuffer::<u32>::zeroed(N));
            for _ in 0..launches {
                bitonic_sort::sort_u32_entry::run_cpu(&grid, &cpu).unwrap();
            }
            N
        }
        "search" => {
            // 64 warps each search 4,096 values for a target of their own; every 8th is absent.
            let values: Vec<u32> = data[..4096].iter().map(|x| x % 8192).collect();
            let targets: Vec<u32> = (0..64u32).map(|k| if k % 8 == 7 { 9000 } else { values[(k.wrapping_mul(40_503) % 4096) as usize] }).collect();
            let cpu = (GlobalBuffer::from_slice(&values), GlobalBuffer::from_slice(&targets), GlobalBuffer::from_slice(&[u32::MAX; 64]), GlobalBuffer::<u32>::zeroed(2 * 32 * 64));
            let grid = Grid::new(32 * 64);
            for _ in 0..launches {
                search::find_first_entry::run_cpu(&grid, &cpu).unwrap();
            }
            targets.iter().map(|&t| values.iter().position(|&x| x == t).map_or(values.len(), |p| p + 1)).sum()
        }
        _ => {
            eprintln!("cg_table: no row `{row}`");
            std::process::exit(2);
        }
    };
    println!("elements {elements}");
}
