//! Loads and stores with memory semantics, and fences (issue 14): every form, in global and
//! shared memory, 4- and 8-byte, from every thread. Each thread moves its own values through its
//! own slots, so the outputs do not depend on the order threads run in: the GPU and the CPU
//! runtime must agree on every word, and `cargo xtask ptx` checks that each form is in the PTX.
//! The forms a target lacks (`.cluster` below sm_90, the PTX 7.5/8.3/8.6 fences) are left out of
//! the GPU build by `cfg`; the host runs them all (its target is sm_90 or later here).

use warpkit::prelude::*;
use warpkit::FenceSem;

/// Slots per thread in `g`: one per store form.
pub const ORDERED_SLOTS: usize = 16;

/// Thread `t` stores `x[t] + k` with the `k`-th store form into `g[16t + k]` (u32) and
/// `wide[t] ^ k` into `g64[16t + k]` (u64), reads every slot back with a load form, and writes
/// the loads' wrapping sum to `d[2t]` (u32 forms) and `d[2t + 1]` (u64 forms). The same through
/// shared memory into `d[2n + 2t]`, `d[2n + 2t + 1]`. Fences of every kind sit between.
#[warp_kernel(entry)]
pub fn conf_ordered(
    w: &Warp,
    x: GlobalSlice<'_, u32>,
    wide: GlobalSlice<'_, u64>,
    g: GlobalSlice<'_, u32>,
    g64: GlobalSlice<'_, u64>,
    d: GlobalSlice<'_, u64>,
) {
    let s = w.shared_array::<u32, { 256 * 16 }>();
    let s64 = w.shared_array::<u64, { 256 * 8 }>();
    let n = x.len();
    let r = w.thread_rank() as usize;
    let t = w.block_rank() as usize * w.block_size() as usize + r;
    if t >= n || r >= 256 {
        return;
    }
    let (v, v64) = (x.load(t), wide.load(t));
    let b = ORDERED_SLOTS * t;
    g.store_relaxed(b, v, Scope::Cta);
    g.store_relaxed(b + 1, v.wrapping_add(1), Scope::Gpu);
    g.store_relaxed(b + 2, v.wrapping_add(2), Scope::Sys);
    g.store_release(b + 3, v.wrapping_add(3), Scope::Cta);
    g.store_release(b + 4, v.wrapping_add(4), Scope::Gpu);
    g.store_release(b + 5, v.wrapping_add(5), Scope::Sys);
    g.store_volatile(b + 6, v.wrapping_add(6));
    g64.store_relaxed(b, v64, Scope::Cta);
    g64.store_release(b + 1, v64 ^ 1, Scope::Gpu);
    g64.store_volatile(b + 2, v64 ^ 2);
    w.fence_sc(Scope::Cta);
    w.fence_sc(Scope::Gpu);
    w.fence_sc(Scope::Sys);
    w.fence_acq_rel(Scope::Cta);
    w.fence_acq_rel(Scope::Gpu);
    w.fence_acq_rel(Scope::Sys);
    w.membar_cta();
    w.membar_gl();
    w.membar_sys();
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "ptx75"))]
    {
        w.fence_proxy_alias();
        w.membar_proxy_alias();
    }
    w.fence(FenceSem::AcqRel, Scope::Gpu);
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        g.store_relaxed(b + 7, v.wrapping_add(7), Scope::Cluster);
        g.store_release(b + 8, v.wrapping_add(8), Scope::Cluster);
        w.fence_sc(Scope::Cluster);
        w.fence_acq_rel(Scope::Cluster);
        w.fence_proxy_async();
        w.fence_proxy_async_global();
        w.fence_proxy_async_shared_cta();
        w.fence_proxy_async_shared_cluster();
        w.fence_mbarrier_init_release_cluster();
    }
    #[cfg(any(not(target_arch = "nvptx64"), all(target_feature = "sm_90", target_feature = "ptx83")))]
    w.fence_proxy_tensormap_release_gpu();
    #[cfg(any(not(target_arch = "nvptx64"), all(target_feature = "sm_90", target_feature = "ptx86")))]
    {
        w.fence(FenceSem::Acquire, Scope::Gpu);
        w.fence(FenceSem::Release, Scope::Cta);
    }
    let mut sum = g.load_relaxed(b, Scope::Cta);
    sum = sum.wrapping_add(g.load_relaxed(b + 1, Scope::Gpu));
    sum = sum.wrapping_add(g.load_relaxed(b + 2, Scope::Sys));
    sum = sum.wrapping_add(g.load_acquire(b + 3, Scope::Cta));
    sum = sum.wrapping_add(g.load_acquire(b + 4, Scope::Gpu));
    sum = sum.wrapping_add(g.load_acquire(b + 5, Scope::Sys));
    sum = sum.wrapping_add(g.load_volatile(b + 6));
    let mut sum64 = g64.load_relaxed(b, Scope::Gpu);
    sum64 = sum64.wrapping_add(g64.load_acquire(b + 1, Scope::Sys));
    sum64 = sum64.wrapping_add(g64.load_volatile(b + 2));
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        sum = sum.wrapping_add(g.load_relaxed(b + 7, Scope::Cluster));
        sum = sum.wrapping_add(g.load_acquire(b + 8, Scope::Cluster));
    }
    d.store(2 * t, sum as u64);
    d.store(2 * t + 1, sum64);

    // Shared memory: this thread's 16 words and 8 double words.
    let (sb, sb64) = (16 * r, 8 * r);
    s.store_relaxed(sb, v, Scope::Cta);
    s.store_relaxed(sb + 1, v.wrapping_add(1), Scope::Gpu);
    s.store_release(sb + 2, v.wrapping_add(2), Scope::Cta);
    s.store_release(sb + 3, v.wrapping_add(3), Scope::Sys);
    s.store_volatile(sb + 4, v.wrapping_add(4));
    s64.store_relaxed(sb64, v64, Scope::Sys);
    s64.store_release(sb64 + 1, v64 ^ 1, Scope::Cta);
    s64.store_volatile(sb64 + 2, v64 ^ 2);
    w.threadfence_block();
    let mut sum = s.load_relaxed(sb, Scope::Cta);
    sum = sum.wrapping_add(s.load_relaxed(sb + 1, Scope::Gpu));
    sum = sum.wrapping_add(s.load_acquire(sb + 2, Scope::Cta));
    sum = sum.wrapping_add(s.load_acquire(sb + 3, Scope::Sys));
    sum = sum.wrapping_add(s.load_volatile(sb + 4));
    let mut sum64 = s64.load_acquire(sb64, Scope::Gpu);
    sum64 = sum64.wrapping_add(s64.load_relaxed(sb64 + 1, Scope::Cta));
    sum64 = sum64.wrapping_add(s64.load_volatile(sb64 + 2));
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        s.store_release(sb + 5, v.wrapping_add(5), Scope::Cluster);
        sum = sum.wrapping_add(s.load_acquire(sb + 5, Scope::Cluster));
    }
    d.store(2 * n + 2 * t, sum as u64);
    d.store(2 * n + 2 * t + 1, sum64);
}
