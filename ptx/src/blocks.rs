//! Block-level conformance kernels: CTA barriers, launch geometry and shared memory, written with
//! `#[warp_kernel(entry)]` so that the same source runs on the GPU (this crate's PTX) and in the
//! CPU runtime (the GPU program includes this file), and the two are compared.
//!
//! Thread `t` is `block_rank * block_size + thread_rank`; every per-thread array is indexed by it.
//!
//! | kernel | parameters | what it executes |
//! |---|---|---|
//! | `conf_bar_red` | `(active, pred, form, id, count, d)` | `active[t] == 0` exits first; then one `bar.red`/`barrier.red` form picked by the uniform `form` (0..24: op `form % 3` = popc/and/or, `!c` when `form / 3 % 2`, aligned when `form / 6 % 2 == 0`, with `count` when `form / 12 == 1`) on barrier `id`, `d[t]` its result |
//! | `conf_bar_divergent` | `(branch, x, d)` | `s[thread_rank] = x[t]`, then `barrier.sync 2` from one of three call sites chosen by `branch[t] % 3`, then `d[t] = s[(thread_rank + 37) % block_size]` |
//! | `conf_named_barriers` | `(producers, x, d)` | warps below `producers` fill a shared stage and `barrier.arrive` on barrier 1, the others `bar.sync` on it and copy the stage out, then the roles' reverse on barrier 2; 4 rounds |
//! | `conf_geometry` | `(d)` | `d[12t..12t + 12]` = `%tid`, `%ntid`, `%ctaid`, `%nctaid` (x, y, z each) |
//! | `conf_shared_atomics` | `(x, d)` | every thread applies `atom.shared.{add,min,max,and,or,xor}` (u32, i32, u64) with `x[t]` to shared words, then thread 0 writes the words to `d[9 * block_rank ..]` |
//! | `conf_dynamic_shared` | `(x, d)` | the dynamic shared memory as `u32`s and, from byte 16, as `u64`s: each thread writes its word, and reads another thread's after `bar.sync` |

use warpkit::prelude::*;

/// One `bar.red` form by number (see the module docs); every thread of a block passes the same
/// `form`, `id` and `count`, so the whole block executes the same instruction.
#[warp_kernel(entry)]
pub fn conf_bar_red(w: &Warp, active: GlobalSlice<'_, u32>, pred: GlobalSlice<'_, u32>, form: u32, id: u32, count: u32, d: GlobalSlice<'_, u32>) {
    let t = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    if active.load(t) == 0 {
        return;
    }
    let c = pred.load(t) != 0;
    let op = match form % 3 {
        0 => BarRed::Popc,
        1 => BarRed::And,
        _ => BarRed::Or,
    };
    let negate = form / 3 % 2 == 1;
    let r = match (form / 6 % 2 == 0, form / 12 == 1) {
        (true, false) => w.bar_red(op, id, c, negate),
        (true, true) => w.bar_red_count(op, id, count, c, negate),
        (false, false) => w.barrier_red(op, id, c, negate),
        (false, true) => w.barrier_red_count(op, id, count, c, negate),
    };
    d.store(t, r);
}

/// A non-aligned `barrier.sync` reached from three different branches, by the threads of one warp
/// alike: the barrier still orders the shared writes before every read.
#[warp_kernel(entry)]
pub fn conf_bar_divergent(w: &Warp, branch: GlobalSlice<'_, u32>, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>) {
    let s = w.shared_array::<u32, 1024>();
    let r = w.thread_rank() as usize;
    let t = w.block_rank() as usize * w.block_size() as usize + r;
    s.store(r, x.load(t));
    let b = branch.load(t) % 3;
    if b == 0 {
        w.barrier_sync(2);
    } else if b == 1 {
        w.barrier_sync(2);
    } else {
        w.barrier_sync(2);
    }
    d.store(t, s.load((r + 37) % w.block_size() as usize));
}

/// Producer and consumer warps on named barriers with mixed forms: producers `barrier.arrive`
/// (not aligned) where consumers `bar.sync`, then the reverse. `d[t]` gets, per round, the sum of
/// what this consumer thread copied (producers write 0).
#[warp_kernel(entry)]
pub fn conf_named_barriers(w: &Warp, producers: u32, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u32>) {
    let stage = w.shared_array::<u32, 1024>();
    let threads = w.block_size();
    let r = w.thread_rank() as usize;
    let t = w.block_rank() as usize * threads as usize + r;
    let producer = w.warp_in_block() < producers;
    let width = 32 * producers as usize;
    let mut acc = 0u32;
    let mut round = 0;
    while round < 4 {
        if producer {
            if round > 0 {
                w.bar_sync_count(2, threads);
            }
            stage.store(r, x.load(t).wrapping_mul(round + 1));
            w.barrier_arrive(1, threads);
        } else {
            w.bar_sync_count(1, threads);
            acc = acc.wrapping_add(stage.load(r % width));
            if round < 3 {
                w.bar_arrive(2, threads);
            }
        }
        round += 1;
    }
    d.store(t, acc);
}

/// The launch geometry each thread reads.
#[warp_kernel(entry)]
pub fn conf_geometry(w: &Warp, d: GlobalSlice<'_, u32>) {
    let t = w.block_rank() as usize * w.block_size() as usize + w.thread_rank() as usize;
    let (tid, ntid, ctaid, nctaid) = (w.tid(), w.ntid(), w.ctaid(), w.nctaid());
    let v = [tid.x, tid.y, tid.z, ntid.x, ntid.y, ntid.z, ctaid.x, ctaid.y, ctaid.z, nctaid.x, nctaid.y, nctaid.z];
    let mut k = 0;
    while k < 12 {
        d.store(12 * t + k, v[k]);
        k += 1;
    }
}

/// `atom.shared` integer operations from every thread of the block; the final words do not
/// depend on the order the threads apply them in.
#[warp_kernel(entry)]
pub fn conf_shared_atomics(w: &Warp, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u64>) {
    let words = w.shared_array::<u32, 6>();
    let signed = w.shared_array::<i32, 1>();
    let wide = w.shared_array::<u64, 2>();
    let r = w.thread_rank();
    let t = w.block_rank() as usize * w.block_size() as usize + r as usize;
    if r == 0 {
        words.store(0, 0);
        words.store(1, u32::MAX);
        words.store(2, 0);
        words.store(3, u32::MAX);
        words.store(4, 0);
        words.store(5, 0);
        signed.store(0, i32::MAX);
        wide.store(0, 0);
        wide.store(1, 0);
    }
    w.sync_threads();
    let v = x.load(t);
    words.atomic_add(0, v);
    words.atomic_min(1, v);
    words.atomic_max(2, v);
    words.atomic_and(3, v | 1 << (r % 32));
    words.atomic_or(4, v & 0xff);
    words.atomic_xor(5, v);
    signed.atomic_min(0, v as i32);
    wide.atomic_add(0, (v as u64) << 20);
    wide.atomic_max(1, (v as u64) * 3);
    w.sync_threads();
    if r == 0 {
        let base = 9 * w.block_rank() as usize;
        let mut k = 0;
        while k < 6 {
            d.store(base + k, words.load(k) as u64);
            k += 1;
        }
        d.store(base + 6, signed.load(0) as u32 as u64);
        d.store(base + 7, wide.load(0));
        d.store(base + 8, wide.load(1));
    }
}

/// Dynamic shared memory as `u32`s, and from byte 16 as `u64`s (launched with
/// `8 * block_size + 16` bytes).
#[warp_kernel(entry)]
pub fn conf_dynamic_shared(w: &Warp, x: GlobalSlice<'_, u32>, d: GlobalSlice<'_, u64>) {
    let n = w.block_size() as usize;
    let words = w.dynamic_shared::<u32>();
    let pairs = w.dynamic_shared_at::<u64>(16, n);
    let r = w.thread_rank() as usize;
    let t = w.block_rank() as usize * n + r;
    let v = x.load(t);
    if r < 4 {
        words.store(r, v);
    }
    pairs.store(r, (v as u64) << 32 | r as u64);
    w.sync_threads();
    let other = (r + 1) % n;
    d.store(2 * t, pairs.load(other));
    d.store(2 * t + 1, (words.load(r % 4) as u64) << 32 | words.len() as u64);
}
