//! Cluster conformance (issue 16): launched with a cluster shape, on the GPU (sm_90) and in the
//! CPU runtime, every word of `d` compared.
//!
//! - `conf_cluster`: every thread records its cluster registers, an element of its right-hand
//!   neighbour's shared memory (`ld.shared::cluster`, `.u32` and `.u64`), the old value of an
//!   `atom.shared::cluster.exch` on the mirror block's array, and rank 0's thread 0 the cluster's
//!   `atom.shared::cluster.add` total, ordered by `barrier.cluster`.
//! - `conf_red_async`: a reduction across a cluster: every block but rank 0 sends its values to
//!   rank 0 with every `red.async` operation and type, one `st.async`, a remote `expect_tx` and
//!   `complete_tx`, and remote `mbarrier.arrive_drop` and `mbarrier.arrive` with counts,
//!   completing on rank 0's mbarriers; rank 0 records what arrived.
//! - `conf_pdl`: a programmatic dependent launch of two grids of this kernel (`phase` 0, the
//!   primary, then 1, the dependent, launched with programmatic stream serialization):
//!   `griddepcontrol.launch_dependents` before or after the primary's writes or not at all, by
//!   block, and the dependent's `griddepcontrol.wait` before it reads them.

use warpkit::prelude::*;

/// Words per thread of `conf_cluster`'s record.
pub const CLUSTER_WORDS: usize = 12;
/// Most threads per block of `conf_cluster` (its shared arrays).
pub const CLUSTER_MAX_BLOCK: usize = 256;
/// Words per cluster of `conf_red_async`'s record.
pub const RED_ASYNC_WORDS: usize = 20;

/// See the module docs: one record of `CLUSTER_WORDS` words per thread, at
/// `(block_rank * block_size + thread_rank) * CLUSTER_WORDS`.
#[warp_kernel(entry)]
pub fn conf_cluster(w: &Warp, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let mine = w.shared_array::<u32, CLUSTER_MAX_BLOCK>();
        let wide = w.shared_array::<u64, CLUSTER_MAX_BLOCK>();
        let slots = w.shared_array::<u32, CLUSTER_MAX_BLOCK>();
        let total = w.shared_array::<u32, 1>();
        let t = w.thread_rank() as usize;
        let n = w.block_size() as usize;
        let g = w.block_rank() as usize * n + t;
        let (rank, nrank) = (w.cluster_ctarank(), w.cluster_nctarank());
        let base = g * CLUSTER_WORDS;
        d.store(base, rank);
        d.store(base + 1, nrank);
        d.store(base + 2, pack(w.clusterid()));
        d.store(base + 3, pack(w.nclusterid()));
        d.store(base + 4, pack(w.cluster_ctaid()));
        d.store(base + 5, pack(w.cluster_nctaid()));
        d.store(base + 6, w.is_explicit_cluster() as u32);
        let v = x.load(g);
        mine.store(t, v);
        wide.store(t, (v as u64) << 32 | g as u64);
        slots.store(t, g as u32);
        if t == 0 {
            total.store(0, 0);
        }
        w.cluster_sync();
        let right = (rank + 1) % nrank;
        d.store(base + 7, mine.map_shared_rank(right).load(n - 1 - t));
        let wv = wide.map_shared_rank(right).load(t);
        d.store(base + 8, wv as u32);
        d.store(base + 9, (wv >> 32) as u32);
        // Each element of each block gets one exchange, from the mirror block's same thread.
        d.store(base + 10, slots.map_shared_rank(nrank - 1 - rank).atomic_exch(t, v));
        total.map_shared_rank(0).atomic_add(0, v);
        w.cluster_sync();
        d.store(base + 11, if rank == 0 && t == 0 { total.load(0) } else { 0 });
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (w.lane_id(), x, d);
    }
}

/// A `Dim3` of small coordinates in one word.
#[cfg_attr(all(target_arch = "nvptx64", not(target_feature = "sm_90")), allow(dead_code))]
fn pack(v: Dim3) -> u32 {
    v.x | v.y << 8 | v.z << 16
}

/// See the module docs: one warp per block; `RED_ASYNC_WORDS` words per cluster at
/// `clusterid.x * RED_ASYNC_WORDS` (clusters are one-dimensional here).
#[warp_kernel(entry)]
pub fn conf_red_async(w: &Warp, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let acc = w.shared_array::<u32, 7>();
        let acc_i = w.shared_array::<i32, 3>();
        let acc_w = w.shared_array::<u64, 1>();
        let slots = w.shared_array::<u32, 8>();
        let bar = w.shared_array::<u64, 2>();
        let (l, rank, n) = (w.lane_id(), w.cluster_ctarank(), w.cluster_nctarank());
        let xb = w.block_rank() as usize * 8;
        if rank == 0 && l == 0 {
            acc.store(0, x.load(xb + 0));
            acc.store(1, u32::MAX);
            acc.store(2, 0);
            acc.store(3, u32::MAX);
            acc.store(4, 0);
            acc.store(5, x.load(xb + 5));
            acc.store(6, 0);
            acc_i.store(0, x.load(xb + 1) as i32);
            acc_i.store(1, i32::MAX);
            acc_i.store(2, i32::MIN);
            acc_w.store(0, x.load(xb + 2) as u64);
            slots.store(0, x.load(xb + 3));
            // Each other block sends 7 + 3 words, one u64 and one st.async word: 52 bytes.
            // Rank 0's arrival and one `arrive.expect_tx` of each other block.
            bar.mbarrier_init(0, n);
            bar.mbarrier_arrive_expect_tx(0, 52 * (n - 1));
            // Rank 0 arrives once; each other block with 1 (arrive), 1 (arrive_drop) and 2.
            bar.mbarrier_init(1, 1 + 4 * (n - 1));
            bar.mbarrier_arrive(1);
        }
        w.cluster_sync();
        if rank != 0 && l == 0 {
            let (a, ai, aw, s, b) = (acc.map_shared_rank(0), acc_i.map_shared_rank(0), acc_w.map_shared_rank(0), slots.map_shared_rank(0), bar.map_shared_rank(0));
            a.red_async_add(0, x.load(xb + 0), b, 0);
            a.red_async_min(1, x.load(xb + 1), b, 0);
            a.red_async_max(2, x.load(xb + 2), b, 0);
            a.red_async_and(3, x.load(xb + 3) | x.load(xb + 4), b, 0);
            a.red_async_or(4, x.load(xb + 4) & x.load(xb + 5), b, 0);
            a.red_async_xor(5, x.load(xb + 5), b, 0);
            a.red_async_inc(6, 1000, b, 0);
            ai.red_async_add(0, x.load(xb + 1) as i32, b, 0);
            ai.red_async_min(1, x.load(xb + 6) as i32, b, 0);
            ai.red_async_max(2, x.load(xb + 7) as i32, b, 0);
            aw.red_async_add(0, (x.load(xb + 6) as u64) << 24 | x.load(xb + 7) as u64, b, 0);
            s.st_async(rank as usize, x.load(xb + 3), b, 0);
            // Remote expect-tx and complete-tx pairs of 4 bytes: no change to what completes.
            b.mbarrier_expect_tx_cluster(0, 4);
            b.mbarrier_complete_tx_cluster(0, 4);
            b.mbarrier_arrive_expect_tx_cluster(0, 4);
            b.mbarrier_complete_tx_cluster(0, 4);
            b.mbarrier_arrive_cluster(1);
            b.mbarrier_arrive_drop_cluster_with(1, 1, ArriveSem::Release, MbarScope::Cluster);
            b.mbarrier_arrive_cluster_with(1, 2, if rank % 2 == 0 { ArriveSem::Relaxed } else { ArriveSem::Release }, MbarScope::Cluster);
        }
        if rank == 0 && l == 0 {
            while !bar.mbarrier_try_wait_parity_with(0, 0, WaitSem::Acquire, MbarScope::Cluster) {}
            while !bar.mbarrier_try_wait_parity_with(1, 0, WaitSem::Acquire, MbarScope::Cluster) {}
            let base = w.clusterid().x as usize * RED_ASYNC_WORDS;
            let mut k = 0;
            while k < 7 {
                d.store(base + k, acc.load(k));
                k += 1;
            }
            k = 0;
            while k < 3 {
                d.store(base + 7 + k, acc_i.load(k) as u32);
                k += 1;
            }
            let wv = acc_w.load(0);
            d.store(base + 10, wv as u32);
            d.store(base + 11, (wv >> 32) as u32);
            k = 0;
            while k < n as usize {
                d.store(base + 12 + k, slots.load(k));
                k += 1;
            }
        }
        w.cluster_sync();
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (w.lane_id(), x, d);
    }
}

/// See the module docs: `a[i] = x[i] * 3 ^ i` (primary), then `b[i] = a[n - 1 - i] + x[i]`
/// (dependent), for `i < n = x.len()`.
#[warp_kernel(entry)]
pub fn conf_pdl(w: &Warp, phase: u32, x: GlobalSlice<'_, u32>, a: GlobalSlice<'_, u32>, b: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let (i, n) = (w.global_id() as usize, x.len());
        if phase == 0 {
            let block = w.ctaid().x;
            if block % 2 == 1 {
                w.griddepcontrol_launch_dependents();
            }
            if i < n {
                a.store(i, x.load(i).wrapping_mul(3) ^ i as u32);
            }
            if block % 4 == 0 {
                w.griddepcontrol_launch_dependents();
            }
        } else {
            let own = if i < n { x.load(i) } else { 0 };
            w.griddepcontrol_wait();
            if i < n {
                b.store(i, a.load(n - 1 - i).wrapping_add(own));
            }
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (w.lane_id(), phase, x, a, b);
    }
}

/// `tensormap.cp_fenceproxy` (sm_90): each warp fills 32 words of shared memory from `x`, then
/// copies them (128 bytes) to its slot of `d` with the fused copy and proxy release fence, at
/// a scope that depends on the warp; after a barrier, each thread records a word another warp's
/// copy wrote.
#[warp_kernel(entry)]
pub fn conf_tensormap(w: &Warp, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>, e: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let s = w.shared_array::<u32, 1024>();
        let (t, wi, l) = (w.thread_rank() as usize, w.warp_in_block() as usize, w.lane_id() as usize);
        let warps = w.block_size() as usize / 32;
        let base = w.block_rank() as usize * warps * 32;
        s.store(t, x.load(base + t));
        w.syncwarp();
        let scope = match wi % 4 {
            0 => Scope::Cta,
            1 => Scope::Cluster,
            2 => Scope::Gpu,
            _ => Scope::Sys,
        };
        w.tensormap_cp_fenceproxy(d, base + wi * 32, s, wi * 32, scope);
        w.sync_threads();
        e.store(base + t, d.load(base + ((wi + 1) % warps) * 32 + (31 - l)));
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, d, e);
        w.sync_threads();
    }
}

/// `clusterlaunchcontrol` (sm_100; the multicast form sm_100a): a persistent kernel that does
/// its own block's work (`done[block] += 1`), then cancels clusters that have not started and
/// does theirs until a request fails. Built and checked by ptxas for sm_100a; the H100 (sm_90)
/// cannot run it, so it is compared on the CPU only (`warp-runtime/tests/cluster.rs`).
#[warp_kernel(entry)]
pub fn conf_cluster_cancel(w: &Warp, multicast: u32, done: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
    {
        let resp = w.shared_array::<u128, 1>();
        let bar = w.shared_array::<u64, 1>();
        let l = w.lane_id();
        if l == 0 {
            bar.mbarrier_init(0, 1);
        }
        w.cluster_sync();
        let mut block = w.ctaid().x;
        let mut phase = 0;
        loop {
            if l == 0 {
                done.atomic_add(block as usize, 1);
                bar.mbarrier_arrive_expect_tx(0, 16);
                if multicast == 0 {
                    resp.clusterlaunchcontrol_try_cancel(0, bar, 0);
                } else if w.cluster_ctarank() == 0 {
                    try_cancel_multicast(resp, bar);
                }
                while !bar.mbarrier_try_wait_parity_with(0, phase, WaitSem::Acquire, MbarScope::Cluster) {}
            }
            phase ^= 1;
            let mine = if l == 0 { resp.load(0) } else { 0 };
            let r = w.shfl_idx(mine as u64, 0) as u128 | (w.shfl_idx((mine >> 64) as u64, 0) as u128) << 64;
            if !warpkit::query_cancel_is_canceled(r) {
                break;
            }
            block = warpkit::query_cancel_first_ctaid(r).x + w.cluster_ctarank();
            w.cluster_sync();
        }
        w.cluster_sync();
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_100")))]
    {
        let _ = (w.lane_id(), multicast, done);
    }
}

/// The multicast request (sm_100a; on sm_100 without `a`, the unicast one).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
fn try_cancel_multicast(resp: SharedSlice<'_, u128>, bar: SharedSlice<'_, u64>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100a"))]
    {
        let _ = resp.clusterlaunchcontrol_try_cancel_multicast(0, bar, 0);
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_100a")))]
    {
        resp.clusterlaunchcontrol_try_cancel(0, bar, 0);
    }
}
