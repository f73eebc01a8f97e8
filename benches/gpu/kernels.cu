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
