#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU checks, for a machine with an NVIDIA GPU (tools/dev.sh cuda-test
# builds first): every CUDA test of the ctest suite (C, C++, internal, the
# gradcheck cases on CUDA, the digits MLP trained on CUDA) and of the Python
# suite, where a skip counts as a failure since a device is present, then the
# GPU benchmark (bench/bench_cuda). Without a usable device it says why and
# fails: it never reports a GPU result it did not see.
#   tools/cuda_test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PY=/usr/bin/python3
reason=$(PYTHONPATH=$BUILD/python $PY -c \
  'import tensorc; print("" if tensorc.cuda.is_available() else tensorc.cuda.unavailable_reason())')
if [[ -n $reason ]]; then
  echo "cuda-test: no usable CUDA device: $reason" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
log=$(mktemp)
trap 'rm -f "$log"' EXIT

(cd "$BUILD" && ctest --output-on-failure -R 'cuda|Cuda|CUDA') 2>&1 | tee "$log"
if grep -q "(Skipped)" "$log"; then
  echo "cuda-test: a GPU test was skipped on a machine with a GPU (above)" >&2
  exit 1
fi

PYTHONPATH=$BUILD/python $PY -m pytest -q -rs -k cuda bindings/python/tests 2>&1 | tee "$log"
if grep -q "^SKIPPED" "$log"; then
  echo "cuda-test: a Python GPU test was skipped on a machine with a GPU (above)" >&2
  exit 1
fi

if [[ -x $BUILD/bench/bench_cuda ]]; then
  "$BUILD/bench/bench_cuda"
else
  echo "cuda-test: $BUILD/bench/bench_cuda was not built (configure with -DTC_BUILD_BENCH=ON)" >&2
  exit 1
fi
