// SPDX-License-Identifier: BSD-3-Clause
// Views and shape ops. Part 1 calls the metadata kernels directly (no
// dispatcher needed); part 2, the copy-based composites, needs the generated
// op functions and compiles out until tensorc_gen/ops.h exists.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "tensorc_gen/native_functions.h"  // the kernels under test

namespace {

using namespace tc;
namespace nat = tc::native;
using V = std::vector<int64_t>;
using D = std::vector<double>;

// A float32 tensor of the given shape holding 0, 1, 2, ... in row-major order.
Tensor arange(V sizes) {
  Tensor t = empty_tensor(sizes, ScalarType::Float32);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = float(i);
  return t;
}

// Every element in logical row-major order (reads through sizes/strides/offset).
D values(const Tensor& t) {
  D out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(read_element(t, i).to_double());
  return out;
}

V vec(IntArrayRef a) { return a.vec(); }

// The view contract: same storage, shared version counter, a distinct tensor.
void expect_view_of(const Tensor& v, const Tensor& base) {
  ASSERT_TRUE(v.defined());
  EXPECT_FALSE(v.is_same(base));
  EXPECT_EQ(v.storage().get(), base.storage().get());
  EXPECT_EQ(v.storage()->data(), base.storage()->data());
  EXPECT_EQ(&v.impl()->version_counter(), &base.impl()->version_counter());
  const uint32_t before = base.version();
  v.bump_version();                       // a write through the view...
  EXPECT_EQ(base.version(), before + 1);  // ...is seen on the base
  EXPECT_EQ(v.dtype(), base.dtype());
}

void expect_meta(const Tensor& v, V sizes, V strides, int64_t offset) {
  EXPECT_EQ(vec(v.sizes()), sizes);
  EXPECT_EQ(vec(v.strides()), strides);
  EXPECT_EQ(v.storage_offset(), offset);
}

// Runs f, expects a tc::Error of `code` whose message contains `needle`.
void expect_error(ErrorCode code, const std::string& needle, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(e.message().find(needle), std::string::npos) << "message: " << e.what();
  }
}

// ---- view -------------------------------------------------------------------

TEST(View, ContiguousReshapes) {
  Tensor x = arange({2, 3, 4});
  Tensor v = nat::view(x, {4, 6});
  expect_view_of(v, x);
  expect_meta(v, {4, 6}, {6, 1}, 0);
  EXPECT_EQ(values(v), values(x));
  expect_meta(nat::view(x, {-1, 4}), {6, 4}, {4, 1}, 0);
  expect_meta(nat::view(x, {24}), {24}, {1}, 0);
  expect_meta(nat::view(x, {2, 1, 12, 1}), {2, 1, 12, 1}, {12, 12, 1, 1}, 0);
}

TEST(View, ScalarsAndEmpty) {
  Tensor s = arange({});
  expect_meta(nat::view(s, {1}), {1}, {1}, 0);
  expect_meta(nat::view(s, {-1}), {1}, {1}, 0);
  expect_meta(nat::view(nat::view(s, {1, 1}), {}), {}, {}, 0);
  Tensor e = arange({0, 3});
  expect_meta(nat::view(e, {3, 0}), {3, 0}, {1, 1}, 0);
  expect_error(ErrorCode::InvalidArgument, "view: argument 'size' [-1, 0] is invalid for input of size 0", [&] {
    nat::view(e, {-1, 0});
  });
}

TEST(View, NonContiguousInputs) {
  Tensor x = arange({3, 4});
  Tensor tr = nat::transpose_int(x, 0, 1);  // [4, 3] strides [1, 4]
  Tensor v = nat::view(tr, {4, 3, 1});
  expect_view_of(v, x);
  expect_meta(v, {4, 3, 1}, {1, 4, 4}, 0);
  expect_error(ErrorCode::InvalidArgument,
               "view: size [12] is not compatible with input tensor's size [4, 3] and stride [1, 4]",
               [&] { nat::view(tr, {12}); });
  expect_error(ErrorCode::InvalidArgument, "Use reshape instead", [&] { nat::view(tr, {2, 6}); });
  // Splitting a dim of a sliced tensor keeps the slice's stride.
  Tensor sl = nat::slice_Tensor(arange({4, 5}), 1, 0, std::nullopt, 2);  // [4, 3] strides [5, 2]
  expect_meta(nat::view(sl, {2, 2, 3}), {2, 2, 3}, {10, 5, 2}, 0);
  expect_error(ErrorCode::InvalidArgument, "not compatible", [&] { nat::view(sl, {12}); });
  // ...and merges dims that happen to be evenly strided: every other element of [4, 6].
  Tensor even = nat::slice_Tensor(arange({4, 6}), 1, 0, std::nullopt, 2);  // [4, 3] strides [6, 2]
  expect_meta(nat::view(even, {12}), {12}, {2}, 0);
  // Broadcast (stride 0) dims can be split but not merged with real ones.
  Tensor ex = nat::expand(arange({1, 4}), {3, 4}, false);
  expect_meta(nat::view(ex, {3, 2, 2}), {3, 2, 2}, {0, 2, 1}, 0);
  expect_error(ErrorCode::InvalidArgument, "not compatible", [&] { nat::view(ex, {12}); });
}

TEST(View, BadSizes) {
  Tensor x = arange({2, 3});
  expect_error(ErrorCode::InvalidArgument, "view: argument 'size' [4, 2] is invalid for input of size 6", [&] {
    nat::view(x, {4, 2});
  });
  expect_error(ErrorCode::InvalidArgument, "only one dimension can be inferred", [&] { nat::view(x, {-1, -1}); });
  expect_error(ErrorCode::InvalidArgument, "argument 'size' has an invalid size -2", [&] { nat::view(x, {-2, -3}); });
  expect_error(ErrorCode::InvalidArgument, "is invalid for input of size 6", [&] { nat::view(x, {-1, 4}); });
  expect_error(ErrorCode::InvalidArgument, "is invalid for input of size 6", [&] {
    nat::view(x, {int64_t(1) << 62, 8, -1});
  });
}

// ---- alias, as_strided ------------------------------------------------------

TEST(Alias, SameGeometry) {
  Tensor x = nat::slice_Tensor(arange({4, 5}), 1, 1, 4, 1);
  Tensor a = nat::alias(x);
  expect_view_of(a, x);
  expect_meta(a, vec(x.sizes()), vec(x.strides()), x.storage_offset());
}

TEST(AsStrided, Geometry) {
  Tensor x = arange({3, 4});
  Tensor v = nat::as_strided(x, {2, 2}, {1, 2}, 1);
  expect_view_of(v, x);
  expect_meta(v, {2, 2}, {1, 2}, 1);
  EXPECT_EQ(values(v), (D{1, 3, 2, 4}));
  // Overlapping windows are allowed; storage_offset defaults to self's.
  Tensor row = nat::select_int(x, 0, 2);
  expect_meta(nat::as_strided(row, {3, 2}, {1, 1}, std::nullopt), {3, 2}, {1, 1}, 8);
  // Bounds are against the storage, not the view: PyTorch allows this.
  EXPECT_EQ(values(nat::as_strided(row, {2}, {1}, 0)), (D{0, 1}));
  // Zero elements touch nothing.
  expect_meta(nat::as_strided(x, {0, 5}, {100, 100}, 11), {0, 5}, {100, 100}, 11);
}

TEST(AsStrided, OutOfBounds) {
  Tensor x = arange({3, 4});  // 12 elements, 48 bytes
  nat::as_strided(x, {12}, {1}, 0);
  expect_error(ErrorCode::InvalidArgument, "out of bounds for a storage of 48 bytes",
               [&] { nat::as_strided(x, {12}, {1}, 1); });
  expect_error(ErrorCode::InvalidArgument, "out of bounds", [&] { nat::as_strided(x, {4, 4}, {4, 1}, 0); });
  expect_error(ErrorCode::InvalidArgument, "out of bounds", [&] { nat::as_strided(x, {}, {}, 12); });
  expect_error(ErrorCode::InvalidArgument, "more than int64", [&] {
    nat::as_strided(x, {3, 3}, {INT64_MAX / 2, INT64_MAX / 2}, 0);
  });
  expect_error(ErrorCode::InvalidArgument, "argument 'stride' expected non-negative",
               [&] { nat::as_strided(x, {2}, {-1}, 3); });
  expect_error(ErrorCode::InvalidArgument, "argument 'storage_offset'", [&] { nat::as_strided(x, {1}, {1}, -1); });
  expect_error(ErrorCode::InvalidArgument, "must have the same length", [&] { nat::as_strided(x, {1, 2}, {1}, 0); });
  expect_error(ErrorCode::InvalidArgument, "non-negative sizes", [&] { nat::as_strided(x, {-1}, {1}, 0); });
}

// ---- expand -----------------------------------------------------------------

TEST(Expand, Broadcasts) {
  Tensor x = arange({3, 1});
  Tensor e = nat::expand(x, {2, 3, 4}, false);
  expect_view_of(e, x);
  expect_meta(e, {2, 3, 4}, {0, 1, 0}, 0);
  EXPECT_EQ(values(nat::expand(x, {3, 2}, false)), (D{0, 0, 1, 1, 2, 2}));
  expect_meta(nat::expand(x, {-1, 5}, true), {3, 5}, {1, 0}, 0);
  // A new leading dim of size 1 gets the stride a contiguous tensor would have.
  expect_meta(nat::expand(x, {1, 3, 1}, false), {1, 3, 1}, {3, 1, 1}, 0);
  Tensor s = arange({});
  expect_meta(nat::expand(s, {2, 2}, false), {2, 2}, {0, 0}, 0);
}

TEST(Expand, Errors) {
  Tensor x = arange({3, 1});
  expect_error(ErrorCode::InvalidArgument, "must match the existing size (3) at non-singleton dimension 0", [&] {
    nat::expand(x, {4, 2}, false);
  });
  expect_error(ErrorCode::InvalidArgument, "the number of sizes provided (1)", [&] { nat::expand(x, {3}, false); });
  expect_error(ErrorCode::InvalidArgument, "leading, non-existing dimension", [&] {
    nat::expand(x, {-1, 3, 1}, false);
  });
  expect_error(ErrorCode::InvalidArgument, "invalid size -2", [&] { nat::expand(x, {3, -2}, false); });
  expect_error(ErrorCode::OutOfMemory, "int64", [&] {
    nat::expand(x, {int64_t(1) << 40, 3, int64_t(1) << 40}, false);
  });
}

// ---- transpose, t, permute --------------------------------------------------

TEST(Transpose, SwapsDims) {
  Tensor x = arange({2, 3, 4});
  Tensor v = nat::transpose_int(x, 0, 2);
  expect_view_of(v, x);
  expect_meta(v, {4, 3, 2}, {1, 4, 12}, 0);
  expect_meta(nat::transpose_int(x, -1, 1), {2, 4, 3}, {12, 1, 4}, 0);
  expect_meta(nat::transpose_int(x, 1, 1), {2, 3, 4}, {12, 4, 1}, 0);
  EXPECT_EQ(values(nat::transpose_int(arange({2, 3}), 0, 1)), (D{0, 3, 1, 4, 2, 5}));
  expect_meta(nat::transpose_int(arange({}), 0, -1), {}, {}, 0);
}

TEST(Transpose, DimErrors) {
  Tensor x = arange({2, 3});
  expect_error(ErrorCode::Index, "transpose: argument 'dim1' (5) is out of range: expected a value in [-2, 1]",
               [&] { nat::transpose_int(x, 0, 5); });
  expect_error(ErrorCode::Index, "transpose: argument 'dim0' (-3)", [&] { nat::transpose_int(x, -3, 0); });
}

TEST(T, UpToTwoDims) {
  Tensor m = arange({2, 3});
  Tensor v = nat::t(m);
  expect_view_of(v, m);
  expect_meta(v, {3, 2}, {1, 3}, 0);
  Tensor r = arange({4});
  Tensor rv = nat::t(r);
  expect_view_of(rv, r);
  expect_meta(rv, {4}, {1}, 0);
  expect_meta(nat::t(arange({})), {}, {}, 0);
  expect_error(ErrorCode::InvalidArgument, "t: expected a tensor with <= 2 dimensions, but self is 3-D", [&] {
    nat::t(arange({1, 2, 3}));
  });
}

TEST(Permute, ReordersDims) {
  Tensor x = arange({2, 3, 4});
  Tensor v = nat::permute(x, {2, 0, 1});
  expect_view_of(v, x);
  expect_meta(v, {4, 2, 3}, {1, 12, 4}, 0);
  expect_meta(nat::permute(x, {-1, -2, -3}), {4, 3, 2}, {1, 4, 12}, 0);
  EXPECT_EQ(values(nat::permute(arange({2, 2}), {1, 0})), (D{0, 2, 1, 3}));
  expect_meta(nat::permute(arange({}), {}), {}, {}, 0);
  expect_error(ErrorCode::InvalidArgument, "repeats dimension 0", [&] { nat::permute(x, {0, 1, -3}); });
  expect_error(ErrorCode::InvalidArgument, "has 2 entries, but the tensor has 3", [&] { nat::permute(x, {0, 1}); });
  expect_error(ErrorCode::Index, "permute: argument 'dims' (3) is out of range", [&] { nat::permute(x, {0, 1, 3}); });
}

// ---- squeeze, unsqueeze -----------------------------------------------------

TEST(Squeeze, AllAndListed) {
  Tensor x = arange({1, 3, 1, 2});
  Tensor v = nat::squeeze(x);
  expect_view_of(v, x);
  expect_meta(v, {3, 2}, {2, 1}, 0);
  expect_meta(nat::squeeze_dim(x, 0), {3, 1, 2}, {2, 2, 1}, 0);
  expect_meta(nat::squeeze_dim(x, 1), {1, 3, 1, 2}, {6, 2, 2, 1}, 0);  // size 3: left alone
  expect_meta(nat::squeeze_dim(x, -2), {1, 3, 2}, {6, 2, 1}, 0);
  expect_meta(nat::squeeze_dims(x, {0, 1, -2}), {3, 2}, {2, 1}, 0);
  expect_meta(nat::squeeze_dims(x, {}), {1, 3, 1, 2}, {6, 2, 2, 1}, 0);
  expect_view_of(nat::squeeze_dims(x, {}), x);
  Tensor s = arange({});
  expect_meta(nat::squeeze(s), {}, {}, 0);
  expect_meta(nat::squeeze_dim(s, -1), {}, {}, 0);
}

TEST(Squeeze, Errors) {
  Tensor x = arange({1, 3});
  expect_error(ErrorCode::Index, "squeeze: argument 'dim' (2) is out of range", [&] { nat::squeeze_dim(x, 2); });
  expect_error(ErrorCode::Index, "squeeze: argument 'dim' (-3)", [&] { nat::squeeze_dims(x, {0, -3}); });
  expect_error(ErrorCode::InvalidArgument, "repeats dimension 0", [&] { nat::squeeze_dims(x, {0, -2}); });
  expect_error(ErrorCode::Index, "expected a value in [-1, 0]", [&] { nat::squeeze_dim(arange({}), 1); });
}

TEST(Unsqueeze, InsertsSizeOne) {
  Tensor x = arange({2, 3});
  Tensor v = nat::unsqueeze(x, 0);
  expect_view_of(v, x);
  expect_meta(v, {1, 2, 3}, {6, 3, 1}, 0);
  expect_meta(nat::unsqueeze(x, 1), {2, 1, 3}, {3, 3, 1}, 0);
  expect_meta(nat::unsqueeze(x, 2), {2, 3, 1}, {3, 1, 1}, 0);
  expect_meta(nat::unsqueeze(x, -1), {2, 3, 1}, {3, 1, 1}, 0);
  expect_meta(nat::unsqueeze(x, -3), {1, 2, 3}, {6, 3, 1}, 0);
  EXPECT_TRUE(nat::unsqueeze(x, 1).is_contiguous());
  expect_meta(nat::unsqueeze(arange({}), 0), {1}, {1}, 0);
  expect_error(ErrorCode::Index, "unsqueeze: argument 'dim' (3) is out of range: expected a value in [-3, 2]",
               [&] { nat::unsqueeze(x, 3); });
}

// ---- slice, select ----------------------------------------------------------

TEST(Slice, PythonSemantics) {
  Tensor x = arange({5, 4});
  Tensor v = nat::slice_Tensor(x, 0, 1, 4, 2);
  expect_view_of(v, x);
  expect_meta(v, {2, 4}, {8, 1}, 4);
  EXPECT_EQ(values(nat::slice_Tensor(x, 1, 1, 3, 1)), (D{1, 2, 5, 6, 9, 10, 13, 14, 17, 18}));
  expect_meta(nat::slice_Tensor(x, 0, std::nullopt, std::nullopt, 1), {5, 4}, {4, 1}, 0);
  expect_meta(nat::slice_Tensor(x, -1, -3, -1, 1), {5, 2}, {4, 1}, 1);
  expect_meta(nat::slice_Tensor(x, 0, -100, 100, 1), {5, 4}, {4, 1}, 0);         // clamped
  expect_meta(nat::slice_Tensor(x, 0, 3, 1, 1), {0, 4}, {4, 1}, 12);             // end < start: empty
  expect_meta(nat::slice_Tensor(x, 0, 7, std::nullopt, 1), {0, 4}, {4, 1}, 20);  // start past the end
  expect_meta(nat::slice_Tensor(x, 0, 0, INT64_MIN, 1), {0, 4}, {4, 1}, 0);
  expect_meta(nat::slice_Tensor(x, 0, 1, INT64_MAX, INT64_MAX), {1, 4}, {4, 1}, 4);  // 4 * step overflows: kept
  expect_meta(nat::slice_Tensor(x, 0, 0, 5, 3), {2, 4}, {12, 1}, 0);
}

TEST(Slice, Errors) {
  Tensor x = arange({5, 4});
  expect_error(ErrorCode::InvalidArgument, "slice: argument 'step' must be positive, got 0",
               [&] { nat::slice_Tensor(x, 0, 0, 1, 0); });
  expect_error(ErrorCode::InvalidArgument, "must be positive", [&] { nat::slice_Tensor(x, 0, 0, 1, -1); });
  expect_error(ErrorCode::Index, "slice: argument 'dim' (2) is out of range",
               [&] { nat::slice_Tensor(x, 2, 0, 1, 1); });
  expect_error(ErrorCode::Index, "0-dim", [&] { nat::slice_Tensor(arange({}), 0, 0, 1, 1); });
}

TEST(Select, DropsDim) {
  Tensor x = arange({2, 3, 4});
  Tensor v = nat::select_int(x, 1, -1);
  expect_view_of(v, x);
  expect_meta(v, {2, 4}, {12, 1}, 8);
  EXPECT_EQ(values(v), (D{8, 9, 10, 11, 20, 21, 22, 23}));
  expect_meta(nat::select_int(x, 0, 1), {3, 4}, {4, 1}, 12);
  expect_meta(nat::select_int(arange({3}), 0, 2), {}, {}, 2);
  expect_error(ErrorCode::Index, "select: argument 'index' (3) is out of range for dimension 1 of size 3",
               [&] { nat::select_int(x, 1, 3); });
  expect_error(ErrorCode::Index, "argument 'index' (-4)", [&] { nat::select_int(x, 1, -4); });
  expect_error(ErrorCode::Index, "select: argument 'dim' (3)", [&] { nat::select_int(x, 3, 0); });
  expect_error(ErrorCode::Index, "0-dim", [&] { nat::select_int(arange({}), 0, 0); });
  expect_error(ErrorCode::Index, "out of range", [&] { nat::select_int(arange({0}), 0, 0); });
}

// ---- split, split_with_sizes, unbind ----------------------------------------

TEST(Split, EqualPieces) {
  Tensor x = arange({5, 2});
  auto parts = nat::split_Tensor(x, 2, 0);
  ASSERT_EQ(parts.size(), 3u);
  expect_meta(parts[0], {2, 2}, {2, 1}, 0);
  expect_meta(parts[1], {2, 2}, {2, 1}, 4);
  expect_meta(parts[2], {1, 2}, {2, 1}, 8);
  for (auto& p : parts) expect_view_of(p, x);
  auto cols = nat::split_Tensor(x, 1, -1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(values(cols[1]), (D{1, 3, 5, 7, 9}));
  auto one = nat::split_Tensor(x, 100, 0);
  ASSERT_EQ(one.size(), 1u);
  expect_meta(one[0], {5, 2}, {2, 1}, 0);
  auto empty = nat::split_Tensor(arange({0, 2}), 0, 0);  // size 0: one empty piece
  ASSERT_EQ(empty.size(), 1u);
  expect_meta(empty[0], {0, 2}, {2, 1}, 0);
  expect_error(ErrorCode::InvalidArgument, "can only be 0 if dimension 0 has size 0",
               [&] { nat::split_Tensor(x, 0, 0); });
  expect_error(ErrorCode::InvalidArgument, "argument 'split_size' expected a non-negative",
               [&] { nat::split_Tensor(x, -1, 0); });
  expect_error(ErrorCode::Index, "split: argument 'dim' (2)", [&] { nat::split_Tensor(x, 1, 2); });
  expect_error(ErrorCode::Index, "0-dim", [&] { nat::split_Tensor(arange({}), 1, 0); });
}

TEST(SplitWithSizes, GivenPieces) {
  Tensor x = arange({5, 2});
  auto parts = nat::split_with_sizes(x, {1, 0, 4}, 0);
  ASSERT_EQ(parts.size(), 3u);
  expect_meta(parts[0], {1, 2}, {2, 1}, 0);
  expect_meta(parts[1], {0, 2}, {2, 1}, 2);
  expect_meta(parts[2], {4, 2}, {2, 1}, 2);
  for (auto& p : parts) expect_view_of(p, x);
  expect_error(ErrorCode::InvalidArgument, "argument 'split_sizes' [2, 2] must sum exactly to 5", [&] {
    nat::split_with_sizes(x, {2, 2}, 0);
  });
  expect_error(ErrorCode::InvalidArgument, "non-negative entries", [&] { nat::split_with_sizes(x, {6, -1}, 0); });
  expect_error(ErrorCode::InvalidArgument, "must sum exactly", [&] {
    nat::split_with_sizes(x, {INT64_MAX, INT64_MAX, 7}, 0);
  });
}

TEST(Unbind, EveryIndex) {
  Tensor x = arange({2, 3});
  auto rows = nat::unbind_int(x, 1);
  ASSERT_EQ(rows.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    expect_view_of(rows[size_t(i)], x);
    expect_meta(rows[size_t(i)], {2}, {3}, i);
  }
  EXPECT_EQ(values(rows[2]), (D{2, 5}));
  EXPECT_TRUE(nat::unbind_int(arange({0, 3}), 0).empty());
  expect_error(ErrorCode::Index, "unbind: argument 'dim' (-3)", [&] { nat::unbind_int(x, -3); });
  expect_error(ErrorCode::Index, "0-dim", [&] { nat::unbind_int(arange({}), 0); });
}

// ---- diagonal, unfold -------------------------------------------------------

TEST(Diagonal, Offsets) {
  Tensor x = arange({3, 4});
  Tensor d = nat::diagonal(x, 0, 0, 1);
  expect_view_of(d, x);
  expect_meta(d, {3}, {5}, 0);
  EXPECT_EQ(values(d), (D{0, 5, 10}));
  EXPECT_EQ(values(nat::diagonal(x, 1, 0, 1)), (D{1, 6, 11}));
  EXPECT_EQ(values(nat::diagonal(x, 2, 0, 1)), (D{2, 7}));
  EXPECT_EQ(values(nat::diagonal(x, -1, 0, 1)), (D{4, 9}));
  EXPECT_EQ(values(nat::diagonal(x, 0, 1, 0)), (D{0, 5, 10}));
  expect_meta(nat::diagonal(x, 10, 0, 1), {0}, {5}, 0);
  expect_meta(nat::diagonal(x, INT64_MIN, 0, 1), {0}, {5}, 0);
  Tensor y = arange({2, 3, 4});
  expect_meta(nat::diagonal(y, 0, 1, 2), {2, 3}, {12, 5}, 0);
  expect_meta(nat::diagonal(y, 1, -1, 0), {3, 1}, {4, 13}, 12);
  expect_error(ErrorCode::InvalidArgument, "'dim1' and 'dim2' cannot be the same dimension (1)",
               [&] { nat::diagonal(y, 0, 1, -2); });
  expect_error(ErrorCode::Index, "diagonal: argument 'dim2' (1) is out of range",
               [&] { nat::diagonal(arange({3}), 0, 0, 1); });
}

TEST(Unfold, Windows) {
  Tensor x = arange({7});
  Tensor u = nat::unfold(x, 0, 3, 2);
  expect_view_of(u, x);
  expect_meta(u, {3, 3}, {2, 1}, 0);
  EXPECT_EQ(values(u), (D{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  Tensor m = arange({2, 5});
  expect_meta(nat::unfold(m, -1, 2, 1), {2, 4, 2}, {5, 1, 1}, 0);
  expect_meta(nat::unfold(m, 0, 2, 5), {1, 5, 2}, {25, 1, 5}, 0);
  expect_meta(nat::unfold(m, 1, 5, INT64_MAX), {2, 1, 5}, {5, INT64_MAX, 1}, 0);
  expect_meta(nat::unfold(m, 0, 1, INT64_MAX), {1, 5, 1}, {5, 1, 5}, 0);  // 5 * step overflows: kept
  expect_meta(nat::unfold(x, 0, 0, 3), {3, 0}, {3, 1}, 0);
  expect_meta(nat::unfold(arange({}), 0, 1, 1), {1}, {1}, 0);
  expect_error(ErrorCode::InvalidArgument, "argument 'size' (8) exceeds the size 7 of dimension 0",
               [&] { nat::unfold(x, 0, 8, 1); });
  expect_error(ErrorCode::InvalidArgument, "argument 'step' expected a positive value",
               [&] { nat::unfold(x, 0, 2, 0); });
  expect_error(ErrorCode::InvalidArgument, "argument 'size' expected a non-negative",
               [&] { nat::unfold(x, 0, -1, 1); });
  expect_error(ErrorCode::Index, "unfold: argument 'dimension' (1)", [&] { nat::unfold(x, 1, 1, 1); });
}

// Writes through a view land in the base's memory (views never copy).
TEST(Views, WritesAreShared) {
  Tensor x = arange({3, 4});
  Tensor col = nat::select_int(nat::transpose_int(x, 0, 1), 0, 2);  // x[:, 2]
  for (int64_t i = 0; i < 3; ++i)
    write_scalar(static_cast<float*>(col.data_ptr()) + i * col.stride(0), ScalarType::Float32, Scalar(-1.0));
  EXPECT_EQ(values(x), (D{0, 1, -1, 3, 4, 5, -1, 7, 8, 9, -1, 11}));
}

}  // namespace

// ---- part 2: copy-based composites (through the generated op functions) -----
#include "tensorc_gen/ops.h"

namespace {

TEST(Reshape, ViewWhenPossibleElseCopy) {
  Tensor x = arange({2, 3, 4});
  Tensor r = tc::reshape(x, {4, -1});
  expect_view_of(r, x);
  expect_meta(r, {4, 6}, {6, 1}, 0);
  Tensor tr = nat::transpose_int(arange({3, 4}), 0, 1);
  Tensor c = tc::reshape(tr, {12});
  EXPECT_NE(c.storage().get(), tr.storage().get());  // not viewable: a copy
  expect_meta(c, {12}, {1}, 0);
  EXPECT_EQ(values(c), values(tr));
  expect_error(ErrorCode::InvalidArgument, "reshape: argument 'shape' [5] is invalid for input of size 12",
               [&] { tc::reshape(tr, {5}); });
}

TEST(Flatten, MergesRange) {
  Tensor x = arange({2, 3, 4, 5});
  expect_meta(tc::flatten(x), {120}, {1}, 0);
  Tensor f = tc::flatten(x, 1, 2);
  expect_view_of(f, x);
  expect_meta(f, {2, 12, 5}, {60, 5, 1}, 0);
  EXPECT_TRUE(tc::flatten(x, 2, -2).is_same(x));
  expect_meta(tc::flatten(arange({})), {1}, {1}, 0);
  Tensor tr = nat::transpose_int(arange({3, 4}), 0, 1);
  EXPECT_EQ(values(tc::flatten(tr)), values(tr));  // copies
  expect_error(ErrorCode::InvalidArgument, "argument 'start_dim' (2) cannot come after argument 'end_dim' (1)",
               [&] { tc::flatten(x, 2, 1); });
  expect_error(ErrorCode::Index, "flatten: argument 'end_dim' (4)", [&] { tc::flatten(x, 0, 4); });
}

TEST(Narrow, StrictRange) {
  Tensor x = arange({5, 4});
  Tensor n = tc::narrow(x, 0, 1, 3);
  expect_view_of(n, x);
  expect_meta(n, {3, 4}, {4, 1}, 4);
  expect_meta(tc::narrow(x, -1, -2, 2), {5, 2}, {4, 1}, 2);
  expect_meta(tc::narrow(x, 0, 5, 0), {0, 4}, {4, 1}, 20);
  expect_error(ErrorCode::InvalidArgument, "narrow: start (3) + length (3) exceeds the size 5 of dimension 0",
               [&] { tc::narrow(x, 0, 3, 3); });
  expect_error(ErrorCode::Index, "argument 'start' (6)", [&] { tc::narrow(x, 0, 6, 0); });
  expect_error(ErrorCode::InvalidArgument, "argument 'length'", [&] { tc::narrow(x, 0, 0, -1); });
  expect_error(ErrorCode::Index, "0-dim", [&] { tc::narrow(arange({}), 0, 0, 0); });
}

TEST(Chunk, AtMostNPieces) {
  Tensor x = arange({5, 2});
  auto c = tc::chunk(x, 2);
  ASSERT_EQ(c.size(), 2u);
  expect_meta(c[0], {3, 2}, {2, 1}, 0);
  expect_meta(c[1], {2, 2}, {2, 1}, 6);
  expect_view_of(c[1], x);
  EXPECT_EQ(tc::chunk(x, 4).size(), 3u);  // ceil(5/4) = 2 per piece -> 3 pieces, as PyTorch
  EXPECT_EQ(tc::chunk(arange({0, 2}), 3).size(), 3u);
  expect_error(ErrorCode::InvalidArgument, "argument 'chunks' expected a positive value", [&] { tc::chunk(x, 0); });
}

TEST(ViewAsExpandAs, UseOthersSizes) {
  Tensor x = arange({2, 3});
  Tensor v = x.view_as(arange({3, 2}));
  expect_view_of(v, x);
  expect_meta(v, {3, 2}, {2, 1}, 0);
  Tensor e = arange({3, 1}).expand_as(arange({2, 3, 4}));
  expect_meta(e, {2, 3, 4}, {0, 1, 0}, 0);
}

TEST(Contiguous, SelfOrCopy) {
  Tensor x = arange({3, 4});
  EXPECT_TRUE(x.contiguous().is_same(x));
  Tensor tr = nat::transpose_int(x, 0, 1);
  Tensor c = tr.contiguous();
  EXPECT_NE(c.storage().get(), x.storage().get());
  expect_meta(c, {4, 3}, {3, 1}, 0);
  EXPECT_EQ(values(c), values(tr));
}

TEST(Clone, PreservesDenseStrides) {
  Tensor tr = nat::transpose_int(arange({3, 4}), 0, 1);  // dense, not contiguous
  Tensor c = tc::clone(tr);
  EXPECT_NE(c.storage().get(), tr.storage().get());
  EXPECT_NE(&c.impl()->version_counter(), &tr.impl()->version_counter());
  expect_meta(c, {4, 3}, {1, 4}, 0);
  EXPECT_EQ(values(c), values(tr));
  Tensor sl = nat::slice_Tensor(arange({4, 6}), 1, 0, std::nullopt, 2);  // not dense: row-major copy
  Tensor c2 = tc::clone(sl);
  expect_meta(c2, {4, 3}, {3, 1}, 0);
  EXPECT_EQ(values(c2), values(sl));
  Tensor ex = nat::expand(arange({1, 3}), {2, 3}, false);  // overlapping: row-major copy
  expect_meta(tc::clone(ex), {2, 3}, {3, 1}, 0);
}

TEST(To, SelfUnlessSomethingChanges) {
  Tensor x = arange({2, 3});
  EXPECT_TRUE(x.to(ScalarType::Float32).is_same(x));
  EXPECT_FALSE(x.to(ScalarType::Float32, false, true).is_same(x));
  Tensor d = x.to(ScalarType::Float64);
  EXPECT_EQ(d.dtype(), ScalarType::Float64);
  EXPECT_EQ(values(d), values(x));
  EXPECT_TRUE(x.to(Device(DeviceType::CPU), ScalarType::Float32).is_same(x));
  EXPECT_EQ(x.to(Device(DeviceType::CPU), ScalarType::Int64).dtype(), ScalarType::Int64);
  EXPECT_TRUE(x.to(arange({1})).is_same(x));
  EXPECT_EQ(x.to(d).dtype(), ScalarType::Float64);
  Tensor tr = nat::transpose_int(x, 0, 1);
  expect_meta(tr.to(ScalarType::Float64), {3, 2}, {1, 3}, 0);  // keeps the dense layout
}

TEST(Resize, GrowsAndShrinks) {
  Tensor x = arange({2, 3});
  x.resize_({3, 4});
  expect_meta(x, {3, 4}, {4, 1}, 0);
  EXPECT_EQ(values(tc::narrow(tc::flatten(x), 0, 0, 6)), (D{0, 1, 2, 3, 4, 5}));  // old values kept
  x.resize_({2});
  expect_meta(x, {2}, {1}, 0);
  Tensor tr = nat::transpose_int(arange({2, 3}), 0, 1);
  tr.resize_({3, 2});  // same size: strides kept, as PyTorch
  expect_meta(tr, {3, 2}, {1, 3}, 0);
  expect_error(ErrorCode::InvalidArgument, "non-negative", [&] { x.resize_({-1}); });
}

TEST(Resize, ExternalMemoryCannotGrow) {
  static float buf[6] = {0, 1, 2, 3, 4, 5};
  Tensor x = tensor_from_blob(buf, {6}, {}, ScalarType::Float32, Device(DeviceType::CPU), nullptr, nullptr);
  x.resize_({2, 3});  // fits: fine
  expect_meta(x, {2, 3}, {3, 1}, 0);
  expect_error(ErrorCode::Runtime, "wraps external memory", [&] { x.resize_({7}); });
  expect_meta(x, {2, 3}, {3, 1}, 0);  // unchanged after the error
}

}  // namespace
