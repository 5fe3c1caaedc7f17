// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 4: autograd. tensorc's C ABI against libtorch's C++ API, same
// process, interleaved (bench_common.h):
//  - recording overhead: a 1-element add on tensors that require grad;
//  - a tiny graph: y = (x * w + b).sum(); y.backward() on 1-element tensors;
//  - one training step of an MLP 784-256-10, batch 64, float32: forward,
//    cross-entropy, backward, SGD update in place under no_grad, zero grads;
//    again with libtorch keeping freed memory (bench_torch_alloc.h).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <tensorc.h>

#include "bench_common.h"
#include "bench_mlp.h"
#include "bench_torch_alloc.h"

using bench::at_from;
using bench::Contestant;
using bench::tc_from;

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  const std::string only = bench::arg_str(argc, argv, "--only", "");
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);
  std::vector<bench::PairRow> rows;

  // 1. Recording overhead.
  tc_tensor ta = tc_from({1.5f}, {1}, true), tb = tc_from({0.25f}, {1}, true);
  at::Tensor pa = at_from({1.5f}, {1}, true), pb = at_from({0.25f}, {1}, true);
  rows.push_back({"1-element add, inputs require grad (records a node)",
                  {"tensorc",
                   [&] {
                     tc_tensor c = nullptr;
                     tc_add_Tensor(&c, ta, tb, nullptr);
                     tc_tensor_release(c);
                   }},
                  {"libtorch", [&] { at::Tensor c = at::add(pa, pb); }}});

  // 2. A tiny graph and its backward.
  tc_tensor tx = tc_from({2.0f}, {1}, true), tw = tc_from({3.0f}, {1}, true), tbb = tc_from({1.0f}, {1}, true);
  at::Tensor px = at_from({2.0f}, {1}, true), pw = at_from({3.0f}, {1}, true), pbb = at_from({1.0f}, {1}, true);
  rows.push_back({"y = (x*w + b).sum(); y.backward(), 1-element",
                  {"tensorc",
                   [&] {
                     tc_tensor m = nullptr, a = nullptr, y = nullptr;
                     tc_mul_Tensor(&m, tx, tw);
                     tc_add_Tensor(&a, m, tbb, nullptr);
                     tc_sum(&y, a, nullptr);
                     tc_tensor_backward(y, nullptr, false, false);
                     tc_tensor_release(m);
                     tc_tensor_release(a);
                     tc_tensor_release(y);
                   }},
                  {"libtorch", [&] { (px * pw + pbb).sum().backward(); }}});

  // 3. MLP training step (first checks one step against libtorch's).
  bench::MlpPair mlp = bench::make_mlp_pair("bench_autograd");
  bench::TcMlp& tm = mlp.tc;
  bench::AtMlp& am = mlp.at;
  rows.push_back({"MLP 784-256-10, batch 64: forward + CE + backward + SGD",
                  {"tensorc", [&] { tm.step(1e-4f); }},
                  {"libtorch", [&] { am.step(1e-4f); }}});
  // Again with libtorch keeping its freed blocks (bench_torch_alloc.h): no
  // page faults for the weights' gradients it frees and requests every step.
  rows.push_back({"MLP step; libtorch keeps freed memory",
                  {"tensorc", [&] { tm.step(1e-4f); }},
                  {"libtorch", bench::keeping_memory([&] { am.step(1e-4f); })}});

  std::printf("| float32, %d thread%s | tensorc | libtorch | libtorch/tensorc |\n", threads, threads > 1 ? "s" : "");
  std::printf("|---|---|---|---|\n");
  for (const bench::PairRow& r : rows) {
    if (!only.empty() && r.name.find(only) == std::string::npos) continue;
    bench::run_and_print(r);
  }
  for (tc_tensor t : {ta, tb, tx, tw, tbb}) tc_tensor_release(t);
  tm.release();
  return 0;
}
