// SPDX-License-Identifier: BSD-3-Clause
// The indexing ops against values worked out by hand (as NumPy / PyTorch
// give them): index_select, index_copy, index_add, gather, scatter,
// scatter_add, nonzero, advanced indexing (index.Tensor) and index_put, with
// their error messages and the rule that a failed in-place op changes nothing.
#include <gtest/gtest.h>

#include <optional>
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
using Indices = std::vector<std::optional<Tensor>>;

Tensor longs(const D& v, V s) { return from(v, std::move(s), ScalarType::Int64); }
// 0, 1, 2, ... as float64 of the given shape.
Tensor iota(V s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  D v;
  for (int64_t i = 0; i < n; ++i) v.push_back(double(i));
  return from(v, std::move(s));
}

TEST(Index, IndexSelect) {
  const Tensor x = iota({3, 4});
  const Tensor r = tc::index_select(x, 0, longs({2, 0, 2}, {3}));
  EXPECT_EQ(shape(r), (V{3, 4}));
  EXPECT_EQ(values(r), (D{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  const Tensor c = tc::index_select(tc::t(x), 1, from({1, 1}, {2}, ScalarType::Int32));  // int32, a view
  EXPECT_EQ(shape(c), (V{4, 2}));
  EXPECT_EQ(values(c), (D{4, 4, 5, 5, 6, 6, 7, 7}));
  EXPECT_EQ(shape(tc::index_select(x, 1, longs({}, {0}))), (V{3, 0}));
  std::string m = error_of([&] { tc::index_select(x, 0, longs({3}, {1})); }, ErrorCode::Index);
  EXPECT_NE(m.find("index_select: argument 'index' has value 3 at position 0, expected a value in [0, 3)"),
            std::string::npos)
      << m;
  m = error_of([&] { tc::index_select(x, 2, longs({0}, {1})); }, ErrorCode::Index);
  EXPECT_NE(m.find("index_select"), std::string::npos) << m;
  m = error_of([&] { tc::index_select(x, 0, from({0}, {1}, ScalarType::Float32)); }, ErrorCode::Type);
  EXPECT_NE(m.find("argument 'index' expected an int64 or int32 tensor, got float32"), std::string::npos) << m;
  m = error_of([&] { tc::index_select(x, 0, longs({0, 1}, {1, 2})); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("expected a 0-D or 1-D tensor, got 2-D"), std::string::npos) << m;
}

TEST(Index, IndexCopyAndAdd) {
  const Tensor x = iota({2, 3});
  const Tensor src = from({10, 20, 30, 40}, {2, 2});
  EXPECT_EQ(values(tc::index_copy(x, 1, longs({2, 0}, {2}), src)), (D{20, 1, 10, 40, 4, 30}));
  EXPECT_EQ(values(tc::index_add(x, 1, longs({2, 2}, {2}), src, Scalar(0.5))),
            (D{0, 1, 2 + 5 + 10, 3, 4, 5 + 15 + 20}));
  EXPECT_EQ(values(x), (D{0, 1, 2, 3, 4, 5}));  // functional: self untouched
  std::string m = error_of([&] { tc::index_add(x, 1, longs({0}, {1}), src); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("index_add: argument 'source' expected shape [2, 1]"), std::string::npos) << m;
  m = error_of(
      [&] {
        tc::index_copy(x, 1, longs({0, 1}, {2}), from({1, 2, 3, 4}, {2, 2}, ScalarType::Float32));
      },
      ErrorCode::Type);
  EXPECT_NE(m.find("index_copy: argument 'source' expected dtype float64"), std::string::npos) << m;
  // In place: a failing call leaves self as it was.
  Tensor y = tc::clone(x);
  error_of([&] { y.index_add_(1, longs({0, 7}, {2}), src); }, ErrorCode::Index);
  EXPECT_EQ(values(y), (D{0, 1, 2, 3, 4, 5}));
  y.index_add_(0, longs({1}, {1}), from({1, 1, 1}, {1, 3}));
  EXPECT_EQ(values(y), (D{0, 1, 2, 4, 5, 6}));
}

TEST(Index, GatherScatter) {
  const Tensor x = iota({2, 3});
  const Tensor idx = longs({2, 0, 1, 1}, {2, 2});
  const Tensor g = tc::gather(x, 1, idx);
  EXPECT_EQ(shape(g), (V{2, 2}));
  EXPECT_EQ(values(g), (D{2, 0, 4, 4}));
  EXPECT_EQ(values(tc::gather(tc::t(x), 0, longs({2, 1}, {1, 2}))), (D{2, 4}));  // a transposed self
  const Tensor src = from({10, 20, 30, 40}, {2, 2});
  EXPECT_EQ(values(tc::scatter(x, 1, idx, src)), (D{20, 1, 10, 3, 40, 5}));
  EXPECT_EQ(values(tc::scatter(x, 1, idx, Scalar(-1.0))), (D{-1, 1, -1, 3, -1, 5}));
  EXPECT_EQ(values(tc::scatter_add(x, 1, idx, src)), (D{20, 1, 12, 3, 4 + 30 + 40, 5}));
  std::string m = error_of([&] { tc::gather(x, 1, longs({3}, {1, 1})); }, ErrorCode::Index);
  EXPECT_NE(m.find("gather: argument 'index' has value 3 at position 0, expected a value in [0, 3)"), std::string::npos)
      << m;
  m = error_of([&] { tc::gather(x, 1, longs({0}, {1})); }, ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("gather: argument 'index' expected 2 dims (self's), got 1"), std::string::npos) << m;
  m = error_of(
      [&] {
        tc::scatter(x, 0, longs({0, 0, 0, 0}, {1, 4}), from({1, 2, 3, 4}, {1, 4}));
      },
      ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("scatter: argument 'index' has size 4 at dim 1, expected at most self's 3"), std::string::npos) << m;
  Tensor y = tc::clone(x);
  error_of([&] { y.scatter_(1, longs({0, 5}, {1, 2}), Scalar(9.0)); }, ErrorCode::Index);
  EXPECT_EQ(values(y), (D{0, 1, 2, 3, 4, 5}));
  // src must hold every element the index reads, with a 0-dim self too (the
  // loop read src[1] and src[2] of a 1-element src here).
  m = error_of(
      [&] {
        tc::scatter(from({1}, {}), 0, longs({0, 0, 0}, {3}), from({5}, {1}));
      },
      ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("scatter: argument 'index' has size 3 at dim 0, expected at most src's 1"), std::string::npos) << m;
  m = error_of(
      [&] {
        tc::scatter_add(from({1, 2}, {2}), 0, longs({1}, {}), from({}, {0}));
      },
      ErrorCode::InvalidArgument);
  EXPECT_NE(m.find("scatter_add: argument 'src' is empty"), std::string::npos) << m;
  EXPECT_EQ(values(tc::scatter(from({1}, {}), 0, longs({0, 0}, {2}), from({5, 5}, {2}))), (D{5}));
  EXPECT_EQ(values(tc::scatter_add(from({1, 2}, {2}), 0, longs({1}, {}), from({7}, {}))), (D{1, 9}));
}

TEST(Index, Nonzero) {
  const Tensor x = from({0, 1, 0, 2, 0, 3}, {2, 3});
  const Tensor n = tc::nonzero(x);
  EXPECT_EQ(shape(n), (V{3, 2}));
  EXPECT_EQ(values(n), (D{0, 1, 1, 0, 1, 2}));
  EXPECT_EQ(n.dtype(), ScalarType::Int64);
  EXPECT_EQ(shape(tc::nonzero(from({0, 0}, {2}))), (V{0, 1}));
}

TEST(Index, AdvancedIndexing) {
  const Tensor x = iota({3, 4, 5});
  // x[[2, 0]] : shape [2, 4, 5]
  Tensor r = tc::index(x, Indices{longs({2, 0}, {2})});
  EXPECT_EQ(shape(r), (V{2, 4, 5}));
  EXPECT_EQ(read_element(r, 0).to_double(), 40);
  // x[:, [1, 3], [0, 4]] : adjacent indexed dims stay in place -> [3, 2]
  r = tc::index(x, Indices{std::nullopt, longs({1, 3}, {2}), longs({0, 4}, {2})});
  EXPECT_EQ(shape(r), (V{3, 2}));
  EXPECT_EQ(values(r), (D{5, 19, 25, 39, 45, 59}));
  // x[[0, 2], :, [1, 1]] : non-adjacent -> the broadcast dim goes first: [2, 4]
  r = tc::index(x, Indices{longs({0, 2}, {2}), std::nullopt, longs({1, 1}, {2})});
  EXPECT_EQ(shape(r), (V{2, 4}));
  EXPECT_EQ(values(r), (D{1, 6, 11, 16, 41, 46, 51, 56}));
  // x[:, [[0], [3]], [1, 2]] : index shapes broadcast to [2, 2]; result [3, 2, 2]
  r = tc::index(x, Indices{std::nullopt, longs({0, 3}, {2, 1}), longs({1, 2}, {2})});
  EXPECT_EQ(shape(r), (V{3, 2, 2}));
  EXPECT_EQ(values(tc::select(r, 0, 1)), (D{21, 22, 36, 37}));
  // Negative indices count from the end.
  EXPECT_EQ(values(tc::index(x, Indices{longs({-1}, {1}), longs({-4}, {1}), longs({-5}, {1})})), (D{40}));
  // A bool mask stands for the dims it covers.
  const Tensor m = from({1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0}, {3, 4}, ScalarType::Bool);
  r = tc::index(x, Indices{m});
  EXPECT_EQ(shape(r), (V{3, 5}));
  EXPECT_EQ(values(tc::select(r, 1, 0)), (D{0, 15, 40}));
  r = tc::index(x, Indices{std::nullopt, std::nullopt, from({0, 1, 0, 0, 1}, {5}, ScalarType::Bool)});
  EXPECT_EQ(shape(r), (V{3, 4, 2}));
  // Errors name the op, the dim and the bound.
  std::string e = error_of([&] { tc::index(x, Indices{longs({3}, {1})}); }, ErrorCode::Index);
  EXPECT_NE(e.find("index: index 3 is out of bounds for dim 0 with size 3"), std::string::npos) << e;
  e = error_of(
      [&] {
        tc::index(x, Indices{std::nullopt, std::nullopt, std::nullopt, longs({0}, {1})});
      },
      ErrorCode::Index);
  EXPECT_NE(e.find("has 4 indices for a tensor of 3 dims"), std::string::npos) << e;
  e = error_of([&] { tc::index(x, Indices{from({1, 0}, {2}, ScalarType::Bool)}); }, ErrorCode::Index);
  EXPECT_NE(e.find("does not match self's shape [3, 4, 5] at dim 0"), std::string::npos) << e;
  e = error_of([&] { tc::index(x, Indices{from({0.0}, {1}, ScalarType::Float32)}); }, ErrorCode::Type);
  EXPECT_NE(e.find("expected an int64, int32, bool or uint8 tensor"), std::string::npos) << e;
  e = error_of([&] { tc::index(x, Indices{longs({0, 1}, {2}), longs({0, 1, 2}, {3})}); }, ErrorCode::InvalidArgument);
  EXPECT_NE(e.find("index"), std::string::npos) << e;
}

TEST(Index, IndexPut) {
  const Tensor x = iota({2, 3});
  // x[[1, 0], [2, 2]] = [10, 20]
  Tensor r = tc::index_put(x, Indices{longs({1, 0}, {2}), longs({2, 2}, {2})}, from({10, 20}, {2}));
  EXPECT_EQ(values(r), (D{0, 1, 20, 3, 4, 10}));
  // x[:, [0, 0]] += [[1], [2]] with accumulate: a repeated index adds twice.
  r = tc::index_put(x, Indices{std::nullopt, longs({0, 0}, {2})}, from({1, 2}, {2, 1}), true);
  EXPECT_EQ(values(r), (D{2, 1, 2, 7, 4, 5}));
  // A mask and a scalar value: x[x > 2] = -1
  r = tc::index_put(x, Indices{tc::gt(x, Scalar(2.0))}, from({-1}, {}));
  EXPECT_EQ(values(r), (D{0, 1, 2, -1, -1, -1}));
  // Non-adjacent indexed dims: y[[0, 1], :, [1, 0]] = v of shape [2, 2] (B first).
  const Tensor y = iota({2, 2, 2});
  r = tc::index_put(y, Indices{longs({0, 1}, {2}), std::nullopt, longs({1, 0}, {2})}, from({10, 11, 12, 13}, {2, 2}));
  EXPECT_EQ(values(r), (D{0, 10, 2, 11, 12, 5, 13, 7}));
  EXPECT_EQ(values(x), (D{0, 1, 2, 3, 4, 5}));
  // In place, and a failure leaves self unchanged.
  Tensor z = tc::clone(x);
  std::string e = error_of([&] { tc::index_put_(z, Indices{longs({0, 5}, {2})}, from({1}, {})); }, ErrorCode::Index);
  EXPECT_NE(e.find("out of bounds for dim 0 with size 2"), std::string::npos) << e;
  EXPECT_EQ(values(z), (D{0, 1, 2, 3, 4, 5}));
  e = error_of([&] { tc::index_put_(z, Indices{longs({0}, {1})}, from({1, 2}, {2})); }, ErrorCode::InvalidArgument);
  EXPECT_NE(e.find("index_put"), std::string::npos) << e;
  e = error_of([&] { tc::index_put_(z, Indices{longs({0}, {1})}, from({1}, {1}, ScalarType::Float32)); },
               ErrorCode::Type);
  EXPECT_NE(e.find("index_put: argument 'values' expected dtype float64"), std::string::npos) << e;
  tc::index_put_(z, Indices{longs({1}, {1})}, from({7}, {}));
  EXPECT_EQ(values(z), (D{0, 1, 2, 7, 7, 7}));
}

// Advanced indexing is differentiated through its decomposition.
TEST(Index, AdvancedIndexingGradients) {
  Tensor x = tc::fixtures::leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor picked = tc::index(x, Indices{longs({1, 1, 0}, {3}), longs({0, 0, 2}, {3})});
  autograd::backward({tc::sum(tc::mul(picked, from({1, 2, 3}, {3})))}, {}, false, false);
  EXPECT_EQ(values(autograd::grad(x)), (D{0, 0, 3, 3, 0, 0}));
}

}  // namespace
