// SPDX-License-Identifier: BSD-3-Clause
// The CUDA kernels that are compositions of other ops (src/cuda/nn.cpp,
// src/cuda/composed.cpp, src/cuda/composed_pointwise.cpp, dropout in
// src/cuda/random.cpp) call only dispatched ops, so they run on CPU tensors
// too: here, without a GPU, each is checked against the CPU kernel of the same
// op on the same inputs (ties, NaN, ignored targets, weights, reductions),
// and its errors against the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "autograd_fixtures.h"
#include "op_test_helpers.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace {

using namespace tc;
using tc::fixtures::from;
using tc::testing::error_of;
using tc::testing::shape;
using tc::testing::values;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_same(const Tensor& got, const Tensor& want, double tol = 1e-12) {
  ASSERT_EQ(shape(got), shape(want));
  EXPECT_EQ(got.dtype(), want.dtype());
  const std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << "element " << i;
    } else if (std::isinf(w[i])) {
      EXPECT_EQ(g[i], w[i]) << "element " << i;
    } else {
      EXPECT_NEAR(g[i], w[i], tol * (1 + std::fabs(w[i]))) << "element " << i;
    }
  }
}

Tensor sample() {  // 3 x 4 with a tie in row 0 and a NaN in row 2
  return from({1, 5, 5, -2, 0.5, -3, 2, 2, 4, kNaN, 1, 9}, {3, 4});
}

TEST(CudaComposed, VarAndStdMatchTheCpu) {
  const Tensor x = from({1, 5, 3, -2, 0.5, -3, 2, 2.5, 4, 7, 1, 9}, {3, 4});
  const int64_t d1[1] = {1}, d0[1] = {0};
  expect_same(native::var_cuda(x, true), native::var_cpu(x, true));
  expect_same(native::std_cuda(x, false), native::std_cpu(x, false));
  expect_same(native::var_dim_cuda(x, IntArrayRef(d1, 1), true, true),
              native::var_dim_cpu(x, IntArrayRef(d1, 1), true, true));
  expect_same(native::std_dim_cuda(x, IntArrayRef(d0, 1), true, false),
              native::std_dim_cpu(x, IntArrayRef(d0, 1), true, false));
  const std::optional<Scalar> c2 = Scalar(2.0);
  expect_same(native::var_correction_cuda(x, IntArrayRef(d1, 1), c2, false),
              native::var_correction_cpu(x, IntArrayRef(d1, 1), c2, false));
  // More correction than elements: the divisor is 0
  const std::optional<Scalar> c9 = Scalar(9.0);
  expect_same(native::var_correction_cuda(x, IntArrayRef(d1, 1), c9, false),
              native::var_correction_cpu(x, IntArrayRef(d1, 1), c9, false));
  const Tensor i = from({1, 2, 3}, {3}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::var_cuda(i, true); }, ErrorCode::Type),
            error_of([&] { native::var_cpu(i, true); }, ErrorCode::Type));
}

TEST(CudaComposed, ArgExtremesTakeTheFirstAndNaNWins) {
  const Tensor x = sample();
  for (const bool keep : {false, true})
    for (const int64_t dim : {int64_t(0), int64_t(1), int64_t(-1)}) {
      expect_same(native::argmax_cuda(x, dim, keep), native::argmax_cpu(x, dim, keep));
      expect_same(native::argmin_cuda(x, dim, keep), native::argmin_cpu(x, dim, keep));
      const auto [vmax, imax] = native::max_dim_cuda(x, dim, keep);
      const auto [wmax, jmax] = native::max_dim_cpu(x, dim, keep);
      expect_same(vmax, wmax);
      expect_same(imax, jmax);
      const auto [vmin, imin] = native::min_dim_cuda(x, dim, keep);
      const auto [wmin, jmin] = native::min_dim_cpu(x, dim, keep);
      expect_same(vmin, wmin);
      expect_same(imin, jmin);
    }
  // No dim: the flat index; keepdim gives ones
  expect_same(native::argmax_cuda(x, std::nullopt, false), native::argmax_cpu(x, std::nullopt, false));
  const Tensor finite = from({3, 9, 9, 1, -4, -4}, {2, 3});
  expect_same(native::argmin_cuda(finite, std::nullopt, true), native::argmin_cpu(finite, std::nullopt, true));
  expect_same(native::argmax_cuda(finite, std::nullopt, false), native::argmax_cpu(finite, std::nullopt, false));
  // Integers, a 0-dim tensor
  const Tensor ints = from({4, 7, 7, 1}, {4}, ScalarType::Int32);
  expect_same(native::argmax_cuda(ints, 0, false), native::argmax_cpu(ints, 0, false));
  const Tensor scalar = from({2.5}, {});
  expect_same(native::argmax_cuda(scalar, 0, false), native::argmax_cpu(scalar, 0, false));
  // Errors: bool, empty, bad dim
  const Tensor b = from({1, 0}, {2}, ScalarType::Bool);
  EXPECT_EQ(error_of([&] { native::argmax_cuda(b, 0, false); }, ErrorCode::Type),
            error_of([&] { native::argmax_cpu(b, 0, false); }, ErrorCode::Type));
  const Tensor empty = from({}, {0, 3});
  EXPECT_EQ(error_of([&] { native::argmax_cuda(empty, 0, false); }, ErrorCode::Index),
            error_of([&] { native::argmax_cpu(empty, 0, false); }, ErrorCode::Index));
  EXPECT_EQ(error_of([&] { native::argmin_cuda(empty, std::nullopt, false); }, ErrorCode::InvalidArgument),
            error_of([&] { native::argmin_cpu(empty, std::nullopt, false); }, ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of([&] { native::max_dim_cuda(x, 5, false); }, ErrorCode::Index),
            error_of([&] { native::max_dim_cpu(x, 5, false); }, ErrorCode::Index));
}

TEST(CudaComposed, MseLossAndBackwardMatchTheCpu) {
  const Tensor a = from({1, 2, 3, 4, 5, 6}, {2, 3}), t = from({0.5, 2, 4, 4, 1, 7}, {2, 3});
  for (int64_t reduction : {0, 1, 2}) {
    const Tensor loss = native::mse_loss_cuda(a, t, reduction);
    expect_same(loss, native::mse_loss_cpu(a, t, reduction));
    const Tensor g = reduction == 0 ? from({1, -1, 2, 0.5, 3, 1}, {2, 3}) : from({0.5}, {});
    expect_same(native::mse_loss_backward_cuda(g, a, t, reduction), native::mse_loss_backward_cpu(g, a, t, reduction));
  }
  const Tensor i = from({1, 2}, {2}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::mse_loss_cuda(i, i, 1); }, ErrorCode::Type),
            error_of([&] { native::mse_loss_cpu(i, i, 1); }, ErrorCode::Type));
  EXPECT_EQ(error_of([&] { native::mse_loss_cuda(a, t, 3); }, ErrorCode::InvalidArgument),
            error_of([&] { native::mse_loss_cpu(a, t, 3); }, ErrorCode::InvalidArgument));
}

TEST(CudaComposed, SoftmaxFamilyMatchesTheCpu) {
  const Tensor x = from({1, 5, 5, -2, 0.5, -3, 2, 2, 4, 30, 1, 9}, {3, 4});
  for (const int64_t dim : {int64_t(0), int64_t(1)}) {
    const Tensor y = native::log_softmax_cuda(x, dim, false), p = native::softmax_cuda(x, dim, false);
    expect_same(y, native::log_softmax_cpu(x, dim, false));
    expect_same(p, native::softmax_cpu(x, dim, false));
    const Tensor g = from({1, -1, 2, 0.5, 3, 1, 0, 2, -2, 1, 1, 0.25}, {3, 4});
    expect_same(native::log_softmax_backward_cuda(g, y, dim, ScalarType::Float64),
                native::log_softmax_backward_cpu(g, y, dim, ScalarType::Float64));
    expect_same(native::softmax_backward_cuda(g, p, dim, ScalarType::Float64),
                native::softmax_backward_cpu(g, p, dim, ScalarType::Float64));
  }
  const Tensor s = from({2.0}, {});
  expect_same(native::log_softmax_cuda(s, 0, false), native::log_softmax_cpu(s, 0, false));
  const Tensor empty = from({}, {0, 4});
  expect_same(native::softmax_cuda(empty, 1, false), native::softmax_cpu(empty, 1, false));
  const Tensor i = from({1, 2}, {2}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::softmax_cuda(i, 0, false); }, ErrorCode::Type),
            error_of([&] { native::softmax_cpu(i, 0, false); }, ErrorCode::Type));
}

TEST(CudaComposed, NllLossMatchesTheCpuWithWeightsAndIgnoredTargets) {
  const Tensor x = from({-1.2, -0.3, -2.0, -0.7, -0.9, -1.9, -2.2, -0.2, -1.1, -1.0, -1.5, -0.8}, {4, 3});
  // Targets with ignore_index outside the classes, and inside them (class 1 ignored)
  const std::vector<std::pair<Tensor, int64_t>> cases = {{from({2, -100, 0, 1}, {4}, ScalarType::Int64), -100},
                                                         {from({2, 1, 0, 1}, {4}, ScalarType::Int64), 1}};
  const std::optional<Tensor> none;
  const std::optional<Tensor> w = from({0.2, 1.5, 0.7}, {3});
  for (const auto& [t, ignore] : cases)
    for (const auto& weight : {none, w})
      for (int64_t reduction : {0, 1, 2}) {
        const auto [out, total] = native::nll_loss_forward_cuda(x, t, weight, reduction, ignore);
        const auto [want, want_total] = native::nll_loss_forward_cpu(x, t, weight, reduction, ignore);
        expect_same(out, want);
        expect_same(total, want_total);
        const Tensor g = reduction == 0 ? from({1, 2, -1, 0.5}, {4}) : from({0.75}, {});
        expect_same(native::nll_loss_backward_cuda(g, x, t, weight, reduction, ignore, want_total),
                    native::nll_loss_backward_cpu(g, x, t, weight, reduction, ignore, want_total));
      }
  // Ignored rows never count, even with an infinite log-probability, and an
  // all-ignored mean batch has a zero gradient (its loss is NaN)
  const Tensor xinf = from({-INFINITY, -0.3, -2.0, -0.7, -0.9, -1.9}, {2, 3});
  const Tensor tinf = from({-100, 2}, {2}, ScalarType::Int64), tall = from({-100, -100}, {2}, ScalarType::Int64);
  for (const Tensor& tt : {tinf, tall})
    for (int64_t reduction : {0, 1, 2}) {
      const auto [out, total] = native::nll_loss_forward_cuda(xinf, tt, none, reduction, -100);
      const auto [want, want_total] = native::nll_loss_forward_cpu(xinf, tt, none, reduction, -100);
      expect_same(out, want);
      const Tensor g = reduction == 0 ? from({1, 2}, {2}) : from({1.0}, {});
      expect_same(native::nll_loss_backward_cuda(g, xinf, tt, none, reduction, -100, want_total),
                  native::nll_loss_backward_cpu(g, xinf, tt, none, reduction, -100, want_total));
    }
  // A 1-D self with a 0-dim target
  const Tensor x1 = from({-0.5, -1.5, -2.5}, {3}), t1 = from({1}, {}, ScalarType::Int64);
  const auto [o1, w1] = native::nll_loss_forward_cuda(x1, t1, none, 1, -100);
  const auto [p1, q1] = native::nll_loss_forward_cpu(x1, t1, none, 1, -100);
  expect_same(o1, p1);
  expect_same(w1, q1);
  expect_same(native::nll_loss_backward_cuda(from({1.0}, {}), x1, t1, none, 1, -100, q1),
              native::nll_loss_backward_cpu(from({1.0}, {}), x1, t1, none, 1, -100, q1));
  // An out-of-range target: the CPU's IndexError, naming the position
  const Tensor bad = from({2, 0, 3, 1}, {4}, ScalarType::Int64);
  const std::string msg = error_of([&] { native::nll_loss_forward_cuda(x, bad, none, 1, -100); }, ErrorCode::Index);
  EXPECT_EQ(msg, error_of([&] { native::nll_loss_forward_cpu(x, bad, none, 1, -100); }, ErrorCode::Index));
  EXPECT_NE(msg.find("position 2"), std::string::npos) << msg;
}

TEST(CudaComposed, CatStackAndFlipMatchTheCpu) {
  const Tensor a = from({1, 2, 3, 4, 5, 6}, {2, 3}), b = from({7, 8}, {2, 1}, ScalarType::Float32);
  const Tensor skipped = from({}, {0}), empty_rows = from({}, {2, 0});
  const std::vector<Tensor> parts = {a, skipped, b, empty_rows};
  expect_same(native::cat_cuda(parts, 1), native::cat_cpu(parts, 1));
  expect_same(native::cat_cuda({a, a}, -2), native::cat_cpu({a, a}, -2));
  expect_same(native::cat_cuda({skipped, skipped}, 0), native::cat_cpu({skipped, skipped}, 0));
  const Tensor at = tc::t(a);  // non-contiguous input
  expect_same(native::cat_cuda({at, at}, 1), native::cat_cpu({at, at}, 1));
  for (int64_t dim : {0, 1, 2, -1}) expect_same(native::stack_cuda({a, a, a}, dim), native::stack_cpu({a, a, a}, dim));
  EXPECT_EQ(error_of(
                [&] {
                  native::cat_cuda({a, from({1, 2}, {1, 2})}, 1);
                },
                ErrorCode::InvalidArgument),
            error_of(
                [&] {
                  native::cat_cpu({a, from({1, 2}, {1, 2})}, 1);
                },
                ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of(
                [&] {
                  native::stack_cuda({a, b}, 0);
                },
                ErrorCode::InvalidArgument),
            error_of(
                [&] {
                  native::stack_cpu({a, b}, 0);
                },
                ErrorCode::InvalidArgument));
  const Tensor x = from({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 3, 2});
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{0}, {1, 2}, {-1}, {}, {0, 1, 2}})
    expect_same(native::flip_cuda(x, dims), native::flip_cpu(x, dims));
  const int64_t twice[2] = {1, -2};
  EXPECT_EQ(error_of([&] { native::flip_cuda(x, IntArrayRef(twice, 2)); }, ErrorCode::InvalidArgument),
            error_of([&] { native::flip_cpu(x, IntArrayRef(twice, 2)); }, ErrorCode::InvalidArgument));
}

TEST(CudaComposed, LogicalOpsIsNanIsInfAndWhereMatchTheCpu) {
  const Tensor a = from({0, 2, kNaN, -1, 0, INFINITY}, {2, 3}), b = from({1, 0, 0, 3, 0, 1}, {3}, ScalarType::Int32);
  expect_same(native::logical_and_cuda(a, b), native::logical_and_cpu(a, b));
  expect_same(native::logical_or_cuda(a, b), native::logical_or_cpu(a, b));
  expect_same(native::logical_xor_cuda(a, b), native::logical_xor_cpu(a, b));
  expect_same(native::logical_not_cuda(a), native::logical_not_cpu(a));
  expect_same(native::logical_not_cuda(b), native::logical_not_cpu(b));
  expect_same(native::isnan_cuda(a), native::isnan_cpu(a));
  expect_same(native::isinf_cuda(a), native::isinf_cpu(a));
  expect_same(native::isnan_cuda(b), native::isnan_cpu(b));
  expect_same(native::isinf_cuda(b), native::isinf_cpu(b));
  // where has a loop of its own (the pointwise loop's Where): tested on a GPU.
  const Tensor x = from({1, 2, 3}, {3}), y = from({4, 5, 6}, {3});
  EXPECT_EQ(error_of([&] { native::where_cuda(b, x, y); }, ErrorCode::Type),
            error_of([&] { native::where_cpu(b, x, y); }, ErrorCode::Type));
}

}  // namespace

namespace {

// Dropout on CUDA is bernoulli_ and two multiplications: from one generator
// state it keeps the same elements and scales them as the CPU kernel does.
TEST(CudaComposed, DropoutMatchesTheCpu) {
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    // In float16/bfloat16 the scale stays in float32, as the CPU applies it.
    const Tensor x = from({1, -2, 3.5, 4, 0.25, -6, 7, 8, 9, 10, -11, 12}, {3, 4}, dt);
    manual_seed(3);
    auto [want, want_mask] = native::native_dropout_cpu(x, 0.1, true);
    manual_seed(3);
    auto [got, got_mask] = native::native_dropout_cuda(x, 0.1, true);
    expect_same(got, want, 0);
    expect_same(native::native_dropout_backward_cuda(x, want_mask, 1.0 / 0.9),
                native::native_dropout_backward_cpu(x, want_mask, 1.0 / 0.9), 0);
  }
  const Tensor x = from({1, -2, 3.5, 4, 0.25, -6, 7, 8, 9, 10, -11, 12}, {3, 4}, ScalarType::Float32);
  for (double p : {0.0, 0.3, 1.0}) {
    manual_seed(7);
    auto [want, want_mask] = native::native_dropout_cpu(x, p, true);
    manual_seed(7);
    auto [got, got_mask] = native::native_dropout_cuda(x, p, true);
    expect_same(got, want, 0);
    expect_same(got_mask, want_mask, 0);
    expect_same(native::native_dropout_backward_cuda(x, want_mask, 2.5),
                native::native_dropout_backward_cpu(x, want_mask, 2.5), 0);
  }
  auto [kept, mask] = native::native_dropout_cuda(x, 0.5, false);
  expect_same(kept, x, 0);
  EXPECT_EQ(error_of([&] { native::native_dropout_cuda(x, 1.5, true); }, ErrorCode::InvalidArgument),
            error_of([&] { native::native_dropout_cpu(x, 1.5, true); }, ErrorCode::InvalidArgument));
  const Tensor ints = from({1, 2}, {2}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::native_dropout_cuda(ints, 0.5, true); }, ErrorCode::Type),
            error_of([&] { native::native_dropout_cpu(ints, 0.5, true); }, ErrorCode::Type));
}

}  // namespace

namespace {

// layer_norm on CUDA is the CPU kernel's arithmetic op by op: forward and
// every backward output agree, with and without weight and bias.
TEST(CudaComposed, LayerNormMatchesTheCpu) {
  std::vector<double> v(3 * 4 * 5), gv(v.size()), wv(20), bv(20);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::sin(double(i) * 1.7) * 3 + double(i % 7) * 0.25;
    gv[i] = std::cos(double(i) * 0.9);
  }
  for (size_t i = 0; i < 20; ++i) {
    wv[i] = 0.5 + double(i) * 0.1;
    bv[i] = -1 + double(i) * 0.05;
  }
  const int64_t norm[2] = {4, 5};
  for (ScalarType dt : {ScalarType::Float64, ScalarType::Float32}) {
    const double tol = dt == ScalarType::Float64 ? 1e-12 : 2e-6;
    const Tensor x = from(v, {3, 4, 5}, dt), g = from(gv, {3, 4, 5}, dt);
    for (bool affine : {true, false}) {
      const std::optional<Tensor> w = affine ? std::optional<Tensor>(from(wv, {4, 5}, dt)) : std::nullopt;
      const std::optional<Tensor> b = affine ? std::optional<Tensor>(from(bv, {4, 5}, dt)) : std::nullopt;
      auto [y, mean, rstd] = native::layer_norm_cuda(x, IntArrayRef(norm, 2), w, b, 1e-5);
      auto [wy, wmean, wrstd] = native::layer_norm_cpu(x, IntArrayRef(norm, 2), w, b, 1e-5);
      expect_same(y, wy, tol);
      expect_same(mean, wmean, tol);
      expect_same(rstd, wrstd, tol);
      const std::vector<bool> all = {true, true, true};
      auto [dx, dw, db] = native::layer_norm_backward_cuda(g, x, IntArrayRef(norm, 2), wmean, wrstd, w, b, all);
      auto [wdx, wdw, wdb] = native::layer_norm_backward_cpu(g, x, IntArrayRef(norm, 2), wmean, wrstd, w, b, all);
      expect_same(dx, wdx, tol);
      expect_same(dw, wdw, tol);
      expect_same(db, wdb, tol);
      const std::vector<bool> only_input = {true, false, false};
      auto [dx2, dw2, db2] =
          native::layer_norm_backward_cuda(g, x, IntArrayRef(norm, 2), wmean, wrstd, w, b, only_input);
      EXPECT_TRUE(dx2.defined());
      EXPECT_FALSE(dw2.defined());
      EXPECT_FALSE(db2.defined());
    }
  }
  const Tensor x = from(v, {3, 4, 5});
  const int64_t wrong[1] = {4};
  EXPECT_EQ(error_of([&] { native::layer_norm_cuda(x, IntArrayRef(wrong, 1), std::nullopt, std::nullopt, 1e-5); },
                     ErrorCode::InvalidArgument),
            error_of([&] { native::layer_norm_cpu(x, IntArrayRef(wrong, 1), std::nullopt, std::nullopt, 1e-5); },
                     ErrorCode::InvalidArgument));
  const Tensor empty = from({}, {0, 4, 5});
  auto [ey, em, er] = native::layer_norm_cuda(empty, IntArrayRef(norm, 2), std::nullopt, std::nullopt, 1e-5);
  EXPECT_EQ(shape(ey), (std::vector<int64_t>{0, 4, 5}));
  EXPECT_EQ(shape(em), (std::vector<int64_t>{0, 1, 1}));
}

}  // namespace

namespace {

TEST(CudaComposed, ClampMatchesTheCpu) {
  const Tensor f = from({1.5, kNaN, -3, 0.25, 7, -0.5}, {2, 3}, ScalarType::Float32);
  const Tensor i = from({3, -2, 9, 0}, {4}, ScalarType::Int64);
  const Tensor b = from({1, 0}, {2}, ScalarType::Bool);
  const std::optional<Scalar> none;
  const double nan = kNaN;
  for (const Tensor& x : {f, i, b}) {
    for (auto [lo, hi] :
         std::vector<std::pair<std::optional<Scalar>, std::optional<Scalar>>>{{Scalar(0.5), none},
                                                                              {none, Scalar(int64_t(2))},
                                                                              {Scalar(int64_t(0)), Scalar(int64_t(-1))},
                                                                              {Scalar(-1.0), Scalar(1.0)},
                                                                              {Scalar(nan), Scalar(3.0)},
                                                                              {Scalar(nan), none}}) {
      expect_same(native::clamp_cuda(x, lo, hi), native::clamp_cpu(x, lo, hi), 0);
    }
  }
  expect_same(native::clamp_min_cuda(i, Scalar(0.5)), native::clamp_min_cpu(i, Scalar(0.5)), 0);
  expect_same(native::clamp_max_cuda(b, Scalar(int64_t(0))), native::clamp_max_cpu(b, Scalar(int64_t(0))), 0);
  const Tensor lo = from({kNaN, 2, -1}, {3}, ScalarType::Float32), hi = from({3, 3, 0}, {3}, ScalarType::Float64);
  const Tensor col = from({1, 5}, {2, 1}, ScalarType::Float32);
  expect_same(native::clamp_tensor_cuda(col, lo, hi), native::clamp_tensor_cpu(col, lo, hi), 0);
  expect_same(native::clamp_tensor_cuda(f, lo, std::nullopt), native::clamp_tensor_cpu(f, lo, std::nullopt), 0);
  expect_same(native::clamp_tensor_cuda(f, std::nullopt, lo), native::clamp_tensor_cpu(f, std::nullopt, lo), 0);
  expect_same(native::clamp_min_tensor_cuda(i, from({1.5}, {1})), native::clamp_min_tensor_cpu(i, from({1.5}, {1})), 0);
  expect_same(native::clamp_max_tensor_cuda(i, from({2}, {1}, ScalarType::Int32)),
              native::clamp_max_tensor_cpu(i, from({2}, {1}, ScalarType::Int32)), 0);
  EXPECT_EQ(error_of([&] { native::clamp_cuda(i, none, none); }, ErrorCode::InvalidArgument),
            error_of([&] { native::clamp_cpu(i, none, none); }, ErrorCode::InvalidArgument));
  const Tensor u8 = from({3}, {1}, ScalarType::UInt8);
  EXPECT_EQ(
      error_of([&] { native::clamp_cuda(u8, Scalar(int64_t(-1)), Scalar(int64_t(300))); }, ErrorCode::InvalidArgument),
      error_of([&] { native::clamp_cpu(u8, Scalar(int64_t(-1)), Scalar(int64_t(300))); }, ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of([&] { native::clamp_cuda(b, Scalar(true), none); }, ErrorCode::Type),
            error_of([&] { native::clamp_cpu(b, Scalar(true), none); }, ErrorCode::Type));
  EXPECT_EQ(error_of([&] { native::clamp_tensor_cuda(b, b, std::nullopt); }, ErrorCode::Type),
            error_of([&] { native::clamp_tensor_cpu(b, b, std::nullopt); }, ErrorCode::Type));
  EXPECT_EQ(error_of([&] { native::clamp_tensor_cuda(i, std::nullopt, std::nullopt); }, ErrorCode::InvalidArgument),
            error_of([&] { native::clamp_tensor_cpu(i, std::nullopt, std::nullopt); }, ErrorCode::InvalidArgument));
}

}  // namespace

namespace {

TEST(CudaComposed, FunctionalCopyAndFillMatchTheCpu) {
  const Tensor x = tc::t(from({1, 2, 3, 4, 5, 6}, {2, 3}, ScalarType::Float32));  // non-contiguous
  const Tensor src = from({7, 8}, {2}, ScalarType::Int64);                        // broadcast to (3, 2)
  expect_same(native::copy_cuda(x, src, false), native::copy_cpu(x, src, false), 0);
  EXPECT_TRUE(native::copy_cuda(x, src, false).is_contiguous());
  expect_same(native::fill_cuda(x, Scalar(2.5)), native::fill_cpu(x, Scalar(2.5)), 0);
  const Tensor value = from({-4}, {}, ScalarType::Int32);
  expect_same(native::fill_tensor_cuda(x, value), native::fill_tensor_cpu(x, value), 0);
  Tensor a = tc::clone(x), b = tc::clone(x);
  native::fill_tensor_inplace_cuda(a, value);
  native::fill_tensor_inplace_cpu(b, value);
  expect_same(a, b, 0);
  const Tensor u8 = from({1, 2}, {2}, ScalarType::UInt8), row = from({1, 2}, {2});
  EXPECT_EQ(error_of([&] { native::fill_cuda(u8, Scalar(int64_t(300))); }, ErrorCode::InvalidArgument),
            error_of([&] { native::fill_cpu(u8, Scalar(int64_t(300))); }, ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of([&] { native::fill_tensor_cuda(x, row); }, ErrorCode::InvalidArgument),
            error_of([&] { native::fill_tensor_cpu(x, row); }, ErrorCode::InvalidArgument));
  Tensor c = tc::clone(x);
  EXPECT_EQ(error_of([&] { native::fill_tensor_inplace_cuda(c, row); }, ErrorCode::InvalidArgument),
            error_of([&] { native::fill_tensor_inplace_cpu(c, row); }, ErrorCode::InvalidArgument));
  expect_same(c, x, 0);  // unchanged
  EXPECT_EQ(error_of([&] { native::copy_cuda(Tensor(), src, false); }, ErrorCode::InvalidArgument),
            error_of([&] { native::copy_cpu(Tensor(), src, false); }, ErrorCode::InvalidArgument));
}

TEST(CudaComposed, BitwiseNotMatchesTheCpu) {
  for (const ScalarType dt :
       {ScalarType::Bool, ScalarType::UInt8, ScalarType::Int8, ScalarType::Int32, ScalarType::Int64}) {
    const Tensor x = from({0, 1, 0, 1, 1, 0}, {2, 3}, dt);
    const Tensor y = dt == ScalarType::Bool ? x : tc::sub(x, Scalar(int64_t(3)));
    expect_same(native::bitwise_not_cuda(y), native::bitwise_not_cpu(y), 0);
    expect_same(native::bitwise_not_cuda(tc::t(y)), native::bitwise_not_cpu(tc::t(y)), 0);
  }
  const Tensor f = from({1.5}, {1}, ScalarType::Float32);
  EXPECT_EQ(error_of([&] { native::bitwise_not_cuda(f); }, ErrorCode::Type),
            error_of([&] { native::bitwise_not_cpu(f); }, ErrorCode::Type));
}

TEST(CudaComposed, LerpMatchesTheCpu) {
  const Tensor s64 = from({0, 1, -2, 3.5, kNaN, 1e10}, {2, 3}), e64 = from({1, -1, 4}, {3});
  const Tensor w64 = from({0.25, 0.5, 0.75, -1, 2, 0.4999}, {2, 3});
  for (const ScalarType dt : {ScalarType::Float64, ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const double tol = dt == ScalarType::Float64 ? 1e-15 : 1e-6;
    const Tensor s = tc::_to_copy(s64, dt), e = tc::_to_copy(e64, dt), w = tc::_to_copy(w64, dt);
    for (const double weight : {0.0, 0.3, 0.5, 0.7, 1.0, -0.25, 1.5})
      expect_same(native::lerp_cuda(s, e, Scalar(weight)), native::lerp_cpu(s, e, Scalar(weight)), tol);
    expect_same(native::lerp_tensor_cuda(s, e, w), native::lerp_tensor_cpu(s, e, w), tol);
    expect_same(native::lerp_tensor_cuda(tc::t(s), tc::t(w), tc::t(w)),
                native::lerp_tensor_cpu(tc::t(s), tc::t(w), tc::t(w)), tol);
  }
  const Tensor i = from({1, 2}, {2}, ScalarType::Int64), f = from({1, 2}, {2}, ScalarType::Float32);
  EXPECT_EQ(error_of([&] { native::lerp_cuda(i, i, Scalar(0.5)); }, ErrorCode::Type),
            error_of([&] { native::lerp_cpu(i, i, Scalar(0.5)); }, ErrorCode::Type));
  EXPECT_EQ(error_of([&] { native::lerp_cuda(f, s64, Scalar(0.5)); }, ErrorCode::Type),
            error_of([&] { native::lerp_cpu(f, s64, Scalar(0.5)); }, ErrorCode::Type));
  EXPECT_EQ(error_of([&] { native::lerp_tensor_cuda(f, f, i); }, ErrorCode::Type),
            error_of([&] { native::lerp_tensor_cpu(f, f, i); }, ErrorCode::Type));
}

TEST(CudaComposed, RoundDecimalsMatchesTheCpu) {
  const Tensor x64 = from({1.2345, -2.5, 0.125, 1234.5678, kNaN, -0.0049, 5e-5, 1e300}, {2, 4});
  for (const ScalarType dt : {ScalarType::Float64, ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const Tensor x = tc::_to_copy(x64, dt);
    for (const int64_t d : {int64_t(0), int64_t(1), int64_t(2), int64_t(-1), int64_t(-3), int64_t(400),
                            std::numeric_limits<int64_t>::min()})
      expect_same(native::round_decimals_cuda(x, d), native::round_decimals_cpu(x, d), 0);
    expect_same(native::round_decimals_cuda(tc::t(x), 2), native::round_decimals_cpu(tc::t(x), 2), 0);
  }
  const Tensor i = from({1, 2}, {2}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::round_decimals_cuda(i, 1); }, ErrorCode::Type),
            error_of([&] { native::round_decimals_cpu(i, 1); }, ErrorCode::Type));
}

}  // namespace

namespace {

TEST(CudaComposed, EmbeddingBackwardMatchesTheCpu) {
  const Tensor idx = from({2, 0, 2, 3, 1, 2}, {2, 3}, ScalarType::Int64);
  const Tensor idx32 = from({2, 0, 2, 3, 1, 2}, {2, 3}, ScalarType::Int32);
  std::vector<double> g(2 * 3 * 4);
  for (size_t i = 0; i < g.size(); ++i) g[i] = 0.25 * double(i) - 2;
  g[5] = kNaN;  // in a row of index 0: reaches the result unless 0 is padding
  for (const ScalarType dt : {ScalarType::Float64, ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const Tensor grad = from(g, {2, 3, 4}, dt);
    for (const int64_t padding : {int64_t(-1), int64_t(0), int64_t(2), int64_t(9)})
      for (const bool by_freq : {false, true})
        for (const Tensor& i : {idx, idx32})
          expect_same(native::embedding_dense_backward_cuda(grad, i, 5, padding, by_freq),
                      native::embedding_dense_backward_cpu(grad, i, 5, padding, by_freq), 1e-6);
  }
  const Tensor grad = from(g, {2, 3, 4});
  expect_same(native::embedding_dense_backward_cuda(from({}, {0, 4}), from({}, {0}, ScalarType::Int64), 3, -1, false),
              native::embedding_dense_backward_cpu(from({}, {0, 4}), from({}, {0}, ScalarType::Int64), 3, -1, false));
  for (const Tensor& bad : {from({2, 0, 5, 3, 1, 2}, {2, 3}, ScalarType::Int64), from({1}, {1}, ScalarType::Float32)}) {
    const ErrorCode code = bad.dtype() == ScalarType::Float32 ? ErrorCode::Type : ErrorCode::Index;
    EXPECT_EQ(error_of([&] { native::embedding_dense_backward_cuda(grad, bad, 5, -1, false); }, code),
              error_of([&] { native::embedding_dense_backward_cpu(grad, bad, 5, -1, false); }, code));
  }
  EXPECT_EQ(
      error_of([&] { native::embedding_dense_backward_cuda(grad, idx, -1, -1, false); }, ErrorCode::InvalidArgument),
      error_of([&] { native::embedding_dense_backward_cpu(grad, idx, -1, -1, false); }, ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of(
                [&] {
                  native::embedding_dense_backward_cuda(from(g, {4, 6}), idx, 5, -1, false);
                },
                ErrorCode::InvalidArgument),
            error_of(
                [&] {
                  native::embedding_dense_backward_cpu(from(g, {4, 6}), idx, 5, -1, false);
                },
                ErrorCode::InvalidArgument));
}

}  // namespace

namespace {

TEST(CudaComposed, BinaryCrossEntropyWithLogitsMatchesTheCpu) {
  const Tensor x64 = from({0.5, -3, 40, -40, kNaN, 0, 2, -0.25}, {2, 4});
  const Tensor t64 = from({1, 0, 1, 0.5, 1, 0, 0.25, 1}, {2, 4});
  const Tensor w = from({0.5, 2, 1, 1.5}, {4}), pw = from({3, 0.5}, {2, 1});
  const std::optional<Tensor> none;
  for (const ScalarType dt : {ScalarType::Float64, ScalarType::Float32, ScalarType::Float16, ScalarType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const Tensor x = tc::_to_copy(x64, dt), t = tc::_to_copy(t64, dt);
    for (int64_t reduction : {0, 1, 2})
      for (const auto& [wt, pwt] : std::vector<std::pair<std::optional<Tensor>, std::optional<Tensor>>>{
               {none, none}, {w, none}, {none, pw}, {w, pw}})
        expect_same(native::binary_cross_entropy_with_logits_cuda(x, t, wt, pwt, reduction),
                    native::binary_cross_entropy_with_logits_cpu(x, t, wt, pwt, reduction), 1e-6);
  }
  const Tensor xi = from({1, 0, 2}, {3}, ScalarType::Int64), ti = from({1, 0, 1}, {3}, ScalarType::Int64);
  expect_same(native::binary_cross_entropy_with_logits_cuda(xi, ti, none, none, 1),
              native::binary_cross_entropy_with_logits_cpu(xi, ti, none, none, 1), 1e-6);
  const Tensor wi = from({1, 1, 1}, {3}, ScalarType::Int64);
  EXPECT_EQ(error_of([&] { native::binary_cross_entropy_with_logits_cuda(xi, ti, wi, wi, 1); }, ErrorCode::Type),
            error_of([&] { native::binary_cross_entropy_with_logits_cpu(xi, ti, wi, wi, 1); }, ErrorCode::Type));
  const Tensor wide = from({1, 2, 3, 4, 5}, {5});
  EXPECT_EQ(error_of([&] { native::binary_cross_entropy_with_logits_cuda(x64, t64, wide, none, 1); },
                     ErrorCode::InvalidArgument),
            error_of([&] { native::binary_cross_entropy_with_logits_cpu(x64, t64, wide, none, 1); },
                     ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of([&] { native::binary_cross_entropy_with_logits_cuda(x64, w, none, none, 1); },
                     ErrorCode::InvalidArgument),
            error_of([&] { native::binary_cross_entropy_with_logits_cpu(x64, w, none, none, 1); },
                     ErrorCode::InvalidArgument));
  EXPECT_EQ(error_of([&] { native::binary_cross_entropy_with_logits_cuda(x64, t64, none, none, 5); },
                     ErrorCode::InvalidArgument),
            error_of([&] { native::binary_cross_entropy_with_logits_cpu(x64, t64, none, none, 5); },
                     ErrorCode::InvalidArgument));
}

}  // namespace

namespace {

TEST(CudaComposed, NonzeroMatchesTheCpu) {
  const Tensor x = from({0, 1.5, -0.0, kNaN, 0, 2, 0, 0, 3, 0, 0, -1}, {2, 3, 2});
  expect_same(native::nonzero_cuda(x), native::nonzero_cpu(x), 0);
  expect_same(native::nonzero_cuda(tc::transpose(x, 0, 2)), native::nonzero_cpu(tc::transpose(x, 0, 2)), 0);
  const Tensor b = from({1, 0, 1, 1}, {4}, ScalarType::Bool);
  expect_same(native::nonzero_cuda(b), native::nonzero_cpu(b), 0);
  const Tensor i = from({0, 0, 0}, {3}, ScalarType::Int32);
  expect_same(native::nonzero_cuda(i), native::nonzero_cpu(i), 0);  // no hits: (0, 1)
  expect_same(native::nonzero_cuda(from({}, {0, 3})), native::nonzero_cpu(from({}, {0, 3})), 0);
  expect_same(native::nonzero_cuda(from({5}, {})), native::nonzero_cpu(from({5}, {})), 0);  // 0-dim: (1, 0)
  expect_same(native::nonzero_cuda(from({0}, {})), native::nonzero_cpu(from({0}, {})), 0);
}

}  // namespace
