//! `elect.sync`, `activemask`, `bar.warp.sync`, `%laneid`/`%lanemask_*`, and tile/group ranks.

use std::cell::Cell;

use warp_runtime::{Executor, Warp, FULL_MASK};

#[test]
fn elect_full_warp_elects_lane_0() {
    // "laneid of the elected thread is returned in d ... p is set to True for the leader thread,
    // and False for all other threads"; on an H100 the leader is the lowest lane of membermask.
    let r = Executor::new().run(async |w: &Warp<'_>| w.elect().await).unwrap();
    for l in 0..32 {
        assert_eq!(r[l], (0, l == 0), "lane {l}");
    }
}

#[test]
fn elect_in_groups_elects_lowest_lane_of_each_membermask() {
    // "elects one predicated active leader thread from among a set of threads specified by membermask".
    let a = 0xf0f0_0a00u32;
    let r = Executor::new()
        .run(async |w: &Warp<'_>| w.group(if a >> w.lane_id() & 1 == 1 { a } else { !a }).elect().await)
        .unwrap();
    for l in 0..32 {
        let (leader, mask) = if a >> l & 1 == 1 { (9, a) } else { (0, !a) };
        assert_eq!(r[l], (leader, l == leader as usize), "lane {l} mask {mask:#x}");
    }
    // Tiles of 8: leaders 0, 8, 16, 24.
    let r = Executor::new().run(async |w: &Warp<'_>| w.tile(8).elect().await).unwrap();
    for l in 0..32 {
        assert_eq!(r[l], ((l / 8 * 8) as u32, l % 8 == 0), "lane {l}");
    }
}

#[test]
fn elect_skips_exited_lanes() {
    // The leader is the lowest non-exited lane of membermask.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() < 3 || w.lane_id() == 4 {
                return None;
            }
            Some(w.elect().await)
        })
        .unwrap();
    for l in 0..32 {
        let want = (l >= 3 && l != 4).then_some((3, l == 3));
        assert_eq!(r[l], want, "lane {l}");
    }
    let r = Executor::new().run_partial(0xffff_0000, async |w: &Warp<'_>| w.elect().await).unwrap();
    assert_eq!(r[16], Some((16, true)));
    assert_eq!(r[17], Some((16, false)));
}

#[test]
fn activemask_in_if_else_returns_lanes_of_the_branch_taken() {
    // "activemask queries predicated-on active threads"; inside `if lane % k == r {..} else {..}`
    // each branch sees exactly its own lanes (measured on an H100).
    for k in 1..=8u32 {
        for r in 0..k {
            let out = Executor::new()
                .run(async |w: &Warp<'_>| {
                    if w.lane_id() % k == r {
                        w.activemask().await
                    } else {
                        w.activemask().await
                    }
                })
                .unwrap();
            let taken: u32 = (0..32).filter(|l| l % k == r).map(|l| 1u32 << l).sum();
            for l in 0..32u32 {
                let want = if l % k == r { taken } else { !taken };
                assert_eq!(out[l as usize], want, "k={k} r={r} lane {l}");
            }
        }
    }
}

#[test]
fn activemask_excludes_exited_and_inactive_lanes() {
    // "exited or inactive or predicated-off thread will contribute 0 for its entry".
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() >= 20 {
                return 0;
            }
            w.activemask().await
        })
        .unwrap();
    for l in 0..20 {
        assert_eq!(r[l], 0x000f_ffff, "lane {l}");
    }
    let r = Executor::new().run_partial(0x0000_ff0f, async |w: &Warp<'_>| w.activemask().await).unwrap();
    assert_eq!(r[0], Some(0x0000_ff0f));
    assert_eq!(r[4], None);
    assert_eq!(r[15], Some(0x0000_ff0f));
}

#[test]
fn activemask_full_warp_and_nested_branches() {
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let l = w.lane_id();
            let all = w.activemask().await;
            let inner = if l < 16 {
                if l % 2 == 0 {
                    w.activemask().await
                } else {
                    w.activemask().await
                }
            } else {
                w.activemask().await
            };
            (all, inner)
        })
        .unwrap();
    for l in 0..32 {
        let inner = if l >= 16 { 0xffff_0000 } else if l % 2 == 0 { 0x0000_5555 } else { 0x0000_aaaa };
        assert_eq!(r[l], (FULL_MASK, inner), "lane {l}");
    }
}

#[test]
fn syncwarp_waits_for_every_lane_of_membermask() {
    // "bar.warp.sync will cause executing thread to wait until all threads corresponding to
    // membermask have executed a bar.warp.sync with the same membermask value".
    let arrived = Cell::new(0u32);
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            arrived.set(arrived.get() + 1);
            w.syncwarp().await;
            arrived.get()
        })
        .unwrap();
    assert!(r.iter().all(|&n| n == 32), "{r:?}");
    // Per group: even lanes and odd lanes count separately.
    let even = Cell::new(0u32);
    let odd = Cell::new(0u32);
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let is_even = w.lane_id() % 2 == 0;
            let c = if is_even { &even } else { &odd };
            c.set(c.get() + 1);
            w.group(if is_even { 0x5555_5555 } else { 0xaaaa_aaaa }).syncwarp().await;
            let seen = c.get();
            w.syncwarp().await;
            (seen, even.get() + odd.get())
        })
        .unwrap();
    assert!(r.iter().all(|&x| x == (16, 32)), "{r:?}");
}

#[test]
fn syncwarp_with_exited_lanes_completes() {
    // Exited lanes in membermask do not block the barrier (they never arrive).
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            if w.lane_id() == 7 {
                return false;
            }
            w.syncwarp().await;
            true
        })
        .unwrap();
    assert_eq!(r.iter().filter(|&&x| x).count(), 31);
}

#[test]
fn lane_id_and_lanemasks_for_every_lane() {
    // "%lanemask_eq: a 32-bit mask with a bit set in the position equal to the thread's lane
    // number"; _lt, _le, _gt, _ge: bits in positions less than, less or equal, greater than,
    // greater or equal.
    let r = Executor::new()
        .run(async |w: &Warp<'_>| (w.lane_id(), w.lanemask_eq(), w.lanemask_lt(), w.lanemask_le(), w.lanemask_gt(), w.lanemask_ge()))
        .unwrap();
    for l in 0..32u32 {
        let set = |f: &dyn Fn(u32) -> bool| (0..32).filter(|&i| f(i)).map(|i| 1u32 << i).sum::<u32>();
        let want = (l, set(&|i| i == l), set(&|i| i < l), set(&|i| i <= l), set(&|i| i > l), set(&|i| i >= l));
        assert_eq!(r[l as usize], want, "lane {l}");
    }
    assert_eq!(r[0], (0, 1, 0, 1, 0xffff_fffe, FULL_MASK));
    assert_eq!(r[31], (31, 0x8000_0000, 0x7fff_ffff, FULL_MASK, 0, 0x8000_0000));
}

#[test]
fn tile_rank_size_width_and_membermask() {
    // tiled_partition(width): thread_rank = lane % width, size = width.
    for width in [1u32, 2, 4, 8, 16, 32] {
        let r = Executor::new()
            .run(async |w: &Warp<'_>| {
                let t = w.tile(width);
                (t.rank(), t.size(), t.width(), t.membermask(), t.lane_id())
            })
            .unwrap();
        for l in 0..32u32 {
            let base = l / width * width;
            let mask = (base..base + width).map(|i| 1u32 << i).sum::<u32>();
            assert_eq!(r[l as usize], (l % width, width, width, mask, l), "lane {l} width {width}");
        }
    }
    // The whole warp.
    let r = Executor::new().run(async |w: &Warp<'_>| (w.rank(), w.size(), w.width(), w.membermask())).unwrap();
    for l in 0..32u32 {
        assert_eq!(r[l as usize], (l, 32, 32, FULL_MASK));
    }
}

#[test]
fn group_rank_is_count_of_lower_member_lanes() {
    let m = 0x8421_0f30u32;
    let r = Executor::new()
        .run(async |w: &Warp<'_>| {
            let g = w.group(if m >> w.lane_id() & 1 == 1 { m } else { !m });
            (g.rank(), g.size(), g.width(), g.membermask())
        })
        .unwrap();
    let members: Vec<u32> = (0..32).filter(|l| m >> l & 1 == 1).collect();
    let others: Vec<u32> = (0..32).filter(|l| m >> l & 1 == 0).collect();
    for (i, &l) in members.iter().enumerate() {
        assert_eq!(r[l as usize], (i as u32, members.len() as u32, 32, m), "lane {l}");
    }
    for (i, &l) in others.iter().enumerate() {
        assert_eq!(r[l as usize], (i as u32, others.len() as u32, 32, !m), "lane {l}");
    }
    assert_eq!(members, vec![4, 5, 8, 9, 10, 11, 16, 21, 26, 31]);
}
