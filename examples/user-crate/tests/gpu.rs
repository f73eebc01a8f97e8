//! The kernels on the CPU runtime against plain Rust, and on the GPU against the CPU runtime
//! (skipped, with a message, on a machine without a GPU).

use my_kernels::{argmax, prefix_sums, ptx, shift_samples, warp_sums};
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
fn argmax_on_the_cpu_runtime() {
    let x: Vec<f32> = inputs(100).iter().map(|&v| (v % 50) as f32).collect();
    // 100 values, 128 threads: whole warps, the last one padded.
    let out = argmax::run_host(&LaunchConfig::threads(128), Target::SM_80, (x.clone(), vec![0.0; 100], vec![0; 100])).unwrap();
    let (max, at) = (out[1].to_vec::<f32>(), out[2].to_vec::<u32>());
    for i in 0..100 {
        let warp = i / 32 * 32..(i / 32 * 32 + 32).min(100);
        let m = x[warp.clone()].iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let first = warp.clone().find(|&j| x[j] == m).unwrap();
        assert_eq!((max[i], at[i]), (m, first as u32), "thread {i}");
    }
}

/// In a partial warp the butterfly reads lanes that were never launched: the CPU runtime says so.
#[test]
fn argmax_in_a_partial_warp_is_reported() {
    let err = argmax::run_host(&LaunchConfig::threads(100), Target::SM_80, (vec![1.0; 100], vec![0.0; 100], vec![0; 100])).unwrap_err();
    assert!(err.to_string().contains("never launched"), "{err}");
}

#[test]
fn argmax_on_the_gpu_equals_the_cpu_runtime() {
    let x: Vec<f32> = inputs(1000).iter().map(|&v| (v % 300) as f32 - 150.0).collect();
    differential(ptx::ALL, LaunchConfig::threads(1024)).run::<argmax>((x, vec![0.0; 1000], vec![0; 1000])).assert_agrees();
}

#[test]
fn shift_samples_on_the_cpu_runtime() {
    let pos: Vec<f32> = (0..96 * 3).map(|k| k as f32 * 0.5).collect();
    let ids: Vec<u32> = (0..96).map(|i| 1000 + i).collect();
    let out = shift_samples::run_host(&LaunchConfig::threads(96), Target::SM_90, (pos.clone(), ids.clone(), 3)).unwrap();
    let (p, d) = (out[0].to_vec::<f32>(), out[1].to_vec::<u32>());
    for i in 0..96 {
        let src = if i % 32 < 3 { i } else { i - 3 };
        assert_eq!(d[i], ids[src], "thread {i}");
        assert_eq!(p[3 * i..3 * i + 3], pos[3 * src..3 * src + 3], "thread {i}");
    }
}

#[test]
fn shift_samples_on_the_gpu_equal_the_cpu_runtime() {
    let pos: Vec<f32> = inputs(640 * 3).iter().map(|&v| v as f32 / 7.0).collect();
    differential(ptx::ALL, LaunchConfig::threads(640)).run::<shift_samples>((pos, inputs(640), 5)).assert_agrees();
}

#[test]
fn the_ptx_has_both_targets() {
    if option_env!("WARPKIT_SKIP_PTX").is_some_and(|v| !v.is_empty() && v != "0") {
        return; // built without PTX on purpose
    }
    let targets: Vec<&str> = ptx::ALL.iter().map(|(sm, _)| *sm).collect();
    assert_eq!(targets, ["sm_80", "sm_90"]);
    assert!(ptx::SM_90.contains(".visible .entry warp_sums(") && ptx::SM_90.contains("redux.sync.add.u32"));
    assert!(ptx::SM_80.contains(".visible .entry prefix_sums(") && ptx::SM_80.contains("shfl.sync.up.b32"));
    assert!(ptx::SM_80.contains(".visible .entry argmax(") && ptx::SM_80.contains(".visible .entry shift_samples("));
}
