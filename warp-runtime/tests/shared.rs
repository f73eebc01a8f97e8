//! Shared memory: one instance per block of every static array (by call site) and of dynamic
//! shared memory, bounds checks, reads of uninitialized shared memory, and `atom.shared`.

use warp_runtime::{Dim3, GlobalBuffer, Grid, LaneFault, SharedSlice, Warp, WarpError};

fn fault(err: &WarpError) -> (u32, &LaneFault) {
    match err {
        WarpError::Memory { lane, fault, .. } => (*lane, fault),
        other => panic!("expected a memory report, got: {other}"),
    }
}

/// A helper that declares a shared array: every call of it, from any warp of a block, is the
/// same array (CUDA's `__shared__` in a device function).
fn counters<'w>(w: &Warp<'w>) -> SharedSlice<'w, u32> {
    w.shared_array::<u32, 4>()
}

#[test]
fn a_static_array_is_one_per_call_site_and_block() {
    let out = Grid::blocks(3, 64)
        .map(async |w: &Warp<'_>| {
            let a = w.shared_array::<u32, 64>();
            let b = w.shared_array::<u32, 64>();
            let t = w.thread_rank() as usize;
            a.store(t, 1);
            b.store(t, 2);
            if t < 4 {
                counters(w).store(t, 0);
            }
            w.sync_threads().await;
            counters(w).atomic_add(t % 4, 1).await;
            w.sync_threads().await;
            // `a` and `b` are different arrays; `counters` is one array for both calls.
            (a.load(63 - t) + 10 * b.load(t), counters(w).load(t % 4))
        })
        .unwrap();
    assert!(out.iter().all(|&r| r == (21, 16)), "{out:?}");
}

/// Each block gets its own instance, uninitialized: a block that reads before writing is
/// reported even when an earlier block (run in the same slot) wrote the array.
#[test]
fn each_block_starts_with_uninitialized_shared_memory() {
    let err = Grid::blocks(2, 32)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 32>();
            if w.ctaid().x == 0 {
                s.store(w.lane_id() as usize, 5);
            } else {
                let _ = s.load(w.lane_id() as usize);
            }
        })
        .unwrap_err();
    let (lane, f) = fault(&err);
    assert_eq!(lane, 0);
    let LaneFault::SharedUninitialized { op, index, declared, site } = f else { panic!("{err}") };
    assert_eq!((*op, *index), ("ld.shared", 0));
    assert!(declared.file().ends_with("shared.rs") && site.file().ends_with("shared.rs"), "{err}");
    assert_eq!(err.report().unwrap().block, Dim3::new(1, 0, 0));
    assert!(err.to_string().contains("which no thread of the block has written"), "{err}");
}

/// Reading an element another thread wrote is fine; reading a neighbour nobody wrote is not.
#[test]
fn a_read_of_an_element_nobody_wrote_is_reported_with_lane_and_index() {
    let err = Grid::blocks(1, 64)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<u64, 64>();
            let t = w.thread_rank() as usize;
            if t != 40 {
                s.store(t, t as u64);
            }
            w.sync_threads().await;
            let _ = s.load((t + 1) % 64);
        })
        .unwrap_err();
    let (lane, f) = fault(&err);
    // Thread 39 (warp 1, lane 7) reads element 40.
    assert_eq!(lane, 7);
    assert!(matches!(f, LaneFault::SharedUninitialized { index: 40, .. }), "{err}");
    assert_eq!(err.report().unwrap().warp_in_block, 1);
}

#[test]
fn an_index_past_the_end_is_reported() {
    let err = Grid::blocks(1, 32)
        .run(async |w: &Warp<'_>| {
            let s = w.shared_array::<i32, 16>();
            s.store(w.lane_id() as usize, 1);
        })
        .unwrap_err();
    let (lane, f) = fault(&err);
    assert_eq!(lane, 16);
    let LaneFault::SharedOutOfBounds { op, index, len, .. } = f else { panic!("{err}") };
    assert_eq!((*op, *index, *len), ("st.shared", 16, 16));
    assert!(err.to_string().contains("element 16 of a shared array of 16 elements"), "{err}");
}

/// Dynamic shared memory: the bytes the launch gives, viewed as any element type, one instance
/// per block; views must be aligned and fit.
#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let out = Grid::blocks(2, 64)
        .dynamic_shared_bytes(512)
        .map(async |w: &Warp<'_>| {
            let words = w.dynamic_shared::<u32>();
            let t = w.thread_rank() as usize;
            words.store(t, t as u32 + 1000 * w.ctaid().x);
            // The second half, bytes 256..512, as 32 u64s.
            let pairs = w.dynamic_shared_at::<u64>(256, 32);
            if t < 32 {
                pairs.store(t, (t as u64) << 40 | w.ctaid().x as u64);
            }
            w.sync_threads().await;
            (words.len(), w.dynamic_shared_bytes(), words.load(63 - t), words.load(64 + 2 * (t % 32) + 1), pairs.load(t % 32))
        })
        .unwrap();
    for b in 0..2u64 {
        for t in 0..64u64 {
            // Word 64 + 2k + 1 is the high half of pair k (little endian).
            let pair = (t % 32) << 40 | b;
            assert_eq!(out[(64 * b + t) as usize], (128, 512, (63 - t + 1000 * b) as u32, (pair >> 32) as u32, pair));
        }
    }
}

#[test]
fn bad_dynamic_shared_views_are_reported() {
    let err = Grid::blocks(1, 32).dynamic_shared_bytes(64).run(async |w: &Warp<'_>| {
        let _ = w.dynamic_shared_at::<u64>(4, 2);
    });
    let err = err.unwrap_err();
    assert!(matches!(fault(&err).1, LaneFault::SharedLayout { what, .. } if what.contains("not aligned")), "{err}");
    let err = Grid::blocks(1, 32).dynamic_shared_bytes(64).run(async |w: &Warp<'_>| {
        let _ = w.dynamic_shared_at::<u32>(32, 9);
    });
    let err = err.unwrap_err();
    assert!(matches!(fault(&err).1, LaneFault::SharedLayout { what, .. } if what.contains("reaches past the 64 bytes")), "{err}");
    let err = Grid::blocks(1, 32).run(async |w: &Warp<'_>| {
        let _ = w.shared_array::<u64, 7000>();
    });
    let err = err.unwrap_err();
    assert!(matches!(fault(&err).1, LaneFault::SharedLayout { what, .. } if what.contains("49152")), "{err}");
    // 227 KiB per block at most.
    let err = Grid::blocks(1, 32).dynamic_shared_bytes(300_000).run(async |_: &Warp<'_>| {}).unwrap_err();
    assert!(matches!(err, WarpError::Launch { .. }), "{err}");
}

/// `atom.shared` with the PTX formulas, across the warps of a block: a histogram, and the old
/// values of an exchange and a compare-and-swap.
#[test]
fn shared_atomics_follow_the_formulas() {
    let out = Grid::blocks(1, 256)
        .map(async |w: &Warp<'_>| {
            let hist = w.shared_array::<u32, 8>();
            let t = w.thread_rank();
            if t < 8 {
                hist.store(t as usize, 0);
            }
            w.sync_threads().await;
            hist.atomic_add((t % 8) as usize, t).await;
            w.sync_threads().await;
            let min = w.shared_array::<i64, 1>();
            let bits = w.shared_array::<u32, 1>();
            if t == 0 {
                min.store(0, i64::MAX);
                bits.store(0, 0);
            }
            w.sync_threads().await;
            min.atomic_min(0, 1000 - t as i64 * 3).await;
            bits.atomic_or(0, 1 << (t % 32)).await;
            w.sync_threads().await;
            (hist.load((t % 8) as usize), min.load(0), bits.load(0))
        })
        .unwrap();
    for t in 0..256u32 {
        let bucket: u32 = (0..256).filter(|u| u % 8 == t % 8).sum();
        assert_eq!(out[t as usize], (bucket, 1000 - 255 * 3, u32::MAX));
    }
    let out = Grid::blocks(1, 32)
        .map(async |w: &Warp<'_>| {
            let s = w.shared_array::<u32, 2>();
            if w.lane_id() == 0 {
                s.store(0, 5);
                s.store(1, 7);
            }
            w.syncwarp().await;
            if w.lane_id() == 3 {
                (s.atomic_exch(0, 9).await, s.atomic_cas(1, 7, 1).await, s.atomic_cas(1, 7, 2).await, s.load(1))
            } else {
                (0, 0, 0, 0)
            }
        })
        .unwrap();
    assert_eq!(out[3], (5, 7, 1, 1), "exch returns the old value; cas swaps only on equality");
}

/// A lock in shared memory taken with `atom.shared.cas` and released with `atom.shared.exch`: the
/// warps spin on it in turn, which completes only because an atomic is a scheduling point.
#[test]
fn a_spin_lock_in_shared_memory_serializes_the_warps() {
    let order = GlobalBuffer::<u32>::zeroed(8);
    let o = order.slice();
    Grid::blocks(1, 256)
        .run(async |w: &Warp<'_>| {
            let lock = w.shared_array::<u32, 2>();
            if w.thread_rank() == 0 {
                lock.store(0, 0);
                lock.store(1, 0);
            }
            w.sync_threads().await;
            if w.lane_id() == 0 {
                while lock.atomic_cas(0, 0, 1).await != 0 {}
                // The acquire pattern (a strong read, then a fence) after taking the lock, and
                // the release pattern (a fence, then a strong write) before giving it back: the
                // race detector reports the critical sections as racing without them.
                w.threadfence_block();
                // Critical section: a plain read-modify-write, safe under the lock.
                let n = lock.load(1);
                lock.store(1, n + 1);
                o.store(n as usize, w.warp_in_block());
                w.threadfence_block();
                lock.atomic_exch(0, 0).await;
            }
        })
        .unwrap();
    let mut got = order.to_vec();
    got.sort();
    assert_eq!(got, (0..8).collect::<Vec<u32>>());
}
