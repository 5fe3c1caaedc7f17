// SPDX-License-Identifier: BSD-3-Clause
// How the CUDA backend turns plans into launches, tested without a GPU: how
// cuBLAS reads a strided matrix, and how a reduction is split over the device
// and described to the driver's reduce loop.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/tensor.h"
#include "cuda/blas.h"
#include "cuda/reduce.h"

namespace {

using namespace tc;

// cuBLAS reads X (rows x cols, element strides rs, cs) as X^T column-major
// (row-major X: trans false, ld = rs) or as X (column-major X: trans true,
// ld = cs); anything else is copied first.
TEST(CublasOperand, RowAndColumnMajorViewsNeedNoCopy) {
  cuda::CublasOperand o;
  ASSERT_TRUE(cuda::cublas_operand(4, 3, 3, 1, &o));  // contiguous
  EXPECT_FALSE(o.trans);
  EXPECT_EQ(o.ld, 3);
  ASSERT_TRUE(cuda::cublas_operand(4, 3, 8, 1, &o));  // rows of a wider matrix (a column slice)
  EXPECT_FALSE(o.trans);
  EXPECT_EQ(o.ld, 8);
  ASSERT_TRUE(cuda::cublas_operand(4, 3, 1, 4, &o));  // a transposed contiguous 3 x 4
  EXPECT_TRUE(o.trans);
  EXPECT_EQ(o.ld, 4);
  ASSERT_TRUE(cuda::cublas_operand(4, 3, 1, 10, &o));  // the transpose of a row slice
  EXPECT_TRUE(o.trans);
  EXPECT_EQ(o.ld, 10);
}

TEST(CublasOperand, SizeOneDimsIgnoreTheirStride) {
  cuda::CublasOperand o;
  ASSERT_TRUE(cuda::cublas_operand(1, 5, 0, 1, &o));  // a row vector, expanded or sliced
  EXPECT_FALSE(o.trans);
  EXPECT_GE(o.ld, 5);
  ASSERT_TRUE(cuda::cublas_operand(1, 5, 7, 3, &o));  // one row with a column stride of 3
  EXPECT_TRUE(o.trans);
  EXPECT_EQ(o.ld, 3);
  ASSERT_TRUE(cuda::cublas_operand(5, 1, 2, 0, &o));  // a column vector with row stride 2
  EXPECT_FALSE(o.trans);
  EXPECT_EQ(o.ld, 2);
  ASSERT_TRUE(cuda::cublas_operand(1, 1, 0, 0, &o));
  EXPECT_GE(o.ld, 1);
  ASSERT_TRUE(cuda::cublas_operand(0, 4, 4, 1, &o));  // empty: any valid ld
  EXPECT_GE(o.ld, 4);
}

TEST(CublasOperand, OtherLayoutsAreCopied) {
  cuda::CublasOperand o;
  EXPECT_FALSE(cuda::cublas_operand(4, 3, 6, 2, &o));  // every other element
  EXPECT_FALSE(cuda::cublas_operand(4, 3, 0, 1, &o));  // expanded rows (overlapping)
  EXPECT_FALSE(cuda::cublas_operand(4, 3, 2, 1, &o));  // rows overlap: ld < cols
  EXPECT_FALSE(cuda::cublas_operand(4, 3, 1, 3, &o));  // columns overlap: ld < rows
}

TEST(CublasOperand, Tf32IsOffByDefaultAndSwitchable) {
  EXPECT_FALSE(cuda::matmul_allow_tf32());
  cuda::set_matmul_allow_tf32(true);
  EXPECT_TRUE(cuda::matmul_allow_tf32());
  cuda::set_matmul_allow_tf32(false);
  EXPECT_FALSE(cuda::matmul_allow_tf32());
}

TEST(ReduceLaunch, ManyOutputsOrShortReductionsRunInOnePass) {
  const cuda::ReduceLaunch many = cuda::plan_reduce_launch(100000, 1 << 20, false);
  EXPECT_EQ(many.splits, 1);
  EXPECT_EQ(many.chunk, 1 << 20);
  const cuda::ReduceLaunch shortr = cuda::plan_reduce_launch(3, 1000, false);
  EXPECT_EQ(shortr.splits, 1);
  EXPECT_EQ(shortr.chunk, 1000);
  const cuda::ReduceLaunch none = cuda::plan_reduce_launch(4, 0, false);  // an empty reduction
  EXPECT_EQ(none.splits, 1);
}

TEST(ReduceLaunch, FewLongReductionsAreCutIntoChunksThatCoverEveryElement) {
  for (const bool columns : {false, true})
    for (const int64_t num_out : {int64_t(1), int64_t(7), int64_t(300)})
      for (const int64_t red : {int64_t(4097), int64_t(1) << 20, (int64_t(1) << 26) + 3, int64_t(3) << 31}) {
        const cuda::ReduceLaunch l = cuda::plan_reduce_launch(num_out, red, columns);
        EXPECT_EQ(l.columns, columns);
        ASSERT_GE(l.splits, 1);
        ASSERT_GE(l.chunk, 1);
        EXPECT_GE(l.splits * l.chunk, red) << num_out << " x " << red;        // every element in a chunk
        EXPECT_LT((l.splits - 1) * l.chunk, red) << num_out << " x " << red;  // no empty chunk
        if (!columns && num_out == 1 && red >= (int64_t(1) << 20)) {
          EXPECT_GE(l.splits, 64);  // fills the device
        }
      }
}

TEST(ReduceLaunch, KernelShapeFollowsWhereTheReducedElementsLie) {
  Tensor m = empty_tensor({64, 32}, ScalarType::Float32);
  // sum over dim 1: reduced elements adjacent -> rows
  EXPECT_FALSE(cuda::kept_dims_innermost(structured::make_reduce_plan(m, uint64_t(2), false)));
  // sum over dim 0: outputs adjacent -> columns
  EXPECT_TRUE(cuda::kept_dims_innermost(structured::make_reduce_plan(m, uint64_t(1), false)));
  // a full reduction keeps no dim -> rows
  EXPECT_FALSE(cuda::kept_dims_innermost(structured::make_reduce_plan(m, uint64_t(3), false)));
}

TEST(ReduceLaunch, ArgumentsCarryTheCoalescedPlanInBytes) {
  // [4, 5, 6] int16, reduce dims 1 and 2 (contiguous: one reduced run of 30)
  Tensor t = empty_tensor({4, 5, 6}, ScalarType::Int16);
  const structured::ReducePlan plan = structured::make_reduce_plan(t, uint64_t(6), true);
  const cuda::ReduceArgs a =
      cuda::reduce_args(plan, cuda::ReduceOp::Sum, ScalarType::Int16, ScalarType::Int64, ScalarType::Int64, "sum");
  EXPECT_EQ(a.op, int(cuda::ReduceOp::Sum));
  EXPECT_EQ(a.num_out, 4);
  EXPECT_EQ(a.red_numel, 30);
  ASSERT_EQ(a.kept_ndim, 1);
  EXPECT_EQ(a.kept_sizes[0], 4);
  EXPECT_EQ(a.kept_strides[0], 60);  // 30 int16 elements
  ASSERT_EQ(a.red_ndim, 1);
  EXPECT_EQ(a.red_sizes[0], 30);
  EXPECT_EQ(a.red_strides[0], 2);
  EXPECT_EQ(a.in_dtype, int(ScalarType::Int16));
  EXPECT_EQ(a.out_dtype, int(ScalarType::Int64));
  EXPECT_EQ(a.compute, int(ScalarType::Int64));
  EXPECT_EQ(a.splits, 1);
  EXPECT_EQ(a.chunk, 30);

  // A transposed input: the reduced dim keeps its stride in bytes.
  Tensor base = empty_tensor({8, 3}, ScalarType::Float64);
  Tensor tt = make_view(base, {3, 8}, {1, 3}, 0);
  const cuda::ReduceArgs b =
      cuda::reduce_args(structured::make_reduce_plan(tt, uint64_t(2), false), cuda::ReduceOp::Max, ScalarType::Float64,
                        ScalarType::Float64, ScalarType::Float64, "amax");
  EXPECT_EQ(b.kept_strides[0], 8);
  EXPECT_EQ(b.red_strides[0], 24);
}

TEST(ReduceLaunch, TooManyDimsIsNotImplementedNamingTheOp) {
  // 17 dims of size 2 whose strides cannot merge (each 2 * inner + 1)
  std::vector<int64_t> sizes(17, 2), strides(17);
  int64_t s = 1, span = 1;
  for (int d = 16; d >= 0; --d) {
    strides[size_t(d)] = s;
    span += s;
    s = 2 * s + 1;
  }
  Tensor base = empty_tensor({span}, ScalarType::Float32);
  Tensor t = make_view(base, sizes, strides, 0);
  const structured::ReducePlan plan = structured::make_reduce_plan(t, (uint64_t(1) << 17) - 1, false);
  try {
    cuda::reduce_args(plan, cuda::ReduceOp::Sum, ScalarType::Float32, ScalarType::Float32, ScalarType::Float32, "sum");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotImplemented);
    EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
  }
}

}  // namespace
