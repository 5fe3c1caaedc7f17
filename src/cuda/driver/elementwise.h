// SPDX-License-Identifier: BSD-3-Clause
// The element loops of the driver table (elementwise.cu, pointwise.cu): launch on
// `stream` and return the launch's cudaError_t value.
#pragma once
#include "cuda/driver_api.h"

namespace tc::cuda {

int launch_fill(char* data, int elem_size, uint64_t bits, const Geometry* g, Stream stream);
int launch_copy(char* dst, int dst_dtype, const char* src, int src_dtype, const Geometry* g, Stream stream);
int launch_pointwise(const PointwiseArgs* args, const Geometry* g, Stream stream);  // pointwise.cu

}  // namespace tc::cuda
