// SPDX-License-Identifier: BSD-3-Clause
// The element-loop planner (TensorIter) and the CPU pointwise kernels,
// called directly (no dispatcher). Expected values are computed by hand or
// taken from PyTorch 1.13 on the same inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "core/iter.h"
#include "core/overlap.h"
#include "core/parallel.h"
#include "cpu/loops.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

using namespace tc;
using namespace tc::native;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr ScalarType F32 = ScalarType::Float32, F64 = ScalarType::Float64, I64 = ScalarType::Int64,
                     I32 = ScalarType::Int32, I8 = ScalarType::Int8, U8 = ScalarType::UInt8, B = ScalarType::Bool,
                     F16 = ScalarType::Float16, BF16 = ScalarType::BFloat16;

// A contiguous tensor of `sizes` holding `vals` (row-major).
Tensor make(std::vector<double> vals, std::vector<int64_t> sizes, ScalarType dt) {
  Tensor t = empty_tensor(sizes, dt);
  EXPECT_EQ(int64_t(vals.size()), t.numel());
  const size_t es = t.element_size();
  for (size_t i = 0; i < vals.size(); ++i) {
    Scalar s = dt == B ? Scalar(vals[i] != 0) : is_floating(dt) ? Scalar(vals[i]) : Scalar(int64_t(vals[i]));
    write_scalar(static_cast<char*>(t.data_ptr()) + i * es, dt, s);
  }
  return t;
}
Tensor vec(std::vector<double> vals, ScalarType dt = F32) { return make(vals, {int64_t(vals.size())}, dt); }
Tensor scalar_tensor(double v, ScalarType dt) { return make({v}, {}, dt); }

// Elements in logical row-major order, as doubles.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(read_element(t, i).to_double());
  return out;
}

// A transposed view of a contiguous 2-D tensor.
Tensor transpose2d(const Tensor& t) {
  return make_view(t, {t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]}, t.storage_offset());
}

void expect_values(const Tensor& t, std::vector<double> expected, double tol = 0) {
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " = " << got[i];
    } else if (tol == 0) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
    }
  }
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

std::vector<int64_t> shape_of(const TensorIter& it) { return it.shape().vec(); }

}  // namespace

// ===========================================================================
// Planner
// ===========================================================================

TEST(Planner, ContiguousFastPathIsOneRun) {
  Tensor a = make({1, 2, 3, 4, 5, 6}, {2, 3}, F32), b = make({6, 5, 4, 3, 2, 1}, {2, 3}, F32), out;
  TensorIter it("test");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(it.ndim(), 1);
  EXPECT_EQ(shape_of(it), (std::vector<int64_t>{6}));
  EXPECT_TRUE(it.is_contiguous());
  ASSERT_TRUE(out.defined());
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(out.is_contiguous());
  int calls = 0;
  it.for_each([&](char** data, const int64_t* s, int64_t n) {
    ++calls;
    EXPECT_EQ(n, 6);
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<float*>(data[0] + i * s[0]) =
          *reinterpret_cast<float*>(data[1] + i * s[1]) + *reinterpret_cast<float*>(data[2] + i * s[2]);
  });
  EXPECT_EQ(calls, 1);
  expect_values(out, {7, 7, 7, 7, 7, 7});
}

TEST(Planner, BroadcastCoalescesToTwoDims) {
  // [2,3,4] + [4]: dims 0 and 1 merge (both contiguous in a, both broadcast in b).
  std::vector<double> av(24);
  for (int i = 0; i < 24; ++i) av[size_t(i)] = i;
  Tensor a = make(av, {2, 3, 4}, F32), b = vec({100, 200, 300, 400}), out;
  TensorIter it("test");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(shape_of(it), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(it.byte_stride(2, 0), 4);
  EXPECT_EQ(it.byte_stride(2, 1), 0);
  EXPECT_EQ(it.byte_stride(1, 1), 16);
  EXPECT_FALSE(it.is_contiguous());
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(out.is_contiguous());
}

TEST(Planner, ScalarOperandsAreStrideZero) {
  Tensor a = vec({1, 2, 3}), z = scalar_tensor(2, F64), out;
  TensorIter it("test");
  it.add_output(out).add_input(a).add_input(z).add_scalar_input(Scalar(int64_t(7))).promote_inputs();
  it.build();
  EXPECT_EQ(it.common_dtype(), F32);  // zero-dim and numbers do not raise a dimensioned float32
  EXPECT_TRUE(it.is_contiguous());
  EXPECT_TRUE(it.is_scalar(2));
  EXPECT_TRUE(it.is_scalar(3));
  EXPECT_FALSE(it.is_scalar(1));
  EXPECT_EQ(*reinterpret_cast<float*>(it.data(2)), 2.0f);  // converted into the inline buffer
  EXPECT_EQ(*reinterpret_cast<float*>(it.data(3)), 7.0f);
}

TEST(Planner, TransposedInputsGiveTransposedOutput) {
  Tensor base = make({1, 2, 3, 4, 5, 6}, {2, 3}, F32);
  Tensor t = transpose2d(base);  // [3,2], strides [1,3]
  Tensor out;
  TensorIter it("test");
  it.add_output(out).add_input(t).add_input(t).promote_inputs();
  it.build();
  EXPECT_EQ(it.ndim(), 1);  // same layout everywhere: one dense run
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(out.strides().vec(), (std::vector<int64_t>{1, 3}));  // as PyTorch: follows the input
  Tensor sum = structured_add_Tensor_cpu(t, t, 1);
  EXPECT_EQ(sum.strides().vec(), (std::vector<int64_t>{1, 3}));
  expect_values(sum, {2, 8, 4, 10, 6, 12});
}

TEST(Planner, MixedLayoutsFollowTheOutputOrder) {
  Tensor base = make({1, 2, 3, 4, 5, 6}, {2, 3}, F32);
  Tensor t = transpose2d(base);                            // logical [[1,4],[2,5],[3,6]]
  Tensor c = make({10, 20, 30, 40, 50, 60}, {3, 2}, F32);  // contiguous
  Tensor out = empty_tensor({3, 2}, F32);
  structured_add_out_cpu(t, c, 1, out);
  expect_values(out, {11, 24, 32, 45, 53, 66});
  Tensor r = structured_add_Tensor_cpu(c, t, 1);
  EXPECT_TRUE(r.is_contiguous());  // first input's layout wins the tie
  expect_values(r, {11, 24, 32, 45, 53, 66});
}

TEST(Planner, OuterBroadcast) {
  Tensor col = make({1, 2, 3}, {3, 1}, I64), row = make({10, 20, 30, 40}, {1, 4}, I64);
  Tensor r = structured_add_Tensor_cpu(col, row, 1);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
}

TEST(Planner, ZeroSizeRunsNoLoop) {
  Tensor a = empty_tensor({0, 3}, F32), b = vec({1, 2, 3}), out;
  TensorIter it("test");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(it.numel(), 0);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{0, 3}));
  bool called = false;
  it.for_each([&](char**, const int64_t*, int64_t) { called = true; });
  EXPECT_FALSE(called);
  EXPECT_EQ(structured_add_Tensor_cpu(a, b, 1).numel(), 0);
}

TEST(Planner, ZeroDim) {
  Tensor a = scalar_tensor(3, I64), b = scalar_tensor(4, I32);
  Tensor r = structured_mul_Tensor_cpu(a, b);
  EXPECT_EQ(r.dim(), 0);
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {12});
}

TEST(Planner, SerialRangesVisitEveryElementOnce) {
  // A non-coalescable 3-D iteration (a sliced input), split into odd ranges.
  std::vector<double> v(4 * 5 * 6);
  Tensor base = make(v, {4, 5, 6}, F32);
  Tensor sliced = make_view(base, {4, 3, 6}, {30, 6, 1}, 6);  // rows 1..3 of dim 1
  Tensor out;
  TensorIter it("test");
  it.add_output(out).add_input(sliced).promote_inputs();
  it.build();
  EXPECT_GE(it.ndim(), 2);
  std::vector<int> seen(size_t(it.numel()), 0);
  char* out0 = it.data(0);
  auto mark = [&](char** data, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) ++seen[size_t((data[0] + i * s[0] - out0) / 4)];
  };
  const int64_t cuts[] = {0, 1, 7, 8, 29, 30, 31, 50, it.numel()};
  for (size_t k = 0; k + 1 < sizeof(cuts) / sizeof(cuts[0]); ++k) it.serial_for_each(mark, cuts[k], cuts[k + 1]);
  for (int c : seen) EXPECT_EQ(c, 1);
}

TEST(Planner, ParallelLargeBroadcastAdd) {
  const int64_t rows = 700, cols = 333;  // > grain, odd sizes
  std::vector<double> av(static_cast<size_t>(rows * cols)), bv(static_cast<size_t>(cols));
  for (int64_t i = 0; i < rows * cols; ++i) av[size_t(i)] = double(i % 1000);
  for (int64_t j = 0; j < cols; ++j) bv[size_t(j)] = double(j);
  Tensor a = make(av, {rows, cols}, F64), b = make(bv, {cols}, F64);
  Tensor at = transpose2d(make(av, {cols, rows}, F64));  // non-contiguous operand too
  Tensor r = structured_add_Tensor_cpu(a, b, 2);
  Tensor r2 = structured_add_Tensor_cpu(at, b, 1);
  std::vector<double> got = values(r), got2 = values(r2), atv = values(at);
  for (int64_t i = 0; i < rows * cols; ++i) {
    ASSERT_EQ(got[size_t(i)], av[size_t(i)] + 2 * bv[size_t(i % cols)]);
    ASSERT_EQ(got2[size_t(i)], atv[size_t(i)] + bv[size_t(i % cols)]);
  }
  // The callback runs on several threads when allowed.
  if (get_num_threads() > 1) {
    std::atomic<int> calls{0};
    Tensor out;
    TensorIter it("test");
    it.add_output(out).add_input(a).promote_inputs();
    it.build();
    it.for_each([&](char**, const int64_t*, int64_t) { ++calls; }, 1024);
    EXPECT_GT(calls.load(), 1);
  }
}

TEST(Planner, BroadcastShapeMismatchIsInvalidArgument) {
  Tensor a = vec({1, 2}), b = vec({1, 2, 3});
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_Tensor_cpu(a, b, 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
}

TEST(Planner, InPlaceShapeMustMatch) {
  Tensor a = vec({1, 2}), b = make({1, 2, 3, 4}, {2, 2}, F32);
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(a, b, 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("doesn't match the broadcast shape"), std::string::npos) << msg;
  expect_values(a, {1, 2});
}

TEST(Planner, EmptyOutIsResized) {
  Tensor a = vec({1, 2}), out = empty_tensor({0}, F32);
  structured_add_out_cpu(a, a, 1, out);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2}));
  expect_values(out, {2, 4});
}

TEST(Planner, NonEmptyOutOfAnotherShapeIsRefusedAndKept) {
  Tensor a = vec({1, 2}), out = vec({7, 7, 7, 7, 7});
  const uint32_t v0 = out.version();
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_out_cpu(a, a, 1, out); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("pass an empty tensor"), std::string::npos) << msg;
  expect_values(out, {7, 7, 7, 7, 7});
  EXPECT_EQ(out.version(), v0);
}

TEST(Planner, FailedOutIsNotResized) {
  // out is an empty view into x's storage; resized, it would overlap x partly.
  Tensor x = vec({1, 2, 3, 4});
  Tensor out = make_view(x, {0}, {1}, 1);
  const void* before = x.data_ptr();
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_out_cpu(x, x, 1, out); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("refer to a single memory location"), std::string::npos) << msg;
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{0}));
  EXPECT_EQ(x.data_ptr(), before);  // the shared storage did not grow
  expect_values(x, {1, 2, 3, 4});
}

TEST(Planner, TransposedSelfOverlapIsRefusedAndKept) {
  Tensor x = make({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}, F32);
  Tensor xt = transpose2d(x);
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(x, xt, 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("refer to a single memory location"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { structured_add_out_cpu(x, x, 1, xt); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { copy_inplace_cpu(x, xt, false); }), ErrorCode::InvalidArgument);
  expect_values(x, {1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST(Planner, DisjointColumnsOfOneMatrixAreNotOverlap) {
  // Byte ranges meet, elements do not: the exact check lets it run.
  Tensor x = make({1, 2, 3, 4, 5, 6}, {3, 2}, F32);
  Tensor c0 = make_view(x, {3}, {2}, 0), c1 = make_view(x, {3}, {2}, 1);
  structured_add_inplace_Tensor_cpu(c0, c1, 1);
  expect_values(x, {3, 2, 7, 4, 11, 6});
}

TEST(MemoryOverlap, ExactWhereRangesMeet) {
  using V = std::vector<int64_t>;
  const V s1{1}, s2{2}, s3{3}, sz2{2}, sz3{3};
  // Even and odd elements of [0, 6).
  EXPECT_EQ(memory_overlap({0, sz3, s2, 4}, {1, sz3, s2, 4}), Overlap::None);
  EXPECT_EQ(memory_overlap({0, sz3, s2, 4}, {2, sz3, s2, 4}), Overlap::Shared);
  // Bytes: the float at element 1 lies inside the 8-byte element 0.
  EXPECT_EQ(memory_overlap({1, sz2, s3, 4}, {0, sz2, s3, 8}), Overlap::Shared);
  EXPECT_EQ(memory_overlap({2, sz2, s3, 4}, {0, sz2, s3, 4}), Overlap::None);
  // A 3x3 matrix and its transpose share the diagonal.
  const V sz33{3, 3}, row{3, 1}, col{1, 3};
  EXPECT_EQ(memory_overlap({0, sz33, row, 4}, {0, sz33, col, 4}), Overlap::Shared);
  // Disjoint ranges.
  EXPECT_EQ(memory_overlap({0, sz3, s1, 4}, {3, sz3, s1, 4}), Overlap::None);
  // Strides (3, 1), sizes (2, 2) reach {0, 1, 3, 4}; shifted by 2: {2, 3, 5, 6}.
  const V sz22{2, 2}, st31{3, 1}, st41{4, 1};
  EXPECT_EQ(memory_overlap({0, sz22, st31, 1}, {2, sz22, st31, 1}), Overlap::Shared);
  // Strides (4, 1): {0, 1, 4, 5} against {2, 3, 6, 7}.
  EXPECT_EQ(memory_overlap({0, sz22, st41, 1}, {2, sz22, st41, 1}), Overlap::None);
}

TEST(Planner, OutputOfWiderDtypeGoesThroughTemporary) {
  Tensor a = vec({1.5, 2.25}), out = empty_tensor({2}, F64);
  uint32_t v0 = out.version();
  structured_add_out_cpu(a, a, 1, out);
  EXPECT_EQ(out.dtype(), F64);
  expect_values(out, {3, 4.5});
  EXPECT_GT(out.version(), v0);
  // int compute into a float out is allowed; float compute into int is not.
  Tensor i = vec({3, -2}, I64), fo = empty_tensor({2}, F32);
  structured_add_out_cpu(i, i, 1, fo);
  expect_values(fo, {6, -4});
}

TEST(Planner, InPlaceUnsafeCastIsTypeErrorAndLeavesSelf) {
  Tensor i = vec({3, -2}, I64), f = vec({0.5, 0.5});
  std::string msg;
  const uint32_t v0 = i.version();
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(i, f, 1); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
  expect_values(i, {3, -2});
  EXPECT_EQ(i.version(), v0);
  EXPECT_EQ(error_of([&] { structured_mul_inplace_Scalar_cpu(i, Scalar(1.5)); }), ErrorCode::Type);
  Tensor b = vec({1, 0}, B);
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(b, i, 1); }), ErrorCode::Type);
}

TEST(Planner, InPlaceUpcastInputComputesInWiderType) {
  Tensor f = vec({1.5, 2.5}), d = vec({0.25, 0.25}, F64);
  structured_add_inplace_Tensor_cpu(f, d, 1);
  EXPECT_EQ(f.dtype(), F32);
  expect_values(f, {1.75, 2.75});
}

TEST(Planner, OverlapChecks) {
  Tensor base = vec({1, 2});
  Tensor expanded = make_view(base, {3, 2}, {0, 1}, 0);
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_add_inplace_Scalar_cpu(expanded, 1, 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("more than one element"), std::string::npos) << msg;
  Tensor x = vec({1, 1, 1, 1});
  Tensor tail = make_view(x, {3}, {1}, 1), head = make_view(x, {3}, {1}, 0);
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(tail, head, 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("refer to a single memory location"), std::string::npos) << msg;
  expect_values(x, {1, 1, 1, 1});
  structured_add_inplace_Tensor_cpu(x, x, 1);  // full overlap is fine
  expect_values(x, {2, 2, 2, 2});
}

TEST(Planner, NonContiguousInputIsConverted) {
  Tensor base = make({1, 2, 3, 4, 5, 6}, {2, 3}, I32);
  Tensor t = transpose2d(base);
  Tensor r = structured_add_Scalar_cpu(t, Scalar(0.5), 1);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {1.5, 4.5, 2.5, 5.5, 3.5, 6.5});
}

TEST(Planner, ManyDimsUseTheHeapPath) {
  std::vector<int64_t> sizes(10, 2);
  std::vector<double> v(1024);
  for (int i = 0; i < 1024; ++i) v[size_t(i)] = i;
  Tensor a = make(v, sizes, F32);
  std::vector<int64_t> bs(10, 1);
  bs[0] = 2;
  Tensor b = make({1000, 2000}, bs, F32);
  Tensor r = structured_add_Tensor_cpu(a, b, 1);
  std::vector<double> got = values(r);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(got[size_t(i)], i + (i < 512 ? 1000 : 2000));
}

TEST(Planner, ThirteenDimsThatCannotCoalesce) {
  // a walks base's dims in reverse order, b is contiguous: the orders
  // conflict, nothing coalesces, and every geometry buffer spills to the heap.
  const int nd = 13;
  std::vector<int64_t> sizes(nd, 2), rev(nd);
  std::vector<double> v(size_t(1) << nd);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  for (int d = 0; d < nd; ++d) rev[size_t(d)] = int64_t(1) << d;
  Tensor base = make(v, sizes, F32);
  Tensor a = make_view(base, sizes, rev, 0), b = make(v, sizes, F32), out;
  TensorIter it("test");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(it.ndim(), nd);
  Tensor r = structured_add_Tensor_cpu(a, b, 1);
  std::vector<double> got = values(r), av = values(a);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(got[i], av[i] + v[i]) << i;
}

TEST(Planner, CastLoopMatchesPyTorchConversions) {
  Tensor src = vec({-1.0, 300.0, 2.7, -2.7});
  Tensor u8 = empty_tensor({4}, U8), i32 = empty_tensor({4}, I32), b = empty_tensor({4}, B);
  copy_inplace_cpu(u8, src, false);
  copy_inplace_cpu(i32, src, false);
  copy_inplace_cpu(b, vec({0.1, 0, -0.0, kNaN}), false);
  expect_values(u8, {255, 44, 2, 254});
  expect_values(i32, {-1, 300, 2, -2});
  expect_values(b, {1, 0, 0, 1});
}

TEST(Planner, OneElementViewOfOutputIsPartialOverlap) {
  Tensor x = vec({1, 1, 1, 1});
  Tensor first = make_view(x, {}, {}, 0);  // x[0]
  EXPECT_EQ(error_of([&] { structured_add_inplace_Tensor_cpu(x, first, 1); }),
            ErrorCode::InvalidArgument);  // as PyTorch
  expect_values(x, {1, 1, 1, 1});
}

// ===========================================================================
// copy / fill
// ===========================================================================

TEST(Copy, BroadcastTransposedAndReducedTypes) {
  Tensor dst = empty_tensor({2, 3}, F64);
  copy_inplace_cpu(dst, vec({1, 2, 3}, I64), false);
  expect_values(dst, {1, 2, 3, 1, 2, 3});
  Tensor src = make({1, 2, 3, 4, 5, 6}, {3, 2}, F32);
  copy_inplace_cpu(dst, transpose2d(src), false);
  expect_values(dst, {1, 3, 5, 2, 4, 6});
  Tensor h = empty_tensor({3}, F16), bf = empty_tensor({3}, BF16);
  copy_inplace_cpu(h, vec({0.1, 65504, 1e6}), false);
  copy_inplace_cpu(bf, vec({0.1, 1.0, -3.5}), false);
  expect_values(h, {0.0999755859375, 65504, kInf});
  expect_values(bf, {0.10009765625, 1.0, -3.5});
  Tensor bad = empty_tensor({3}, F32);
  EXPECT_EQ(error_of([&] { copy_inplace_cpu(bad, vec({1, 2}), false); }), ErrorCode::InvalidArgument);
  const uint32_t v0 = dst.version();
  copy_inplace_cpu(dst, dst, false);
  Tensor c = copy_cpu(dst, scalar_tensor(7, I32), false);
  EXPECT_EQ(c.dtype(), F64);
  expect_values(c, {7, 7, 7, 7, 7, 7});
  EXPECT_GE(dst.version(), v0);
}

TEST(Copy, LargeTransposeIsTiledAndExact) {
  const int64_t r = 301, c = 203;  // not multiples of the tile
  std::vector<double> v(size_t(r * c));
  for (int64_t i = 0; i < r * c; ++i) v[size_t(i)] = double(i);
  Tensor src = make(v, {c, r}, F64);
  Tensor dst = empty_tensor({r, c}, F32);
  copy_inplace_cpu(dst, transpose2d(src), false);
  std::vector<double> got = values(dst);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) ASSERT_EQ(got[size_t(i * c + j)], double(j * r + i)) << i << "," << j;
  // And the other way round: a transposed destination.
  Tensor dst2 = empty_tensor({c, r}, I64);
  Tensor dst2t = transpose2d(dst2);
  copy_inplace_cpu(dst2t, make(v, {r, c}, F64), false);
  got = values(dst2);
  for (int64_t i = 0; i < c; ++i)
    for (int64_t j = 0; j < r; ++j) ASSERT_EQ(got[size_t(i * r + j)], double(j * c + i));
}

TEST(Fill, ScalarTensorAndZero) {
  Tensor t = empty_tensor({2, 3}, I32);
  const uint32_t v0 = t.version();
  fill_inplace_cpu(t, Scalar(2.7));
  expect_values(t, {2, 2, 2, 2, 2, 2});
  EXPECT_GT(t.version(), v0);
  Tensor u = empty_tensor({2}, U8);
  fill_inplace_cpu(u, Scalar(int64_t(-1)));
  expect_values(u, {255, 255});
  Tensor b = empty_tensor({2}, B);
  fill_tensor_inplace_cpu(b, scalar_tensor(2, I64));
  expect_values(b, {1, 1});
  Tensor h = empty_tensor({3}, F16);
  fill_inplace_cpu(h, Scalar(1.5));
  expect_values(h, {1.5, 1.5, 1.5});
  Tensor base = make({1, 2, 3, 4, 5, 6}, {2, 3}, F64);
  Tensor col = make_view(base, {2}, {3}, 1);  // a strided column
  zero_inplace_cpu(col);
  expect_values(base, {1, 0, 3, 4, 0, 6});
  Tensor two = vec({1, 2});
  Tensor expanded = make_view(two, {3, 2}, {0, 1}, 0);
  fill_inplace_cpu(expanded, Scalar(5.0));  // allowed, as in PyTorch
  expect_values(two, {5, 5});
  std::string msg;
  EXPECT_EQ(error_of(
                [&] {
                  copy_inplace_cpu(expanded, make({1, 2, 3, 4, 5, 6}, {3, 2}, F32), false);
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { fill_tensor_inplace_cpu(t, vec({1})); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("0-dimension"), std::string::npos) << msg;
  Tensor f = fill_cpu(t, Scalar(int64_t(9)));
  EXPECT_EQ(f.dtype(), I32);
  expect_values(f, {9, 9, 9, 9, 9, 9});
  expect_values(fill_tensor_cpu(u, scalar_tensor(3, F32)), {3, 3});
}

// ===========================================================================
// Binary arithmetic
// ===========================================================================

TEST(Binary, AddPromotionAndAlpha) {
  Tensor i = vec({3, -2}, I64), f = vec({1.5, kNaN}), i8 = vec({1}, I8);
  Tensor r = structured_add_Scalar_cpu(i, Scalar(1.5), Scalar(int64_t(2)));
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {6, 1});
  r = structured_add_Tensor_cpu(i8, scalar_tensor(1000, I64), 1);  // zero-dim does not promote; 1000 wraps to -24
  EXPECT_EQ(r.dtype(), I8);
  expect_values(r, {-23});
  r = structured_add_Tensor_cpu(vec({1}, F16), scalar_tensor(1.0, F64), 1);
  EXPECT_EQ(r.dtype(), F16);
  expect_values(r, {2});
  r = structured_add_Scalar_cpu(vec({200}, U8), Scalar(int64_t(-1)), 1);
  EXPECT_EQ(r.dtype(), U8);
  expect_values(r, {199});
  r = structured_add_Tensor_cpu(vec({1, 0}, B), vec({1, 0}, B), Scalar(int64_t(2)));
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {1, 0});
  expect_values(structured_add_Tensor_cpu(f, f, Scalar(0.5)), {2.25, kNaN});
  EXPECT_EQ(error_of([&] { structured_add_Tensor_cpu(i, i, Scalar(1.5)); }), ErrorCode::Type);
  EXPECT_EQ(error_of([&] { structured_add_Tensor_cpu(f, f, Scalar(true)); }), ErrorCode::Type);
}

TEST(Binary, AddInPlaceAndOutBumpVersion) {
  Tensor a = vec({1, 2, 3});
  const uint32_t v0 = a.version();
  structured_add_inplace_Scalar_cpu(a, Scalar(1.0), Scalar(2.0));
  expect_values(a, {3, 4, 5});
  EXPECT_GT(a.version(), v0);
  structured_add_inplace_Tensor_cpu(a, scalar_tensor(1, I64), 1);
  expect_values(a, {4, 5, 6});
  structured_mul_inplace_Tensor_cpu(a, vec({2, 0.5, -1}));
  expect_values(a, {8, 2.5, -6});
  Tensor out = empty_tensor({0}, F32);
  structured_mul_out_cpu(a, a, out);
  expect_values(out, {64, 6.25, 36});
}

TEST(Binary, SubAndRsub) {
  Tensor b = vec({1, 0}, B), i = vec({3, -2}, I64), f = vec({1.5, 4});
  std::string msg;
  EXPECT_EQ(error_of([&] { structured_sub_Tensor_cpu(b, b, 1); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("two bool tensors"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { structured_sub_Tensor_cpu(b, i, 1); }, &msg), ErrorCode::Type);
  EXPECT_EQ(error_of([&] { rsub_cpu(b, b, 1); }), ErrorCode::Type);
  expect_values(structured_sub_Scalar_cpu(i, Scalar(1.5), Scalar(int64_t(2))), {0, -5});
  expect_values(rsub_scalar_cpu(i, Scalar(int64_t(1)), 1), {-2, 3});
  expect_values(rsub_scalar_cpu(f, Scalar(int64_t(1)), Scalar(int64_t(2))), {-2, -7});
  expect_values(structured_sub_Tensor_cpu(f, i, 1), {-1.5, 6});
  Tensor m = vec({10, 20}, I32);
  structured_sub_inplace_Tensor_cpu(m, vec({1, 2}, I32), Scalar(int64_t(3)));
  expect_values(m, {7, 14});
}

TEST(Binary, MulBoolAndMixed) {
  Tensor b = vec({1, 0}, B);
  Tensor r = structured_mul_Tensor_cpu(b, b);
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {1, 0});
  r = structured_mul_Scalar_cpu(b, Scalar(2.5));
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {2.5, 0});
  r = structured_mul_Scalar_cpu(vec({1}, U8), Scalar(int64_t(-1)));
  expect_values(r, {255});
}

TEST(Binary, TrueDivision) {
  Tensor i = vec({3, -2}, I64);
  Tensor r = structured_div_Scalar_cpu(i, Scalar(int64_t(0)));
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {kInf, -kInf});
  r = structured_div_Tensor_cpu(i, vec({2, 4}, I32));
  expect_values(r, {1.5, -0.5});
  Tensor d = vec({1, 2}, F64);
  structured_div_inplace_Tensor_cpu(d, vec({4, 8}));
  expect_values(d, {0.25, 0.25});
  Tensor in = vec({1, 2}, I64);
  EXPECT_EQ(error_of([&] {
              structured_div_inplace_Tensor_cpu(in, vec({1, 2}, I64));
            }),
            ErrorCode::Type);  // float result
}

TEST(Binary, RoundingDivision) {
  Tensor i = vec({7, -7, 6, -6}, I64), d = vec({2, 2, -4, -4}, I64);
  expect_values(div_mode_cpu(i, d, "trunc"), {3, -3, -1, 1});
  expect_values(div_mode_cpu(i, d, "floor"), {3, -4, -2, 1});
  EXPECT_EQ(div_mode_cpu(i, d, "floor").dtype(), I64);
  expect_values(div_mode_cpu(i, d, std::nullopt), {3.5, -3.5, -1.5, 1.5});
  Tensor f = vec({-3, 3, -7, 0});
  expect_values(div_scalar_mode_cpu(f, Scalar(2.0), "floor"), {-2, 1, -4, 0});
  expect_values(div_scalar_mode_cpu(f, Scalar(0.0), "floor"), {-kInf, kInf, -kInf, kNaN});
  expect_values(div_scalar_mode_cpu(f, Scalar(2.0), "trunc"), {-1, 1, -3, 0});
  expect_values(floor_divide_scalar_cpu(vec({-7}, I64), Scalar(int64_t(2))), {-4});
  expect_values(floor_divide_cpu(vec({-7.5, 7.5}), vec({2, -2})), {-4, -4});
  std::string msg;
  EXPECT_EQ(error_of([&] { div_mode_cpu(i, d, "xx"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("rounding_mode"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { div_mode_cpu(vec({1}, B), vec({1}, B), "trunc"); }), ErrorCode::Type);
  // INT_MIN / -1 wraps instead of trapping.
  Tensor mn = vec({double(std::numeric_limits<int32_t>::min())}, I32);
  expect_values(div_scalar_mode_cpu(mn, Scalar(int64_t(-1)), "floor"), {double(std::numeric_limits<int32_t>::min())});
  expect_values(tc::remainder(mn, Scalar(int64_t(-1))), {0});
}

TEST(Binary, IntegerDivisionByZeroIsAnErrorBeforeWriting) {
  Tensor i = vec({3, -2}, I64);
  std::string msg;
  EXPECT_EQ(error_of([&] { div_scalar_mode_cpu(i, Scalar(int64_t(0)), "floor"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_EQ(msg, "div: integer division by zero");
  EXPECT_EQ(error_of([&] { div_mode_cpu(i, vec({0, 1}, I64), "trunc"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { tc::remainder(i, Scalar(int64_t(0))); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_of([&] { tc::fmod(i, vec({1, 0}, I64)); }), ErrorCode::InvalidArgument);
  // fmod and remainder (the binary_modulo family): zero after conversion too,
  // for a tensor or a number, before anything is written.
  EXPECT_EQ(error_of([&] { tc::fmod(vec({5}, U8), scalar_tensor(256, I64)); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_EQ(msg, "fmod: integer division by zero");
  EXPECT_EQ(error_of([&] { tc::remainder(vec({5}, U8), Scalar(int64_t(512))); }), ErrorCode::InvalidArgument);
  Tensor target = vec({5, 6}, I64);
  EXPECT_EQ(error_of([&] { tc::fmod_(target, vec({2, 0}, I32)); }), ErrorCode::InvalidArgument);
  expect_values(target, {5, 6});
  expect_values(tc::fmod(vec({5}, U8), scalar_tensor(259, I64)), {2});  // 259 is 3 as uint8
  EXPECT_EQ(error_of([&] { floor_divide_cpu(i, scalar_tensor(0, I32)); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_EQ(msg, "floor_divide: integer division by zero");
  // A zero-dim divisor that is zero only after conversion to uint8 (256).
  EXPECT_EQ(error_of([&] { floor_divide_cpu(vec({5}, U8), scalar_tensor(256, I64)); }), ErrorCode::InvalidArgument);
}

TEST(Binary, Pow) {
  Tensor i = vec({3, -2}, I64);
  std::string msg;
  EXPECT_EQ(error_of([&] { pow_tensor_scalar_cpu(i, Scalar(int64_t(-1))); }, &msg), ErrorCode::InvalidArgument);
  expect_values(pow_tensor_tensor_cpu(vec({0, 2, -2, 1, -1, -1}, I64), vec({-1, -1, -1, -2, -3, -2}, I64)),
                {0, 0, 0, 1, -1, 1});
  Tensor r = pow_tensor_scalar_cpu(vec({1, 0}, B), Scalar(int64_t(2)));
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {1, 0});
  expect_values(pow_scalar_cpu(Scalar(int64_t(2)), i), {8, 0});
  r = pow_scalar_cpu(Scalar(2.5), i);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {15.625, 0.16}, 1e-6);
  r = pow_tensor_scalar_cpu(i, Scalar(0.5));
  expect_values(r, {std::sqrt(3.0), kNaN}, 1e-6);
  expect_values(pow_tensor_scalar_cpu(vec({2, -3}), Scalar(2.0)), {4, 9});
  expect_values(pow_tensor_scalar_cpu(vec({2, -3}), Scalar(3.0)), {8, -27});
  expect_values(pow_tensor_scalar_cpu(vec({2, 4}), Scalar(-1.0)), {0.5, 0.25});
  expect_values(pow_tensor_scalar_cpu(vec({2, 4}), Scalar(-2.0)), {0.25, 0.0625});
  expect_values(pow_tensor_scalar_cpu(vec({4, 16}), Scalar(-0.5)), {0.5, 0.25});
  expect_values(pow_tensor_scalar_cpu(vec({2, 4}, F64), Scalar(1.5)), {std::pow(2.0, 1.5), 8});
  expect_values(pow_tensor_scalar_cpu(vec({3}, I32), Scalar(int64_t(4))), {81});
  EXPECT_EQ(error_of([&] { pow_tensor_tensor_cpu(vec({1}, B), vec({1}, B)); }), ErrorCode::Type);
  r = pow_tensor_tensor_cpu(scalar_tensor(2, F64), vec({2}, F32));
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {4});
}

TEST(Binary, Atan2FmodRemainder) {
  Tensor i = vec({3, -2}, I64);
  Tensor r = atan2_cpu(i, i);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {0.7853981852531433, -2.356194496154785}, 1e-6);
  expect_values(tc::remainder(vec({-3, 3}), vec({2, -2})), {1, -1});
  expect_values(tc::fmod(vec({-3, 3}), Scalar(int64_t(2))), {-1, 1});
  expect_values(tc::remainder(vec({-7}, I64), vec({3}, I64)), {2});
  expect_values(tc::fmod(vec({-7}, I64), vec({3}, I64)), {-1});
  expect_values(tc::remainder(vec({-7, 7}), Scalar(0.0)), {kNaN, kNaN});
  expect_values(remainder_scalar_tensor_cpu(Scalar(int64_t(2)), i), {2, 0});
  EXPECT_EQ(error_of([&] { tc::fmod(vec({1}, B), vec({1}, B)); }), ErrorCode::Type);
}

TEST(Binary, MaximumMinimum) {
  Tensor f = vec({1.5, kNaN, -1}), one = vec({1, 1, 1});
  expect_values(maximum_cpu(f, one), {1.5, kNaN, 1});
  expect_values(minimum_cpu(one, f), {1, kNaN, -1});
  Tensor r = minimum_cpu(vec({1, 0}, B), vec({3, -2}, I64));
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {1, -2});
  r = maximum_cpu(vec({1, 0}, B), vec({0, 0}, B));
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {1, 0});
}

TEST(Binary, ReducedFloatsComputeInFloat) {
  Tensor h = vec({1000, 0.1}, F16), bf = vec({256, 1}, BF16);
  Tensor r = structured_add_Tensor_cpu(h, h, Scalar(0.5));
  EXPECT_EQ(r.dtype(), F16);
  expect_values(r, {1500, 0.1499023438}, 1e-6);
  r = structured_mul_Tensor_cpu(bf, bf);
  EXPECT_EQ(r.dtype(), BF16);
  expect_values(r, {65536, 1});
  r = structured_add_Tensor_cpu(h, bf, 1);  // half + bfloat16 -> float32
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {1256, 1.0999755859375});
}

// ===========================================================================
// Comparisons, logical, bitwise
// ===========================================================================

TEST(Compare, ProducesBool) {
  Tensor i = vec({3, -2}, I64);
  Tensor r = structured_eq_Scalar_cpu(i, Scalar(1.5));
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {0, 0});
  expect_values(structured_lt_Scalar_cpu(vec({1, 0}, B), Scalar(0.5)), {0, 1});
  expect_values(structured_gt_Scalar_cpu(vec({200}, U8), Scalar(int64_t(-1))), {0});  // -1 wraps to 255 in uint8
  expect_values(structured_eq_Tensor_cpu(i, vec({3, -2})), {1, 1});
  expect_values(structured_ne_Tensor_cpu(vec({1, kNaN}), vec({1, kNaN})), {0, 1});
  expect_values(structured_le_Tensor_cpu(vec({1, 2, 3}), scalar_tensor(2, I64)), {1, 1, 0});
  expect_values(structured_ge_Scalar_cpu(vec({1, 2, 3}, I32), Scalar(int64_t(2))), {0, 1, 1});
  Tensor base = make({1, 5, 2, 6}, {2, 2}, F32);
  expect_values(structured_gt_Tensor_cpu(transpose2d(base), base), {0, 0, 1, 0});
}

TEST(Compare, Logical) {
  Tensor f = vec({1.5, kNaN, 0}), i = vec({3, 0, 0}, I64);
  Tensor r = logical_and_cpu(f, i);
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {1, 0, 0});
  expect_values(logical_or_cpu(f, i), {1, 1, 0});
  expect_values(logical_xor_cpu(f, i), {0, 1, 0});
  expect_values(logical_not_cpu(f), {0, 0, 1});
  expect_values(logical_not_cpu(vec({0, 2}, U8)), {1, 0});
}

TEST(Compare, Bitwise) {
  Tensor i = vec({3, -2}, I64), b = vec({1, 0}, B);
  expect_values(tc::bitwise_and(i, Scalar(true)), {1, 0});
  expect_values(tc::bitwise_and(b, Scalar(true)), {1, 0});
  expect_values(tc::bitwise_or(vec({12}, I32), vec({3}, I32)), {15});
  expect_values(tc::bitwise_xor(b, Scalar(int64_t(1))), {0, 1});
  expect_values(bitwise_or_scalar_tensor_cpu(Scalar(int64_t(4)), vec({1, 2}, I32)), {5, 6});
  EXPECT_EQ(tc::bitwise_xor(b, Scalar(int64_t(1))).dtype(), I64);
  expect_values(bitwise_not_cpu(vec({0, 255}, U8)), {255, 0});
  expect_values(bitwise_not_cpu(b), {0, 1});
  std::string msg;
  EXPECT_EQ(error_of([&] { tc::bitwise_and(vec({1}), i); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("bitwise_and"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { tc::bitwise_or(i, Scalar(1.5)); }), ErrorCode::Type);
  EXPECT_EQ(error_of([&] { bitwise_not_cpu(vec({1})); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("bitwise_not"), std::string::npos) << msg;
}

// ===========================================================================
// Unary
// ===========================================================================

TEST(Unary, SameDtypeOps) {
  expect_values(tc::abs(vec({-128, 5}, I8)), {-128, 5});
  expect_values(tc::abs(vec({-1.5, 2})), {1.5, 2});
  EXPECT_EQ(error_of([&] { tc::abs(vec({1}, B)); }), ErrorCode::Type);
  expect_values(neg_cpu(vec({5}, U8)), {251});
  std::string msg;
  EXPECT_EQ(error_of([&] { neg_cpu(vec({1}, B)); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("logical_not"), std::string::npos) << msg;
  expect_values(tc::sign(vec({1.5, kNaN, -0.0, -3})), {1, 0, 0, -1});
  expect_values(tc::sign(vec({1, 0}, B)), {1, 0});
  expect_values(tc::sign(vec({0, 4}, U8)), {0, 1});
  expect_values(relu_cpu(vec({3, -2}, I64)), {3, 0});
  expect_values(relu_cpu(vec({-0.5, kNaN, 2})), {0, kNaN, 2});
  EXPECT_EQ(error_of([&] { relu_cpu(vec({1}, B)); }), ErrorCode::Type);
}

TEST(Unary, Rounding) {
  expect_values(tc::round(vec({0.5, 1.5, 2.5, -0.5, -1.7})), {0, 2, 2, -0.0, -2});
  expect_values(tc::floor(vec({-1.5, 1.5})), {-2, 1});
  expect_values(tc::ceil(vec({-1.5, 1.5})), {-1, 2});
  expect_values(tc::trunc(vec({-1.7, 1.7})), {-1, 1});
  Tensor ri = tc::floor(vec({3, -2}, I64));
  EXPECT_EQ(ri.dtype(), I64);
  expect_values(ri, {3, -2});
  EXPECT_EQ(error_of([&] { tc::round(vec({1}, B)); }), ErrorCode::Type);
  expect_values(round_decimals_cpu(vec({2.5, -0.55}), 1), {2.5, -0.6000000238418579});
  expect_values(round_decimals_cpu(vec({1234.5678}), -2), {1200});
  EXPECT_EQ(error_of([&] { round_decimals_cpu(vec({1}, I64), 1); }), ErrorCode::Type);
}

TEST(Unary, FloatingResults) {
  Tensor i = vec({3, -2}, I64);
  Tensor r = tc::sigmoid(i);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {0.9525741338729858, 0.11920291930437088}, 1e-7);
  expect_values(tc::exp(vec({1, 0}, B)), {2.7182817459106445, 1}, 1e-6);
  expect_values(tc::log(vec({0, -1}, I64)), {-kInf, kNaN});
  expect_values(tc::sqrt(vec({4}, I8)), {2});
  expect_values(tc::reciprocal(i), {1.0 / 3, -0.5}, 1e-7);
  expect_values(tc::rsqrt(vec({4, 16}, F64)), {0.5, 0.25});
  expect_values(tc::erf(i), {0.9999778866767883, -0.9953222870826721}, 1e-7);
  expect_values(tc::expm1(vec({1e-10}, F64)), {1e-10}, 1e-20);
  expect_values(tc::log1p(vec({1e-10}, F64)), {1e-10}, 1e-20);
  expect_values(tc::log2(vec({8})), {3});
  expect_values(tc::log10(vec({1000}, F64)), {3}, 1e-15);
  expect_values(tc::tanh(vec({1}, F16)), {0.76171875});
  // float64 runs on SLEEF's 1-ulp functions (cpu/vec_math.h; their accuracy
  // is tests/internal/test_vec_math.cpp's): libm's value within 2 ulp.
  expect_values(tc::sin(vec({0.5}, F64)), {std::sin(0.5)}, 5e-16);
  expect_values(tc::cos(vec({0.5}, F64)), {std::cos(0.5)}, 5e-16);
  expect_values(tc::tan(vec({0.5}, F64)), {std::tan(0.5)}, 5e-16);
  expect_values(tc::asin(vec({0.5}, F64)), {std::asin(0.5)}, 5e-16);
  expect_values(tc::acos(vec({0.5}, F64)), {std::acos(0.5)}, 5e-16);
  expect_values(tc::atan(vec({0.5}, F64)), {std::atan(0.5)}, 5e-16);
  expect_values(tc::sinh(vec({0.5}, F64)), {std::sinh(0.5)}, 5e-16);
  expect_values(tc::cosh(vec({0.5}, F64)), {std::cosh(0.5)}, 5e-16);
  Tensor bf = tc::exp(vec({1}, BF16));
  EXPECT_EQ(bf.dtype(), BF16);
  expect_values(bf, {2.71875});
}

TEST(Unary, FastExpMatchesLibm) {
  // float32 exp is a vectorisable polynomial: within 1 ulp, specials exact.
  std::vector<double> xs = {0, -0.0, 1, -1, 10.5, -10.5, 88.7, 88.8, -87.5, -103.9, -104.5, 1e-8, kInf, -kInf, kNaN};
  std::vector<double> inputs(xs);
  for (int i = 0; i < 1000; ++i) inputs.push_back(-100.0 + i * 0.1883);
  Tensor r = tc::exp(vec(inputs));
  std::vector<double> got = values(r);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float x = float(inputs[i]);
    const float ref = float(std::exp(double(x)));
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else if (std::isinf(ref) || ref == 0) {
      EXPECT_EQ(float(got[i]), ref) << "x=" << x;
    } else {
      EXPECT_LE(std::fabs(float(got[i]) - ref), std::nextafterf(ref, INFINITY) - ref) << "x=" << x;
    }
  }
  expect_values(tc::sigmoid(vec({-200, 0, 200, kNaN})), {0, 0.5, 1, kNaN});
  expect_values(tc::exp(vec({1}, F16)), {2.71875});
}

TEST(Unary, Gelu) {
  Tensor x = vec({1.0, -0.5});
  expect_values(gelu_cpu(x, "tanh"), {0.8411920070648193, -0.1542859971523285}, 1e-7);
  expect_values(gelu_cpu(x, "none"), {0.8413447460685429, -0.15426876729771208}, 1e-7);
  std::string msg;
  EXPECT_EQ(error_of([&] { gelu_cpu(x, "xx"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("approximate"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { gelu_cpu(vec({1}, I64), "none"); }), ErrorCode::Type);
}

TEST(Unary, IsNanIsInf) {
  Tensor f = vec({1, kNaN, kInf, -kInf});
  expect_values(isnan_cpu(f), {0, 1, 0, 0});
  expect_values(isinf_cpu(f), {0, 0, 1, 1});
  expect_values(isinf_cpu(vec({kInf, -kInf, 1}, BF16)), {1, 1, 0});
  Tensor r = isnan_cpu(vec({3, -2}, I64));
  EXPECT_EQ(r.dtype(), B);
  expect_values(r, {0, 0});
}

// ===========================================================================
// Ternary
// ===========================================================================

TEST(Ternary, Where) {
  Tensor c = vec({1, 0}, B);
  Tensor r = where_cpu(c, vec({3, -2}, I64), vec({1.5, kNaN}));
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {3, kNaN});
  r = where_cpu(c, scalar_tensor(1, F64), vec({2}, I32));
  EXPECT_EQ(r.dtype(), F64);  // zero-dim float64 vs dimensioned int32: float category wins, float64
  expect_values(r, {1, 2});
  r = where_cpu(make({1, 0, 0, 1}, {2, 2}, B), vec({10, 20}), make({-1, -2}, {2, 1}, F32));
  expect_values(r, {10, -1, -2, 20});
  std::string msg;
  EXPECT_EQ(error_of([&] { where_cpu(vec({1}, I64), c, c); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("boolean"), std::string::npos) << msg;
}

TEST(Ternary, Clamp) {
  Tensor i = vec({3, -2}, I64), f = vec({1.5, kNaN});
  Tensor r = clamp_cpu(i, Scalar(0.5), std::nullopt);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {3, 0.5});
  r = clamp_cpu(i, Scalar(int64_t(0)), Scalar(int64_t(-1)));
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {-1, -1});
  r = clamp_cpu(vec({1, 0}, B), Scalar(int64_t(0)), std::nullopt);
  EXPECT_EQ(r.dtype(), I64);
  expect_values(r, {1, 0});
  expect_values(clamp_cpu(f, Scalar(int64_t(0)), Scalar(int64_t(1))), {1, kNaN});
  expect_values(clamp_cpu(vec({1, 5}), Scalar(kNaN), Scalar(3.0)), {kNaN, kNaN});
  std::string msg;
  EXPECT_EQ(error_of([&] { clamp_cpu(i, std::nullopt, std::nullopt); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("at least one"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { clamp_cpu(vec({3}, U8), Scalar(int64_t(-1)), Scalar(int64_t(300))); }),
            ErrorCode::InvalidArgument);
  expect_values(clamp_min_cpu(i, Scalar(0.5)), {3, 0.5});
  expect_values(clamp_max_cpu(vec({1, 0}, B), Scalar(int64_t(0))), {0, 0});
  r = clamp_tensor_cpu(vec({1, 5}), vec({kNaN, 2}), vec({3, 3}));
  expect_values(r, {kNaN, 3});
  r = clamp_tensor_cpu(vec({1, 2}), scalar_tensor(1.5, F32), std::nullopt);
  expect_values(r, {1.5, 2});
  r = clamp_tensor_cpu(i, vec({1.5}), std::nullopt);
  EXPECT_EQ(r.dtype(), F32);
  expect_values(r, {3, 1.5});
  expect_values(clamp_min_tensor_cpu(vec({1, 5}, I32), vec({2, 2}, I32)), {2, 5});
  expect_values(clamp_max_tensor_cpu(vec({1, 5}, I32), vec({2, 2}, I32)), {1, 2});
}

TEST(Ternary, Lerp) {
  expect_values(lerp_tensor_cpu(vec({1}), vec({3}), vec({0.75})), {2.5});
  expect_values(lerp_cpu(vec({1, 10}), vec({3, 20}), Scalar(0.25)), {1.5, 12.5});
  expect_values(lerp_cpu(vec({1, kNaN}), vec({1, kNaN}), Scalar(int64_t(1))), {1, kNaN});
  std::string msg;
  EXPECT_EQ(error_of([&] { lerp_cpu(vec({1}), vec({1}, F64), Scalar(0.5)); }, &msg), ErrorCode::Type);
  EXPECT_NE(msg.find("'end'"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { lerp_tensor_cpu(vec({1}), vec({1}), scalar_tensor(0.5, F64)); }), ErrorCode::Type);
  EXPECT_EQ(error_of([&] { lerp_cpu(vec({1}, I64), vec({1}, I64), Scalar(int64_t(1))); }), ErrorCode::Type);
}
