// The CUDA C++ side of the GPU benchmark (`cargo xtask gpu-bench`): the algorithms of
// benches/gpu/kernels.rs (warpkit) and of examples/histogram.rs's `histogram_ffs`, written as a
// CUDA programmer would, with the same loads per thread, the same unrolling (UNROLL loads in
// flight per thread, written out in the source), the same warp instructions.
//
// Built on the GPU machine by the bundle's run.sh: nvcc -O3 -arch=sm_90 -cubin.
//
// Parameters: each warpkit `GlobalSlice<'_, T>` is a 16-byte (pointer, length) pair passed by
// value; here it is a pointer parameter followed by a size_t length, which has the same layout in
// the parameter space, so the host program launches both kernels with the same arguments. The
// pointers are plain (no __restrict__, no const-cache loads), as warpkit's are: nothing tells
// either compiler that input and output do not alias.

#include <cstddef>
#include <cub/block/block_reduce.cuh>

#define FULL_MASK 0xffffffffu
#define UNROLL 8

// This thread's share of a grid-stride sum: UNROLL loads, then their sum, per iteration.
__device__ __forceinline__ unsigned thread_sum(const unsigned* input, size_t n, unsigned threads) {
    size_t stride = threads;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    while (i + (UNROLL - 1) * stride < n) {
        unsigned v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) v[k] = input[i + k * stride];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc += v[k];
        i += UNROLL * stride;
    }
    while (i < n) {
        acc += input[i];
        i += stride;
    }
    return acc;
}

// bench_reduce_redux: per-thread grid-stride sums, __reduce_add_sync (redux.sync.add.u32), one
// atomicAdd per warp.
extern "C" __global__ void cuda_reduce_redux(const unsigned* input, size_t n, unsigned* out, size_t out_len,
                                             unsigned threads) {
    unsigned acc = thread_sum(input, n, threads);
    unsigned sum = __reduce_add_sync(FULL_MASK, acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, sum);
}

// bench_reduce_shfl: the warp sum as a __shfl_down_sync tree (16, 8, 4, 2, 1).
extern "C" __global__ void cuda_reduce_shfl(const unsigned* input, size_t n, unsigned* out, size_t out_len,
                                            unsigned threads) {
    unsigned sum = thread_sum(input, n, threads);
    for (unsigned offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(FULL_MASK, sum, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, sum);
}

// bench_scan_sums: warp k writes the sum of input[k * chunk, (k + 1) * chunk) to sums[k].
extern "C" __global__ void cuda_scan_sums(const unsigned* input, size_t n, unsigned* sums, size_t sums_len,
                                          unsigned chunk) {
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (warp >= sums_len) return;
    size_t lane = threadIdx.x & 31;
    size_t begin = warp * chunk;
    size_t end = begin + chunk < n ? begin + chunk : n;
    unsigned acc = 0;
    size_t s = begin;
    while (s + 32 * UNROLL <= end) {
        unsigned v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) v[k] = input[s + 32 * k + lane];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc += v[k];
        s += 32 * UNROLL;
    }
    while (s < end) {
        if (s + lane < end) acc += input[s + lane];
        s += 32;
    }
    unsigned sum = __reduce_add_sync(FULL_MASK, acc);
    if (lane == 0) sums[warp] = sum;
}

// Inclusive prefix sum over the warp: 5 steps of __shfl_up_sync.
__device__ __forceinline__ unsigned inclusive_sum(unsigned x) {
    unsigned lane = threadIdx.x & 31;
    unsigned v = x;
#pragma unroll
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        unsigned up = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// bench_scan_chunks: warp k scans input[k * chunk, (k + 1) * chunk) into output, starting from
// carries[k - 1] (0 for warp 0), in strips of 32 elements.
extern "C" __global__ void cuda_scan_chunks(const unsigned* input, size_t n, unsigned* output, size_t output_len,
                                            const unsigned* carries, size_t carries_len, unsigned chunk) {
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t begin = warp * chunk;
    if (begin >= n) return;
    size_t lane = threadIdx.x & 31;
    size_t end = begin + chunk < n ? begin + chunk : n;
    unsigned carry = warp == 0 ? 0 : carries[warp - 1];
    size_t s = begin;
    while (s + 32 * UNROLL <= end) {
        unsigned v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) v[k] = input[s + 32 * k + lane];
        // The strips' scans and totals first, then the stores (as in kernels.rs).
        unsigned total[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            v[k] = inclusive_sum(v[k]);
            total[k] = __shfl_sync(FULL_MASK, v[k], 31);
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            output[s + 32 * k + lane] = v[k] + carry;
            carry += total[k];
        }
        s += 32 * UNROLL;
    }
    while (s < end) {
        size_t j = s + lane;
        unsigned v = j < end ? input[j] : 0;
        unsigned x = inclusive_sum(v);
        unsigned total = __shfl_sync(FULL_MASK, x, 31);
        if (j < end) output[j] = x + carry;
        carry += total;
        s += 32;
    }
}

// examples/histogram.rs `histogram_ffs`: one thread per element; the lanes that reach the
// match together group by bucket (__match_any_sync over __activemask()), and the lowest lane of
// each group (__ffs(peers) - 1) adds the group's size with one atomicAdd.
#define IGNORE 0xffffffffu
extern "C" __global__ void cuda_histogram_ffs(const unsigned* input, size_t n, unsigned* counts, size_t buckets) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = input[i];
    if (x == IGNORE) return;
    unsigned b = x % (unsigned)buckets;
    unsigned active = __activemask();
    unsigned peers = __match_any_sync(active, b);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) atomicAdd(&counts[b], (unsigned)__popc(peers));
}

// bench_block_reduce: the grid-stride sum of cuda_reduce_shfl, then cub::BlockReduce (its default
// algorithm, BLOCK_REDUCE_WARP_REDUCTIONS), one atomicAdd per block. Blocks of 256 threads.
extern "C" __global__ void __launch_bounds__(256) cuda_block_reduce(const unsigned* input, size_t n, unsigned* out,
                                                                     size_t out_len, unsigned threads) {
    typedef cub::BlockReduce<unsigned, 256> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned acc = thread_sum(input, n, threads);
    unsigned total = BlockReduce(temp).Sum(acc);
    if (threadIdx.x == 0) atomicAdd(out, total);
}

// ---------------------------------------------------------------------------------------------
// examples/mbarrier_pipeline.rs `mbarrier_reduce_entry` (issue 16): the multistage
// producer/consumer tiled reduction, written against libcu++'s cuda::barrier. Built with
// nvcc -O3 -arch=sm_90a (run.sh builds this file a second time for it; the kernels above are
// built for sm_90 with this section left out, -DWARPKIT_BENCH_NO_PIPELINE).
//
// Each block reduces the tiles block, block + blocks, ... of x (PIPE_TILE u32 each, the last one
// possibly shorter) through PIPE_STAGES stage buffers in dynamic shared memory
// (PIPE_STAGES * PIPE_TILE * 4 bytes). Warp 0 produces: its elected lane (elect.sync, as
// CUTLASS's elect_one_sync) waits until stage s is empty, announces the tile's bytes on full[s]
// (cuda::device::barrier_arrive_tx: mbarrier.arrive.expect_tx) and starts the bulk copy
// (cuda::device::memcpy_async_tx: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx),
// which completes those bytes on full[s]. Warps 1 and 2 consume: they wait on full[s] with the
// phase's parity, add their part of the tile (thread c of 64 adds elements c, c + 64, ...), and
// arrive on empty[s]. The producer's first wait on each empty barrier is for parity 1 (the phase
// before phase 0), which passes at once. Thread 0 sums the 64 partials into out[block].
// x's length must be a multiple of 4 (a bulk copy moves a multiple of 16 bytes).
//
// Two kernels, differing only in how a thread waits on a phase:
//   cuda_mbarrier_reduce: a spin on cuda::ptx::mbarrier_try_wait_parity (acquire, cta) of the
//     barrier's native handle, the loop warpkit's kernel and CUTLASS's ClusterBarrier::wait have;
//   cuda_mbarrier_reduce_wait_parity: cuda::barrier::wait_parity (libcu++'s poll with backoff:
//     it reads the global timer first, polls, then yields and sleeps).
// cuda::pipeline is not used: its memcpy_async copies with cp.async (16 bytes per thread of the
// producer group, completing through cp.async.mbarrier.arrive), not with one bulk copy, so it
// would be another algorithm.
#ifndef WARPKIT_BENCH_NO_PIPELINE
#include <cuda/barrier>
#include <cuda/ptx>

#define PIPE_STAGES 3
#define PIPE_TILE 256
#define PIPE_CONSUMER_WARPS 2
#define PIPE_CONSUMERS (32 * PIPE_CONSUMER_WARPS)

typedef cuda::barrier<cuda::thread_scope_block> block_barrier;

// cute::elect_one_sync: elect.sync over the full warp; true in the elected lane.
__device__ __forceinline__ bool elect_one_sync() {
    unsigned pred = 0;
    unsigned lane = 0;
    asm volatile(
        "{\n"
        ".reg .b32 %%rx;\n"
        ".reg .pred %%px;\n"
        "     elect.sync %%rx|%%px, %2;\n"
        "@%%px mov.s32 %1, 1;\n"
        "     mov.s32 %0, %%rx;\n"
        "}\n"
        : "+r"(lane), "+r"(pred)
        : "r"(FULL_MASK));
    return pred != 0;
}

template <bool LIBCU_WAIT>
__device__ __forceinline__ void pipe_wait(block_barrier& bar, unsigned parity) {
    if (LIBCU_WAIT) {
        bar.wait_parity(parity != 0);
    } else {
        while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta,
                                                    cuda::device::barrier_native_handle(bar), parity)) {
        }
    }
}

template <bool LIBCU_WAIT>
__device__ __forceinline__ void mbarrier_reduce(const unsigned* x, size_t n, unsigned* out, block_barrier* full,
                                                block_barrier* empty, unsigned* stages, unsigned* partial) {
    size_t block = blockIdx.x, blocks = gridDim.x;
    size_t tiles = (n + PIPE_TILE - 1) / PIPE_TILE;
    size_t mine = block < tiles ? (tiles - block + blocks - 1) / blocks : 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < PIPE_STAGES; s++) {
            init(&full[s], 1);
            init(&empty[s], PIPE_CONSUMERS);
        }
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        if (elect_one_sync()) {
            for (size_t k = 0; k < mine; k++) {
                unsigned s = k % PIPE_STAGES;
                pipe_wait<LIBCU_WAIT>(empty[s], (unsigned)((k / PIPE_STAGES) & 1) ^ 1);
                size_t start = (block + k * blocks) * PIPE_TILE;
                size_t len = n - start < PIPE_TILE ? n - start : PIPE_TILE;
                unsigned bytes = (unsigned)(len * sizeof(unsigned));
                (void)cuda::device::barrier_arrive_tx(full[s], 1, bytes);
                cuda::device::memcpy_async_tx(stages + s * PIPE_TILE, x + start, cuda::aligned_size_t<16>(bytes), full[s]);
            }
        }
    } else {
        unsigned c = threadIdx.x - 32;
        unsigned acc = 0;
        for (size_t k = 0; k < mine; k++) {
            unsigned s = k % PIPE_STAGES;
            pipe_wait<LIBCU_WAIT>(full[s], (unsigned)((k / PIPE_STAGES) & 1));
            size_t start = (block + k * blocks) * PIPE_TILE;
            size_t len = n - start < PIPE_TILE ? n - start : PIPE_TILE;
            for (size_t i = c; i < len; i += PIPE_CONSUMERS) acc += stages[s * PIPE_TILE + i];
            (void)empty[s].arrive();
        }
        partial[c] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (int c = 0; c < PIPE_CONSUMERS; c++) total += partial[c];
        out[block] = total;
    }
}

// The barriers have a constructor that a __shared__ variable does not run; init() sets them up.
#pragma nv_diag_suppress static_var_with_dynamic_init

// Launch with 96 threads per block and PIPE_STAGES * PIPE_TILE * 4 bytes of dynamic shared memory.
extern "C" __global__ void cuda_mbarrier_reduce(const unsigned* x, size_t n, unsigned* out, size_t out_len) {
    __shared__ block_barrier full[PIPE_STAGES], empty[PIPE_STAGES];
    __shared__ unsigned partial[PIPE_CONSUMERS];
    extern __shared__ __align__(128) unsigned pipe_stages[];
    mbarrier_reduce<false>(x, n, out, full, empty, pipe_stages, partial);
}

extern "C" __global__ void cuda_mbarrier_reduce_wait_parity(const unsigned* x, size_t n, unsigned* out,
                                                            size_t out_len) {
    __shared__ block_barrier full[PIPE_STAGES], empty[PIPE_STAGES];
    __shared__ unsigned partial[PIPE_CONSUMERS];
    extern __shared__ __align__(128) unsigned pipe_stages[];
    mbarrier_reduce<true>(x, n, out, full, empty, pipe_stages, partial);
}
#endif // WARPKIT_BENCH_NO_PIPELINE
