#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Integer sanitizer pass: clang's -fsanitize=integer,float-cast-overflow, the
# checks GCC's UBSan (the ASan pass) lacks: unsigned wraparound, implicit
# conversions that change a value (truncation, sign change), besides signed
# overflow, shifts, division by zero and float-to-int overflow. The rest of
# UBSan runs in the ASan pass. Configures build-int with clang, builds only
# the library, the C and internal GoogleTest suites and what
# tests/capi/bad_input.py needs, and runs them (ctest labels c, internal,
# threads, and the test capi_bad_input).
# Any report fails the run: each process stops at its first one
# (halt_on_error) and every report is collected from build-int/intsan-logs/.
#   tools/intsan.sh            build dir build-int; JOBS sets build parallelism
#   BUILD_DIR=... tools/intsan.sh
#   INTSAN_ALL=1 tools/intsan.sh   report and go on: lists every finding of the run
# Code that wraps on purpose (hashes, RNG) carries TC_NO_SANITIZE_INTEGER
# (src/core/sanitize.h); code tensorc does not own is listed in
# tools/intsan.ignorelist, with the reason. docs/testing.md has the check list.
# Needs clang and its runtime (tools/dev.sh installs clang libclang-rt-dev libomp-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-int}
JOBS=${JOBS:-$(nproc)}
CHECKS=${INTSAN_CHECKS:-integer,float-cast-overflow}
IGNORE="-fsanitize-ignorelist=$ROOT/tools/intsan.ignorelist"

# -O0 with line tables: the checks are inserted by the front end, so the
# optimiser adds nothing to them, and the library compiles in a quarter of
# -O1's time (the tests still run in seconds). Recoverable checks, so that
# INTSAN_ALL=1 can list everything; halt_on_error below stops at the first.
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS="$IGNORE" -DCMAKE_C_FLAGS="$IGNORE" \
  -DTC_SANITIZE="$CHECKS" -DTC_SANITIZE_RECOVER=ON \
  -DTC_CUDA=OFF -DTC_PYTHON=OFF -DTC_RUST=OFF -DTC_BUILD_BENCH=OFF -DTC_FUZZ=OFF >/dev/null
# The library, the C and internal test programs (tests/extra.cmake).
cmake --build "$BUILD_DIR" -j "$JOBS" --target tc_test_programs

LOGS=$ROOT/$BUILD_DIR/intsan-logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
HALT=1
[[ -n ${INTSAN_ALL:-} ]] && HALT=0
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=$HALT log_path=$LOGS/report ${UBSAN_OPTIONS:-}"
export OMP_NUM_THREADS=1
status=0
(cd "$BUILD_DIR" && ctest -L '^(c|internal|threads)$' --no-tests=error --output-on-failure -j "$JOBS") || status=1
# The sanitized library under python3 (ctypes): the runtime is preloaded (cmake/python_tests.cmake).
(cd "$BUILD_DIR" && ctest -R '^capi_bad_input$' --no-tests=error --output-on-failure) || status=1

if compgen -G "$LOGS/report.*" >/dev/null; then
  cat "$LOGS"/report.*
  echo "intsan: $(cat "$LOGS"/report.* | grep -c 'runtime error:') report(s), in $LOGS" >&2
  status=1
fi
if ((status)); then
  echo "intsan: failed" >&2
  exit 1
fi
echo "intsan: no report"
