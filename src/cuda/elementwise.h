// SPDX-License-Identifier: BSD-3-Clause
// The CUDA element loops behind a plain interface: byte pointers, dtype
// codes and a strided geometry, so that the .cu file sees no tensorc C++
// types and the tensor-level kernels (copy.cpp, factory.cpp) no CUDA kernels.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace tc::cuda {

constexpr int kMaxDims = 16;

// Up to two operands walked over one shape (innermost dim last), strides in
// bytes; dims of size 1 dropped and mergeable dims merged by the builder.
struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[2][kMaxDims] = {};  // [operand][dim]
};

// Every element of operand 0 set to the `elem_size`-byte pattern `bits`.
void launch_fill(char* data, int elem_size, uint64_t bits, const Geometry& g, cudaStream_t stream);
// dst (operand 0) = src (operand 1) converted from src_dtype to dst_dtype
// (tensorc dtype codes), as C++ casts do, with bool as != 0.
void launch_copy(char* dst, int dst_dtype, const char* src, int src_dtype, const Geometry& g, cudaStream_t stream);

}  // namespace tc::cuda
