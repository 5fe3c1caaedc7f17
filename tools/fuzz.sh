#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs each fuzz target (fuzz/) for SECONDS seconds from its committed seed
# corpus, under ASan + UBSan.
#   tools/fuzz.sh [SECONDS]   libFuzzer: configures build-fuzz with clang (default 60 s;
#                             tools/dev.sh fuzz passes 600)
#   FUZZ_BUILD=build-asan tools/fuzz.sh 60
#                             the GCC ASan build of the test run, configured with
#                             -DTC_FUZZ=ON: targets link fuzz/driver.cpp (random
#                             mutation, no coverage feedback) and no second build is needed
# FUZZ_SEED fixes the random seed (the test run uses 1, so a CI run replays
# what the same run explored here; tools/dev.sh fuzz leaves it random).
# New inputs go to <build>/corpus/<target> (not the repository); a crash leaves
# its input in <build>/artifacts/ and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
JOBS=${JOBS:-$(nproc)}
TARGETS=(fuzz_schema fuzz_op_call fuzz_dlpack fuzz_graph)

if [[ -n ${FUZZ_BUILD:-} ]]; then
  BUILD=$FUZZ_BUILD
else
  BUILD=build-fuzz
  # -O1 without debug info: the instrumented build is slow enough already.
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELEASE="-O1" -DTC_FUZZ=ON -DTC_SANITIZE=address,undefined -DTC_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"

mkdir -p "$BUILD/artifacts"
# Allocations tensorc refuses are the point of some inputs: let them fail
# (OutOfMemory) rather than have ASan or libFuzzer call them crashes.
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TC_NUM_THREADS=1 OMP_NUM_THREADS=1
SEED=()
[[ -n ${FUZZ_SEED:-} ]] && SEED=(-seed="$FUZZ_SEED")
for t in "${TARGETS[@]}"; do
  mkdir -p "$BUILD/corpus/$t"
  log=$BUILD/$t.log
  echo "== $t: ${SECONDS_PER_TARGET}s"
  if ! "$BUILD/fuzz/$t" "${SEED[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb=6144 \
      -malloc_limit_mb=6144 -max_len=4096 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" \
      "$BUILD/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $t found a failure; its input is in $BUILD/artifacts/" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs|^driver: " "$log" || true
done
echo "fuzz: ${#TARGETS[@]} targets, ${SECONDS_PER_TARGET}s each, no finding"
