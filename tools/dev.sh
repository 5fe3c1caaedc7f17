#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tensorc's one entry point for a fresh Debian 12 machine.
#   tools/dev.sh demo    install what is missing, build, train the digits MLP (examples/train_digits.c)
#   tools/dev.sh test    install what is missing, build, run every test suite,
#                        then all of them again under AddressSanitizer + UBSan
#                        (with a 60 s run of each fuzz target), then the
#                        C and internal suites and the C ABI bad-input run
#                        under clang's integer sanitizer (tools/intsan.sh),
#                        then the thread tests under ThreadSanitizer
#   tools/dev.sh fuzz    libFuzzer (clang) on every fuzz target, 600 s each
#                        (FUZZ_SECONDS to change)
#   tools/dev.sh asan    only the AddressSanitizer + UBSan pass
#   tools/dev.sh intsan  only the integer sanitizer pass (clang, build-int/)
#   tools/dev.sh bench   build and run the benchmarks against libtorch
#   tools/dev.sh quick   day-to-day loop: release build, no sanitizer, ctest
#                        (extra arguments go to ctest, e.g. -L python or -R Planner)
#   tools/dev.sh cuda-test  on a machine with an NVIDIA GPU: build with CUDA,
#                        run every GPU test (a skip fails) and the GPU
#                        benchmark (tools/cuda_test.sh)
# Build trees: build/ (release), build-asan/, build-int/, build-tsan/. Set JOBS
# to override parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}

# Debian packages the build and the tests need (libtorch-dev: the test run
# builds the benchmarks too, so they cannot rot).
PACKAGES=(cmake g++ make pkg-config libblis-dev libffi-dev libyaml-cpp-dev libgtest-dev
          libbenchmark-dev libdlpack-dev zlib1g-dev python3 python3-numpy python3-pytest
          swig python3-dev python3-hypothesis python3-torch libtorch-dev clang-format libsleef-dev
          nlohmann-json3-dev python3-onnx python3-venv)

install_missing() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# The Rust crate needs cargo: rustup's in ~/.cargo/bin if present, else
# Debian's (the crate builds with Debian 12's rustc 1.63).
find_cargo() {
  [[ -x $HOME/.cargo/bin/cargo ]] && export PATH="$HOME/.cargo/bin:$PATH"
  command -v cargo >/dev/null 2>&1 || install_missing cargo rustfmt
}

# What Debian lacks, from PyPI, into build-venv (Debian's python3 with its
# packages visible): onnxruntime, which runs the models tensorc.onnx exports.
python_venv() {
  [[ -x build-venv/bin/python3 ]] || /usr/bin/python3 -m venv --system-site-packages build-venv
  build-venv/bin/python3 -c "import onnxruntime" 2>/dev/null || build-venv/bin/pip install -q onnxruntime
}

configure_and_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}

run_tests() {  # build dir
  local dir=$1
  (cd "$dir" && ctest --output-on-failure -j "$JOBS")
}

# Every suite under ASan + UBSan (any report fails the run: the build uses
# -fno-sanitize-recover, LeakSanitizer checks the C and C++ suites), then a
# short run of each fuzz target in the same build. The CUDA library is built
# once, by the release pass (nvcc is slow on two cores): here CUDA calls take
# the "backend library missing" path.
asan_pass() {
  find_cargo
  configure_and_build build-asan -DTC_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTC_RUST=ON \
    -DTC_PYTHON=ON -DTC_FUZZ=ON -DTC_CUDA=OFF
  ASAN_OPTIONS=detect_leaks=1 run_tests build-asan
  FUZZ_BUILD=build-asan FUZZ_SEED=${FUZZ_SEED:-1} tools/fuzz.sh "${FUZZ_SECONDS:-60}"
}

case "${1:-}" in
  demo)
    install_missing "${PACKAGES[@]}"
    configure_and_build build
    ./build/examples/train_digits "${@:2}"  # default data: examples/data/digits.csv.gz
    ;;
  test)
    install_missing "${PACKAGES[@]}"
    find_cargo
    python_venv
    configure_and_build build -DTC_RUST=ON -DTC_PYTHON=ON -DTC_BUILD_BENCH=ON -DTC_TEST_PYTHON="$ROOT/build-venv/bin/python3"
    (export TC_REQUIRE_ONNXRUNTIME=1; run_tests build)  # the release pass runs the exported models
    asan_pass
    install_missing clang libclang-rt-dev libomp-dev
    tools/intsan.sh
    tools/tsan.sh
    ;;
  fuzz)
    install_missing "${PACKAGES[@]}" clang libclang-rt-dev libomp-dev
    tools/fuzz.sh "${FUZZ_SECONDS:-600}"
    ;;
  quick)
    install_missing "${PACKAGES[@]}"
    configure_and_build build -DTC_PYTHON=ON
    (cd build && ctest --output-on-failure -j "$JOBS" "${@:2}")
    ;;
  asan)
    install_missing "${PACKAGES[@]}"
    asan_pass
    ;;
  intsan)
    install_missing "${PACKAGES[@]}" clang libclang-rt-dev libomp-dev
    tools/intsan.sh
    ;;
  cuda-test)
    install_missing "${PACKAGES[@]}"
    configure_and_build build -DTC_CUDA=ON -DTC_PYTHON=ON -DTC_BUILD_BENCH=ON
    tools/cuda_test.sh build
    ;;
  bench)
    install_missing "${PACKAGES[@]}"
    find_cargo
    configure_and_build build -DTC_BUILD_BENCH=ON -DTC_PYTHON=ON
    ./bench/run_all.sh build
    ;;
  *)
    echo "usage: tools/dev.sh demo|test|quick|asan|intsan|fuzz|bench|cuda-test" >&2
    exit 2
    ;;
esac
