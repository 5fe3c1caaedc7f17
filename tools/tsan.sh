#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Autograd from several threads and the worker pool, under ThreadSanitizer:
# configures build-tsan with -DTC_SANITIZE=thread, builds only what
# tests/internal/test_threads.cpp and test_parallel.cpp need (the library and
# those tests) and runs the tests labelled "threads".
# Any TSan report fails the run (halt_on_error, exit status 66).
#   tools/tsan.sh              build dir build-tsan; JOBS sets build parallelism
#   BUILD_DIR=... tools/tsan.sh
# Needs what tools/dev.sh installs (g++ ships libtsan).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-tsan}
JOBS=${JOBS:-$(nproc)}

# -O1 -g: readable TSan stacks, and a library that compiles quicker than -O2.
cmake -S . -B "$BUILD_DIR" -DTC_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTC_CUDA=OFF -DTC_PYTHON=OFF -DTC_RUST=OFF -DTC_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target test_threads test_parallel

# Parallel loops run on tensorc's own std::threads, which TSan understands;
# BLIS runs single-threaded inside them, so no OpenMP region starts threads
# (libgomp is not instrumented); one OpenMP thread here as well, so nothing is
# suppressed and every report is a real race.
export OMP_NUM_THREADS=1 TC_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# GCC 12's TSan runtime cannot map its shadow memory under the high mmap
# randomisation of recent kernels ("unexpected memory mapping"): run without
# ASLR where setarch allows it.
RUN=()
if setarch "$(uname -m)" -R true 2>/dev/null; then RUN=(setarch "$(uname -m)" -R); fi
(cd "$BUILD_DIR" && "${RUN[@]}" ctest -L threads --no-tests=error --output-on-failure)
