// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 1: dispatch overhead. A 1-element float32 add through tensorc's C
// ABI against libtorch's C++ API (at::add), one thread: new output, in place,
// and into a preallocated out tensor. Prints one markdown table.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>

#include <tensorc.h>

#include "bench_common.h"

using bench::Contestant;

namespace {

float read_float(tc_tensor t) {
  float v = NAN;
  TC_OK_OR_DIE(tc_tensor_copy_to_buffer(&v, sizeof v, t));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);

  const int64_t shape[1] = {1};
  const float av = 1.5f, bv = 0.25f;
  tc_tensor ta = nullptr, tb = nullptr, tout = nullptr, tacc = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&ta, &av, TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tb, &bv, TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tout, &av, TC_FLOAT32, shape, 1));
  TC_OK_OR_DIE(tc_tensor_from_data(&tacc, &av, TC_FLOAT32, shape, 1));
  at::Tensor pa = at::full({1}, av, at::kFloat), pb = at::full({1}, bv, at::kFloat);
  at::Tensor pout = at::empty({1}, at::kFloat), pacc = at::full({1}, av, at::kFloat);

  // Correctness first: both sides compute the same values.
  {
    tc_tensor c = nullptr;
    TC_OK_OR_DIE(tc_add_Tensor(&c, ta, tb, nullptr));
    TC_OK_OR_DIE(tc_add_out(tout, ta, tb, nullptr));
    float want = at::add(pa, pb).item<float>();
    if (read_float(c) != want || read_float(tout) != want) {
      std::fprintf(stderr, "bench_dispatch: tensorc add disagrees with at::add (%g, %g vs %g)\n", read_float(c),
                   read_float(tout), want);
      return 3;
    }
    tc_tensor_release(c);
    TC_OK_OR_DIE(tc_add_inplace_Tensor(tacc, tb, nullptr));
    pacc.add_(pb);
    if (read_float(tacc) != pacc.item<float>()) {
      std::fprintf(stderr, "bench_dispatch: tensorc add_ disagrees with Tensor::add_\n");
      return 3;
    }
  }

  std::vector<bench::PairRow> rows;
  rows.push_back({"add, new output (tc_add_Tensor + release vs at::add)",
                  {"tensorc",
                   [&] {
                     tc_tensor c = nullptr;
                     tc_add_Tensor(&c, ta, tb, nullptr);
                     tc_tensor_release(c);
                   }},
                  {"libtorch", [&] { at::Tensor c = at::add(pa, pb); }}});
  rows.push_back({"add_ in place (tc_add_inplace_Tensor vs Tensor::add_)",
                  {"tensorc", [&] { tc_add_inplace_Tensor(tacc, tb, nullptr); }},
                  {"libtorch", [&] { pacc.add_(pb); }}});
  rows.push_back({"add_out (tc_add_out vs at::add_out)",
                  {"tensorc", [&] { tc_add_out(tout, ta, tb, nullptr); }},
                  {"libtorch", [&] { at::add_out(pout, pa, pb); }}});

  std::printf("| 1-element float32, %d thread | tensorc | libtorch | libtorch/tensorc |\n", threads);
  std::printf("|---|---|---|---|\n");
  for (const bench::PairRow& r : rows) {
    bench::run_and_print(r);
  }

  tc_tensor_release(ta);
  tc_tensor_release(tb);
  tc_tensor_release(tout);
  tc_tensor_release(tacc);
  return 0;
}
