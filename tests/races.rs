//! The race detector through `#[warp_kernel]`: the pre-Volta warp-synchronous reduction is an
//! intra-warp hazard on sm_70+ and correct on sm_60, where lockstep execution orders the lanes;
//! its CUDA 9 fix with `__syncwarp()` runs clean everywhere.

use warpkit::prelude::*;

/// The last steps of a shared-memory reduction as cuda-samples wrote them before CUDA 9
/// (`warpReduce` on a `volatile` pointer): no barrier between the levels, the warp relied on
/// lockstep. `s` holds 64 values; lane `t` adds in `s[t + 32]`, then folds within the warp.
#[warp_kernel]
fn warp_reduce_volatile(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let s = w.shared_array::<u32, 64>();
    let t = w.lane_id() as usize;
    s.store_volatile(t, input.load(t));
    s.store_volatile(t + 32, input.load(t + 32));
    w.syncwarp();
    for offset in [32, 16, 8, 4, 2, 1] {
        let v = s.load_volatile(t).wrapping_add(s.load_volatile(t + offset));
        s.store_volatile(t, v);
    }
    if t == 0 {
        out.store(0, s.load_volatile(0));
    }
}

/// CUDA 9's fix: a `__syncwarp()` between each read and each write.
#[warp_kernel]
fn warp_reduce_synced(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let s = w.shared_array::<u32, 64>();
    let t = w.lane_id() as usize;
    s.store(t, input.load(t));
    s.store(t + 32, input.load(t + 32));
    w.syncwarp();
    for offset in [32, 16, 8, 4, 2, 1] {
        let v = s.load(t).wrapping_add(s.load(t + offset));
        w.syncwarp();
        s.store(t, v);
        w.syncwarp();
    }
    if t == 0 {
        out.store(0, s.load(0));
    }
}

fn data() -> Vec<u32> {
    (0..64u32).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect()
}

/// What the reduction computes on lockstep hardware: at each level every lane reads before any
/// lane writes. Lanes 32..63 of `s` are never written after the start.
fn lockstep_reference(d: &[u32]) -> u32 {
    let mut s = d.to_vec();
    for offset in [32, 16, 8, 4, 2, 1] {
        let next: Vec<u32> = (0..32).map(|t| s[t].wrapping_add(s[t + offset])).collect();
        s[..32].copy_from_slice(&next);
    }
    s[0]
}

fn run(target: Target, kernel: u8) -> Result<u32, WarpError> {
    let input = GlobalBuffer::from_slice(&data());
    let out = GlobalBuffer::<u32>::zeroed(1);
    let (x, o) = (input.slice(), out.slice());
    let exec = Executor::new().target(target).races(true);
    match kernel {
        0 => exec.run(async |w: &Warp<'_>| warp_reduce_volatile(w, x, o).await)?,
        _ => exec.run(async |w: &Warp<'_>| warp_reduce_synced(w, x, o).await)?,
    };
    Ok(out.to_vec()[0])
}

#[test]
fn the_warp_synchronous_idiom_is_an_intra_warp_hazard_on_volta_and_later() {
    for target in [Target::SM_70, Target::default()] {
        let err = run(target, 0).unwrap_err();
        let text = err.to_string();
        let WarpError::Race { races, .. } = &err else { panic!("{target}: {text}") };
        assert!(races.iter().all(|r| r.kind == warpkit::RaceKind::IntraWarp), "{text}");
        assert!(text.contains("__syncwarp()") && text.contains("CUDA 9"), "{text}");
    }
}

#[test]
fn lockstep_execution_orders_the_idiom_on_sm_6x() {
    // Every lane's access of a level before any lane's next one: the value lockstep hardware
    // computes, and no report.
    let got = run(Target::SM_60, 0).unwrap();
    assert_eq!(got, lockstep_reference(&data()));
    assert_eq!(got, data().iter().fold(0u32, |a, &v| a.wrapping_add(v)), "the sum of the 64 values");
}

#[test]
fn the_fix_with_syncwarp_runs_clean_on_every_target() {
    let want = lockstep_reference(&data());
    for target in [Target::SM_60, Target::SM_70, Target::default()] {
        assert_eq!(run(target, 1).unwrap(), want, "{target}");
    }
}
