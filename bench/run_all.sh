#!/usr/bin/env bash
# Runs every benchmark of issue 2 and prints markdown tables (BENCHMARKS.md).
#   bench/run_all.sh <build-dir>      (tools/dev.sh bench builds and calls this)
# The build must have been configured with -DTC_BUILD_BENCH=ON.
# Environment: BENCH_TRIALS (default 7), BENCH_BLOCK_MS (default 50),
#              BENCH_THREADS (default "1 2"), BENCH_SKIP_SHIPPED=1 skips the
#              "libtorch alone, as Debian ships it" GEMM table (3b).
set -euo pipefail
BUILD=${1:?usage: bench/run_all.sh <build-dir>}
BIN=$BUILD/bench
for b in bench_dispatch bench_elementwise bench_gemm bench_gemm_torch_alone; do
  if [[ ! -x $BIN/$b ]]; then
    echo "missing $BIN/$b: configure with -DTC_BUILD_BENCH=ON and build (tools/dev.sh bench)" >&2
    exit 2
  fi
done
THREADS=${BENCH_THREADS:-1 2}

load() { cut -d' ' -f1 /proc/loadavg; }
busy_note() {
  local l; l=$(load)
  if awk -v l="$l" 'BEGIN { exit !(l > 1.5) }'; then
    echo "_Note: load average $l > 1.5 while this ran: the machine was busy; rerun for clean figures._"
  fi
}
# Each program runs in its own process with every pool sized to the thread
# count: libtorch's BLIS (libblas.so.3) reads BLIS_NUM_THREADS once.
run() {  # threads, program, args...
  local t=$1; shift
  OMP_NUM_THREADS=$t TC_NUM_THREADS=$t BLIS_NUM_THREADS=$t "$BIN/$@"
}

echo "# tensorc benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) logical CPUs," \
  "AVX-512: $(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
echo "- libtorch: $(dpkg-query -W -f '${Version}' libtorch-dev 2>/dev/null || echo '?')," \
  "BLIS: $(dpkg-query -W -f '${Version}' libblis-dev 2>/dev/null || echo '?')," \
  "libblas.so.3 -> $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo '?')"
echo "- trials: ${BENCH_TRIALS:-7}, block >= ${BENCH_BLOCK_MS:-50} ms; cells: median of trial medians (min–max)," \
  "ratio = libtorch (or BLIS) time / tensorc time, > 1 means tensorc is faster (per-trial min–max)"
[[ -n ${BLIS_ARCH_TYPE:-} ]] && echo "- BLIS_ARCH_TYPE=$BLIS_ARCH_TYPE was set by the caller"
echo

echo "## 1. Dispatch overhead"
echo
run 1 bench_dispatch --threads 1
busy_note
echo

echo "## 2. 16M float32 element-wise and sum"
echo
for t in $THREADS; do
  run "$t" bench_elementwise --threads "$t"
  busy_note
  echo
done

echo "## 3. GEMM (square, row-major), GFLOP/s"
echo
for t in $THREADS; do
  run "$t" bench_gemm --threads "$t"
  busy_note
  echo
done

if [[ ${BENCH_SKIP_SHIPPED:-0} != 1 ]]; then
  echo "### 3b. libtorch alone in a process, as Debian ships it (not interleaved: orientation only)"
  echo
  for t in $THREADS; do
    (unset BLIS_ARCH_TYPE; run "$t" bench_gemm_torch_alone --threads "$t" --sizes 512,2048)
    busy_note
    echo
  done
fi
echo "_Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)._"
