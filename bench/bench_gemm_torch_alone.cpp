// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 3b: libtorch's at::mm alone in a process, as Debian ships it.
//
// In bench_gemm, libtorch's sgemm_/dgemm_ bind to the libblis.so.4 that tensorc
// loads (and tensorc has asked it for skx kernels), so that table compares
// libtorch and tensorc on equal kernels. A program that uses libtorch without
// tensorc gets the BLAS behind libblas.so.3 (here the BLIS-openmp copy) with
// BLIS's own CPUID choice of kernels and BLIS_NUM_THREADS threads. This program
// links libtorch only (no tensorc, no libblis.so.4) to measure that. It is not
// interleaved with tensorc: compare with bench_gemm's tensorc column of the
// same run as orientation only.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <sstream>

#include "bench_common.h"

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  std::vector<int64_t> sizes;
  {
    std::stringstream ss(bench::arg_str(argc, argv, "--sizes", "256,512,1024,2048"));
    std::string item;
    while (std::getline(ss, item, ',')) sizes.push_back(std::stoll(item));
  }
  at::set_num_threads(threads);
  at::manual_seed(0);
  const char* arch = std::getenv("BLIS_ARCH_TYPE");
  std::printf(
      "| %d thread%s, libtorch alone (BLIS_ARCH_TYPE=%s, BLIS_NUM_THREADS=%s) | sgemm GFLOP/s | dgemm GFLOP/s |\n",
      threads, threads == 1 ? "" : "s", arch ? arch : "unset",
      std::getenv("BLIS_NUM_THREADS") ? std::getenv("BLIS_NUM_THREADS") : "unset");
  std::printf("|---|---|---|\n");
  for (int64_t n : sizes) {
    std::string cells[2];
    for (int d = 0; d < 2; ++d) {
      at::Tensor a = at::rand({n, n}, d ? at::kDouble : at::kFloat), b = at::rand({n, n}, d ? at::kDouble : at::kFloat);
      std::vector<bench::Contestant> cs{{"libtorch", [&] { at::Tensor c = at::mm(a, b); }}};
      bench::run(cs);
      const double flop = 2.0 * double(n) * double(n) * double(n);
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.1f (%.1f–%.1f)", flop / cs[0].med() * 1e-9, flop / cs[0].hi() * 1e-9,
                    flop / cs[0].lo() * 1e-9);
      cells[d] = buf;
    }
    std::printf("| n = %lld | %s | %s |\n", (long long)n, cells[0].c_str(), cells[1].c_str());
    std::fflush(stdout);
  }
  return 0;
}
