// SPDX-License-Identifier: BSD-3-Clause
// The autograd engine through the C++ op surface: recording, backward,
// grad(), higher-order gradients, version counters, in-place rules, views,
// no_grad, long chains, and finite-difference checks of derivative formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "core/error.h"
#include "tensorc_gen/ops.h"
#include "autograd_fixtures.h"

namespace {

using namespace tc;
namespace ag = tc::autograd;

using tc::fixtures::from;
using tc::fixtures::leaf;

double at(const Tensor& t, int64_t i) { return read_element(t, i).to_double(); }

void expect_values(const Tensor& t, std::vector<double> want, double tol = 1e-9) {
  ASSERT_TRUE(t.defined());
  ASSERT_EQ(t.numel(), int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(at(t, int64_t(i)), want[i], tol) << "element " << i;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Autograd, MulAddBroadcastAccumulates) {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = leaf({10, 20, 30}, {3});
  Tensor y = tc::sum(tc::add(tc::mul(x, x), b));
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(ag::grad_fn(y)->name(), "SumBackward0");
  ag::backward({y}, {}, false, false);
  expect_values(ag::grad(x), {2, 4, 6, 8, 10, 12});
  expect_values(ag::grad(b), {2, 2, 2});  // broadcast over 2 rows
  // A second graph accumulates into .grad.
  ag::backward({tc::sum(x)}, {}, false, false);
  expect_values(ag::grad(x), {3, 5, 7, 9, 11, 13});
}

TEST(Autograd, LeavesAndNoGrad) {
  Tensor x = leaf({1, 2}, {2});
  EXPECT_TRUE(ag::is_leaf(x));
  Tensor y = tc::mul(x, Scalar(2.0));
  EXPECT_FALSE(ag::is_leaf(y));
  {
    ag::NoGradGuard g;
    Tensor z = tc::mul(x, Scalar(2.0));
    EXPECT_FALSE(z.requires_grad());
  }
  Tensor d = ag::detach(y);
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  Tensor i = from({1, 2}, {2}, ScalarType::Int64);
  EXPECT_NE(error_of([&] { ag::set_requires_grad(i, true); }).find("floating point"), std::string::npos);
}

TEST(Autograd, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = tc::sum(tc::exp(x));
  ag::backward({y}, {}, false, false);
  std::string e = error_of([&] { ag::backward({y}, {}, false, false); });
  EXPECT_NE(e.find("second time"), std::string::npos) << e;
  Tensor y2 = tc::sum(tc::exp(x));
  ag::backward({y2}, {}, true, false);
  ag::backward({y2}, {}, false, false);  // retained: fine
}

TEST(Autograd, ModifiedSavedTensorIsAnError) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = tc::exp(x);
  Tensor z = tc::sum(tc::mul(y, Scalar(1.0)));
  Tensor w = tc::sum(y);  // uses y
  {
    ag::NoGradGuard g;
    y.add_(Scalar(1.0));
  }
  std::string e = error_of([&] { ag::backward({tc::add(z, w)}, {}, false, false); });
  EXPECT_NE(e.find("modified by an inplace operation"), std::string::npos) << e;
  EXPECT_NE(e.find("ExpBackward0"), std::string::npos) << e;
  EXPECT_NE(e.find("is at version 1; expected version 0"), std::string::npos) << e;
}

TEST(Autograd, InPlaceRules) {
  Tensor x = leaf({1, 2}, {2});
  std::string e = error_of([&] { x.mul_(Scalar(2.0)); });
  EXPECT_NE(e.find("leaf Variable that requires grad"), std::string::npos) << e;
  expect_values(x, {1, 2});  // unchanged
  // In-place on a non-leaf records correctly: d/dx sum((x*3)*x) = 6x.
  Tensor y = tc::mul(x, Scalar(3.0));
  y.mul_(x);
  EXPECT_EQ(ag::grad_fn(y)->name(), "MulBackward0");
  ag::backward({tc::sum(y)}, {}, false, false);
  expect_values(ag::grad(x), {6, 12});
  // In-place through a view of a tensor that requires grad: a clear error.
  Tensor a = tc::mul(x, Scalar(1.0));
  Tensor v = tc::select(a, 0, 0);
  e = error_of([&] { v.mul_(Scalar(2.0)); });
  EXPECT_NE(e.find("view"), std::string::npos) << e;
  // A view used after its base changed in place: a clear error, not a wrong gradient.
  Tensor b = tc::mul(x, Scalar(2.0));
  Tensor bv = tc::slice(b, 0, 0, 1, 1);
  b.mul_(Scalar(3.0));
  e = error_of([&] { ag::backward({tc::sum(bv)}, {}, false, false); });
  EXPECT_NE(e.find("stale"), std::string::npos) << e;
}

TEST(Autograd, ViewsBackward) {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = tc::sum(tc::mul(tc::t(x), from({1, 2, 3, 4, 5, 6}, {3, 2})));
  ag::backward({y}, {}, false, false);
  expect_values(ag::grad(x), {1, 3, 5, 2, 4, 6});
  Tensor x2 = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  ag::backward({tc::sum(tc::select(x2, 1, 2))}, {}, false, false);
  expect_values(ag::grad(x2), {0, 0, 1, 0, 0, 1});
  Tensor x3 = leaf({1, 2, 3, 4}, {4});
  auto parts = tc::split(x3, 3, 0);
  ag::backward({tc::sum(tc::mul(parts[1], Scalar(5.0)))}, {}, false, false);
  expect_values(ag::grad(x3), {0, 0, 0, 5});
}

TEST(Autograd, GradAndHigherOrder) {
  Tensor x = leaf({0.5, -1.0}, {2});
  // y = sum(x^3): dy = 3x^2, d2y = 6x, d3y = 6
  Tensor y = tc::sum(tc::pow(x, Scalar(3.0)));
  auto g1 = ag::grad({y}, {x}, {}, true, true, false);
  expect_values(g1[0], {0.75, 3.0});
  EXPECT_TRUE(g1[0].requires_grad());
  auto g2 = ag::grad({tc::sum(g1[0])}, {x}, {}, true, true, false);
  expect_values(g2[0], {3.0, -6.0});
  auto g3 = ag::grad({tc::sum(g2[0])}, {x}, {}, true, true, false);
  expect_values(g3[0], {6.0, 6.0});
  EXPECT_FALSE(ag::grad(x).defined());  // grad() leaves .grad alone
  // Unused inputs.
  Tensor u = leaf({1}, {1});
  std::string e = error_of([&] { ag::grad({tc::sum(tc::exp(x))}, {u}, {}, false, false, false); });
  EXPECT_NE(e.find("allow_unused"), std::string::npos) << e;
  auto r = ag::grad({tc::sum(tc::exp(x))}, {x, u}, {}, false, false, true);
  EXPECT_TRUE(r[0].defined());
  EXPECT_FALSE(r[1].defined());
}

TEST(Autograd, RetainGrad) {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = tc::mul(x, Scalar(2.0));
  ag::retain_grad(y);
  ag::backward({tc::sum(tc::mul(y, y))}, {}, false, false);
  expect_values(ag::grad(y), {4, 8});
  expect_values(ag::grad(x), {8, 16});
}

TEST(Autograd, LongChainNoStackOverflow) {
  Tensor x = leaf({1.0}, {1});
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = tc::add(y, Scalar(1.0));
  ag::backward({tc::sum(y)}, {}, false, false);
  expect_values(ag::grad(x), {1.0});
  y = Tensor();  // dropping the graph is iterative too
  Tensor z = x;
  for (int i = 0; i < 100000; ++i) z = tc::mul(z, Scalar(1.0));
  z = Tensor();
}

TEST(Autograd, NotImplementedFallbackNamesTheOp) {
  // embedding_dense_backward has no derivatives.yaml entry (its own derivative).
  Tensor g = leaf({1, 2, 3, 4}, {2, 2});
  Tensor indices = from({0, 2}, {2}, ScalarType::Int64);
  Tensor y = tc::embedding_dense_backward(g, indices, 3, -1, false);
  EXPECT_EQ(ag::grad_fn(y)->name(), "NotImplemented");
  std::string e = error_of([&] { ag::backward({tc::sum(y)}, {}, false, false); });
  EXPECT_NE(e.find("embedding_dense_backward"), std::string::npos) << e;
  EXPECT_NE(e.find("not implemented"), std::string::npos) << e;
}

TEST(Autograd, OutVariantRefusesGrad) {
  Tensor x = leaf({1, 2}, {2});
  Tensor out = tc::empty({2}, ScalarType::Float64);
  std::string e = error_of([&] { tc::exp_out(out, x); });
  EXPECT_NE(e.find("out="), std::string::npos) << e;
}

// Central differences of sum(f(inputs) * weights) against backward.
void check_gradient(const std::string& what, const std::vector<Tensor>& inputs,
                    const std::function<Tensor(const std::vector<Tensor>&)>& f, double tol = 1e-5) {
  for (const Tensor& t : inputs) ag::set_requires_grad(t, true);
  Tensor out = f(inputs);
  Tensor w = tc::arange(Scalar(1.0), Scalar(double(out.numel()) + 1.0), Scalar(1.0), ScalarType::Float64);
  w = tc::reshape(w, out.sizes());
  auto grads = ag::grad({tc::sum(tc::mul(out, w))}, inputs, {}, false, false, true);
  ag::NoGradGuard g;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor x = inputs[k];
    for (int64_t i = 0; i < x.numel(); ++i) {
      double* p = x.data_ptr<double>() + i;
      const double orig = *p, eps = 1e-6;
      *p = orig + eps;
      double plus = tc::sum(tc::mul(f(inputs), w)).item<double>();
      *p = orig - eps;
      double minus = tc::sum(tc::mul(f(inputs), w)).item<double>();
      *p = orig;
      double numeric = (plus - minus) / (2 * eps);
      double analytic = grads[k].defined() ? at(grads[k], i) : 0.0;
      EXPECT_NEAR(analytic, numeric, tol * std::max(1.0, std::fabs(numeric)))
          << what << ": input " << k << " element " << i;
    }
  }
}

TEST(Autograd, FormulasMatchFiniteDifferences) {
  auto a = [] { return from({0.3, -0.7, 1.2, 0.5, -0.2, 0.9}, {2, 3}); };
  auto pos = [] { return from({0.3, 0.7, 1.2, 0.5, 0.2, 0.9}, {2, 3}); };
  auto b = [] { return from({1.1, -0.4, 0.8}, {3}); };
  using V = std::vector<Tensor>;
  check_gradient("exp", {a()}, [](const V& v) { return tc::exp(v[0]); });
  check_gradient("log", {pos()}, [](const V& v) { return tc::log(v[0]); });
  check_gradient("sqrt", {pos()}, [](const V& v) { return tc::sqrt(v[0]); });
  check_gradient("tanh", {a()}, [](const V& v) { return tc::tanh(v[0]); });
  check_gradient("sigmoid", {a()}, [](const V& v) { return tc::sigmoid(v[0]); });
  check_gradient("sin", {a()}, [](const V& v) { return tc::sin(v[0]); });
  check_gradient("atan", {a()}, [](const V& v) { return tc::atan(v[0]); });
  check_gradient("erf", {a()}, [](const V& v) { return tc::erf(v[0]); });
  check_gradient("gelu", {a()}, [](const V& v) { return tc::gelu(v[0]); });
  check_gradient("gelu tanh", {a()}, [](const V& v) { return tc::gelu(v[0], "tanh"); });
  check_gradient("div", {a(), b()}, [](const V& v) { return tc::div(v[0], v[1]); });
  check_gradient("sub alpha", {a(), b()}, [](const V& v) { return tc::sub(v[0], v[1], Scalar(2.5)); });
  check_gradient("pow tt", {pos(), b()}, [](const V& v) { return tc::pow(v[0], v[1]); });
  check_gradient("atan2", {a(), b()}, [](const V& v) { return tc::atan2(v[0], v[1]); });
  check_gradient("maximum", {a(), b()}, [](const V& v) { return tc::maximum(v[0], v[1]); });
  check_gradient("lerp", {a(), b(), pos()}, [](const V& v) { return tc::lerp(v[0], v[1], v[2]); });
  check_gradient("where", {a(), b()}, [](const V& v) { return tc::where(tc::gt(v[0], Scalar(0.0)), v[0], v[1]); });
  check_gradient("clamp", {a()}, [](const V& v) { return tc::clamp(v[0], Scalar(-0.5), Scalar(1.0)); });
  check_gradient("sum dim", {a()}, [](const V& v) { return tc::sum(v[0], IntArrayRef{1}, false); });
  check_gradient("mean dim", {a()}, [](const V& v) { return tc::mean(v[0], IntArrayRef{0}, true); });
  check_gradient("prod", {a()}, [](const V& v) { return tc::prod(v[0]); });
  check_gradient("prod dim", {a()}, [](const V& v) { return tc::prod(v[0], 1, false); });
  check_gradient("amax", {a()}, [](const V& v) { return tc::amax(v[0], IntArrayRef{1}, false); });
  check_gradient("max.dim", {a()}, [](const V& v) { return std::get<0>(tc::max(v[0], 0, false)); });
  check_gradient("var", {a()}, [](const V& v) { return tc::var(v[0], IntArrayRef{1}, true, false); });
  check_gradient("std", {a()}, [](const V& v) { return tc::std(v[0], IntArrayRef{0}, true, true); });
  check_gradient("mm", {a(), from({1, 2, 3, 4, 5, 6}, {3, 2})}, [](const V& v) { return tc::mm(v[0], v[1]); });
  check_gradient("addmm", {from({1, 2}, {2}), a(), from({1, 2, 3, 4, 5, 6}, {3, 2})},
                 [](const V& v) { return tc::addmm(v[0], v[1], v[2], Scalar(0.5), Scalar(2.0)); });
  check_gradient("matmul", {a(), b()}, [](const V& v) { return tc::matmul(v[0], v[1]); });
  check_gradient("cat", {a(), a()}, [](const V& v) { return tc::cat({v[0], v[1]}, 1); });
  check_gradient("stack", {a(), a()}, [](const V& v) { return tc::stack({v[0], v[1]}, 2); });
  check_gradient("permute", {a()}, [](const V& v) { return tc::mul(tc::permute(v[0], {1, 0}), Scalar(3.0)); });
  check_gradient("expand", {b()}, [](const V& v) { return tc::expand(v[0], {4, 3}); });
  check_gradient("diagonal", {a()}, [](const V& v) { return tc::diagonal(v[0]); });
  check_gradient("slice step", {a()}, [](const V& v) { return tc::slice(v[0], 1, 0, 3, 2); });
  check_gradient("unbind", {a()}, [](const V& v) { return tc::unbind(v[0], 1)[2]; });
  check_gradient("reshape", {a()}, [](const V& v) { return tc::reshape(tc::t(v[0]), {6}); });
  // dtype round trip: the gradient is cast back (float32 is too coarse for differences).
  Tensor x = a();
  ag::set_requires_grad(x, true);
  Tensor y = tc::to(tc::mul(tc::to(x, ScalarType::Float32), Scalar(3.0)), ScalarType::Float64);
  ag::backward({tc::sum(y)}, {}, false, false);
  EXPECT_EQ(ag::grad(x).dtype(), ScalarType::Float64);
  expect_values(ag::grad(x), {3, 3, 3, 3, 3, 3});
}

}  // namespace
