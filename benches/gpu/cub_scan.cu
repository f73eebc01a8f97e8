// cub::DeviceScan::InclusiveSum behind a C ABI, for the GPU benchmark's single-pass scan
// comparison (bench_lookback_scan in kernels.rs). run.sh builds it as a shared library:
//   nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o libcub_scan.so cub_scan.cu
// and gpu-bench loads it at run time. Device pointers come from the host program's CUDA context
// (the primary context of device 0, which the runtime API shares), the stream is its stream.

#include <cstddef>
#include <cub/device/device_scan.cuh>

// The temporary storage the scan of `n` values needs, in `*bytes`; returns a cudaError_t.
extern "C" int warpkit_cub_scan_temp_bytes(size_t n, size_t* bytes) {
    return (int)cub::DeviceScan::InclusiveSum(nullptr, *bytes, (const unsigned*)nullptr, (unsigned*)nullptr, (int)n);
}

// output[i] = input[0] + ... + input[i] (wrapping), on `stream`; returns a cudaError_t.
extern "C" int warpkit_cub_scan(void* temp, size_t bytes, const unsigned* input, unsigned* output, size_t n, void* stream) {
    return (int)cub::DeviceScan::InclusiveSum(temp, bytes, input, output, (int)n, (cudaStream_t)stream);
}
