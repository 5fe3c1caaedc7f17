// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 4: autograd. tensorc's C ABI against libtorch's C++ API, same
// process, interleaved (bench_common.h):
//  - recording overhead: a 1-element add on tensors that require grad;
//  - a tiny graph: y = (x * w + b).sum(); y.backward() on 1-element tensors;
//  - one training step of an MLP 784-256-10, batch 64, float32: forward,
//    cross-entropy, backward, SGD update in place under no_grad, zero grads.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cmath>

#include <tensorc.h>

#include "bench_common.h"

using bench::Contestant;

namespace {

tc_tensor tc_from(const std::vector<float>& v, std::vector<int64_t> shape, bool requires_grad) {
  tc_tensor t = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&t, v.data(), TC_FLOAT32, shape.data(), shape.size()));
  if (requires_grad) TC_OK_OR_DIE(tc_tensor_set_requires_grad(t, true));
  return t;
}

at::Tensor at_from(const std::vector<float>& v, std::vector<int64_t> shape, bool requires_grad) {
  at::Tensor t = at::from_blob(const_cast<float*>(v.data()), shape, at::kFloat).clone();
  t.set_requires_grad(requires_grad);
  return t;
}

std::vector<float> pseudo_random(size_t n, float scale, uint64_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = (float(seed >> 40) / float(1 << 24) - 0.5f) * 2 * scale;
  }
  return v;
}

// ---- the MLP step, tensorc side ----
struct TcMlp {
  tc_tensor w1, b1, w2, b2, x, target;
  void step(float lr) {
    tc_tensor h = nullptr, a = nullptr, z = nullptr, loss = nullptr;
    TC_OK_OR_DIE(tc_addmm(&h, b1, x, w1, nullptr, nullptr));
    TC_OK_OR_DIE(tc_relu(&a, h));
    TC_OK_OR_DIE(tc_addmm(&z, b2, a, w2, nullptr, nullptr));
    TC_OK_OR_DIE(tc_cross_entropy_loss(&loss, z, target, nullptr, nullptr, nullptr, nullptr));
    TC_OK_OR_DIE(tc_tensor_backward(loss, nullptr, false, false));
    TC_OK_OR_DIE(tc_grad_mode_push(false));
    tc_scalar neg_lr = tc_scalar_float(-lr);
    for (tc_tensor p : {w1, b1, w2, b2}) {
      tc_tensor g = nullptr;
      TC_OK_OR_DIE(tc_tensor_grad(&g, p));
      TC_OK_OR_DIE(tc_add_inplace_Tensor(p, g, &neg_lr));
      TC_OK_OR_DIE(tc_tensor_set_grad(p, nullptr));
      tc_tensor_release(g);
    }
    TC_OK_OR_DIE(tc_grad_mode_pop());
    for (tc_tensor t : {h, a, z, loss}) tc_tensor_release(t);
  }
};

struct AtMlp {
  at::Tensor w1, b1, w2, b2, x, target;
  void step(float lr) {
    at::Tensor z = at::addmm(b2, at::relu(at::addmm(b1, x, w1)), w2);
    at::Tensor loss = at::cross_entropy_loss(z, target);
    loss.backward();
    at::NoGradGuard g;
    for (at::Tensor* p : {&w1, &b1, &w2, &b2}) {
      p->add_(p->grad(), -lr);
      p->mutable_grad() = at::Tensor();
    }
  }
};

}  // namespace

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

  // 3. MLP training step.
  const int64_t B = 64, In = 784, H = 256, O = 10;
  std::vector<float> w1 = pseudo_random(In * H, 0.05f, 1), b1 = pseudo_random(H, 0.05f, 2),
                     w2 = pseudo_random(H * O, 0.05f, 3), b2 = pseudo_random(O, 0.05f, 4),
                     x = pseudo_random(B * In, 1.0f, 5);
  std::vector<int64_t> target(B);
  for (int64_t i = 0; i < B; ++i) target[size_t(i)] = (i * 7) % O;
  tc_tensor tc_target = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&tc_target, target.data(), TC_INT64, &B, 1));
  TcMlp tm{tc_from(w1, {In, H}, true), tc_from(b1, {H}, true),     tc_from(w2, {H, O}, true),
           tc_from(b2, {O}, true),     tc_from(x, {B, In}, false), tc_target};
  AtMlp am{at_from(w1, {In, H}, true), at_from(b1, {H}, true),
           at_from(w2, {H, O}, true),  at_from(b2, {O}, true),
           at_from(x, {B, In}, false), at::from_blob(target.data(), {B}, at::kLong).clone()};
  // Same math: after one step from the same weights, the weights agree.
  {
    tm.step(0.01f);
    am.step(0.01f);
    std::vector<float> got(size_t(In * H));
    TC_OK_OR_DIE(tc_tensor_copy_to_buffer(got.data(), got.size() * 4, tm.w1));
    at::Tensor want = am.w1.detach().contiguous();
    double err = 0;
    for (size_t i = 0; i < got.size(); ++i) err = std::max(err, double(std::fabs(got[i] - want.data_ptr<float>()[i])));
    if (err > 1e-5) {
      std::fprintf(stderr, "bench_autograd: MLP step disagrees with libtorch (max |dw1| %g)\n", err);
      return 3;
    }
  }
  rows.push_back({"MLP 784-256-10, batch 64: forward + CE + backward + SGD",
                  {"tensorc", [&] { tm.step(1e-4f); }},
                  {"libtorch", [&] { am.step(1e-4f); }}});

  std::printf("| float32, %d thread%s | tensorc | libtorch | libtorch/tensorc |\n", threads, threads > 1 ? "s" : "");
  std::printf("|---|---|---|---|\n");
  for (const bench::PairRow& r : rows) {
    if (!only.empty() && r.name.find(only) == std::string::npos) continue;
    bench::run_and_print(r);
  }
  for (tc_tensor t : {ta, tb, tx, tw, tbb, tm.w1, tm.b1, tm.w2, tm.b2, tm.x, tm.target}) tc_tensor_release(t);
  return 0;
}
