// SPDX-License-Identifier: BSD-3-Clause
// The kernels of the driver table (elementwise.cu, pointwise.cu, blas.cpp):
// launch on `stream` and return the launch's cudaError_t value (or a cuBLAS
// status, offset by kCublasErrorBase).
#pragma once
#include "cuda/driver_api.h"

namespace tc::cuda {

int launch_fill(char* data, int elem_size, uint64_t bits, const Geometry* g, Stream stream);
int launch_copy(char* dst, int dst_dtype, const char* src, int src_dtype, const Geometry* g, Stream stream);
int launch_pointwise(const PointwiseArgs* args, const Geometry* g, Stream stream);    // pointwise.cu
int launch_gather(const GatherArgs* args, const Geometry* g, Stream stream);          // elementwise.cu
int launch_scatter(const ScatterArgs* args, const Geometry* g, Stream stream);        // scatter.cu
int launch_reduce(const ReduceArgs* args, Stream stream);                             // reduce.cu
int launch_random(const RandomArgs* args, const Geometry* g, Stream stream);          // random.cu
int launch_range(const RangeArgs* args, Stream stream);                               // random.cu
int launch_scan(const ScanArgs* args, Stream stream);                                 // scan.cu
int sort_pairs(const SortArgs* args, void* temp, size_t* temp_bytes, Stream stream);  // sort.cu
int gemm(const GemmArgs* args, Stream stream);                                        // blas.cpp
const char* cublas_error_string(int code);  // blas.cpp: a code from gemm >= kCublasErrorBase

}  // namespace tc::cuda
