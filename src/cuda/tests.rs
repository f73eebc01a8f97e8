//! The GPU side's logic that needs no GPU: which module a device loads, the bitwise comparison and
//! its NaN rule, the report, the kernel-argument layout, and skipping without a GPU.

use super::*;
use crate::prelude::*;
use differential::Options;

/// An entry kernel of this crate, for its type.
#[warp_kernel(entry)]
pub fn sums(w: &Warp, x: GlobalSlice<'_, f32>, out: GlobalSlice<'_, f32>, count: GlobalSlice<'_, u32>, k: u32) {
    let i = w.global_id() as usize;
    if i < x.len() {
        out.store(i, x.load(i) + k as f32);
        count.atomic_add(0, 1);
    }
}

fn buffer(name: &'static str, param: usize, elem: Elem, bits: &[u64]) -> Buffer {
    Buffer { name, param, elem, bits: bits.to_vec() }
}

/// A device runs the highest target not above its own; `a` only on exactly its sm, `f` in its
/// family.
#[test]
fn a_device_loads_the_newest_module_it_runs() {
    let targets = ["sm_70", "sm_80", "sm_90", "sm_90a", "sm_100a", "sm_100f"];
    let pick = |device| best_module(device, targets.iter().copied()).map(|i| targets[i]);
    assert_eq!(pick(90), Some("sm_90a"));
    assert_eq!(pick(89), Some("sm_80"));
    assert_eq!(pick(100), Some("sm_100a"));
    assert_eq!(pick(103), Some("sm_100f"));
    assert_eq!(pick(120), Some("sm_90"));
    assert_eq!(pick(75), Some("sm_70"));
    assert_eq!(pick(61), None);
    assert_eq!(best_module(90, ["sm_80", "sm_100a"].into_iter()), Some(0));
}

/// `GlobalSlice<'_, T>` reaches a kernel as `#[repr(C)] { ptr: *mut T, len: usize }`: 16 bytes,
/// pointer first (the facade asserts the nvptx64 side's size in every PTX build).
#[test]
fn a_slice_argument_is_a_pointer_then_a_length() {
    assert_eq!(std::mem::size_of::<SliceArg>(), 16);
    assert_eq!(std::mem::align_of::<SliceArg>(), 8);
    let a = SliceArg { ptr: 0x1000, len: 7 };
    // SAFETY: two u64 in declaration order (repr(C)).
    let words: [u64; 2] = unsafe { std::mem::transmute(a) };
    assert_eq!(words, [0x1000, 7]);
}

#[test]
fn every_bit_counts_and_the_report_names_the_elements() {
    let cfg = LaunchConfig::threads(4);
    let gpu = [buffer("x", 0, Elem::F32, &[1, 2, 3, 4]), buffer("count", 2, Elem::U32, &[4])];
    let cpu = vec![buffer("x", 0, Elem::F32, &[1, 2, 3, 5]), buffer("count", 2, Elem::U32, &[4])];
    let c = compare("sums", "test device (sm_90)", &cfg, Target::SM_90, &gpu, Ok(cpu.clone()), &[]);
    assert!(!c.agrees());
    assert_eq!(c.buffers[0].differences, [Difference { index: 3, gpu: 4, cpu: 5 }]);
    assert!(c.buffers[1].differences.is_empty());
    let report = c.to_string();
    assert!(report.starts_with("`sums` on test device (sm_90), grid (1, 1, 1) x block (32, 1, 1), against the CPU runtime on sm_90: 1 of 2 buffers differ"), "{report}");
    assert!(report.contains("buffer `x` (parameter 0, f32, 4 elements): 1 elements differ\n    [3] GPU 0x00000004  CPU 0x00000005"), "{report}");

    let same = compare("sums", "d", &cfg, Target::SM_90, &cpu, Ok(cpu.clone()), &[]);
    assert!(same.agrees(), "{same}");
    same.assert_agrees();
}

/// Two NaNs agree only where a rule allows it, and never a NaN against a number.
#[test]
fn nan_payloads_agree_only_where_a_rule_says_so() {
    let cfg = LaunchConfig::threads(3);
    let (quiet, x86) = (0x7fff_ffff_u64, 0xffc0_0000_u64);
    let gpu = [buffer("out", 1, Elem::F32, &[quiet, quiet, quiet])];
    let cpu = vec![buffer("out", 1, Elem::F32, &[x86, x86, 0x3f80_0000])];
    let strict = compare("sums", "d", &cfg, Target::SM_90, &gpu, Ok(cpu.clone()), &[]);
    assert_eq!(strict.buffers[0].differences.len(), 3);
    let all = compare("sums", "d", &cfg, Target::SM_90, &gpu, Ok(cpu.clone()), &[(1, NanRule::All)]);
    assert_eq!(all.buffers[0].differences, [Difference { index: 2, gpu: quiet, cpu: 0x3f80_0000 }]);
    assert_eq!(all.nan_payloads(), 2);
    let even = compare("sums", "d", &cfg, Target::SM_90, &gpu, Ok(cpu.clone()), &[(1, NanRule::Where(|i| i % 2 == 0))]);
    assert_eq!(even.buffers[0].differences.iter().map(|d| d.index).collect::<Vec<_>>(), [1, 2]);
    // A rule for another parameter changes nothing here.
    let other = compare("sums", "d", &cfg, Target::SM_90, &gpu, Ok(cpu), &[(0, NanRule::All)]);
    assert_eq!(other.buffers[0].differences.len(), 3);
}

#[test]
fn a_shorter_buffer_differs_past_its_end_and_a_cpu_report_is_a_disagreement() {
    let cfg = LaunchConfig::threads(1);
    let gpu = [buffer("count", 2, Elem::U32, &[1, 2])];
    let cpu = vec![buffer("count", 2, Elem::U32, &[1])];
    let c = compare("sums", "d", &cfg, Target::SM_90, &gpu, Ok(cpu), &[]);
    assert_eq!(c.buffers[0].differences, [Difference { index: 1, gpu: 2, cpu: u64::MAX }]);

    let err = sums::run_host(&cfg, Target::SM_90, (vec![1.0], vec![], vec![0], 1)).unwrap_err();
    let c = compare("sums", "d", &cfg, Target::SM_90, &gpu, Err(err), &[]);
    assert!(!c.agrees());
    assert!(c.to_string().contains("the CPU runtime reported"), "{c}");
}

/// The rules name buffer parameters; a typo is caught, not ignored.
#[test]
#[should_panic(expected = "`sums` has no buffer parameter `outt`; its parameters are [\"x\", \"out\", \"count\", \"k\"]")]
fn a_rule_for_an_unknown_buffer_panics() {
    let rules = Options { target: None, nan: vec![("outt".into(), NanRule::All)] };
    differential::rules_for::<sums>(&rules);
}

#[test]
#[should_panic(expected = "`sums` has no buffer parameter `k`")]
fn a_rule_for_a_scalar_panics() {
    let rules = Options { target: None, nan: vec![("k".into(), NanRule::All)] };
    differential::rules_for::<sums>(&rules);
}

/// Without a driver the one-call comparison skips; with a GPU it loads from the PTX given, here
/// none, and says so.
#[test]
fn without_a_gpu_the_comparison_skips() {
    const NONE: &[(&str, &str)] = &[];
    let outcome = differential(NONE, LaunchConfig::threads(8)).run::<sums>((vec![0.0; 8], vec![0.0; 8], vec![0], 1));
    match Gpu::new() {
        Err(e) if e.is_no_gpu() => {
            assert!(matches!(outcome, Outcome::Skipped(CudaError::NoDriver | CudaError::NoDevice { .. })), "{outcome:?}");
            outcome.assert_agrees();
        }
        _ => assert!(matches!(outcome, Outcome::Failed(CudaError::NoModule { .. })), "{outcome:?}"),
    }
}

#[test]
fn the_no_driver_message_says_what_is_missing() {
    assert_eq!(
        CudaError::NoDriver.to_string(),
        "no CUDA driver found (libcuda.so could not be loaded): run this on a machine with an NVIDIA GPU and its driver"
    );
    let e = CudaError::NoModule { device: "sm_75".into(), built: vec!["sm_80".into(), "sm_90".into()] };
    assert_eq!(e.to_string(), "no PTX module runs on this sm_75 device: there is PTX for sm_80, sm_90; build for sm_75 or an older target");
}
