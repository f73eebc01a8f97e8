#!/bin/sh
# The warpkit GPU benchmark, run from the folder `cargo xtask gpu-bench` assembles
# (target/gpu-bench/), on a machine with an NVIDIA GPU of sm_90 and the CUDA toolkit (nvcc, ptxas,
# cuobjdump; no Rust). It
#
#   1. builds the CUDA C++ kernels:      nvcc -O3 -arch=sm_90 -cubin kernels.cu
#      and the warpkit PTX the same way:  ptxas -O3 -arch=sm_90 warpkit_ptx.ptx
#      (so both sides go through the same ptxas; the host program loads the two cubins), and a
#      diagnostic copy of the warpkit PTX whose generic ld/st in the benchmark kernels are
#      rewritten to ld.global/st.global; for the mbarrier pipeline (issue 16) both sides again
#      with -arch=sm_90a: nvcc -O3 -arch=sm_90a -cubin kernels.cu (its cuda::barrier kernels; the
#      sm_90 build leaves them out, -DWARPKIT_BENCH_NO_PIPELINE, so that the other kernels build
#      as before) and ptxas -O3 -arch=sm_90a warpkit_ptx.ptx;
#   2. dumps the SASS of every benchmark kernel (cuobjdump -sass) and the hot loop of each, side by
#      side for the two reductions; and the pipeline's producer and consumer loops, side by side;
#   3. runs ./gpu-bench on GPU 0: CUDA-event timings, results checked against sequential Rust.
#
# Files go to $OUT when it is set (the device tool's output folder), else to ./results/:
# bench.txt (the timings table), build.txt (versions, registers), sass_loops.txt (the reductions'
# inner loops), sass.txt (every benchmark kernel, both sides), sass_pipeline.txt (the mbarrier
# pipeline's loops side by side, then its three kernels in full). Extra arguments go to gpu-bench
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
    echo "== nvcc -O3 -arch=sm_90 -cubin -DWARPKIT_BENCH_NO_PIPELINE kernels.cu"
    nvcc -O3 -arch=sm_90 -cubin -DWARPKIT_BENCH_NO_PIPELINE -Xptxas -v -o "$W/nvcc.cubin" kernels.cu 2>&1 | grep -E "entry function|registers|spill|error|warning"
    echo "== nvcc -O3 -arch=sm_90a -cubin kernels.cu (the mbarrier pipeline rows: cuda_mbarrier_reduce*)"
    nvcc -O3 -arch=sm_90a -cubin -Xptxas -v -o "$W/nvcc_90a.cubin" kernels.cu > "$W/nvcc_90a.txt" 2>&1
    echo "nvcc exit status $?"
    grep -E "error|warning" "$W/nvcc_90a.txt"
    grep -A3 "entry function 'cuda_mbarrier_reduce" "$W/nvcc_90a.txt" | grep -E "entry function|registers|spill"
    echo "== nvcc -O3 -arch=sm_90 -shared cub_scan.cu (cub::DeviceScan::InclusiveSum behind a C ABI)"
    nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o "$W/libcub_scan.so" cub_scan.cu 2>&1 && echo "nvcc ok"
    echo "== ptxas -O3 -arch=sm_90 warpkit_ptx.ptx (benchmark kernels)"
    ptxas -O3 -arch=sm_90 -v -o "$W/warpkit.cubin" warpkit_ptx.ptx > "$W/ptxas.txt" 2>&1
    echo "ptxas exit status $?"
    for k in $KERNELS lookback_scan; do grep -A3 "entry function '$(wk_name "$k")'" "$W/ptxas.txt" | grep -E "entry function|registers|spill"; done
    echo "== ptxas -O3 -arch=sm_90a warpkit_ptx.ptx (the mbarrier pipeline rows: mbarrier_reduce_entry)"
    ptxas -O3 -arch=sm_90a -v -o "$W/warpkit_90a.cubin" warpkit_ptx.ptx > "$W/ptxas_90a.txt" 2>&1
    echo "ptxas exit status $?"
    grep -A3 "entry function 'mbarrier_reduce_entry'" "$W/ptxas_90a.txt" | grep -E "entry function|registers|spill"
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

# The mbarrier pipeline: the loop of a function that holds an instruction matching `pat` (the
# innermost backward branch around one), then the blocks placed out of line that branch back into
# it (the retries of a failed SYNCS.PHASECHK try-wait), as "addr  INSTR" lines.
cat > "$W/pipe_loop.awk" <<'AWK'
function hex(s,    i, c, v) {
    v = 0; s = tolower(s); sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (c == 0) break; v = v * 16 + c - 1 }
    return v
}
/^[ \t]*\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\/[ \t]/ {
    line = $0; sub(/^[ \t]*\/\*/, "", line); a = line; sub(/\*\/.*/, "", a)
    ins = line; sub(/^[0-9a-f]+\*\/[ \t]*/, "", ins); sub(/[ \t]*;.*$/, "", ins)
    n++; addr[n] = hex(a); text[n] = ins; hexaddr[n] = a; tgt[n] = -1
    if (ins ~ /BRA[ \t]+0x[0-9a-f]+/) { t = ins; sub(/.*BRA[ \t]+/, "", t); tgt[n] = hex(t) }
}
END {
    best = 0
    for (j = 1; j <= n; j++) {
        if (tgt[j] < 0 || tgt[j] > addr[j]) continue
        has = 0
        for (i = 1; i <= j; i++) if (addr[i] >= tgt[j] && text[i] ~ pat) has = 1
        if (has && (best == 0 || addr[j] - tgt[j] < addr[best] - tgt[best])) best = j
    }
    if (best == 0) { print "(no loop around " pat ")"; exit 0 }
    lo = tgt[best]; hi = addr[best]
    for (i = 1; i <= n; i++) if (addr[i] >= lo && addr[i] <= hi) print hexaddr[i] "  " text[i]
    for (j = 1; j <= n; j++) {
        if (addr[j] <= hi || tgt[j] < lo || tgt[j] > hi) continue
        s = j
        while (s > 1 && addr[s - 1] > hi && text[s - 1] !~ /^(BRA|EXIT|RET|BPT|CALL)/) s--
        print "   (out of line)"
        for (i = s; i <= j; i++) print hexaddr[i] "  " text[i]
    }
}
AWK
side_by_side() {
    awk 'NR==FNR { a[FNR] = $0; na = FNR; next } { b[FNR] = $0; nb = FNR }
         END { m = na > nb ? na : nb; for (i = 1; i <= m; i++) printf "%-62s | %s\n", substr(a[i], 1, 62), b[i] }' "$1" "$2"
}
{
    echo "The mbarrier pipeline (examples/mbarrier_pipeline.rs, issue 16): nvcc -O3 -arch=sm_90a of"
    echo "kernels.cu's cuda_mbarrier_reduce (cuda::barrier) | ptxas -O3 -arch=sm_90a of warpkit's"
    echo "mbarrier_reduce_entry, from cuobjdump -sass. Each loop is the innermost backward branch around"
    echo "the named instruction, followed by the blocks placed out of line that branch back into it."
    for part in "producer loop (around the bulk copy, UBLKCP):UBLKCP" \
                "consumer loop (around the arrival on empty[s], SYNCS.ARRIVE.TRANS64.A1T0; its adds inside):ARRIVE.TRANS64.A1T0"; do
        title=${part%%:*}; pat=${part#*:}
        cuobjdump -sass -fun cuda_mbarrier_reduce "$W/nvcc_90a.cubin" | awk -v pat="$pat" -f "$W/pipe_loop.awk" > "$W/a.txt"
        cuobjdump -sass -fun mbarrier_reduce_entry "$W/warpkit_90a.cubin" | awk -v pat="$pat" -f "$W/pipe_loop.awk" > "$W/b.txt"
        echo
        echo "=================== $title"
        printf "%-62s | %s\n" "nvcc: cuda_mbarrier_reduce" "warpkit: mbarrier_reduce_entry"
        side_by_side "$W/a.txt" "$W/b.txt"
    done
    for f in "cuda_mbarrier_reduce nvcc_90a" "cuda_mbarrier_reduce_wait_parity nvcc_90a" "mbarrier_reduce_entry warpkit_90a"; do
        echo
        echo "=================== ${f%% *} (${f#* }.cubin), in full"
        cuobjdump -sass -fun "${f%% *}" "$W/${f#* }.cubin" | grep -E '^[ \t]+/\*[0-9a-f]{4,}\*/' | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@; s/ +;$//; s/^ +//'
    done
} > "$RES/sass_pipeline.txt" 2>&1
echo
echo "== mbarrier pipeline, producer loop, nvcc | warpkit (consumer loops and full listings in sass_pipeline.txt)"
awk '/^=+ producer loop/ { p = 1; next } /^=+ / { p = 0 } p' "$RES/sass_pipeline.txt"

# ---- 3. run ----
echo
set -- --warpkit "$W/warpkit.cubin" "$@"
[ -f "$W/warpkit_90a.cubin" ] && set -- "$@" --warpkit-90a "$W/warpkit_90a.cubin"
[ -f "$W/nvcc_90a.cubin" ] && set -- "$@" --cuda-90a "$W/nvcc_90a.cubin"
[ -f "$W/nvcc.cubin" ] && set -- "$@" --cuda "$W/nvcc.cubin"
[ -f "$W/warpkit_ldglobal.cubin" ] && set -- "$@" --diag "$W/warpkit_ldglobal.cubin"
[ -f "$W/libcub_scan.so" ] && set -- "$@" --cub "$W/libcub_scan.so"
{ ./gpu-bench "$@"; echo $? > "$W/status"; } 2>&1 | tee "$RES/bench.txt"
status=$(cat "$W/status")
rm -rf "$W"
exit $status
