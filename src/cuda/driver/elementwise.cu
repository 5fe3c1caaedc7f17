// SPDX-License-Identifier: BSD-3-Clause
// CUDA element loops: a grid-stride loop over a strided N-d geometry, with a
// 32-bit index path when the offsets fit, and dtype conversion decided per
// element from the source's dtype code (ATen's dynamic casting), so one
// kernel per destination dtype serves every source dtype.
#include <cuda_runtime_api.h>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

template <class Index, class Bits>
__global__ void fill_kernel(char* data, Bits bits, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[1];
    offsets<1>(g, i, o);
    *reinterpret_cast<Bits*>(data + o[0]) = bits;
  }
}

template <class Index, class Dst>
__global__ void copy_kernel(char* dst, const char* src, int src_dtype, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[2];
    offsets<2>(g, i, o);
    *reinterpret_cast<Dst*>(dst + o[0]) = load_as<Dst>(src + o[1], src_dtype);
  }
}

template <class Bits>
void fill_as(char* data, uint64_t bits, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g, 1))
    fill_kernel<int32_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(data, Bits(bits), g);
  else
    fill_kernel<int64_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(data, Bits(bits), g);
}

template <class Dst>
void copy_as(char* dst, const char* src, int src_dtype, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g, 2))
    copy_kernel<int32_t, Dst><<<blocks_for(g.numel), kThreads, 0, s>>>(dst, src, src_dtype, g);
  else
    copy_kernel<int64_t, Dst><<<blocks_for(g.numel), kThreads, 0, s>>>(dst, src, src_dtype, g);
}

}  // namespace

int launch_fill(char* data, int elem_size, uint64_t bits, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1: fill_as<uint8_t>(data, bits, *g, s); break;
    case 2: fill_as<uint16_t>(data, bits, *g, s); break;
    case 4: fill_as<uint32_t>(data, bits, *g, s); break;
    default: fill_as<unsigned long long>(data, bits, *g, s); break;
  }
  return int(cudaGetLastError());
}

int launch_copy(char* dst, int dst_dtype, const char* src, int src_dtype, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (dst_dtype) {
    case kBool: copy_as<bool>(dst, src, src_dtype, *g, s); break;
    case kUInt8: copy_as<uint8_t>(dst, src, src_dtype, *g, s); break;
    case kInt8: copy_as<int8_t>(dst, src, src_dtype, *g, s); break;
    case kInt16: copy_as<int16_t>(dst, src, src_dtype, *g, s); break;
    case kInt32: copy_as<int32_t>(dst, src, src_dtype, *g, s); break;
    case kInt64: copy_as<long long>(dst, src, src_dtype, *g, s); break;
    case kFloat16: copy_as<__half>(dst, src, src_dtype, *g, s); break;
    case kBFloat16: copy_as<__nv_bfloat16>(dst, src, src_dtype, *g, s); break;
    case kFloat32: copy_as<float>(dst, src, src_dtype, *g, s); break;
    default: copy_as<double>(dst, src, src_dtype, *g, s); break;
  }
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
