#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every benchmark and prints markdown tables (BENCHMARKS.md).
#   bench/run_all.sh <build-dir>      (tools/dev.sh bench builds and calls this)
# The build must have been configured with -DTC_BUILD_BENCH=ON.
# Environment: BENCH_TRIALS (default 7), BENCH_BLOCK_MS (default 50),
#              BENCH_THREADS (default "1 2"), BENCH_SKIP_SHIPPED=1 skips the
#              "libtorch alone, as Debian ships it" GEMM table (3b).
set -euo pipefail
BUILD=${1:?usage: bench/run_all.sh <build-dir>}
BUILD=$(cd "$BUILD" && pwd)  # absolute: parts below run from other directories
BIN=$BUILD/bench
for b in bench_dispatch bench_elementwise bench_gemm bench_gemm_torch_alone bench_autograd bench_contention bench_unary bench_bindings_cpp; do
  if [[ ! -x $BIN/$b ]]; then
    echo "missing $BIN/$b: configure with -DTC_BUILD_BENCH=ON and build (tools/dev.sh bench)" >&2
    exit 2
  fi
done
THREADS=${BENCH_THREADS:-1 2}

cpuinfo() { grep -m1 "^$1" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; }
CPU_MODEL=$(cpuinfo 'model name')
# Names the CPU in the first cell of every table's header row (a "|" line
# after a line that is not one), so a table copied alone still says where
# it was measured.
tag_cpu() {
  awk -v cpu="${CPU_MODEL:-unknown CPU}, $(nproc) CPUs" '
    /^\|/ && prev !~ /^\|/ { if (!sub(/ \|/, " (" cpu ") |")) $0 = $0 " (" cpu ")" }
    { print; fflush(); prev = $0 }'
}

HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
TIMES_FILE=$(mktemp)
trap 'rm -f "$TIMES_FILE"' EXIT
# Sets BUSY (machine-wide busy jiffies), STEAL (steal jiffies), CHILD (CPU
# seconds of this shell's finished children) and NOW. Not in a subshell: the
# `times` builtin must see this shell's children.
snap() {
  times > "$TIMES_FILE"
  CHILD=$(awk 'NR == 2 { split($1, a, "m"); split($2, b, "m"); print a[1] * 60 + a[2] + b[1] * 60 + b[2] }' "$TIMES_FILE")
  read -r BUSY STEAL < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9 }' /proc/stat)
  NOW=$(date +%s.%N)
}

# Runs one program with every pool sized to the thread count (libtorch's
# BLAS reads BLIS_NUM_THREADS once), then says whether other processes used
# the CPUs meanwhile (the load average would count the benchmark's own threads).
run() {  # threads, program, args...
  local t=$1; shift
  snap; local b0=$BUSY s0=$STEAL c0=$CHILD t0=$NOW
  OMP_NUM_THREADS=$t TC_NUM_THREADS=$t BLIS_NUM_THREADS=$t "$BIN/$@" | tag_cpu
  snap
  awk -v b0="$b0" -v b1="$BUSY" -v s0="$s0" -v s1="$STEAL" -v c0="$c0" -v c1="$CHILD" -v t0="$t0" -v t1="$NOW" \
      -v hz="$HZ" -v la="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
    wall = t1 - t0; if (wall <= 0) exit
    others = ((b1 - b0) / hz - (c1 - c0)) / wall   # CPUs used by other processes, on average
    if (others < 0) others = 0
    steal = (s1 - s0) / hz / wall
    if (others > 0.25 || steal > 0.05)
      printf "_Busy: other processes used %.2f CPUs on average while this ran (steal %.2f; load average %s); rerun for clean figures._\n", others, steal, la
    else
      printf "_Quiet: other processes used %.2f CPUs on average while this ran (steal %.2f)._\n", others, steal
  }'
}

echo "# tensorc benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- CPU: $CPU_MODEL (family $(cpuinfo 'cpu family'), model $(cpuinfo 'model\s*:')), $(nproc) logical CPUs," \
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
echo

echo "## 2. 16M float32 element-wise and sum"
echo
echo "Row \"libtorch keeps freed memory\": the fresh-output add again, the libtorch side with a CPU allocator that keeps"
echo "freed blocks >= 128 KiB for reuse, as tensorc's does (bench/bench_torch_alloc.h). It removes the page faults libtorch"
echo "pays on every fresh 64 MiB output (glibc unmaps blocks >= 32 MiB on free and caps its mmap threshold there)."
echo
for t in $THREADS; do
  run "$t" bench_elementwise --threads "$t"
  echo
done

echo "## 2b. Transcendental unary ops, 1M elements, out="
echo
for t in $THREADS; do
  run "$t" bench_unary --threads "$t"
  echo
done

echo "## 3. GEMM (square, row-major), GFLOP/s"
echo
for t in $THREADS; do
  run "$t" bench_gemm --threads "$t"
  echo
done

echo "## 4. Autograd"
echo
echo "Row \"libtorch keeps freed memory\": the MLP step again, the libtorch side with a CPU allocator that keeps freed"
echo "blocks >= 128 KiB for reuse, as tensorc's does (bench/bench_torch_alloc.h): no page faults for buffers it frees and"
echo "requests again every step."
echo
for t in $THREADS; do
  run "$t" bench_autograd --threads "$t"
  echo
done

echo "## 5. Bindings: a 1-element add through the C++ wrapper and the Rust crate vs the raw C call"
echo
run 1 bench_bindings_cpp --threads 1
echo
# The Rust crate's benchmark, against this build tree (release profile).
CARGO=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
if [[ -x $CARGO ]]; then
  (cd "$(dirname "$0")/../bindings/rust" &&
    TENSORC_LIB_DIR=$(cd "$BUILD" && pwd) TENSORC_GEN_DIR=$(cd "$BUILD" && pwd)/generated/rust \
    CARGO_TARGET_DIR=$(cd "$BUILD" && pwd)/bindings/rust/target TC_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    "$CARGO" run --quiet --release --offline --example bench_add) | tag_cpu
else
  echo "_Rust: cargo not found; skipped._"
fi
echo

echo "### 6. Python: the tensorc package against torch and NumPy"
echo
if compgen -G "$BUILD/python/tensorc/_C*.so" >/dev/null; then
  PYTHONPATH=$BUILD/python /usr/bin/python3 "$(dirname "$0")/python/bench_overhead.py" --trials "${BENCH_TRIALS:-7}" | tag_cpu
  echo
  PYTHONPATH=$BUILD/python /usr/bin/python3 "$(dirname "$0")/python/bench_mlp.py" --trials "${BENCH_TRIALS:-7}" | tag_cpu
else
  echo "_Python: the build has no Python module (configure with -DTC_PYTHON=ON); skipped._"
fi
echo

echo "## 7. A small program beside busy processes"
echo
echo "Busy processes: children of the benchmark spinning in a loop, unpinned. Slowdown = time with them / time"
echo "without; fair share = max(1, (threads + busy) / CPUs). A cliff is a slowdown far above fair share."
echo
for t in $THREADS; do
  run "$t" bench_contention --threads "$t"
  echo
done

if [[ ${BENCH_SKIP_SHIPPED:-0} != 1 ]]; then
  echo "### 3b. libtorch alone in a process, as Debian ships it (not interleaved: orientation only)"
  echo
  for t in $THREADS; do
    (unset BLIS_ARCH_TYPE; run "$t" bench_gemm_torch_alone --threads "$t" --sizes 512,2048)
    echo
  done
fi
echo "_Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)._"
