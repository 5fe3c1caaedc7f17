// SPDX-License-Identifier: BSD-3-Clause
// The neural-network ops (src/cpu/nn, src/composite/nn.cpp), called through
// the generated op functions (so the composites dispatch as in real use):
// hand-computed values and reference loops written here, float32 and
// float64, non-contiguous (transposed / permuted) inputs, every reduction,
// ignore_index and class weights; each backward op against central finite
// differences of its forward; bad inputs fail with the op and argument named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "core/sanitize.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/ops.h"

namespace {

using namespace tc;
using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;
constexpr ScalarType F32 = ScalarType::Float32, F64 = ScalarType::Float64, F16 = ScalarType::Float16,
                     I64 = ScalarType::Int64, I32 = ScalarType::Int32, B1 = ScalarType::Bool;
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- helpers -----------------------------------------------------------------

Tensor make(const Vals& v, const Dims& sizes, ScalarType dt = F64) {
  Tensor t = empty_tensor(sizes, dt);
  EXPECT_EQ(int64_t(v.size()), t.numel());
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) write_scalar(p + i * t.element_size(), dt, Scalar(v[i]));
  return t;
}

Tensor make_int(const std::vector<int64_t>& v, const Dims& sizes, ScalarType dt = I64) {
  Tensor t = empty_tensor(sizes, dt);
  char* p = static_cast<char*>(t.data_ptr());
  for (size_t i = 0; i < v.size(); ++i) write_scalar(p + i * t.element_size(), dt, Scalar(v[i]));
  return t;
}

// Deterministic values in [lo, hi).
TC_NO_SANITIZE_INTEGER Vals rand_vals(int64_t n, uint64_t seed, double lo = -2, double hi = 2) {
  Vals v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * double(s >> 11) / double(1ull << 53);
  }
  return v;
}

Tensor random(const Dims& sizes, ScalarType dt, uint64_t seed, double lo = -2, double hi = 2) {
  return make(rand_vals(checked_numel(sizes, "random"), seed, lo, hi), sizes, dt);
}

Vals values(const Tensor& t) {
  Vals v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = read_element(t, i).to_double();
  return v;
}

double value(const Tensor& t) {
  EXPECT_EQ(t.numel(), 1);
  return read_element(t, 0).to_double();
}

void expect_values(const Tensor& t, const Vals& want, double rtol, double atol = 0) {
  Vals got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << "at " << i;
    }
  }
}

void expect_shape(const Tensor& t, const Dims& shape) { EXPECT_EQ(t.sizes().vec(), shape); }

double tol_of(ScalarType dt) { return dt == F64 ? 1e-12 : 1e-5; }

// A non-contiguous tensor with the values and shape of `t` (2-D: stored
// transposed).
Tensor noncontig(const Tensor& t) {
  EXPECT_EQ(t.dim(), 2);
  Tensor base = tc::contiguous(tc::t(t));  // (cols, rows) storage
  Tensor v = tc::t(base);                  // the original logical layout
  EXPECT_FALSE(v.is_contiguous());
  return v;
}

template <class F>
ErrorCode error_of(F f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (msg) *msg = e.message();
    return e.code();
  }
  return ErrorCode::Ok;
}

// The error code, checking the message names the op and the argument.
template <class F>
ErrorCode error_naming(const std::string& op, const std::string& arg, F f) {
  std::string msg;
  ErrorCode c = error_of(f, &msg);
  EXPECT_NE(msg.find(op), std::string::npos) << "message does not name " << op << ": " << msg;
  if (!arg.empty()) {
    EXPECT_NE(msg.find("'" + arg + "'"), std::string::npos) << "message does not name " << arg << ": " << msg;
  }
  return c;
}

// Central finite differences of the scalar function f at x (float64,
// contiguous; x is perturbed in place and restored).
Vals numeric_grad(const std::function<double()>& f, Tensor& x, double eps = 1e-6) {
  double* p = x.data_ptr<double>();
  Vals g(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double orig = p[i];
    p[i] = orig + eps;
    const double up = f();
    p[i] = orig - eps;
    const double down = f();
    p[i] = orig;
    g[size_t(i)] = (up - down) / (2 * eps);
  }
  return g;
}

// sum(w * y) in double.
double weighted_sum(const Tensor& w, const Tensor& y) {
  Vals a = values(w), b = values(y);
  EXPECT_EQ(a.size(), b.size());
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Applies fn to every line along `dim` of a row-major value array.
Vals along(const Vals& v, const Dims& sizes, int64_t dim, const std::function<Vals(const Vals&)>& fn) {
  int64_t outer = 1, inner = 1, n = sizes[size_t(dim)];
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (d < dim) outer *= sizes[size_t(d)];
    if (d > dim) inner *= sizes[size_t(d)];
  }
  Vals out(v.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      Vals row(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) row[size_t(k)] = v[size_t((o * n + k) * inner + j)];
      Vals r = fn(row);
      for (int64_t k = 0; k < n; ++k) out[size_t((o * n + k) * inner + j)] = r[size_t(k)];
    }
  return out;
}

Vals ref_softmax(const Vals& x) {
  double m = -INFINITY, s = 0;
  for (double v : x) m = std::max(m, v);
  Vals y(x.size());
  for (size_t i = 0; i < x.size(); ++i) s += y[i] = std::exp(x[i] - m);
  for (double& v : y) v /= s;
  return y;
}

Vals ref_log_softmax(const Vals& x) {
  Vals y = ref_softmax(x);
  for (double& v : y) v = std::log(v);
  return y;
}

// ---- softmax / log_softmax ---------------------------------------------------------

TEST(NnSoftmax, HandValues) {
  for (ScalarType dt : {F32, F64}) {
    Tensor x = make({1, 2, 3}, {3}, dt);
    expect_values(tc::_softmax(x, 0, false), {0.09003057317038046, 0.24472847105479767, 0.6652409557748219}, 1e-6);
    expect_values(tc::_log_softmax(x, -1, false), {-2.40760596444438, -1.40760596444438, -0.40760596444438}, 1e-6);
    // Stable: a large shift changes nothing.
    Tensor big = make({1000, 1001, 1002}, {3}, dt);
    expect_values(tc::_softmax(big, 0, false), {0.09003057317038046, 0.24472847105479767, 0.6652409557748219}, 1e-6);
    expect_values(tc::_log_softmax(big, 0, false), {-2.40760596444438, -1.40760596444438, -0.40760596444438}, 1e-6);
    // -inf entries get probability 0 (log -inf).
    Tensor ninf = make({0, -INFINITY}, {2}, dt);
    expect_values(tc::_softmax(ninf, 0, false), {1, 0}, 0);
    EXPECT_EQ(values(tc::_log_softmax(ninf, 0, false))[1], -INFINITY);
    EXPECT_EQ(tc::_softmax(x, 0, false).dtype(), dt);
  }
  // Zero-dim and empty tensors.
  expect_values(tc::_softmax(make({5}, {}), 0, false), {1}, 0);
  expect_values(tc::_log_softmax(make({5}, {}), -1, false), {0}, 0);
  expect_shape(tc::_softmax(empty_tensor({0, 3}, F32), 1, false), {0, 3});
}

TEST(NnSoftmax, AnyDimAnyStrideMatchesReference) {
  const Dims sizes{3, 5, 70};  // inner 70 > one block of 64 rows
  for (ScalarType dt : {F32, F64}) {
    Tensor x = random(sizes, dt, 1, -5, 5);
    Vals xv = values(x);
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      const int64_t d = dim < 0 ? dim + 3 : dim;
      expect_values(tc::_softmax(x, dim, false), along(xv, sizes, d, ref_softmax), tol_of(dt), 1e-7);
      expect_values(tc::_log_softmax(x, dim, false), along(xv, sizes, d, ref_log_softmax), tol_of(dt), 1e-6);
    }
    // Permuted (non-contiguous) input: the result is laid out like the logical tensor.
    Tensor p = tc::permute(x, {2, 0, 1});
    ASSERT_FALSE(p.is_contiguous());
    const Dims psizes{70, 3, 5};
    Vals pv = values(p);
    for (int64_t dim : {0, 1, 2}) {
      expect_values(tc::_softmax(p, dim, false), along(pv, psizes, dim, ref_softmax), tol_of(dt), 1e-7);
      expect_values(tc::_log_softmax(p, dim, false), along(pv, psizes, dim, ref_log_softmax), tol_of(dt), 1e-6);
    }
  }
}

TEST(NnSoftmax, ManyRowsInParallel) {
  const Dims sizes{3000, 20};
  Tensor x = random(sizes, F32, 2, -3, 3);
  expect_values(tc::_softmax(x, 1, false), along(values(x), sizes, 1, ref_softmax), 1e-5, 1e-7);
  expect_values(tc::_log_softmax(x, 0, false), along(values(x), sizes, 0, ref_log_softmax), 1e-5, 1e-5);
}

TEST(NnSoftmax, ReducedFloatsComputeInFloat) {
  Tensor x = random({4, 9}, F32, 3, -4, 4);
  Tensor h = x.to(F16);
  Vals hv = values(h);
  Tensor y = tc::_softmax(h, 1, false);
  EXPECT_EQ(y.dtype(), F16);
  expect_values(y, along(hv, {4, 9}, 1, ref_softmax), 2e-3, 1e-4);
  Tensor yf = tc::_softmax(h, 1, true);  // half_to_float
  EXPECT_EQ(yf.dtype(), F32);
  expect_values(yf, along(hv, {4, 9}, 1, ref_softmax), 1e-6, 1e-7);
  Tensor lf = tc::_log_softmax(h, 0, true);
  EXPECT_EQ(lf.dtype(), F32);
  expect_values(lf, along(hv, {4, 9}, 0, ref_log_softmax), 1e-6, 1e-6);
  // Backward of the half_to_float forward: float32 gradient, float16 result.
  Tensor g = random({4, 9}, F32, 4);
  Tensor gi = tc::_softmax_backward_data(g, yf, 1, F16);
  EXPECT_EQ(gi.dtype(), F16);
  expect_values(gi, values(tc::_softmax_backward_data(g, yf, 1, F32)), 3e-3, 1e-3);
}

TEST(NnSoftmax, UserFacingComposites) {
  Tensor x = random({2, 3}, F32, 5);
  expect_values(tc::softmax(x, 1), values(tc::_softmax(x, 1, false)), 0);
  expect_values(x.softmax(-1), values(tc::_softmax(x, 1, false)), 0);
  Tensor d = tc::log_softmax(x, 0, F64);
  EXPECT_EQ(d.dtype(), F64);
  expect_values(d, along(values(x), {2, 3}, 0, ref_log_softmax), 1e-12);
  expect_values(x.log_softmax(0), values(tc::_log_softmax(x, 0, false)), 0);
}

TEST(NnSoftmax, BackwardMatchesFiniteDifferences) {
  for (bool log : {false, true}) {
    for (int64_t dim : {0, 1, 2}) {
      Tensor x = random({3, 4, 5}, F64, 10 + dim);
      Tensor w = random({3, 4, 5}, F64, 20 + dim);
      auto fwd = [&](const Tensor& in) {
        return log ? tc::_log_softmax(in, dim, false) : tc::_softmax(in, dim, false);
      };
      Tensor y = fwd(x);
      Tensor g = log ? tc::_log_softmax_backward_data(w, y, dim, F64) : tc::_softmax_backward_data(w, y, dim, F64);
      expect_values(g, numeric_grad([&] { return weighted_sum(w, fwd(x)); }, x), 0, 1e-7);
      // Non-contiguous grad_output and output give the same result.
      Tensor wp = tc::contiguous(tc::permute(w, {2, 1, 0}));
      Tensor yp = tc::contiguous(tc::permute(y, {2, 1, 0}));
      Tensor w_nc = tc::permute(wp, {2, 1, 0}), y_nc = tc::permute(yp, {2, 1, 0});
      Tensor g2 =
          log ? tc::_log_softmax_backward_data(w_nc, y_nc, dim, F64) : tc::_softmax_backward_data(w_nc, y_nc, dim, F64);
      expect_values(g2, values(g), 1e-12, 1e-15);
    }
  }
  // float32, last dim (the fast path).
  Tensor x = random({6, 7}, F32, 30), w = random({6, 7}, F32, 31);
  Tensor y = tc::_softmax(x, 1, false);
  Vals ref = along(values(y), {6, 7}, 1, [](const Vals& r) { return r; });
  Vals wv = values(w), yv = values(y), want(wv.size());
  for (int64_t i = 0; i < 6; ++i) {
    double s = 0;
    for (int64_t j = 0; j < 7; ++j) s += wv[size_t(i * 7 + j)] * yv[size_t(i * 7 + j)];
    for (int64_t j = 0; j < 7; ++j) want[size_t(i * 7 + j)] = yv[size_t(i * 7 + j)] * (wv[size_t(i * 7 + j)] - s);
  }
  expect_values(tc::_softmax_backward_data(w, y, 1, F32), want, 1e-5, 1e-6);
}

TEST(NnSoftmax, BadInputs) {
  Tensor x = random({2, 3}, F32, 1);
  EXPECT_EQ(error_naming("_softmax", "self", [&] { tc::_softmax(make_int({1, 2}, {2}), 0, false); }), ErrorCode::Type);
  EXPECT_EQ(error_naming("_softmax", "dim", [&] { tc::_softmax(x, 2, false); }), ErrorCode::Index);
  EXPECT_EQ(error_naming("_log_softmax", "dim", [&] { tc::_log_softmax(x, -3, false); }), ErrorCode::Index);
  EXPECT_EQ(error_naming("_softmax", "half_to_float", [&] { tc::_softmax(x, 1, true); }), ErrorCode::Type);
  EXPECT_EQ(error_naming("_softmax", "self", [&] { tc::softmax(make_int({1, 2}, {2}), 0); }), ErrorCode::Type);
  Tensor y = tc::_softmax(x, 1, false);
  EXPECT_EQ(error_naming("_softmax_backward_data", "output",
                         [&] {
                           tc::_softmax_backward_data(x, random({3, 2}, F32, 2), 1, F32);
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("_softmax_backward_data", "output", [&] { tc::_softmax_backward_data(x, y.to(F64), 1, F32); }),
            ErrorCode::Type);
  EXPECT_EQ(
      error_naming("_log_softmax_backward_data", "input_dtype", [&] { tc::_log_softmax_backward_data(x, y, 1, F64); }),
      ErrorCode::Type);
}

// ---- nll_loss ------------------------------------------------------------------------

// logp (3, 4); targets 1, 3 and an ignored row; weights 1..4.
struct NllCase {
  Vals logp = {-1.0, -2.0, -3.0, -4.0,  //
               -0.5, -1.5, -2.5, -3.5,  //
               -0.1, -0.2, -0.3, -0.4};
  std::vector<int64_t> target = {1, 3, -100};
  Vals weight = {1, 2, 3, 4};
};

TEST(NnNllLoss, HandValuesEveryReduction) {
  NllCase c;
  for (ScalarType dt : {F32, F64}) {
    for (bool contiguous : {true, false}) {
      Tensor x = make(c.logp, {3, 4}, dt);
      if (!contiguous) x = noncontig(x);
      Tensor t = make_int(c.target, {3});
      Tensor w = make(c.weight, {4}, dt);
      // Unweighted: rows 0 and 1 count (-(-2) and -(-3.5)).
      auto [none, tw0] = tc::nll_loss_forward(x, t, std::nullopt, kNone, -100);
      expect_values(none, {2.0, 3.5, 0.0}, 1e-7);
      EXPECT_EQ(none.dtype(), dt);
      auto [sum, tw_sum] = tc::nll_loss_forward(x, t, std::nullopt, kSum, -100);
      EXPECT_NEAR(value(sum), 5.5, 1e-6);
      EXPECT_EQ(value(tw_sum), 2);
      auto [mean, tw_mean] = tc::nll_loss_forward(x, t, std::nullopt, kMean, -100);
      EXPECT_NEAR(value(mean), 2.75, 1e-6);
      EXPECT_EQ(value(tw_mean), 2);
      expect_shape(mean, {});
      // Weighted: 2 * 2 + 4 * 3.5 = 18 over weights 2 + 4.
      expect_values(std::get<0>(tc::nll_loss_forward(x, t, w, kNone, -100)), {4.0, 14.0, 0.0}, 1e-7);
      auto [wsum, wtw] = tc::nll_loss_forward(x, t, w, kSum, -100);
      EXPECT_NEAR(value(wsum), 18, 1e-5);
      EXPECT_EQ(value(wtw), 6);
      EXPECT_NEAR(value(std::get<0>(tc::nll_loss_forward(x, t, w, kMean, -100))), 3.0, 1e-6);
      // ignore_index other than the default: class 1 is ignored now, -100 is out of range.
      Tensor t2 = make_int({1, 3, 0}, {3});
      EXPECT_NEAR(value(std::get<0>(tc::nll_loss_forward(x, t2, w, kMean, 1))), (4 * 3.5 + 1 * 0.1) / 5, 1e-6);
      // The composite with ATen's defaults (mean, ignore_index -100).
      EXPECT_NEAR(value(tc::nll_loss(x, t)), 2.75, 1e-6);
      EXPECT_NEAR(value(tc::nll_loss(x, t, w, kSum)), 18, 1e-5);
    }
  }
}

TEST(NnNllLoss, OneDimInputAndAllIgnored) {
  Tensor x = make({-1, -2, -3}, {3});
  Tensor w = make({0.5, 1, 2}, {3});
  auto [out, tw] = tc::nll_loss_forward(x, make_int({2}, {}), w, kNone, -100);
  expect_shape(out, {});
  EXPECT_DOUBLE_EQ(value(out), 6);
  EXPECT_DOUBLE_EQ(value(tw), 2);
  EXPECT_DOUBLE_EQ(value(std::get<0>(tc::nll_loss_forward(x, make_int({2}, {}), w, kMean, -100))), 3);
  // Every target ignored: mean is 0 / 0, sum 0.
  Tensor x2 = random({2, 3}, F64, 1);
  Tensor ign = make_int({-100, -100}, {2});
  auto [m, mtw] = tc::nll_loss_forward(x2, ign, std::nullopt, kMean, -100);
  EXPECT_TRUE(std::isnan(value(m)));
  EXPECT_EQ(value(mtw), 0);
  EXPECT_EQ(value(std::get<0>(tc::nll_loss_forward(x2, ign, std::nullopt, kSum, -100))), 0);
  // Empty batch.
  EXPECT_TRUE(std::isnan(value(tc::nll_loss(empty_tensor({0, 3}, F64), empty_tensor({0}, I64)))));
}

TEST(NnNllLoss, SpatialInputFoldsIntoRows) {
  // (N, C, d) = (2, 3, 2): the same as the (4, 3) rows with the class dim last.
  Tensor x = random({2, 3, 2}, F64, 7);
  Tensor t = make_int({0, 2, 1, -100}, {2, 2});
  Tensor rows = tc::reshape(tc::permute(x, {0, 2, 1}), {4, 3});
  Tensor w = make({1, 2, 3}, {3});
  for (int64_t red : {kNone, kMean, kSum}) {
    Tensor got = tc::nll_loss(x, t, w, red);
    Tensor want = tc::nll_loss(rows, tc::reshape(t, {4}), w, red);
    if (red == kNone) expect_shape(got, {2, 2});
    expect_values(got, values(want), 1e-12);
  }
}

TEST(NnNllLoss, BackwardMatchesFiniteDifferences) {
  NllCase c;
  Tensor t = make_int(c.target, {3});
  Tensor w = make(c.weight, {4});
  for (bool weighted : {false, true}) {
    std::optional<Tensor> wo = weighted ? std::optional<Tensor>(w) : std::nullopt;
    for (int64_t red : {kNone, kMean, kSum}) {
      Tensor x = random({3, 4}, F64, 40 + red);
      Tensor g = red == kNone ? random({3}, F64, 50) : make({1.7}, {});
      auto [out, total] = tc::nll_loss_forward(x, t, wo, red, -100);
      Tensor gi = tc::nll_loss_backward(g, x, t, wo, red, -100, total);
      expect_values(
          gi, numeric_grad([&] { return weighted_sum(g, std::get<0>(tc::nll_loss_forward(x, t, wo, red, -100))); }, x),
          0, 1e-7);
      // Non-contiguous self.
      expect_values(tc::nll_loss_backward(g, noncontig(x), t, wo, red, -100, total), values(gi), 0);
    }
  }
  // 1-D self.
  Tensor x = random({4}, F64, 60);
  Tensor t0 = make_int({2}, {});
  auto [out, total] = tc::nll_loss_forward(x, t0, w, kMean, -100);
  Tensor g = make({0.3}, {});
  expect_values(
      tc::nll_loss_backward(g, x, t0, w, kMean, -100, total),
      numeric_grad([&] { return weighted_sum(g, std::get<0>(tc::nll_loss_forward(x, t0, w, kMean, -100))); }, x), 0,
      1e-8);
  // float32.
  Tensor xf = random({3, 4}, F32, 61);
  auto [o32, tw32] = tc::nll_loss_forward(xf, t, w.to(F32), kMean, -100);
  expect_values(tc::nll_loss_backward(make({1.0}, {}, F32), xf, t, w.to(F32), kMean, -100, tw32),
                {0, -2.0 / 6, 0, 0, 0, 0, 0, -4.0 / 6, 0, 0, 0, 0}, 1e-6);
}

TEST(NnNllLoss, BadInputs) {
  Tensor x = random({3, 4}, F32, 1);
  Tensor t = make_int({1, 2, 3}, {3});
  std::string msg;
  EXPECT_EQ(error_naming("nll_loss_forward", "target",
                         [&] {
                           tc::nll_loss_forward(x, make_int({1, 4, 0}, {3}), std::nullopt, kMean, -100);
                         }),
            ErrorCode::Index);
  EXPECT_EQ(error_naming("nll_loss_forward", "target",
                         [&] {
                           tc::nll_loss_forward(x, make_int({1, -1, 0}, {3}), std::nullopt, kNone, -100);
                         }),
            ErrorCode::Index);
  EXPECT_EQ(error_naming("nll_loss_backward", "target",
                         [&] {
                           tc::nll_loss_backward(make({1}, {}, F32), x, make_int({1, 9, 0}, {3}), std::nullopt, kSum,
                                                 -100, make({3}, {}, F32));
                         }),
            ErrorCode::Index);
  EXPECT_EQ(error_naming("nll_loss_forward", "target",
                         [&] {
                           tc::nll_loss_forward(x, make({1, 2, 3}, {3}, F32), std::nullopt, kMean, -100);
                         }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("nll_loss_forward", "target",
                         [&] {
                           tc::nll_loss_forward(x, make_int({1, 2, 3}, {3}, I32), std::nullopt, kMean, -100);
                         }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("nll_loss_forward", "target",
                         [&] {
                           tc::nll_loss_forward(x, make_int({1, 2}, {2}), std::nullopt, kMean, -100);
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("nll_loss_forward", "self",
                         [&] {
                           tc::nll_loss_forward(random({2, 2, 2}, F32, 1), t, std::nullopt, kMean, -100);
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("nll_loss_forward", "self",
                         [&] {
                           tc::nll_loss_forward(make_int({1, 2, 3}, {3}), make_int({1}, {}), std::nullopt, kMean, -100);
                         }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("nll_loss_forward", "weight",
                         [&] {
                           tc::nll_loss_forward(x, t, make({1, 2}, {2}, F32), kMean, -100);
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("nll_loss_forward", "reduction", [&] { tc::nll_loss_forward(x, t, std::nullopt, 3, -100); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(
      error_naming("nll_loss_backward", "grad_output",
                   [&] {
                     tc::nll_loss_backward(make({1, 2}, {2}, F32), x, t, std::nullopt, kMean, -100, make({3}, {}, F32));
                   }),
      ErrorCode::InvalidArgument);
  EXPECT_EQ(
      error_naming("nll_loss_backward", "total_weight",
                   [&] {
                     tc::nll_loss_backward(make({1}, {}, F32), x, t, std::nullopt, kMean, -100, make({3, 3}, {2}, F32));
                   }),
      ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("nll_loss", "target",
                         [&] {
                           tc::nll_loss(random({2, 3, 2}, F32, 1), t);
                         }),
            ErrorCode::InvalidArgument);
}

// ---- cross_entropy_loss -----------------------------------------------------------------

TEST(NnCrossEntropy, ClassIndices) {
  for (ScalarType dt : {F32, F64}) {
    Tensor x = random({4, 5}, dt, 70, -3, 3);
    Tensor t = make_int({0, 4, -100, 2}, {4});
    Tensor w = random({5}, dt, 71, 0.5, 2);
    for (int64_t red : {kNone, kMean, kSum}) {
      Tensor want = tc::nll_loss(tc::log_softmax(x, 1), t, w, red);
      expect_values(tc::cross_entropy_loss(x, t, w, red), values(want), tol_of(dt));
      expect_values(tc::cross_entropy_loss(noncontig(x), t, w, red), values(want), tol_of(dt));
    }
  }
  // Hand value: logits [0, ln 3] -> p = [1/4, 3/4]; target 1 -> -ln(3/4).
  Tensor x = make({0, std::log(3.0)}, {1, 2});
  EXPECT_NEAR(value(tc::cross_entropy_loss(x, make_int({1}, {1}))), -std::log(0.75), 1e-12);
  // 1-D input, 0-dim target.
  EXPECT_NEAR(value(tc::cross_entropy_loss(make({0, std::log(3.0)}, {2}), make_int({0}, {}))), -std::log(0.25), 1e-12);
}

TEST(NnCrossEntropy, ProbabilitiesAndLabelSmoothing) {
  Tensor x = random({3, 4}, F64, 80, -2, 2);
  Vals lp = along(values(x), {3, 4}, 1, ref_log_softmax);
  Tensor w = make({1, 2, 0.5, 1.5}, {4});
  Vals wv = values(w);
  // Class probabilities.
  Tensor p = tc::softmax(random({3, 4}, F64, 81), 1);
  Vals pv = values(p), rows(3);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) rows[size_t(i)] -= wv[size_t(j)] * pv[size_t(i * 4 + j)] * lp[size_t(i * 4 + j)];
  expect_values(tc::cross_entropy_loss(x, p, w, kNone), rows, 1e-12);
  EXPECT_NEAR(value(tc::cross_entropy_loss(x, p, w, kSum)), rows[0] + rows[1] + rows[2], 1e-12);
  EXPECT_NEAR(value(tc::cross_entropy_loss(x, p, w, kMean)), (rows[0] + rows[1] + rows[2]) / 3, 1e-12);
  // Label smoothing with class indices, against PyTorch's formula written out.
  const double eps = 0.2;
  std::vector<int64_t> tv = {1, -100, 3};
  Tensor t = make_int(tv, {3});
  Vals nll(3), smooth(3);
  double wsum = 0;
  for (int64_t i = 0; i < 3; ++i) {
    if (tv[size_t(i)] == -100) continue;
    const int64_t c = tv[size_t(i)];
    nll[size_t(i)] = -wv[size_t(c)] * lp[size_t(i * 4 + c)];
    wsum += wv[size_t(c)];
    for (int64_t j = 0; j < 4; ++j) smooth[size_t(i)] -= wv[size_t(j)] * lp[size_t(i * 4 + j)];
  }
  Vals none(3);
  double sn = 0, ss = 0;
  for (size_t i = 0; i < 3; ++i) {
    none[i] = (1 - eps) * nll[i] + eps / 4 * smooth[i];
    sn += nll[i];
    ss += smooth[i];
  }
  expect_values(tc::cross_entropy_loss(x, t, w, kNone, -100, eps), none, 1e-12);
  EXPECT_NEAR(value(tc::cross_entropy_loss(x, t, w, kSum, -100, eps)), (1 - eps) * sn + eps / 4 * ss, 1e-12);
  EXPECT_NEAR(value(tc::cross_entropy_loss(x, t, w, kMean, -100, eps)), ((1 - eps) * sn + eps / 4 * ss) / wsum, 1e-12);
  EXPECT_EQ(
      error_naming("cross_entropy_loss", "label_smoothing", [&] { tc::cross_entropy_loss(x, t, w, kMean, -100, 1.5); }),
      ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("cross_entropy_loss", "target",
                         [&] {
                           tc::cross_entropy_loss(x, random({3, 5}, F64, 1));
                         }),
            ErrorCode::InvalidArgument);
}

// ---- mse_loss --------------------------------------------------------------------------

TEST(NnMseLoss, ValuesAndBackward) {
  for (ScalarType dt : {F32, F64}) {
    Tensor a = make({1, 2, 3, 4, 5, 6}, {2, 3}, dt), b = make({1, 0, 5, 4, 4, 9}, {2, 3}, dt);
    expect_values(tc::mse_loss(a, b, kNone), {0, 4, 4, 0, 1, 9}, 0);
    EXPECT_DOUBLE_EQ(value(tc::mse_loss(a, b, kSum)), 18);
    EXPECT_DOUBLE_EQ(value(tc::mse_loss(a, b)), 3);  // default: mean
    EXPECT_DOUBLE_EQ(value(tc::mse_loss(noncontig(a), noncontig(b))), 3);
    expect_values(tc::mse_loss_backward(make({1}, {}, dt), a, b, kMean), {0, 4.0 / 6, -4.0 / 6, 0, 2.0 / 6, -1}, 1e-6);
  }
  for (int64_t red : {kNone, kMean, kSum}) {
    Tensor a = random({3, 4}, F64, 90), b = random({3, 4}, F64, 91);
    Tensor g = red == kNone ? random({3, 4}, F64, 92) : make({0.7}, {});
    Tensor gi = tc::mse_loss_backward(g, a, b, red);
    expect_values(gi, numeric_grad([&] { return weighted_sum(g, tc::mse_loss(a, b, red)); }, a), 0, 1e-7);
    expect_values(tc::mse_loss_backward(g, noncontig(a), b, red), values(gi), 1e-15);
  }
  EXPECT_EQ(error_naming("mse_loss", "self", [&] { tc::mse_loss(make_int({1}, {1}), make_int({2}, {1})); }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("mse_loss", "reduction", [&] { tc::mse_loss(make({1}, {1}), make({2}, {1}), 5); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { tc::mse_loss(make({1, 2}, {2}), make({1, 2, 3}, {3})); }), ErrorCode::InvalidArgument);
}

// ---- binary_cross_entropy_with_logits -------------------------------------------------------

double ref_bce(double x, double t, double w, double pw) {
  const double log_sig = std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x)));
  const double log_sig_neg = std::min(-x, 0.0) - std::log1p(std::exp(-std::fabs(x)));
  return -w * (pw * t * log_sig + (1 - t) * log_sig_neg);
}

TEST(NnBceWithLogits, ReferenceFormula) {
  for (ScalarType dt : {F32, F64}) {
    Tensor x = make({-100, -3, -0.5, 0, 0.5, 3, 100, 20}, {2, 4}, dt);
    Tensor t = make({0, 1, 0.3, 1, 0, 0.5, 1, 0}, {2, 4}, dt);
    Tensor w = make({0.5, 1, 2, 1.5}, {4}, dt);
    Tensor pw = make({2, 1, 0.5, 3}, {4}, dt);
    Vals xv = values(x), tv = values(t);
    for (int mode = 0; mode < 4; ++mode) {
      const bool use_w = mode & 1, use_pw = mode & 2;
      Vals want(8);
      double total = 0;
      for (size_t i = 0; i < 8; ++i) {
        want[i] = ref_bce(xv[i], tv[i], use_w ? values(w)[i % 4] : 1, use_pw ? values(pw)[i % 4] : 1);
        total += want[i];
      }
      std::optional<Tensor> wo = use_w ? std::optional<Tensor>(w) : std::nullopt;
      std::optional<Tensor> po = use_pw ? std::optional<Tensor>(pw) : std::nullopt;
      Tensor none = tc::binary_cross_entropy_with_logits(x, t, wo, po, kNone);
      expect_values(none, want, tol_of(dt) * 10, 1e-6);
      for (double v : values(none)) EXPECT_TRUE(std::isfinite(v));  // stable at |x| = 100
      EXPECT_NEAR(value(tc::binary_cross_entropy_with_logits(x, t, wo, po, kSum)), total, 1e-4);
      EXPECT_NEAR(value(tc::binary_cross_entropy_with_logits(x, t, wo, po)), total / 8, 1e-5);
      expect_values(tc::binary_cross_entropy_with_logits(noncontig(x), noncontig(t), wo, po, kNone), want,
                    tol_of(dt) * 10, 1e-6);
    }
  }
  Tensor x = random({2, 3}, F32, 1);
  EXPECT_EQ(error_naming("binary_cross_entropy_with_logits", "target",
                         [&] {
                           tc::binary_cross_entropy_with_logits(x, random({3, 2}, F32, 2));
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("binary_cross_entropy_with_logits", "pos_weight",
                         [&] {
                           tc::binary_cross_entropy_with_logits(x, x, std::nullopt, random({2, 3, 1}, F32, 3));
                         }),
            ErrorCode::InvalidArgument);
}

// ---- dropout -----------------------------------------------------------------------------

TEST(NnDropout, MaskScaleAndReproducibility) {
  Tensor x = random({100, 100}, F32, 5, 0.5, 1.5);
  manual_seed(1234);
  auto [y, mask] = tc::native_dropout(x, 0.3, true);
  EXPECT_EQ(mask.dtype(), B1);
  expect_shape(mask, {100, 100});
  Vals xv = values(x), yv = values(y), mv = values(mask);
  int64_t kept = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    kept += mv[i] != 0;
    EXPECT_NEAR(yv[i], mv[i] != 0 ? xv[i] / 0.7 : 0.0, 1e-6);
  }
  EXPECT_NEAR(double(kept) / 10000, 0.7, 0.03);
  // The same seed gives the same mask, whatever the thread count.
  manual_seed(1234);
  const int threads = get_num_threads();
  set_num_threads(1);
  auto [y2, mask2] = tc::native_dropout(x, 0.3, std::nullopt);  // train=None means training
  set_num_threads(threads);
  expect_values(mask2, mv, 0);
  expect_values(y2, yv, 0);
  // Backward: grad * mask * scale.
  Tensor g = random({100, 100}, F32, 6);
  Vals gv = values(g), want(gv.size());
  for (size_t i = 0; i < gv.size(); ++i) want[i] = mv[i] != 0 ? gv[i] / 0.7 : 0.0;
  expect_values(tc::native_dropout_backward(g, mask, 1 / 0.7), want, 1e-6);
  expect_values(tc::native_dropout_backward(noncontig(g), noncontig(mask), 1 / 0.7), want, 1e-6);
}

TEST(NnDropout, EdgeProbabilitiesAndEval) {
  Tensor x = random({4, 5}, F64, 7);
  auto [y0, m0] = tc::native_dropout(x, 0.0, true);
  expect_values(y0, values(x), 0);
  expect_values(m0, Vals(20, 1), 0);
  auto [y1, m1] = tc::native_dropout(x, 1.0, true);
  expect_values(y1, Vals(20, 0), 0);
  expect_values(m1, Vals(20, 0), 0);
  auto [ye, me] = tc::native_dropout(x, 0.5, false);
  expect_values(ye, values(x), 0);
  EXPECT_FALSE(ye.is_same(x));
  expect_values(me, Vals(20, 1), 0);
  EXPECT_EQ(me.dtype(), B1);
  // The composite: eval mode and p = 0 return the input itself, as ATen.
  EXPECT_TRUE(tc::dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(tc::dropout(x, 0.0, true).is_same(x));
  manual_seed(7);
  Tensor yd = tc::dropout(x, 0.5, true);
  manual_seed(7);
  expect_values(yd, values(std::get<0>(tc::native_dropout(x, 0.5, true))), 0);
  // Bad inputs.
  EXPECT_EQ(error_naming("native_dropout", "p", [&] { tc::native_dropout(x, 1.5, true); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_dropout", "p", [&] { tc::native_dropout(x, -0.1, false); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_dropout", "p", [&] { tc::native_dropout(x, kNaN, true); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("dropout", "p", [&] { tc::dropout(x, 2.0, false); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_dropout", "input",
                         [&] {
                           tc::native_dropout(make_int({1, 2}, {2}), 0.5, true);
                         }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("native_dropout_backward", "mask", [&] { tc::native_dropout_backward(x, x, 2.0); }),
            ErrorCode::Type);
}

// ---- layer_norm ----------------------------------------------------------------------------

// Reference: rows of the trailing `n` elements.
void ref_layer_norm(const Vals& x, int64_t n, const Vals* w, const Vals* b, double eps, Vals* y, Vals* mean,
                    Vals* rstd) {
  const int64_t m = int64_t(x.size()) / n;
  y->assign(x.size(), 0);
  mean->assign(size_t(m), 0);
  rstd->assign(size_t(m), 0);
  for (int64_t i = 0; i < m; ++i) {
    double s = 0, sq = 0;
    for (int64_t j = 0; j < n; ++j) s += x[size_t(i * n + j)];
    const double mu = s / double(n);
    for (int64_t j = 0; j < n; ++j) sq += (x[size_t(i * n + j)] - mu) * (x[size_t(i * n + j)] - mu);
    const double r = 1 / std::sqrt(sq / double(n) + eps);
    (*mean)[size_t(i)] = mu;
    (*rstd)[size_t(i)] = r;
    for (int64_t j = 0; j < n; ++j)
      (*y)[size_t(i * n + j)] = (x[size_t(i * n + j)] - mu) * r * (w ? (*w)[size_t(j)] : 1) + (b ? (*b)[size_t(j)] : 0);
  }
}

TEST(NnLayerNorm, ForwardMatchesReference) {
  for (ScalarType dt : {F32, F64}) {
    // input (2, 3, 4) seen through a permutation; normalized_shape (3, 4).
    Tensor base = random({4, 2, 3}, dt, 100, -3, 3);
    Tensor x = tc::permute(base, {1, 2, 0});
    ASSERT_FALSE(x.is_contiguous());
    Tensor w = random({3, 4}, dt, 101, 0.5, 1.5), b = random({3, 4}, dt, 102);
    Vals xv = values(x), wv = values(w), bv = values(b), y, mean, rstd;
    ref_layer_norm(xv, 12, &wv, &bv, 1e-5, &y, &mean, &rstd);
    auto [out, m, r] = tc::native_layer_norm(x, {3, 4}, w, b, 1e-5);
    expect_shape(out, {2, 3, 4});
    expect_shape(m, {2, 1, 1});
    expect_shape(r, {2, 1, 1});
    EXPECT_EQ(m.dtype(), dt);
    expect_values(out, y, tol_of(dt), 1e-6);
    expect_values(m, mean, tol_of(dt), 1e-7);
    expect_values(r, rstd, tol_of(dt));
    // Without weight / bias, normalizing the last dim only, through the composite.
    ref_layer_norm(xv, 4, nullptr, nullptr, 1e-3, &y, &mean, &rstd);
    expect_values(tc::layer_norm(x, {4}, std::nullopt, std::nullopt, 1e-3), y, tol_of(dt), 1e-6);
    expect_shape(std::get<1>(tc::native_layer_norm(x, {4}, std::nullopt, std::nullopt, 1e-3)), {2, 3, 1});
  }
  // Hand value: [1, 3] -> mean 2, var 1 -> [-1, 1] (eps 0).
  expect_values(tc::layer_norm(make({1, 3}, {1, 2}), {2}, std::nullopt, std::nullopt, 0.0), {-1, 1}, 1e-15);
  // float32 weight with a float16 input (mixed types are read in float).
  Tensor h = random({3, 8}, F32, 103).to(F16);
  Tensor wf = random({8}, F32, 104);
  Vals hv = values(h), wfv = values(wf), y, mean, rstd;
  ref_layer_norm(hv, 8, &wfv, nullptr, 1e-5, &y, &mean, &rstd);
  Tensor out = tc::layer_norm(h, {8}, wf);
  EXPECT_EQ(out.dtype(), F16);
  expect_values(out, y, 3e-3, 3e-3);
}

TEST(NnLayerNorm, BackwardMatchesFiniteDifferences) {
  for (bool affine : {true, false}) {
    Tensor x = random({3, 2, 5}, F64, 110, -2, 2);
    Tensor w = random({2, 5}, F64, 111, 0.5, 1.5), b = random({2, 5}, F64, 112);
    Tensor g = random({3, 2, 5}, F64, 113);
    std::optional<Tensor> wo = affine ? std::optional<Tensor>(w) : std::nullopt;
    std::optional<Tensor> bo = affine ? std::optional<Tensor>(b) : std::nullopt;
    auto loss = [&] { return weighted_sum(g, std::get<0>(tc::native_layer_norm(x, {2, 5}, wo, bo, 1e-5))); };
    auto [out, mean, rstd] = tc::native_layer_norm(x, {2, 5}, wo, bo, 1e-5);
    auto [dx, dw, db] = tc::native_layer_norm_backward(g, x, {2, 5}, mean, rstd, wo, bo, {true, true, true});
    expect_values(dx, numeric_grad(loss, x), 0, 1e-7);
    expect_shape(dw, {2, 5});
    expect_shape(db, {2, 5});
    if (affine) {
      expect_values(dw, numeric_grad(loss, w), 0, 1e-7);
      expect_values(db, numeric_grad(loss, b), 0, 1e-7);
    }
    // Masked-off outputs are undefined; a non-contiguous grad_out gives the same dx.
    Tensor g_nc = tc::permute(tc::contiguous(tc::permute(g, {2, 1, 0})), {2, 1, 0});
    auto [dx2, dw2, db2] = tc::native_layer_norm_backward(g_nc, x, {2, 5}, mean, rstd, wo, bo, {true, false, false});
    expect_values(dx2, values(dx), 1e-12, 1e-15);
    EXPECT_FALSE(dw2.defined());
    EXPECT_FALSE(db2.defined());
    auto [dx3, dw3, db3] = tc::native_layer_norm_backward(g, x, {2, 5}, mean, rstd, wo, bo, {false, true, false});
    EXPECT_FALSE(dx3.defined());
    expect_values(dw3, values(dw), 1e-12, 1e-15);
  }
  // float32 against the float64 result.
  Tensor x = random({4, 6}, F64, 120), w = random({6}, F64, 121), g = random({4, 6}, F64, 122);
  auto [o, m, r] = tc::native_layer_norm(x, {6}, w, std::nullopt, 1e-5);
  auto [dx, dw, db] = tc::native_layer_norm_backward(g, x, {6}, m, r, w, std::nullopt, {true, true, true});
  auto [o32, m32, r32] = tc::native_layer_norm(x.to(F32), {6}, w.to(F32), std::nullopt, 1e-5);
  auto [dx32, dw32, db32] =
      tc::native_layer_norm_backward(g.to(F32), x.to(F32), {6}, m32, r32, w.to(F32), std::nullopt, {true, true, true});
  expect_values(dx32, values(dx), 1e-4, 1e-5);
  expect_values(dw32, values(dw), 1e-4, 1e-5);
  expect_values(db32, values(db), 1e-5, 1e-6);
}

TEST(NnLayerNorm, BadInputs) {
  Tensor x = random({2, 3}, F32, 1);
  EXPECT_EQ(error_naming("native_layer_norm", "input",
                         [&] { tc::native_layer_norm(x, {2}, std::nullopt, std::nullopt, 1e-5); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_layer_norm", "normalized_shape",
                         [&] { tc::native_layer_norm(x, IntArrayRef(), std::nullopt, std::nullopt, 1e-5); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_layer_norm", "weight",
                         [&] { tc::native_layer_norm(x, {3}, random({2}, F32, 2), std::nullopt, 1e-5); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_layer_norm", "bias",
                         [&] {
                           tc::native_layer_norm(x, {3}, std::nullopt, make_int({1, 2, 3}, {3}), 1e-5);
                         }),
            ErrorCode::Type);
  EXPECT_EQ(error_naming("native_layer_norm", "input",
                         [&] {
                           tc::native_layer_norm(make_int({1, 2}, {2}), {2}, std::nullopt, std::nullopt, 1e-5);
                         }),
            ErrorCode::Type);
  // Not a structured binding: C++17 lambdas cannot capture one (clang refuses).
  auto omr = tc::native_layer_norm(x, {3}, std::nullopt, std::nullopt, 1e-5);
  const Tensor& m = std::get<1>(omr);
  const Tensor& r = std::get<2>(omr);
  EXPECT_EQ(error_naming("native_layer_norm_backward", "mean",
                         [&] {
                           tc::native_layer_norm_backward(x, x, {3}, random({3}, F32, 3), r, std::nullopt, std::nullopt,
                                                          {true, true, true});
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_layer_norm_backward", "grad_out",
                         [&] {
                           tc::native_layer_norm_backward(random({3, 2}, F32, 4), x, {3}, m, r, std::nullopt,
                                                          std::nullopt, {true, true, true});
                         }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("native_layer_norm_backward", "output_mask",
                         [&] {
                           tc::native_layer_norm_backward(x, x, {3}, m, r, std::nullopt, std::nullopt, {true, true});
                         }),
            ErrorCode::InvalidArgument);
}

// ---- embedding -------------------------------------------------------------------------------

TEST(NnEmbedding, GatherAnyIndexShape) {
  for (ScalarType dt : {F32, F64}) {
    Tensor w = random({5, 3}, dt, 130);
    Vals wv = values(w);
    for (ScalarType it : {I64, I32}) {
      Tensor idx = make_int({4, 0, 0, 2, 1, 4}, {2, 3}, it);
      Tensor out = tc::embedding(w, idx);
      expect_shape(out, {2, 3, 3});
      Vals want;
      for (int64_t k : {4, 0, 0, 2, 1, 4})
        for (int64_t j = 0; j < 3; ++j) want.push_back(wv[size_t(k * 3 + j)]);
      expect_values(out, want, 0);
      // A non-contiguous weight gives the same rows.
      Tensor wt = tc::t(tc::contiguous(tc::t(w)));
      ASSERT_FALSE(wt.is_contiguous());
      expect_values(tc::embedding(wt, idx), want, 0);
    }
    expect_shape(tc::embedding(w, make_int({3}, {})), {3});
    expect_shape(tc::embedding(w, empty_tensor({0}, I64)), {0, 3});
  }
  Tensor w = random({5, 3}, F32, 131);
  EXPECT_EQ(error_naming("embedding", "indices", [&] { tc::embedding(w, make_int({1, 5}, {2})); }), ErrorCode::Index);
  EXPECT_EQ(error_naming("embedding", "indices", [&] { tc::embedding(w, make_int({-1}, {1})); }), ErrorCode::Index);
  EXPECT_EQ(error_naming("embedding", "indices", [&] { tc::embedding(w, make({1}, {1}, F32)); }), ErrorCode::Type);
  EXPECT_EQ(error_naming("embedding", "weight", [&] { tc::embedding(random({5}, F32, 1), make_int({1}, {1})); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("embedding", "sparse", [&] { tc::embedding(w, make_int({1}, {1}), -1, false, true); }),
            ErrorCode::NotImplemented);
}

TEST(NnEmbedding, DenseBackward) {
  const std::vector<int64_t> iv = {1, 3, 1, 0, 3, 1};
  Tensor idx = make_int(iv, {2, 3});
  for (ScalarType dt : {F32, F64}) {
    Tensor g = random({2, 3, 4}, dt, 140);
    Vals gv = values(g);
    for (int64_t padding : {-1, 3}) {
      for (bool freq : {false, true}) {
        Vals want(5 * 4, 0.0);
        std::vector<int> count(5, 0);
        for (int64_t k : iv) ++count[size_t(k)];
        for (size_t i = 0; i < iv.size(); ++i) {
          if (iv[i] == padding) continue;
          for (size_t j = 0; j < 4; ++j)
            want[size_t(iv[i]) * 4 + j] += gv[i * 4 + j] / (freq ? count[size_t(iv[i])] : 1);
        }
        Tensor gw = tc::embedding_dense_backward(g, idx, 5, padding, freq);
        expect_shape(gw, {5, 4});
        EXPECT_EQ(gw.dtype(), dt);
        expect_values(gw, want, tol_of(dt), 1e-7);
      }
    }
  }
  // Against finite differences of the forward.
  Tensor w = random({5, 4}, F64, 141), g = random({2, 3, 4}, F64, 142);
  expect_values(tc::embedding_dense_backward(g, idx, 5, -1, false),
                numeric_grad([&] { return weighted_sum(g, tc::embedding(w, idx)); }, w), 0, 1e-8);
  EXPECT_EQ(
      error_naming("embedding_dense_backward", "indices", [&] { tc::embedding_dense_backward(g, idx, 3, -1, false); }),
      ErrorCode::Index);
  EXPECT_EQ(error_naming("embedding_dense_backward", "grad_output",
                         [&] {
                           tc::embedding_dense_backward(random({2, 4}, F64, 1), idx, 5, -1, false);
                         }),
            ErrorCode::InvalidArgument);
}

// ---- linear ------------------------------------------------------------------------------------

TEST(NnLinear, MatchesReference) {
  for (ScalarType dt : {F32, F64}) {
    Tensor w = random({4, 3}, dt, 150), b = random({4}, dt, 151);
    Vals wv = values(w), bv = values(b);
    auto ref = [&](const Tensor& x, bool bias) {
      Vals xv = values(x), out;
      const int64_t rows = x.numel() / 3;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t o = 0; o < 4; ++o) {
          double s = bias ? bv[size_t(o)] : 0;
          for (int64_t k = 0; k < 3; ++k) s += xv[size_t(i * 3 + k)] * wv[size_t(o * 3 + k)];
          out.push_back(s);
        }
      return out;
    };
    Tensor x2 = random({5, 3}, dt, 152), x3 = random({2, 5, 3}, dt, 153);
    Tensor x3nc = tc::permute(tc::contiguous(tc::permute(x3, {1, 0, 2})), {1, 0, 2});
    ASSERT_FALSE(x3nc.is_contiguous());
    const double tol = dt == F64 ? 1e-12 : 1e-5;
    expect_values(tc::linear(x2, w, b), ref(x2, true), tol, tol);    // addmm
    expect_values(tc::linear(x3, w, b), ref(x3, true), tol, tol);    // folded addmm
    expect_values(tc::linear(x3nc, w, b), ref(x3, true), tol, tol);  // matmul + add
    expect_values(tc::linear(x3, w), ref(x3, false), tol, tol);      // matmul
    expect_values(tc::linear(noncontig(x2), w), ref(x2, false), tol, tol);
    Tensor x1 = random({3}, dt, 154);
    expect_shape(tc::linear(x1, w, b), {4});
    expect_values(tc::linear(x1, w, b), ref(x1, true), tol, tol);
    expect_shape(tc::linear(x3, w, b), {2, 5, 4});
  }
  EXPECT_NE(error_of([&] { tc::linear(random({2, 3}, F32, 1), random({4, 2}, F32, 2)); }), ErrorCode::Ok);
}

// ---- pointwise backward helpers ------------------------------------------------------------------

TEST(NnActivationBackward, MatchFiniteDifferences) {
  Tensor x = random({3, 5}, F64, 160, -3, 3);
  Tensor g = random({3, 5}, F64, 161);
  auto check = [&](Tensor got, const std::function<Tensor(const Tensor&)>& f) {
    expect_values(got, numeric_grad([&] { return weighted_sum(g, f(x)); }, x), 0, 1e-7);
  };
  check(tc::sigmoid_backward(g, tc::sigmoid(x)), [](const Tensor& v) { return tc::sigmoid(v); });
  check(tc::tanh_backward(g, tc::tanh(x)), [](const Tensor& v) { return tc::tanh(v); });
  check(tc::gelu_backward(g, x), [](const Tensor& v) { return tc::gelu(v); });
  check(tc::gelu_backward(g, x, "tanh"), [](const Tensor& v) { return tc::gelu(v, "tanh"); });
  // float32, non-contiguous operands.
  Tensor xf = x.to(F32), gf = g.to(F32);
  expect_values(tc::gelu_backward(noncontig(gf), noncontig(xf)), values(tc::gelu_backward(g, x)), 1e-5, 1e-6);
  expect_values(tc::sigmoid_backward(noncontig(gf), tc::sigmoid(xf)), values(tc::sigmoid_backward(g, tc::sigmoid(x))),
                1e-5, 1e-6);
  // threshold_backward: grad where self > threshold, else 0 (relu's backward at 0).
  Tensor s = make({-1, 0, 0.5, 2}, {4});
  Tensor gg = make({1, 2, 3, 4}, {4});
  expect_values(tc::threshold_backward(gg, s, 0), {0, 0, 3, 4}, 0);
  expect_values(tc::threshold_backward(gg, s, 0.5), {0, 0, 0, 4}, 0);
  expect_values(tc::threshold_backward(make_int({1, 2, 3}, {3}), make_int({0, 5, -2}, {3}), 1), {0, 2, 0}, 0);
  // Broadcasting like a binary op.
  expect_shape(tc::threshold_backward(random({2, 4}, F32, 1), s.to(F32), 0), {2, 4});
  EXPECT_EQ(error_naming("gelu_backward", "approximate", [&] { tc::gelu_backward(g, x, "fast"); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_naming("sigmoid_backward", "grad_output",
                         [&] { tc::sigmoid_backward(make_int({1}, {1}), make_int({1}, {1})); }),
            ErrorCode::Type);
  EXPECT_EQ(error_of([&] { tc::tanh_backward(random({2}, F32, 1), random({3}, F32, 1)); }), ErrorCode::InvalidArgument);
}

}  // namespace
