#!/bin/sh
# The warpkit GPU benchmark, run from the folder `cargo xtask gpu-bench` assembles
# (target/gpu-bench/), on a machine with an NVIDIA GPU of sm_90 and the CUDA toolkit (nvcc, ptxas,
# cuobjdump; no Rust). It
#
#   1. builds the CUDA C++ kernels:      nvcc -O3 -arch=sm_90 -cubin kernels.cu
#      and the warpkit PTX the same way:  ptxas -O3 -arch=sm_90 warpkit_ptx.ptx
#      (so both sides go through the same ptxas; the host program loads the two cubins), and a
#      diagnostic copy of the warpkit PTX whose generic ld/st in the benchmark kernels are
#      rewritten to ld.global/st.global;
#   2. dumps the SASS of every benchmark kernel (cuobjdump -sass) and the hot loop of each, side by
#      side for the two reductions;
#   3. runs ./gpu-bench on GPU 0: CUDA-event timings, results checked against sequential Rust.
#
# Files go to $OUT when it is set (the device tool's output folder), else to ./results/:
# bench.txt (the timings table), build.txt (versions, registers), sass_loops.txt (the reductions'
# inner loops), sass.txt (every benchmark kernel, both sides). Extra arguments go to gpu-bench
# (--log2n N, --reps R, --warmup W, --seed S). Exit status: gpu-bench's.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
RES=${OUT:-$HERE/results}
mkdir -p "$RES"
W=$(mktemp -d)
cd "$HERE" || exit 2
KERNELS="reduce_redux reduce_shfl block_reduce scan_sums scan_chunks histogram_ffs"
wk_name() { case $1 in histogram_ffs) echo histogram_ffs ;; *) echo "bench_$1" ;; esac; }

# ---- 1. build ----
{
    echo "== machine"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    echo "== nvcc"
    nvcc --version 2>&1 | tail -n 2
    echo "== nvcc -O3 -arch=sm_90 -cubin kernels.cu"
    nvcc -O3 -arch=sm_90 -cubin -Xptxas -v -o "$W/nvcc.cubin" kernels.cu 2>&1 | grep -E "entry function|registers|spill"
    echo "== nvcc -O3 -arch=sm_90 -shared cub_scan.cu (cub::DeviceScan::InclusiveSum behind a C ABI)"
    nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o "$W/libcub_scan.so" cub_scan.cu 2>&1 && echo "nvcc ok"
    echo "== ptxas -O3 -arch=sm_90 warpkit_ptx.ptx (benchmark kernels)"
    ptxas -O3 -arch=sm_90 -v -o "$W/warpkit.cubin" warpkit_ptx.ptx > "$W/ptxas.txt" 2>&1
    echo "ptxas exit status $?"
    for k in $KERNELS lookback_scan; do grep -A3 "entry function '$(wk_name "$k")'" "$W/ptxas.txt" | grep -E "entry function|registers|spill"; done
    echo "== diagnostic: warpkit PTX, generic ld.b32/st.b32 of the benchmark kernels -> ld.global/st.global"
    awk -v names=" bench_reduce_redux bench_reduce_shfl bench_block_reduce bench_scan_sums bench_scan_chunks histogram_ffs " '
        /\.entry / { e = $0; sub(/.*\.entry[ \t]+/, "", e); sub(/\(.*/, "", e); cur = (index(names, " " e " ") > 0) }
        cur && /^[ \t]+ld\.b32[ \t]/ { sub(/ld\.b32/, "ld.global.b32"); n++ }
        cur && /^[ \t]+st\.b32[ \t]/ { sub(/st\.b32/, "st.global.b32"); n++ }
        { print }
        END { print "rewrote " n " instructions" > "/dev/stderr" }' warpkit_ptx.ptx > "$W/warpkit_ldglobal.ptx"
    ptxas -O3 -arch=sm_90 -o "$W/warpkit_ldglobal.cubin" "$W/warpkit_ldglobal.ptx" 2>&1 && echo "ptxas ok"
} > "$RES/build.txt" 2>&1
cat "$RES/build.txt"

# ---- 2. SASS ----
{
    for k in $KERNELS; do
        echo "=================== $k: nvcc (cuda_$k)"
        cuobjdump -sass -fun "cuda_$k" "$W/nvcc.cubin"
        echo "=================== $k: warpkit ($(wk_name "$k"))"
        cuobjdump -sass -fun "$(wk_name "$k")" "$W/warpkit.cubin"
    done
    echo "=================== lookback_scan: warpkit (bench_lookback_scan)"
    cuobjdump -sass -fun bench_lookback_scan "$W/warpkit.cubin"
} > "$RES/sass.txt" 2>&1
{
    echo "The hot loop of each benchmark kernel (the backward branch whose body holds the most global loads),"
    echo "from cuobjdump -sass of nvcc's cubin and of ptxas's cubin of the warpkit PTX."
    for k in $KERNELS; do
        echo
        echo "=================== $k, nvcc: cuda_$k"
        cuobjdump -sass -fun "cuda_$k" "$W/nvcc.cubin" | awk -f sass_loop.awk
        echo "=================== $k, warpkit: $(wk_name "$k")"
        cuobjdump -sass -fun "$(wk_name "$k")" "$W/warpkit.cubin" | awk -f sass_loop.awk
    done
} > "$RES/sass_loops.txt" 2>&1
echo "== SASS hot loops (full listings in sass_loops.txt):"
grep -E "^(=+ |-- )" "$RES/sass_loops.txt"
echo
echo "== reduce_redux inner loop, nvcc | warpkit"
cuobjdump -sass -fun cuda_reduce_redux "$W/nvcc.cubin" | awk -f sass_loop.awk | grep -v '^--' > "$W/a.txt"
cuobjdump -sass -fun bench_reduce_redux "$W/warpkit.cubin" | awk -f sass_loop.awk | grep -v '^--' > "$W/b.txt"
awk 'NR==FNR { a[FNR] = $0; na = FNR; next } { b[FNR] = $0; nb = FNR }
     END { m = na > nb ? na : nb; for (i = 1; i <= m; i++) printf "%-52s | %s\n", substr(a[i], 1, 52), b[i] }' "$W/a.txt" "$W/b.txt"

# ---- 3. run ----
echo
set -- --warpkit "$W/warpkit.cubin" "$@"
[ -f "$W/nvcc.cubin" ] && set -- "$@" --cuda "$W/nvcc.cubin"
[ -f "$W/warpkit_ldglobal.cubin" ] && set -- "$@" --diag "$W/warpkit_ldglobal.cubin"
[ -f "$W/libcub_scan.so" ] && set -- "$@" --cub "$W/libcub_scan.so"
{ ./gpu-bench "$@"; echo $? > "$W/status"; } 2>&1 | tee "$RES/bench.txt"
status=$(cat "$W/status")
rm -rf "$W"
exit $status
