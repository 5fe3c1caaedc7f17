// SPDX-License-Identifier: BSD-3-Clause
// CUDA loops over a TensorIter the shared meta step planned on a CUDA device
// (structured/families.h): the iteration turned into the driver's geometry
// and arguments, and one launch of its pointwise loop. Host code only.
#pragma once
#include "core/iter.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "cuda/driver_api.h"

namespace tc::cuda {

// The iteration's shape and byte strides, innermost dim last. Error
// (NotImplemented) naming `op` beyond kMaxDims dims or kMaxOperands operands.
Geometry iteration_geometry(const TensorIter& it, const char* op);
// dst (operand 0) in row-major order of its logical shape, with src (operand
// 1, when given) broadcast to it: byte strides, size-1 dims dropped and dims
// both walk contiguously merged, so element i is the i-th of that order.
Geometry tensor_geometry(const Tensor& dst, const Tensor* src, const char* op);
// The launch arguments of `kind` over `it`: tensor operands by pointer and
// dtype, host values (numbers, CPU scalars) by value in the compute dtype,
// alpha for Add.
PointwiseArgs pointwise_args(const TensorIter& it, PointwiseOp kind, const Scalar& alpha);
// Runs `kind` over `it` on its device's current stream; a failed launch is
// Error(Runtime) naming `op` and CUDA's error.
void launch_pointwise(const TensorIter& it, PointwiseOp kind, const char* op, const Scalar& alpha = Scalar(int64_t(1)));

}  // namespace tc::cuda
