//! Thread block clusters on the CPU (9.7.13.3, 9.7.13.7, 9.7.13.15.13): the cluster registers
//! against their definitions written out, `barrier.cluster`, distributed shared memory, remote
//! mbarrier arrivals, `red.async` and `st.async` against sequential Rust, the race detector on
//! distributed shared memory, and each misuse reported with its rule.

use warp_runtime::{ClusterRule, Dim3, Executor, GlobalBuffer, Grid, LaneFault, MbarScope, Target, WaitSem, Warp, WarpError};

fn sm90() -> Executor {
    Executor::new().target(Target::SM_90)
}

fn cluster_fault(err: &WarpError) -> (ClusterRule, String) {
    match err {
        WarpError::Memory { fault: LaneFault::Cluster { rule, detail, .. }, .. } => (*rule, detail.clone()),
        other => panic!("expected a cluster report, got: {other}"),
    }
}

#[test]
fn the_cluster_registers_follow_their_definitions_in_three_dimensions() {
    // %clusterid = %ctaid / cluster dims, %cluster_ctaid = %ctaid % cluster dims, the rank x
    // fastest, written out per dimension.
    let (grid, cluster) = (Dim3::new(4, 6, 2), Dim3::new(2, 3, 1));
    let out = Grid::blocks(grid, 32)
        .cluster(cluster)
        .executor(sm90())
        .map(async |w: &Warp<'_>| {
            (w.ctaid(), w.clusterid(), w.nclusterid(), w.cluster_ctaid(), w.cluster_nctaid(), w.cluster_ctarank(), w.cluster_nctarank(), w.is_explicit_cluster())
        })
        .unwrap();
    for (i, (ctaid, cid, ncid, cctaid, cn, rank, nrank, explicit)) in out.into_iter().enumerate() {
        let b = i / 32;
        let expect_ctaid = Dim3::new(b as u32 % 4, b as u32 / 4 % 6, b as u32 / 24);
        assert_eq!(ctaid, expect_ctaid);
        assert_eq!(cid, Dim3::new(ctaid.x / 2, ctaid.y / 3, ctaid.z));
        assert_eq!(ncid, Dim3::new(2, 2, 2));
        assert_eq!(cctaid, Dim3::new(ctaid.x % 2, ctaid.y % 3, 0));
        assert_eq!(cn, cluster);
        assert_eq!(rank, cctaid.x + 2 * cctaid.y);
        assert_eq!(nrank, 6);
        assert!(explicit);
    }
    // Without a cluster shape every block is its own cluster of one.
    let out = Grid::blocks(3, 32).map(async |w: &Warp<'_>| (w.cluster_ctarank(), w.cluster_nctarank(), w.clusterid().x, w.is_explicit_cluster())).unwrap();
    assert_eq!(out[64], (0, 1, 2, false));
}

#[test]
fn launch_shapes_that_a_gpu_refuses_are_errors() {
    let k = async |_: &Warp<'_>| {};
    let err = |g: Grid| match g.run(k) {
        Err(WarpError::Launch { what }) => what,
        other => panic!("expected a launch error, got {other:?}"),
    };
    assert!(err(Grid::blocks(6, 32).cluster(4).executor(sm90())).contains("not a whole number of clusters"));
    assert!(err(Grid::blocks(16, 32).cluster(16).executor(sm90())).contains("1 to 8 blocks"));
    assert!(err(Grid::blocks(4, 32).cluster(2).executor(Executor::new().target(Target::SM_80))).contains("need sm_90"));
}

/// Each block writes `rank * 100 + t` into its array; after the cluster barrier every thread
/// reads its right-hand neighbour's element `t` through distributed shared memory.
#[test]
fn a_ring_exchange_through_distributed_shared_memory_is_clean_and_exact() {
    for cpu in [1, 2] {
        let out = GlobalBuffer::<u32>::zeroed(8 * 64);
        let o = out.slice();
        Grid::blocks(8, 64)
            .cluster(4)
            .cpu_threads(cpu)
            .executor(sm90().races(true))
            .run(async |w: &Warp<'_>| {
                let mine = w.shared_array::<u32, 64>();
                let (t, rank, n) = (w.thread_rank() as usize, w.cluster_ctarank(), w.cluster_nctarank());
                mine.store(t, rank * 100 + t as u32);
                w.cluster_sync().await;
                let right = mine.map_shared_rank((rank + 1) % n);
                o.store(w.block_rank() as usize * 64 + t, right.load(63 - t));
                w.cluster_sync().await;
            })
            .unwrap();
        let got = out.to_vec();
        for b in 0..8 {
            for t in 0..64 {
                let right = (b % 4 + 1) % 4;
                assert_eq!(got[b * 64 + t], right as u32 * 100 + (63 - t) as u32, "block {b} thread {t} on {cpu} CPU threads");
            }
        }
    }
}

#[test]
fn a_split_arrive_and_wait_orders_the_writes_before_the_arrival() {
    // barrier.cluster.arrive (release) ... barrier.cluster.wait (acquire), with independent work
    // between them, twice: the second phase reuses the barrier.
    let out = GlobalBuffer::<u32>::zeroed(2 * 32);
    let o = out.slice();
    Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 32>();
            let (l, rank) = (w.lane_id() as usize, w.cluster_ctarank());
            let other = a.map_shared_rank(1 - rank);
            let mut acc = 0;
            for round in 0..2u32 {
                a.store(l, round * 10 + rank);
                w.barrier_cluster_arrive_aligned().await;
                acc += l as u32; // work between arrive and wait
                w.barrier_cluster_wait_aligned().await;
                acc += other.load(l);
                w.cluster_sync().await; // before the next round overwrites what the peer reads
            }
            o.store(w.block_rank() as usize * 32 + l, acc);
        })
        .unwrap();
    let got = out.to_vec();
    for rank in 0..2usize {
        for l in 0..32usize {
            let other = 1 - rank as u32;
            assert_eq!(got[rank * 32 + l], 2 * l as u32 + other + (10 + other));
        }
    }
}

#[test]
fn reading_a_peer_without_the_cluster_barrier_is_a_race_naming_both_blocks() {
    let err = Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 32>();
            let (l, rank) = (w.lane_id() as usize, w.cluster_ctarank());
            a.store(l, rank);
            w.cluster_sync().await;
            a.store(l, rank + 10);
            let _ = a.map_shared_rank(1 - rank).load(l); // no cluster_sync after the peer's store
            w.cluster_sync().await;
        })
        .unwrap_err();
    let WarpError::Race { races, .. } = &err else { panic!("expected a race, got {err}") };
    let text = err.to_string();
    assert!(!races.is_empty());
    assert!(text.contains("ld.shared::cluster") && text.contains("st.shared"), "{text}");
    assert!(races.iter().any(|r| r.first.block != r.second.block), "{text}");
}

#[test]
fn a_relaxed_arrival_does_not_order_the_writes_before_it() {
    let err = Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 32>();
            let (l, rank) = (w.lane_id() as usize, w.cluster_ctarank());
            a.store(l, rank);
            w.barrier_cluster_arrive_relaxed().await;
            w.barrier_cluster_wait().await;
            let _ = a.map_shared_rank(1 - rank).load(l);
            w.cluster_sync().await;
        })
        .unwrap_err();
    assert!(matches!(err, WarpError::Race { .. }), "{err}");
}

#[test]
fn reading_a_block_that_has_exited_is_reported() {
    // No cluster_sync after the reads: block 0 exits, and block 3 then reads its memory.
    let err = Grid::blocks(4, 32)
        .cluster(4)
        .executor(sm90())
        .run(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 32>();
            let (l, rank) = (w.lane_id() as usize, w.cluster_ctarank());
            a.store(l, rank);
            w.cluster_sync().await;
            let _ = a.map_shared_rank((rank + 1) % 4).load(l);
        })
        .unwrap_err();
    let (rule, detail) = cluster_fault(&err);
    assert_eq!(rule, ClusterRule::PeerExited);
    assert!(detail.contains("has exited"), "{detail}");
}

#[test]
fn barrier_cluster_misuse_is_reported_with_its_rule() {
    let run = |k: &(dyn Fn(u32) -> u32 + Sync)| {
        Grid::blocks(2, 32)
            .cluster(2)
            .executor(sm90())
            .run(async |w: &Warp<'_>| {
                let case = k(w.lane_id());
                if case == 1 {
                    w.barrier_cluster_arrive().await;
                    w.barrier_cluster_arrive().await;
                } else if case == 2 {
                    w.barrier_cluster_wait().await;
                } else if case == 3 {
                    if w.lane_id() < 16 {
                        w.barrier_cluster_arrive_aligned().await;
                    } else {
                        w.barrier_cluster_arrive_aligned().await;
                    }
                } else if case == 4 {
                    let a = w.shared_array::<u32, 1>();
                    let _ = a.map_shared_rank(2);
                }
                w.cluster_sync().await;
            })
            .unwrap_err()
    };
    let twice = run(&|_| 1);
    assert_eq!(cluster_fault(&twice).0, ClusterRule::ArriveTwice, "{twice}");
    let early = run(&|_| 2);
    assert_eq!(cluster_fault(&early).0, ClusterRule::WaitWithoutArrive, "{early}");
    let split = run(&|_| 3);
    assert_eq!(cluster_fault(&split).0, ClusterRule::AlignedDiverged, "{split}");
    let rank = run(&|_| 4);
    let (rule, detail) = cluster_fault(&rank);
    assert_eq!(rule, ClusterRule::RankOutOfRange);
    assert!(detail.contains("rank 2 in a cluster of 2"), "{detail}");
    assert!(rank.to_string().contains("cluster.rs"), "the report names the kernel's line: {rank}");
}

#[test]
fn a_cluster_barrier_that_never_completes_is_reported_with_each_waiting_lane() {
    // Block 1 spins on a flag that block 0 sets only after the cluster barrier, which block 1
    // never reaches: a hang on the GPU.
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let f = flag.slice();
    let err = Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90())
        .spin_limit(2_000)
        .run(async |w: &Warp<'_>| {
            if w.cluster_ctarank() == 0 {
                w.cluster_sync().await;
                f.store_volatile(0, 1);
            } else {
                while f.load_volatile(0).await == 0 {}
                w.cluster_sync().await;
            }
        })
        .unwrap_err();
    let WarpError::ForwardProgress { blocks, .. } = &err else { panic!("expected a forward-progress report, got {err}") };
    assert_eq!(blocks.len(), 2);
    assert!(err.to_string().contains("barrier.cluster.wait"), "{err}");
}

#[test]
fn atomics_on_distributed_shared_memory_sum_every_block_of_the_cluster() {
    let out = GlobalBuffer::<u32>::zeroed(4);
    let o = out.slice();
    Grid::blocks(16, 64)
        .cluster(4)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let total = w.shared_array::<u32, 1>();
            let t = w.thread_rank();
            if t == 0 {
                total.store(0, 0);
            }
            w.cluster_sync().await;
            total.map_shared_rank(0).atomic_add(0, w.block_rank() as u32 * 64 + t).await;
            w.cluster_sync().await;
            if w.cluster_ctarank() == 0 && t == 0 {
                o.store(w.clusterid().x as usize, total.load(0));
            }
            w.cluster_sync().await;
        })
        .unwrap();
    let expect: Vec<u32> = (0..4).map(|c| (c * 256..(c + 1) * 256).sum()).collect();
    assert_eq!(out.to_vec(), expect);
}

/// A `red.async` reduction across a cluster: every block but rank 0 adds its partial into rank
/// 0's accumulator, each completing 4 bytes on rank 0's mbarrier, which expects them.
#[test]
fn a_red_async_reduction_completes_on_the_owners_mbarrier() {
    let xs: Vec<u32> = (0..8 * 32u32).map(|i| i.wrapping_mul(2654435761) >> 8).collect();
    let input = GlobalBuffer::from_slice(&xs);
    let out = GlobalBuffer::<u32>::zeroed(2);
    let (x, o) = (input.slice(), out.slice());
    Grid::blocks(8, 32)
        .cluster(4)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let (acc, bar) = (w.shared_array::<u32, 1>(), w.shared_array::<u64, 1>());
            let (l, rank, n) = (w.lane_id(), w.cluster_ctarank(), w.cluster_nctarank());
            let partial = w.redux_add(x.load(w.block_rank() as usize * 32 + l as usize)).await;
            if rank == 0 && l == 0 {
                acc.store(0, partial);
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_arrive_expect_tx(0, 4 * (n - 1)).await;
            }
            w.cluster_sync().await; // the accumulator and the barrier exist before any red.async
            if rank != 0 && l == 0 {
                acc.map_shared_rank(0).red_async_add(0, partial, bar.map_shared_rank(0), 0).await;
            }
            if rank == 0 {
                // `.acquire.cluster`: the complete-tx releases at `.cluster` scope from other blocks.
                while !bar.mbarrier_try_wait_parity_with(0, 0, WaitSem::Acquire, MbarScope::Cluster).await {}
                if l == 0 {
                    o.store(w.clusterid().x as usize, acc.load(0));
                }
            }
            w.cluster_sync().await;
        })
        .unwrap();
    let expect: Vec<u32> = (0..2).map(|c| xs[c * 128..(c + 1) * 128].iter().fold(0u32, |a, &v| a.wrapping_add(v))).collect();
    assert_eq!(out.to_vec(), expect);
}

#[test]
fn st_async_and_remote_arrivals_deliver_to_the_owner() {
    // Each peer stores its rank into rank 0's slot with st.async (4 bytes each on rank 0's data
    // barrier) and arrives on rank 0's second barrier remotely.
    let out = GlobalBuffer::<u32>::zeroed(4);
    let o = out.slice();
    Grid::blocks(4, 32)
        .cluster(4)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let (slots, bars) = (w.shared_array::<u32, 4>(), w.shared_array::<u64, 2>());
            let (l, rank) = (w.lane_id(), w.cluster_ctarank());
            if rank == 0 && l == 0 {
                slots.store(0, 7);
                bars.mbarrier_init(0, 1).await;
                bars.mbarrier_arrive_expect_tx(0, 12).await;
                bars.mbarrier_init(1, 3).await;
            }
            w.cluster_sync().await;
            if rank != 0 && l == 0 {
                let remote = bars.map_shared_rank(0);
                slots.map_shared_rank(0).st_async(rank as usize, 100 + rank, remote, 0).await;
                remote.mbarrier_arrive_cluster(1).await;
            }
            if rank == 0 && l < 4 {
                while !bars.mbarrier_try_wait_parity_with(0, 0, WaitSem::Acquire, MbarScope::Cluster).await {}
                while !bars.mbarrier_try_wait_parity_with(1, 0, WaitSem::Acquire, MbarScope::Cluster).await {}
                o.store(l as usize, slots.load(l as usize));
            }
            w.cluster_sync().await;
        })
        .unwrap();
    assert_eq!(out.to_vec(), [7, 101, 102, 103]);
}

#[test]
fn reading_a_red_async_destination_before_its_phase_completes_is_a_race() {
    let err = Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let (acc, bar) = (w.shared_array::<u32, 1>(), w.shared_array::<u64, 1>());
            let (l, rank) = (w.lane_id(), w.cluster_ctarank());
            if rank == 0 && l == 0 {
                acc.store(0, 0);
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_arrive_expect_tx(0, 4).await;
            }
            w.cluster_sync().await;
            if rank == 1 && l == 0 {
                acc.map_shared_rank(0).red_async_add(0, 5, bar.map_shared_rank(0), 0).await;
            }
            if rank == 0 && l == 0 {
                let _early = acc.load(0); // before waiting on the barrier
                while !bar.mbarrier_try_wait_parity_with(0, 0, WaitSem::Acquire, MbarScope::Cluster).await {}
            }
            w.cluster_sync().await;
        })
        .unwrap_err();
    assert!(matches!(err, WarpError::Race { .. }), "{err}");
    assert!(err.to_string().contains("red.async"), "{err}");
}

#[test]
fn red_async_into_the_own_block_or_with_a_barrier_elsewhere_is_reported() {
    let run = |own: bool| {
        Grid::blocks(4, 32)
            .cluster(4)
            .executor(sm90())
            .run(async |w: &Warp<'_>| {
                let (acc, bar) = (w.shared_array::<u32, 1>(), w.shared_array::<u64, 1>());
                let (l, rank) = (w.lane_id(), w.cluster_ctarank());
                if l == 0 {
                    acc.store(0, 0);
                    bar.mbarrier_init(0, 1).await;
                }
                w.cluster_sync().await;
                if rank == 1 && l == 0 {
                    let (dst, b) = if own { (1, 1) } else { (0, 2) };
                    acc.map_shared_rank(dst).red_async_add(0, 1, bar.map_shared_rank(b), 0).await;
                }
                w.cluster_sync().await;
            })
            .unwrap_err()
    };
    assert_eq!(cluster_fault(&run(true)).0, ClusterRule::AsyncOwnCta);
    let (rule, detail) = cluster_fault(&run(false));
    assert_eq!(rule, ClusterRule::AsyncDifferentCtas);
    assert!(detail.contains("block rank 0") && detail.contains("block rank 2"), "{detail}");
}

#[test]
fn cluster_instructions_are_gated_to_sm_90() {
    let err = Grid::blocks(1, 32)
        .executor(Executor::new().target(Target::SM_80))
        .run(async |w: &Warp<'_>| {
            w.cluster_sync().await;
        })
        .unwrap_err();
    assert!(matches!(&err, WarpError::Memory { fault: LaneFault::Unsupported { op: "barrier.cluster.wait", .. }, .. }), "{err}");
}

#[test]
fn one_block_is_a_cluster_of_one_for_the_executor_too() {
    // A cluster barrier completes when every non-exited thread of the cluster has arrived: here
    // the warp's lanes, lane 0 after the others.
    let out = Executor::new()
        .run(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 32>();
            let l = w.lane_id() as usize;
            a.store(l, l as u32 * 3);
            w.cluster_sync().await;
            a.map_shared_rank(0).load(31 - l)
        })
        .unwrap();
    assert_eq!(out[0], 93);
    assert_eq!(out[31], 0);
}

#[test]
fn tensormap_cp_fenceproxy_copies_128_bytes_and_meets_the_warp() {
    // The copy (relaxed stores at the scope, one instruction for the warp's lanes: no race among
    // them), then the lanes meet: a read of the copy after a barrier is ordered.
    let out = GlobalBuffer::<u32>::zeroed(64);
    let seen = GlobalBuffer::<u32>::zeroed(64);
    let (o, e) = (out.slice(), seen.slice());
    Grid::blocks(1, 64)
        .executor(sm90().races(true))
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 64>();
            let (t, wi) = (w.thread_rank() as usize, w.warp_in_block() as usize);
            s.store(t, 1000 + t as u32);
            w.syncwarp().await;
            w.tensormap_cp_fenceproxy(o, wi * 32, s, wi * 32, warp_runtime::Scope::Gpu).await;
            w.sync_threads().await;
            e.store(t, o.load(63 - t));
        })
        .unwrap();
    assert_eq!(out.to_vec(), (1000..1064).collect::<Vec<u32>>());
    assert_eq!(seen.to_vec(), (1000..1064).rev().collect::<Vec<u32>>());
    // A lane at another warp instruction meanwhile leaves the others waiting (`.sync.aligned`),
    // and it is sm_90.
    let err = Executor::new()
        .target(Target::SM_90)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            s.store(w.lane_id() as usize, 0);
            w.syncwarp().await;
            if w.lane_id() != 3 {
                w.tensormap_cp_fenceproxy(GlobalBuffer::<u32>::zeroed(32).slice(), 0, s, 0, warp_runtime::Scope::Cta).await;
            } else {
                let _ = w.ballot(true).await;
            }
        })
        .unwrap_err();
    assert!(err.to_string().contains("bar.warp.sync"), "{err}");
    let err = Executor::new()
        .target(Target::SM_80)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            s.store(w.lane_id() as usize, 0);
            w.tensormap_cp_fenceproxy(GlobalBuffer::<u32>::zeroed(32).slice(), 0, s, 0, warp_runtime::Scope::Cta).await;
        })
        .unwrap_err();
    assert!(err.to_string().contains("tensormap.cp_fenceproxy"), "{err}");
}

/// `clusterlaunchcontrol.try_cancel` (sm_100) in the work-stealing shape of a persistent kernel:
/// a block does its own block's work, then cancels clusters that have not started and does
/// theirs, until a request fails. Every block's work is done exactly once, whichever block did
/// it, with 2 blocks resident of 24 per CPU thread, in clusters of 1 and of 2 (multicast,
/// sm_100a), on 1 and 2 CPU threads.
#[test]
fn try_cancel_steals_the_work_of_clusters_that_have_not_started() {
    for (cluster, target, cpu) in [(1u32, Target::new(100, warp_runtime::ArchSuffix::None), 1), (2, Target::SM_100A, 1), (1, Target::new(100, warp_runtime::ArchSuffix::None), 2), (2, Target::SM_100A, 2)] {
        let done = GlobalBuffer::<u32>::zeroed(24);
        let by = GlobalBuffer::<u32>::zeroed(24);
        let (d, b) = (done.slice(), by.slice());
        Grid::blocks(24, 32)
            .cluster(cluster)
            .resident_blocks(2 * cpu)
            .cpu_threads(cpu)
            .executor(Executor::new().target(target).races(true))
            .run(async |w: &Warp<'_>| {
                let (resp, bar) = (w.shared_array::<u128, 1>(), w.shared_array::<u64, 1>());
                let l = w.lane_id();
                if l == 0 {
                    bar.mbarrier_init(0, 1).await;
                }
                w.cluster_sync().await; // every block's barrier exists before a multicast
                let mut block = w.ctaid().x;
                let mut phase = 0;
                loop {
                    if l == 0 {
                        d.atomic_add(block as usize, 1).await;
                        b.store(block as usize, w.ctaid().x);
                        bar.mbarrier_arrive_expect_tx(0, 16).await;
                        if cluster == 1 {
                            resp.clusterlaunchcontrol_try_cancel(0, bar, 0).await;
                        } else if w.cluster_ctarank() == 0 {
                            resp.clusterlaunchcontrol_try_cancel_multicast(0, bar, 0).await;
                        }
                        while !bar.mbarrier_try_wait_parity_with(0, phase, warp_runtime::WaitSem::Acquire, warp_runtime::MbarScope::Cluster).await {}
                    }
                    phase ^= 1;
                    // Lane 0 waited for the response: it reads it and hands it to the others.
                    let mine = if l == 0 { resp.load(0) } else { 0 };
                    let r = w.shfl_idx(mine as u64, 0).await as u128 | (w.shfl_idx((mine >> 64) as u64, 0).await as u128) << 64;
                    if !warp_runtime::query_cancel_is_canceled(r) {
                        break;
                    }
                    // The cancelled cluster's block of this block's rank.
                    block = warp_runtime::query_cancel_first_ctaid(r).x + w.cluster_ctarank();
                    w.cluster_sync().await; // every block read the response before the next one
                }
                w.cluster_sync().await;
            })
            .unwrap();
        assert_eq!(done.to_vec(), vec![1; 24], "clusters of {cluster} on {cpu} CPU threads");
        let stolen = by.to_vec().iter().enumerate().filter(|&(i, &b)| b != i as u32).count();
        assert!(stolen > 0, "with 2 resident blocks of 24, some work is done by another block: {:?}", by.to_vec());
    }
}

#[test]
fn clusterlaunchcontrol_misuse_is_reported() {
    let sm100 = Executor::new().target(Target::new(100, warp_runtime::ArchSuffix::None));
    // A second try_cancel after this block saw one fail (the only block: nothing to cancel).
    let err = Grid::blocks(1, 32)
        .executor(sm100)
        .run(async |w: &Warp<'_>| {
            let (resp, bar) = (w.shared_array::<u128, 1>(), w.shared_array::<u64, 1>());
            if w.lane_id() == 0 {
                bar.mbarrier_init(0, 1).await;
                for phase in 0..2 {
                    bar.mbarrier_arrive_expect_tx(0, 16).await;
                    resp.clusterlaunchcontrol_try_cancel(0, bar, 0).await;
                    while !bar.mbarrier_try_wait_parity(0, phase).await {}
                    assert!(!warp_runtime::query_cancel_is_canceled(resp.load(0)));
                }
            }
        })
        .unwrap_err();
    assert_eq!(cluster_fault(&err).0, ClusterRule::TryCancelAfterFailure, "{err}");
    // The first ctaid of a failed response.
    let err = Grid::blocks(1, 32)
        .executor(sm100)
        .run(async |w: &Warp<'_>| {
            let _ = warp_runtime::query_cancel_first_ctaid(0);
            let _ = w.lane_id();
        })
        .unwrap_err();
    assert_eq!(cluster_fault(&err).0, ClusterRule::FirstCtaidOfFailure, "{err}");
    // `map` has no results for cancelled blocks.
    let err = Grid::blocks(4, 32)
        .resident_blocks(1)
        .executor(sm100)
        .map(async |w: &Warp<'_>| {
            let (resp, bar) = (w.shared_array::<u128, 1>(), w.shared_array::<u64, 1>());
            if w.lane_id() == 0 && w.ctaid().x == 0 {
                bar.mbarrier_init(0, 1).await;
                bar.mbarrier_arrive_expect_tx(0, 16).await;
                resp.clusterlaunchcontrol_try_cancel(0, bar, 0).await;
                while !bar.mbarrier_try_wait_parity(0, 0).await {}
            }
        })
        .unwrap_err();
    assert!(matches!(&err, WarpError::Launch { what } if what.contains("cancelled")), "{err}");
    // sm_100, and the multicast form sm_100a.
    let err = Grid::blocks(1, 32)
        .executor(sm90())
        .run(async |w: &Warp<'_>| {
            let (resp, bar) = (w.shared_array::<u128, 1>(), w.shared_array::<u64, 1>());
            resp.clusterlaunchcontrol_try_cancel(0, bar, 0).await;
        })
        .unwrap_err();
    assert!(err.to_string().contains("clusterlaunchcontrol.try_cancel"), "{err}");
}

/// An mbarrier that takes a local `.release.cta` arrival and a remote `.release.cluster` one: a
/// `.acquire.cta` wait acquires the local arrival's writes and not the remote one's, whichever
/// arrives last; a `.acquire.cluster` wait acquires both.
#[test]
fn a_cta_wait_acquires_the_local_arrivals_whichever_arrives_last() {
    let run = |remote_last: bool, wait_scope: warp_runtime::MbarScope| {
        let data = GlobalBuffer::<u32>::zeroed(2);
        let flag = GlobalBuffer::<u32>::zeroed(1);
        let (d, f) = (data.slice(), flag.slice());
        Grid::blocks(2, 64)
            .cluster(2)
            .executor(sm90().races(true))
            .run(async |w: &Warp<'_>| {
                let bar = w.shared_array::<u64, 1>();
                let (t, rank) = (w.thread_rank(), w.cluster_ctarank());
                if rank == 0 && t == 0 {
                    bar.mbarrier_init(0, 2).await;
                }
                w.cluster_sync().await;
                if rank == 0 && t == 0 {
                    if !remote_last {
                        while f.load_volatile(0).await == 0 {}
                    }
                    d.store(0, 10); // the local arrival's write
                    bar.mbarrier_arrive(0).await;
                    if remote_last {
                        f.store_volatile(0, 1);
                    }
                } else if rank == 1 && t == 0 {
                    if remote_last {
                        while f.load_volatile(0).await == 0 {}
                    }
                    d.store(1, 20); // the remote arrival's write
                    bar.map_shared_rank(0).mbarrier_arrive_cluster(0).await;
                    if !remote_last {
                        f.store_volatile(0, 1);
                    }
                } else if rank == 0 && t == 32 {
                    while !bar.mbarrier_try_wait_parity_with(0, 0, warp_runtime::WaitSem::Acquire, wait_scope).await {}
                    let _ = d.load(0);
                    if wait_scope == warp_runtime::MbarScope::Cluster {
                        let _ = d.load(1);
                    }
                }
                w.cluster_sync().await;
            })
    };
    for remote_last in [false, true] {
        run(remote_last, warp_runtime::MbarScope::Cta).unwrap_or_else(|e| panic!("remote last: {remote_last}: {e}"));
        run(remote_last, warp_runtime::MbarScope::Cluster).unwrap_or_else(|e| panic!("remote last: {remote_last}: {e}"));
    }
    // The `.cta` wait does not acquire the remote block's write: reading it is a race.
    let racy = |remote_last: bool| {
        let data = GlobalBuffer::<u32>::zeroed(2);
        let flag = GlobalBuffer::<u32>::zeroed(1);
        let (d, f) = (data.slice(), flag.slice());
        Grid::blocks(2, 64)
            .cluster(2)
            .executor(sm90().races(true))
            .run(async |w: &Warp<'_>| {
                let bar = w.shared_array::<u64, 1>();
                let (t, rank) = (w.thread_rank(), w.cluster_ctarank());
                if rank == 0 && t == 0 {
                    bar.mbarrier_init(0, 2).await;
                }
                w.cluster_sync().await;
                if rank == 0 && t == 0 {
                    if !remote_last {
                        while f.load_volatile(0).await == 0 {}
                    }
                    bar.mbarrier_arrive(0).await;
                    if remote_last {
                        f.store_volatile(0, 1);
                    }
                } else if rank == 1 && t == 0 {
                    if remote_last {
                        while f.load_volatile(0).await == 0 {}
                    }
                    d.store(1, 20);
                    bar.map_shared_rank(0).mbarrier_arrive_cluster(0).await;
                    if !remote_last {
                        f.store_volatile(0, 1);
                    }
                } else if rank == 0 && t == 32 {
                    while !bar.mbarrier_try_wait_parity(0, 0).await {}
                    let _ = d.load(1);
                }
                w.cluster_sync().await;
            })
    };
    for remote_last in [false, true] {
        let err = racy(remote_last).unwrap_err();
        assert!(matches!(err, WarpError::Race { .. }), "remote last: {remote_last}: {err}");
    }
}

/// `barrier.cluster.arrive` waits for the warp's other non-exited lanes ("cause the executing
/// thread to wait for all non-exited threads from its warp"): lanes that publish a flag only
/// after arriving, to a lane that arrives only after seeing it, hang, as on the GPU.
#[test]
fn an_arrival_waits_for_the_rest_of_its_warp() {
    let flag = GlobalBuffer::<u32>::zeroed(1);
    let f = flag.slice();
    let err = Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90())
        .spin_limit(2_000)
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                while f.load_volatile(0).await == 0 {}
                w.barrier_cluster_arrive().await;
            } else {
                w.barrier_cluster_arrive().await;
                f.store_volatile(0, 1);
            }
            w.barrier_cluster_wait().await;
        })
        .unwrap_err();
    assert!(matches!(err, WarpError::ForwardProgress { .. }), "{err}");
    assert!(err.to_string().contains("barrier.cluster.arrive"), "{err}");
    // Lanes that have exited do not count.
    Grid::blocks(2, 32)
        .cluster(2)
        .executor(sm90())
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 16 {
                return;
            }
            w.cluster_sync().await;
        })
        .unwrap();
}
