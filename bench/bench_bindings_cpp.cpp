// SPDX-License-Identifier: BSD-3-Clause
// Benchmark: the cost of the C++ wrapper (bindings/cpp). A 1-element
// float32 add with a new output, one thread, three ways interleaved in one
// process: the raw C ABI call (tc_add_Tensor + tc_tensor_release), the
// wrapper's operator (`a + b`) and its free function (`tensorc::add(a, b)`).
// Target: the wrapper within 1.2x of the raw call. Links only tensorc.
// Prints one markdown table: median per call (min-max of the trial medians)
// and wrapper / raw C (median of the medians, min-max of the per-trial ratios).
#include <tensorc.hpp>

#include "bench_common.h"

using bench::Contestant;

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  tensorc::set_num_threads(threads);

  const tensorc::Tensor a = tensorc::tensor({1.5f}), b = tensorc::tensor({0.25f});
  const tc_tensor ta = a.get(), tb = b.get();

  // Correctness first: the three agree.
  {
    tc_tensor c = nullptr;
    TC_OK_OR_DIE(tc_add_Tensor(&c, ta, tb, nullptr));
    float raw = 0;
    TC_OK_OR_DIE(tc_tensor_copy_to_buffer(&raw, sizeof raw, c));
    tc_tensor_release(c);
    if ((a + b).item<float>() != raw || tensorc::add(a, b).item<float>() != raw || raw != 1.75f) {
      std::fprintf(stderr, "bench_bindings_cpp: the wrapper's add disagrees with tc_add_Tensor\n");
      return 3;
    }
  }

  std::vector<Contestant> cs;
  cs.emplace_back("raw C", [&] {
    tc_tensor c = nullptr;
    tc_add_Tensor(&c, ta, tb, nullptr);
    tc_tensor_release(c);
  });
  cs.emplace_back("a + b", [&] { tensorc::Tensor c = a + b; });
  cs.emplace_back("tensorc::add(a, b)", [&] { tensorc::Tensor c = tensorc::add(a, b); });
  bench::run(cs);

  std::printf("| 1-element float32 add, new output, %d thread | time per call | / raw C |\n", threads);
  std::printf("|---|---|---|\n");
  std::printf("| raw C ABI: `tc_add_Tensor` + `tc_tensor_release` | %s | 1 |\n", bench::fmt_stat(cs[0]).c_str());
  std::printf("| C++ wrapper: `a + b` | %s | %s |\n", bench::fmt_stat(cs[1]).c_str(),
              bench::fmt_ratio(bench::ratio(cs[1], cs[0])).c_str());
  std::printf("| C++ wrapper: `tensorc::add(a, b)` | %s | %s |\n", bench::fmt_stat(cs[2]).c_str(),
              bench::fmt_ratio(bench::ratio(cs[2], cs[0])).c_str());
  return 0;
}
