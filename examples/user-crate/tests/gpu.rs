//! The kernels on the CPU runtime against plain Rust, and on the GPU against the CPU runtime
//! (skipped, with a message, on a machine without a GPU).

use my_kernels::{prefix_sums, ptx, warp_sums};
use warpkit::cuda::{differential, LaunchConfig};
use warpkit::{EntryKernel, Target};

fn inputs(n: u32) -> Vec<u32> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect()
}

#[test]
fn warp_sums_on_the_cpu_runtime() {
    let x = inputs(1000);
    let out = warp_sums::run_host(&LaunchConfig::threads(1000), Target::SM_80, (x.clone(), vec![0; 1000])).unwrap();
    let got = out[1].to_vec::<u32>();
    for (i, g) in got.iter().enumerate() {
        let warp = &x[i / 32 * 32..(i / 32 * 32 + 32).min(x.len())];
        assert_eq!(*g, warp.iter().fold(0u32, |a, &b| a.wrapping_add(b)), "thread {i}");
    }
}

#[test]
fn warp_sums_on_the_gpu_equal_the_cpu_runtime() {
    differential(ptx::ALL, LaunchConfig::threads(1000)).run::<warp_sums>((inputs(1000), vec![0; 1000])).assert_agrees();
}

#[test]
fn prefix_sums_on_the_gpu_equal_the_cpu_runtime() {
    let mut x: Vec<f32> = inputs(777).iter().map(|&v| (v % 1000) as f32 / 8.0 - 60.0).collect();
    x[5] = f32::INFINITY;
    x[6] = f32::NEG_INFINITY; // inf + -inf: a NaN whose payload x86 and the GPU choose differently
    differential(ptx::ALL, LaunchConfig::threads(777))
        .nan_payloads_may_differ("out")
        .run::<prefix_sums>((x, vec![0.0; 777], 0.5))
        .assert_agrees();
}

#[test]
fn the_ptx_has_both_targets() {
    let targets: Vec<&str> = ptx::ALL.iter().map(|(sm, _)| *sm).collect();
    assert_eq!(targets, ["sm_80", "sm_90"]);
    assert!(ptx::SM_90.contains(".visible .entry warp_sums(") && ptx::SM_90.contains("redux.sync.add.u32"));
    assert!(ptx::SM_80.contains(".visible .entry prefix_sums(") && ptx::SM_80.contains("shfl.sync.up.b32"));
}
