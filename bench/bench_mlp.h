// SPDX-License-Identifier: BSD-3-Clause
// One training step of an MLP 784-256-10, batch 64, float32, on both sides:
// addmm + relu + addmm, cross-entropy, backward, SGD update in place under
// no_grad, grads reset. Shared by bench_autograd and bench_contention.
// Include after <ATen/ATen.h>, the autograd headers and <tensorc.h>.
#pragma once

#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_common.h"

namespace bench {

inline tc_tensor tc_from(const std::vector<float>& v, std::vector<int64_t> shape, bool requires_grad) {
  tc_tensor t = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&t, v.data(), TC_FLOAT32, shape.data(), shape.size()));
  if (requires_grad) TC_OK_OR_DIE(tc_tensor_set_requires_grad(t, true));
  return t;
}

inline at::Tensor at_from(const std::vector<float>& v, std::vector<int64_t> shape, bool requires_grad) {
  at::Tensor t = at::from_blob(const_cast<float*>(v.data()), shape, at::kFloat).clone();
  t.set_requires_grad(requires_grad);
  return t;
}

inline std::vector<float> pseudo_random(size_t n, float scale, uint64_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = (float(seed >> 40) / float(1 << 24) - 0.5f) * 2 * scale;
  }
  return v;
}

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
  void release() {
    for (tc_tensor t : {w1, b1, w2, b2, x, target}) tc_tensor_release(t);
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

// Both sides from the same weights; exits with status 3 unless one step
// gives the same first-layer weights on both (1e-5).
struct MlpPair {
  TcMlp tc;
  AtMlp at;
};
inline MlpPair make_mlp_pair(const char* program) {
  const int64_t B = 64, In = 784, H = 256, O = 10;
  std::vector<float> w1 = pseudo_random(In * H, 0.05f, 1), b1 = pseudo_random(H, 0.05f, 2),
                     w2 = pseudo_random(H * O, 0.05f, 3), b2 = pseudo_random(O, 0.05f, 4),
                     x = pseudo_random(B * In, 1.0f, 5);
  std::vector<int64_t> target(B);
  for (int64_t i = 0; i < B; ++i) target[size_t(i)] = (i * 7) % O;
  tc_tensor tc_target = nullptr;
  TC_OK_OR_DIE(tc_tensor_from_data(&tc_target, target.data(), TC_INT64, &B, 1));
  MlpPair m{{tc_from(w1, {In, H}, true), tc_from(b1, {H}, true), tc_from(w2, {H, O}, true), tc_from(b2, {O}, true),
             tc_from(x, {B, In}, false), tc_target},
            {at_from(w1, {In, H}, true), at_from(b1, {H}, true), at_from(w2, {H, O}, true), at_from(b2, {O}, true),
             at_from(x, {B, In}, false), at::from_blob(target.data(), {B}, at::kLong).clone()}};
  m.tc.step(0.01f);
  m.at.step(0.01f);
  std::vector<float> got(size_t(In * H));
  TC_OK_OR_DIE(tc_tensor_copy_to_buffer(got.data(), got.size() * 4, m.tc.w1));
  at::Tensor want = m.at.w1.detach().contiguous();
  double err = 0;
  for (size_t i = 0; i < got.size(); ++i) err = std::max(err, double(std::fabs(got[i] - want.data_ptr<float>()[i])));
  if (err > 1e-5) {
    std::fprintf(stderr, "%s: MLP step disagrees with libtorch (max |dw1| %g)\n", program, err);
    std::exit(3);
  }
  return m;
}

}  // namespace bench
