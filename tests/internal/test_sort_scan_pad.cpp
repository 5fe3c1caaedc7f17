// SPDX-License-Identifier: BSD-3-Clause
// sort, topk, argsort, cumsum, flip, repeat and constant_pad_nd against
// values worked out by hand (as PyTorch gives them), with their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd_fixtures.h"
#include "op_test_helpers.h"
#include "core/error.h"
#include "tensorc_gen/ops.h"

namespace {

using namespace tc;
using tc::fixtures::from;
using tc::testing::error_of;
using tc::testing::shape;
using tc::testing::values;
using D = std::vector<double>;
using V = std::vector<int64_t>;

TEST(Sort, StableWithNaNLast) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = from({3, 1, nan, 1, 2, 5, 4, 4}, {2, 4});
  auto [v, i] = tc::sort(x, 1);
  D got = values(v);
  EXPECT_EQ(D(got.begin(), got.begin() + 3), (D{1, 1, 3}));
  EXPECT_TRUE(std::isnan(got[3]));
  EXPECT_EQ(values(i), (D{1, 3, 0, 2, 0, 2, 3, 1}));  // ties keep their order
  EXPECT_EQ(D(got.begin() + 4, got.end()), (D{2, 4, 4, 5}));
  auto [vd, id] = tc::sort(x, 1, true);
  EXPECT_TRUE(std::isnan(values(vd)[0]));  // NaN first when descending
  EXPECT_EQ(values(id), (D{2, 0, 1, 3, 1, 2, 3, 0}));
  EXPECT_EQ(values(tc::argsort(from({2, 0, 1}, {3}, ScalarType::Int32))), (D{1, 2, 0}));
  // Along dim 0 of a transposed view.
  auto [v0, i0] = tc::sort(tc::t(from({3, 1, 2, 0}, {2, 2})), 0);
  EXPECT_EQ(values(v0), (D{1, 0, 3, 2}));
  EXPECT_EQ(values(i0), (D{1, 1, 0, 0}));
}

TEST(Sort, Topk) {
  const Tensor x = from({5, 1, 4, 2, 3, 9, 0, 7}, {2, 4});
  auto [v, i] = tc::topk(x, 2);
  EXPECT_EQ(shape(v), (V{2, 2}));
  EXPECT_EQ(values(v), (D{5, 4, 9, 7}));
  EXPECT_EQ(values(i), (D{0, 2, 1, 3}));
  auto [vs, is] = tc::topk(x, 3, 1, false);
  EXPECT_EQ(values(vs), (D{1, 2, 4, 0, 3, 7}));
  auto [v0, i0] = tc::topk(x, 1, 0);
  EXPECT_EQ(values(v0), (D{5, 9, 4, 7}));
  EXPECT_EQ(shape(std::get<0>(tc::topk(x, 0))), (V{2, 0}));
  for (const int64_t k : {int64_t(0), int64_t(1)}) {  // a 0-dim self: its element and index 0, as PyTorch
    auto [v1, i1] = tc::topk(from({7}, {}), k);
    EXPECT_EQ(shape(v1), V{});
    EXPECT_EQ(values(v1), (D{7}));
    EXPECT_EQ(values(i1), (D{0}));
  }
  std::string m = error_of([&] { tc::topk(x, 5); }, ErrorCode::Index);
  EXPECT_NE(m.find("topk: argument 'k' (5) is out of range: expected a value in [0, 4]"), std::string::npos) << m;
  m = error_of([&] { tc::sort(x, 2); }, ErrorCode::Index);
  EXPECT_NE(m.find("sort"), std::string::npos) << m;
}

TEST(Scan, Cumsum) {
  EXPECT_EQ(values(tc::cumsum(from({1, 2, 3, 4, 5, 6}, {2, 3}), 1)), (D{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(tc::cumsum(from({1, 2, 3, 4, 5, 6}, {2, 3}), 0)), (D{1, 2, 3, 5, 7, 9}));
  const Tensor ints = tc::cumsum(from({1, 1, 1}, {3}, ScalarType::Int32), 0);
  EXPECT_EQ(ints.dtype(), ScalarType::Int64);  // integers sum in int64
  EXPECT_EQ(values(ints), (D{1, 2, 3}));
  const Tensor bools = tc::cumsum(from({1, 0, 1}, {3}, ScalarType::Bool), -1);
  EXPECT_EQ(values(bools), (D{1, 1, 2}));
  EXPECT_EQ(tc::cumsum(from({1, 2}, {2}), 0, ScalarType::Float32).dtype(), ScalarType::Float32);
  std::string m = error_of([&] { tc::cumsum(from({1}, {1}), 1); }, ErrorCode::Index);
  EXPECT_NE(m.find("cumsum"), std::string::npos) << m;
  Tensor y = from({1, 2, 3}, {3});
  y.cumsum_(0);
  EXPECT_EQ(values(y), (D{1, 3, 6}));
}

TEST(Shape, FlipRepeatPad) {
  const Tensor x = from({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(tc::flip(x, {1})), (D{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(values(tc::flip(x, {0, 1})), (D{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(values(tc::flip(tc::t(x), {0})), (D{3, 6, 2, 5, 1, 4}));
  EXPECT_EQ(values(tc::flip(x, {})), values(x));
  std::string m = error_of([&] { tc::flip(x, {2}); }, ErrorCode::Index);
  EXPECT_NE(m.find("flip"), std::string::npos) << m;

  const Tensor r = x.repeat({2, 1, 2});
  EXPECT_EQ(shape(r), (V{2, 2, 6}));
  EXPECT_EQ(values(tc::select(r, 0, 1)), (D{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  m = error_of([&] { x.repeat({2}); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("repeat: argument 'repeats' has 1 entries, expected at least self's 2 dims"), std::string::npos)
      << m;

  Tensor p = tc::constant_pad_nd(x, {1, 0, 0, 1}, Scalar(9.0));
  EXPECT_EQ(shape(p), (V{3, 4}));
  EXPECT_EQ(values(p), (D{9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9}));
  p = tc::constant_pad_nd(x, {-1, 1});  // crop one on the left, pad one on the right
  EXPECT_EQ(values(p), (D{2, 3, 0, 5, 6, 0}));
  m = error_of([&] { tc::constant_pad_nd(x, {1}); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("even length"), std::string::npos) << m;
  m = error_of([&] { tc::constant_pad_nd(x, {-2, -2}); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("removes more than the 3 elements of dim 1"), std::string::npos) << m;
}

TEST(Shape, PadAndRepeatAreDifferentiable) {
  Tensor x = tc::fixtures::leaf({1, 2, 3}, {3});
  const Tensor y = tc::sum(tc::mul(tc::constant_pad_nd(x.repeat({2}), {1, 1}), from({1, 1, 2, 3, 4, 5, 6, 1}, {8})));
  autograd::backward({y}, {}, false, false);
  EXPECT_EQ(values(autograd::grad(x)), (D{1 + 4, 2 + 5, 3 + 6}));
}

}  // namespace
