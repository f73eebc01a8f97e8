//! Five undefined-behaviour patterns from public CUDA code, each run in the lockstep runtime,
//! which stops the warp (or the block) and prints what went wrong instead of returning garbage or
//! hanging.
//!
//! 1. NVIDIA/cuda-samples issue 398 (`reduction_kernel.cu`, `reduce7`): the last warp reduces
//!    with `warpReduceSum(ballot_result, mySum)` inside `if (tid < shmem_extent)`. With a block of
//!    32 threads, `shmem_extent` is 1, the membermask is `0x1`, and lane 0's
//!    `__shfl_down_sync(0x1, mySum, 16)` reads lane 16, which is not in the membermask and has
//!    left the branch.
//! 2. PaddlePaddle/CINN pull request 938: a block whose thread count is not a multiple of 32 ran a
//!    full-mask `__shfl_down_sync` tree; in the last warp, lanes read `lane + delta` past the last
//!    thread, which does not exist ("the value is undefined; measured 0"), and reductions were wrong.
//! 3. Two groups of lanes wait on overlapping membermasks. moderngpu pull request 36 ("Fix
//!    potential deadlock after switching to shfl.sync") fixed `__shfl_down_sync(u.x[i], offset,
//!    width)`: the data word went where the membermask goes, so lanes holding different words
//!    waited on different masks. Here the words are bitsets of neighbouring lanes (the low half
//!    holds lanes 0-16, the high half lanes 15-31): lane 15 waits for lane 16, which waits at the
//!    other half's mask, and the reverse, so neither group can complete; a deadlock (the runtime
//!    reports it as `WarpError::Divergent`, its rule for lanes that name each other but disagree).
//! 4. A divergent `__syncthreads()`: acts-project/acts pull request 307 ("Fix CUDA kernel
//!    syncthread usage": "calling __syncthreads in a conditional that depends on the threadID
//!    results in undefined behaviour. Interestingly, this wasn't apparent on older versions of the
//!    NVidia drivers, but is now"). `cuSearchTriplet` looped over candidates in steps of the block
//!    size with the barrier inside `if (threadIdx.x + offset < n)`; in the last step the threads
//!    past `n` went on to the next `__syncthreads()` of the kernel, so one warp's lanes waited at
//!    two different barrier instructions. The fix moved the barrier out of the branch.
//! 5. A barrier that can never complete: niessner/BundleFusion issue 51 and pull request 56 ("Fix
//!    GPU hangs in SiftGPU": "Running BundleFusion on a RTX graphics card causes the GPU to hang").
//!    `ComputeOrientation_Kernel`, in blocks of 64 threads, smoothed a 36-bin histogram with six
//!    `__syncthreads()` inside `if (tidx < 36)`; threads 36-63 skipped to a full-warp shuffle
//!    reduction. In warp 1, lanes 0-3 (threads 32-35) wait at the barrier for the rest of their
//!    warp, and lanes 4-31 wait at the shuffle for lanes 0-3: neither can ever complete.
//!
//! 6. A missing `__syncthreads()` between a shared write and the reads: ORNL/HeCBench issue 254
//!    (`marchingCubes-cuda`, `generatingTriangles`): "A single thread writes the two accumulators
//!    and then all 128 threads in the block read them with no `__syncthreads()` in between." The
//!    issue notes that compute-sanitizer's racecheck reports 0 hazards on a stock build (the
//!    compiler happens to hide it); the race detector reports it on every run.
//! 7. A missing `__syncwarp()`: the warp-synchronous reduction of the pre-Volta CUDA samples
//!    (`warpReduce` on a `volatile` shared pointer, no barrier between the levels), which relied
//!    on the lanes of a warp executing in lockstep. CUDA 9 and independent thread scheduling broke
//!    it; the fix is a `__syncwarp()` between each read and each write. On sm_6x the runtime
//!    executes it in lockstep and it runs clean.
//! 8. A lost update: `load; __syncwarp(); store` of a counter by every lane. The barrier orders
//!    every read before every write, but the writes race with each other: one increment survives.
//! 9. An mbarrier phase-parity bug (a producer/consumer pipeline of two warps on `full` and
//!    `empty` barriers): the producer's first wait on `empty` must be for the phase before phase
//!    0 (parity 1, so that it passes at once, as CUTLASS's producer start state does); waiting
//!    for parity 0 waits for the current phase, which only the consumer can complete, while the
//!    consumer waits on `full` for the producer. A GPU hangs; the report shows both warps' phases.
//! 10. An `expect_tx` that does not match the bytes transferred: the tx-count never reaches 0.
//! 11. A consumer that reads a stage before waiting for its phase: a race.
//!
//! Cases 4 to 11 are followed by their fixed twins, which run clean.
//!
//! Run it: `cargo run --example bug_gallery`. With `-- --trace <dir>`, each bug's run is traced
//! and its picture written to `<dir>/<case>.html` (see `warpkit::trace`): the lane timeline, with
//! the step the report is about outlined.

use warpkit::prelude::*;

/// The tracer `--trace` asks for: every launch of the gallery records into it.
#[cfg(not(target_arch = "nvptx64"))]
static TRACER: std::sync::OnceLock<warpkit::trace::Tracer> = std::sync::OnceLock::new();

/// `grid`, traced when `--trace` was given.
#[cfg(not(target_arch = "nvptx64"))]
fn gallery_grid(grid: Grid) -> Grid {
    match TRACER.get() {
        Some(t) => grid.trace(t),
        None => grid,
    }
}

/// `executor`, traced when `--trace` was given.
#[cfg(not(target_arch = "nvptx64"))]
fn gallery_executor(executor: Executor) -> Executor {
    match TRACER.get() {
        Some(t) => executor.trace(t),
        None => executor,
    }
}

/// cuda-samples `warpReduceSum(mask, mySum)`.
#[warp_kernel]
pub fn warp_reduce_sum(g: &Warp, my_sum: u32) -> u32 {
    let mut sum = my_sum;
    let mut offset = 16;
    while offset > 0 {
        sum += g.shfl_down(sum, offset);
        offset /= 2;
    }
    sum
}

/// The end of cuda-samples `reduce7` for one warp: `sdata` is this lane's shared-memory word.
#[warp_kernel]
pub fn reduce7_tail(w: &Warp, sdata: u32, block_size: u32) -> u32 {
    let tid = w.lane_id();
    let shmem_extent = if block_size / 32 > 0 { block_size / 32 } else { 1 };
    let ballot_result = w.ballot(tid < shmem_extent);
    let mut my_sum = 0;
    if tid < shmem_extent {
        my_sum = sdata;
        my_sum = warp_reduce_sum(&w.group(ballot_result), my_sum);
    }
    my_sum
}

/// A full-mask shuffle-down tree in a warp with fewer than 32 threads (CINN before #938).
#[warp_kernel]
pub fn block_reduce_tail(w: &Warp, x: u32) -> u32 {
    warp_reduce_sum(w, x)
}

/// `__shfl_down_sync(u.x[i], offset, width)`: the data word `x` is used as the membermask.
#[warp_kernel]
pub fn data_as_mask(w: &Warp, x: u32) -> u32 {
    w.shfl_down_sync(x, 1, 1, 32)
}

/// The bitsets of case 3: each half of the warp and the nearest lane of the other half
/// (lanes 0-15 hold lanes 0-16, lanes 16-31 hold lanes 15-31).
pub fn neighbourhoods() -> [u32; 32] {
    core::array::from_fn(|l| if l < 16 { 0x0001_ffff } else { 0xffff_8000 })
}

/// Case 4, acts `cuSearchTriplet` before PR 307: candidates are examined in steps of the block
/// size, and the barrier that orders the shared writes is inside the branch that only threads
/// with a candidate take. Returns how many candidates this thread found passing.
#[warp_kernel]
pub fn search_triplets(w: &Warp, n: u32, passed: SharedSlice<'_, u32>) -> u32 {
    let t = w.thread_rank();
    let mut found = 0;
    let mut offset = 0;
    while offset < n {
        if t + offset < n {
            let is_passed = (t + offset) % 3 != 0;
            passed.store((t + offset) as usize, is_passed as u32);
            w.sync_threads(); // inside `if (threadIdx.x + offset < n)`
            found += passed.load(((t + offset + 1) % n) as usize);
        }
        offset += w.block_size();
    }
    // (The kernel's triplet sort follows, with barriers of its own.)
    w.sync_threads();
    found
}

/// Case 4, fixed as in PR 307: every thread of the block reaches the barrier in every step.
#[warp_kernel]
pub fn search_triplets_fixed(w: &Warp, n: u32, passed: SharedSlice<'_, u32>) -> u32 {
    let t = w.thread_rank();
    let mut found = 0;
    let mut offset = 0;
    while offset < n {
        if t + offset < n {
            let is_passed = (t + offset) % 3 != 0;
            passed.store((t + offset) as usize, is_passed as u32);
        }
        w.sync_threads();
        if t + offset < n {
            found += passed.load(((t + offset + 1) % n) as usize);
        }
        w.sync_threads();
        offset += w.block_size();
    }
    w.sync_threads();
    found
}

/// `warpReduceMax`: a full-mask `__shfl_down_sync` tree.
#[warp_kernel]
pub fn warp_reduce_max(w: &Warp, v: f32) -> f32 {
    let mut m = v;
    let mut offset = 16;
    while offset > 0 {
        m = m.max(w.shfl_down(m, offset));
        offset /= 2;
    }
    m
}

/// Case 5, BundleFusion's `ComputeOrientation_Kernel` before PR 56: the histogram smoothing's
/// barriers are inside `if (tidx < 36)`, and a full-warp reduction follows.
#[warp_kernel]
pub fn orientation_vote(w: &Warp, vote: SharedSlice<'_, f32>, tmp: SharedSlice<'_, f32>) -> f32 {
    let t = w.thread_rank() as usize;
    if t < 36 {
        let (mut source, mut target) = (vote, tmp);
        for _ in 0..6 {
            let smoothed = (source.load((t + 35) % 36) + source.load(t) + source.load((t + 1) % 36)) / 3.0;
            target.store(t, smoothed);
            w.sync_threads(); // inside `if (tidx < 36)`
            core::mem::swap(&mut source, &mut target);
        }
    }
    let mine = if t < 36 { vote.load(t) } else { 0.0 };
    warp_reduce_max(w, mine)
}

/// Case 5, fixed as in PR 56: every thread reaches every barrier; only the smoothing itself is
/// conditional.
#[warp_kernel]
pub fn orientation_vote_fixed(w: &Warp, vote: SharedSlice<'_, f32>, tmp: SharedSlice<'_, f32>) -> f32 {
    let t = w.thread_rank() as usize;
    let (mut source, mut target) = (vote, tmp);
    for _ in 0..6 {
        if t < 36 {
            let smoothed = (source.load((t + 35) % 36) + source.load(t) + source.load((t + 1) % 36)) / 3.0;
            target.store(t, smoothed);
        }
        w.sync_threads();
        core::mem::swap(&mut source, &mut target);
    }
    let mine = if t < 36 { vote.load(t) } else { 0.0 };
    warp_reduce_max(w, mine)
}

/// Case 4 as the kernel launches it: one block of 64 threads over 40 candidates with
/// [`search_triplets`] (or, `fixed`, [`search_triplets_fixed`]); each thread's count.
#[cfg(not(target_arch = "nvptx64"))]
pub fn search_triplets_launch(fixed: bool) -> Result<Vec<u32>, WarpError> {
    gallery_grid(Grid::blocks(1, 64)).map(async |w: &Warp<'_>| {
        let passed = w.shared_array::<u32, 64>();
        if fixed { search_triplets_fixed(w, 40, passed).await } else { search_triplets(w, 40, passed).await }
    })
}

/// The histogram of case 5: 36 bins with a peak at bin 9.
pub fn orientation_histogram(bin: usize) -> f32 {
    1.0 / (1.0 + (bin as f32 - 9.0).abs())
}

/// Case 5 as the kernel launches it: one block of 64 threads fills the histogram's 36 bins in
/// shared memory, then votes with [`orientation_vote`] (or, `fixed`, [`orientation_vote_fixed`]);
/// each thread's result.
#[cfg(not(target_arch = "nvptx64"))]
pub fn orientation_launch(fixed: bool) -> Result<Vec<f32>, WarpError> {
    gallery_grid(Grid::blocks(1, 64)).map(async |w: &Warp<'_>| {
        let vote = w.shared_array::<f32, 36>();
        let tmp = w.shared_array::<f32, 36>();
        let t = w.thread_rank() as usize;
        if t < 36 {
            vote.store(t, orientation_histogram(t));
            tmp.store(t, 0.0);
        }
        w.sync_threads().await;
        if fixed { orientation_vote_fixed(w, vote, tmp).await } else { orientation_vote(w, vote, tmp).await }
    })
}

// GPU entry points, built to PTX (and checked by ptxas) so that the gallery compiles for the GPU
// like every example, but **never launched**: each is undefined behaviour on a GPU (a full-mask
// shuffle in a branch, reads of lanes that do not exist, a deadlock). Thread `i` writes `out[i]`.

/// Case 1: [`reduce7_tail`] of `sdata[i]` with `block_size` threads. Undefined behaviour.
#[warp_kernel(entry)]
pub fn gallery_reduce7_entry(w: &Warp, sdata: GlobalSlice<'_, u32>, block_size: u32, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, reduce7_tail(w, sdata.load(i), block_size));
}

/// Case 2: [`block_reduce_tail`] over `x.len()` threads (a partial warp). Undefined behaviour.
#[warp_kernel(entry)]
pub fn gallery_block_reduce_tail_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    if i >= x.len() {
        return;
    }
    out.store(i, block_reduce_tail(w, x.load(i)));
}

/// Case 4: [`search_triplets`] over `n` candidates, blocks of any size; thread `i` writes
/// `out[i]`. Undefined behaviour (a divergent `__syncthreads`).
#[warp_kernel(entry)]
pub fn gallery_search_triplets_entry(w: &Warp, n: u32, out: GlobalSlice<'_, u32>) {
    let passed = w.shared_array::<u32, 1024>();
    let found = search_triplets(w, n, passed);
    out.store(w.global_id() as usize, found);
}

/// Case 5: [`orientation_vote`] in blocks of 64 threads; thread `i` writes `out[i]`. Undefined
/// behaviour (a GPU hang).
#[warp_kernel(entry)]
pub fn gallery_orientation_entry(w: &Warp, out: GlobalSlice<'_, f32>) {
    let vote = w.shared_array::<f32, 36>();
    let tmp = w.shared_array::<f32, 36>();
    let t = w.thread_rank() as usize;
    if t < 36 {
        vote.store(t, orientation_histogram(t));
    }
    w.sync_threads();
    out.store(w.global_id() as usize, orientation_vote(w, vote, tmp));
}

/// Case 3: [`data_as_mask`] of `x[i]`. Undefined behaviour (a deadlock on overlapping masks).
#[warp_kernel(entry)]
pub fn gallery_data_as_mask_entry(w: &Warp, x: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    out.store(i, data_as_mask(w, x.load(i)));
}

/// Case 6, HeCBench #254 in miniature: each warp's inclusive scan; lane 31 of each warp writes its
/// warp's total to `sums[warp]`; after a barrier thread 31 adds the totals up into `sums[0]`, and
/// every thread reads the block total from there, without (or, `fixed`, with) the barrier that
/// orders that write before the reads. Each thread writes its inclusive prefix plus the block
/// total to `out` (the prefix over the block is not the point here).
#[warp_kernel]
pub fn block_total(w: &Warp, x: u32, fixed: bool) -> u32 {
    let sums = w.shared_array::<u32, 32>();
    let (t, lane, warp) = (w.thread_rank(), w.lane_id(), w.warp_in_block());
    let mut s = x;
    for d in [1, 2, 4, 8, 16] {
        let (up, ok) = w.shfl_up_pred(s, d);
        if ok {
            s = s.wrapping_add(up);
        }
    }
    if lane == 31 {
        sums.store(warp as usize, s);
    }
    w.sync_threads();
    if t == 31 {
        let mut total = 0u32;
        for k in 0..w.block_size().div_ceil(32) {
            total = total.wrapping_add(sums.load(k as usize));
        }
        sums.store(0, total);
    }
    if fixed {
        w.sync_threads();
    }
    s.wrapping_add(sums.load(0))
}

/// Case 6 as launched: one block of 128 threads over `x[0..128]`; `out[t]` is thread `t`'s result.
#[warp_kernel(entry)]
pub fn gallery_block_total_entry(w: &Warp, x: GlobalSlice<'_, u32>, fixed: u32, out: GlobalSlice<'_, u32>) {
    let t = w.thread_rank() as usize;
    out.store(t, block_total(w, x.load(t), fixed != 0));
}

/// Case 7: the last levels of a shared-memory reduction as the pre-Volta samples wrote them: `s`
/// holds 64 values, and lane `t` folds `s[t + offset]` into `s[t]` through a `volatile` pointer
/// with nothing between the levels (or, `fixed`, with CUDA 9's `__syncwarp()` around each write).
#[warp_kernel]
pub fn warp_reduce_shared(w: &Warp, s: SharedSlice<'_, u32>, fixed: bool) -> u32 {
    let t = w.lane_id() as usize;
    for offset in [32, 16, 8, 4, 2, 1] {
        let v = s.load_volatile(t).wrapping_add(s.load_volatile(t + offset));
        if fixed {
            w.syncwarp();
        }
        s.store_volatile(t, v);
        if fixed {
            w.syncwarp();
        }
    }
    s.load_volatile(0)
}

/// Case 7 as launched: one warp reduces `x[0..64]`; lane 0 writes the sum to `out[0]`.
#[warp_kernel(entry)]
pub fn gallery_warp_reduce_entry(w: &Warp, x: GlobalSlice<'_, u32>, fixed: u32, out: GlobalSlice<'_, u32>) {
    let s = w.shared_array::<u32, 64>();
    let t = w.lane_id() as usize;
    s.store(t, x.load(t));
    s.store(t + 32, x.load(t + 32));
    w.syncwarp();
    let sum = warp_reduce_shared(w, s, fixed != 0);
    if t == 0 {
        out.store(0, sum);
    }
}

/// Case 8: every lane of every warp adds one to `counter[0]`: with a load, a `__syncwarp()` and a
/// store (or, `fixed`, with `atom.add`).
#[warp_kernel(entry)]
pub fn gallery_lost_update_entry(w: &Warp, counter: GlobalSlice<'_, u32>, fixed: u32) {
    if fixed != 0 {
        counter.atomic_add(0, 1);
    } else {
        let seen = counter.load(0);
        w.syncwarp();
        counter.store(0, seen + 1);
    }
}

/// Case 6 on the CPU: each thread's result, or the race report.
#[cfg(not(target_arch = "nvptx64"))]
pub fn block_total_launch(fixed: bool) -> Result<Vec<u32>, WarpError> {
    let x = GlobalBuffer::from_slice(&(1..=128u32).collect::<Vec<_>>());
    let out = GlobalBuffer::<u32>::zeroed(128);
    let (xs, o) = (x.slice(), out.slice());
    gallery_grid(Grid::blocks(1, 128))
        .races(true)
        .run(async |w: &Warp<'_>| gallery_block_total_entry(w, xs, fixed as u32, o).await)?;
    Ok(out.to_vec())
}

/// Case 7 on the CPU for `target`: the sum of `1..=64`, or the race report.
#[cfg(not(target_arch = "nvptx64"))]
pub fn warp_reduce_launch(target: Target, fixed: bool) -> Result<u32, WarpError> {
    let x = GlobalBuffer::from_slice(&(1..=64u32).collect::<Vec<_>>());
    let out = GlobalBuffer::<u32>::zeroed(1);
    let (xs, o) = (x.slice(), out.slice());
    Grid::blocks(1, 32)
        .executor(gallery_executor(Executor::new().target(target).races(true)))
        .run(async |w: &Warp<'_>| gallery_warp_reduce_entry(w, xs, fixed as u32, o).await)?;
    Ok(out.to_vec()[0])
}

/// Case 8 on the CPU: the counter after two warps, or the race report.
#[cfg(not(target_arch = "nvptx64"))]
pub fn lost_update_launch(fixed: bool) -> Result<u32, WarpError> {
    let counter = GlobalBuffer::<u32>::zeroed(1);
    let c = counter.slice();
    gallery_grid(Grid::blocks(1, 64))
        .races(true)
        .run(async |w: &Warp<'_>| gallery_lost_update_entry(w, c, fixed as u32).await)?;
    Ok(counter.to_vec()[0])
}

// ---------------------------------------------------------------- mbarrier pipelines (issue 16)

/// Words per stage of the producer/consumer cases 9-11.
pub const STAGE: usize = 32;
/// Rounds of cases 9-11.
pub const ROUNDS: u32 = 4;

/// Case 9, a phase-parity bug that hangs a GPU: warp 0 produces a stage per round into shared
/// memory (it waits until the stage is `empty`, fills it and arrives on `full`), warp 1 consumes
/// it (waits on `full`, copies the stage out, arrives on `empty`). The producer's first wait on
/// `empty` must pass at once: it waits for the parity of the phase before phase 0, 1 (CUTLASS's
/// producer start state), and flips it each round. The broken producer starts at parity 0, the
/// parity of `empty`'s current phase, which only the consumer can complete, and the consumer
/// waits on `full` for the producer. `out[round * 32 + lane]` is what the consumer read.
#[warp_kernel(entry)]
pub fn gallery_mbarrier_parity_entry(w: &Warp, x: GlobalSlice<'_, u32>, fixed: u32, out: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let bars = w.shared_array::<u64, 2>(); // 0: full, 1: empty (32 arrivals each)
        let stage = w.shared_array::<u32, STAGE>();
        let lane = w.lane_id() as usize;
        if w.thread_rank() == 0 {
            bars.mbarrier_init(0, 32);
            bars.mbarrier_init(1, 32);
        }
        w.sync_threads();
        let mut parity = if w.warp_in_block() == 0 && fixed != 0 { 1 } else { 0 };
        let mut round = 0;
        while round < ROUNDS {
            if w.warp_in_block() == 0 {
                while !bars.mbarrier_try_wait_parity(1, parity) {}
                stage.store(lane, x.load(round as usize * STAGE + lane));
                bars.mbarrier_arrive(0);
            } else {
                while !bars.mbarrier_try_wait_parity(0, parity) {}
                out.store(round as usize * STAGE + lane, stage.load(lane));
                bars.mbarrier_arrive(1);
            }
            parity ^= 1;
            round += 1;
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, fixed, out);
        w.sync_threads();
    }
}

/// Case 10, an `expect_tx` that does not match the transfers: lane 0 of the producer announces
/// the stage's bytes with `expect_tx`; each lane stores one word, completes 4 bytes and arrives
/// (a release: the consumers' wait orders its store). The broken producer announces
/// `STAGE * size_of::<u64>()` bytes (the stage had been `u64`s), so the tx-count stays at 128
/// after every word has arrived and the consumers wait for a phase that never completes.
#[warp_kernel(entry)]
pub fn gallery_mbarrier_expect_tx_entry(w: &Warp, x: GlobalSlice<'_, u32>, fixed: u32, out: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let full = w.shared_array::<u64, 1>();
        let stage = w.shared_array::<u32, STAGE>();
        let lane = w.lane_id() as usize;
        if w.thread_rank() == 0 {
            full.mbarrier_init(0, 32);
        }
        w.sync_threads();
        if w.warp_in_block() == 0 {
            let word = if fixed != 0 { 4 } else { 8 };
            if lane == 0 {
                full.mbarrier_expect_tx(0, (STAGE * word) as u32);
            }
            w.syncwarp();
            stage.store(lane, x.load(lane));
            full.mbarrier_complete_tx(0, 4);
            full.mbarrier_arrive(0);
        } else {
            while !full.mbarrier_try_wait_parity(0, 0) {}
            out.store(lane, stage.load(lane));
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, fixed, out);
        w.sync_threads();
    }
}

/// Case 11, a consumer that reads the stage before its phase completes: the broken consumer
/// copies the stage out and then waits (the wait was moved below the copy); nothing orders the
/// producer's writes before its reads.
#[warp_kernel(entry)]
pub fn gallery_mbarrier_early_read_entry(w: &Warp, x: GlobalSlice<'_, u32>, fixed: u32, out: GlobalSlice<'_, u32>) {
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    {
        let full = w.shared_array::<u64, 1>();
        let stage = w.shared_array::<u32, STAGE>();
        let lane = w.lane_id() as usize;
        if w.thread_rank() == 0 {
            full.mbarrier_init(0, 32);
            // The stage starts as zeros (so the early read reads initialized memory).
            let mut k = 0;
            while k < STAGE {
                stage.store(k, 0);
                k += 1;
            }
        }
        w.sync_threads();
        if w.warp_in_block() == 0 {
            stage.store(lane, x.load(lane));
            full.mbarrier_arrive(0);
        } else if fixed != 0 {
            while !full.mbarrier_try_wait_parity(0, 0) {}
            out.store(lane, stage.load(lane));
        } else {
            let v = stage.load(lane);
            while !full.mbarrier_try_wait_parity(0, 0) {}
            out.store(lane, v);
        }
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let _ = (x, fixed, out);
        w.sync_threads();
    }
}

/// Cases 9-11 on the CPU (one block of two warps, sm_90): what the consumer wrote, or the report.
#[cfg(not(target_arch = "nvptx64"))]
pub fn mbarrier_case_launch(case: u32, fixed: bool) -> Result<Vec<u32>, WarpError> {
    let x = GlobalBuffer::from_slice(&(0..STAGE as u32 * ROUNDS).map(|v| v * 3 + 1).collect::<Vec<_>>());
    let out = GlobalBuffer::<u32>::zeroed(STAGE * ROUNDS as usize);
    let (xs, o) = (x.slice(), out.slice());
    let grid = gallery_grid(Grid::blocks(1, 64)).executor(Executor::new().target(Target::SM_90)).races(true);
    match case {
        9 => grid.run(async |w: &Warp<'_>| gallery_mbarrier_parity_entry(w, xs, fixed as u32, o).await)?,
        10 => grid.run(async |w: &Warp<'_>| gallery_mbarrier_expect_tx_entry(w, xs, fixed as u32, o).await)?,
        _ => grid.run(async |w: &Warp<'_>| gallery_mbarrier_early_read_entry(w, xs, fixed as u32, o).await)?,
    };
    Ok(out.to_vec())
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--trace", Some(dir)) => {
                std::fs::create_dir_all(&dir).expect("--trace: cannot create the directory");
                TRACE_DIR.set(dir.into()).expect("set once");
                TRACER.set(warpkit::trace::Tracer::new()).expect("set once");
            }
            _ => {
                eprintln!("usage: bug_gallery [--trace <dir>]");
                std::process::exit(2);
            }
        }
    }
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 + 1);

    println!("== 1. cuda-samples #398: reduce7 with a block of 32 threads ==");
    let err = gallery_executor(Executor::new())
        .run_with(&x, async |w: &Warp<'_>, s| reduce7_tail(w, s, 32).await)
        .unwrap_err();
    println!("{err}\n");
    picture(&err, "1-cuda-samples-398");

    println!("== 2. CINN #938: a full-mask shuffle tree in a warp of 20 threads ==");
    let err = gallery_executor(Executor::new())
        .run_partial((1 << 20) - 1, async |w: &Warp<'_>| {
            block_reduce_tail(w, x[w.lane_id() as usize]).await
        })
        .unwrap_err();
    println!("{err}\n");
    picture(&err, "2-cinn-938");

    println!(
        "== 3. moderngpu #36: the data word as membermask; two halves on overlapping masks =="
    );
    let err = gallery_executor(Executor::new())
        .run_with(&neighbourhoods(), data_as_mask)
        .unwrap_err();
    println!("{err}\n");
    picture(&err, "3-moderngpu-36");

    println!("== 4. acts #307: __syncthreads inside `if (threadIdx.x + offset < n)`, 40 candidates, blocks of 64 ==");
    let err = search_triplets_launch(false).unwrap_err();
    println!("{err}");
    picture(&err, "4-acts-307");
    let found = search_triplets_launch(true).unwrap();
    println!("fixed: runs clean; candidates found passing: {}\n", found.iter().sum::<u32>());

    println!("== 5. BundleFusion #56: the histogram smoothing's __syncthreads inside `if (tidx < 36)`, blocks of 64 ==");
    let err = orientation_launch(false).unwrap_err();
    println!("{err}");
    picture(&err, "5-bundlefusion-56");
    let maxima = orientation_launch(true).unwrap();
    println!("fixed: runs clean; warp 0's maximum vote {:.4}", maxima[0]);

    println!("\n== 6. HeCBench #254: one thread writes the block total, 128 threads read it without __syncthreads ==");
    let err = block_total_launch(false).unwrap_err();
    println!("{err}");
    picture(&err, "6-hecbench-254");
    let out = block_total_launch(true).unwrap();
    println!(
        "fixed: runs clean; thread 0 gets its prefix plus the block total: {}\n",
        out[0]
    );

    println!(
        "== 7. the pre-Volta warp-synchronous reduction (volatile, no __syncwarp), on sm_90 =="
    );
    let err = warp_reduce_launch(Target::SM_90, false).unwrap_err();
    println!("{err}");
    picture(&err, "7-warp-synchronous-reduction");
    println!(
        "on sm_60 (lockstep): runs clean, sum {}",
        warp_reduce_launch(Target::SM_60, false).unwrap()
    );
    println!(
        "fixed with __syncwarp(): runs clean on sm_90, sum {}\n",
        warp_reduce_launch(Target::SM_90, true).unwrap()
    );

    println!("== 8. a lost update: load; __syncwarp(); store of one counter by 64 threads ==");
    let err = lost_update_launch(false).unwrap_err();
    println!("{err}");
    picture(&err, "8-lost-update");
    println!(
        "fixed with atom.add: runs clean, counter {}",
        lost_update_launch(true).unwrap()
    );

    let cases = [
        (9, "a phase-parity bug: the producer's first wait on `empty` is for the current phase (a GPU hangs)", "9-mbarrier-parity"),
        (10, "an expect_tx of 256 bytes for copies of 128", "10-mbarrier-expect-tx"),
        (11, "a consumer that reads the stage before waiting for its phase", "11-mbarrier-early-read"),
    ];
    for (case, what, name) in cases {
        println!("\n== {case}. mbarrier: {what} ==");
        let err = mbarrier_case_launch(case, false).unwrap_err();
        println!("{err}");
        picture(&err, name);
        let out = mbarrier_case_launch(case, true).unwrap();
        println!("fixed: runs clean; the consumer read {} words", out.iter().filter(|&&v| v != 0).count());
    }
}

/// Where `--trace` writes the pictures.
#[cfg(not(target_arch = "nvptx64"))]
static TRACE_DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// With `--trace`, writes the picture of the run that just failed with `err` to `<dir>/<name>.html`,
/// and its trace-event JSON to `<dir>/<name>.json`.
#[cfg(not(target_arch = "nvptx64"))]
fn picture(err: &WarpError, name: &str) {
    if let (Some(tracer), Some(dir)) = (TRACER.get(), TRACE_DIR.get()) {
        let path = dir.join(format!("{name}.html"));
        let json = dir.join(format!("{name}.json"));
        let written = err.write_picture(tracer, &path).and_then(|()| tracer.trace().with_report(err).write_perfetto_json(&json));
        match written {
            Ok(()) => println!("picture: {} (and {} for ui.perfetto.dev)\n", path.display(), json.display()),
            Err(e) => eprintln!("could not write {}: {e}", path.display()),
        }
    }
}
