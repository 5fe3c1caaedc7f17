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

template <class Index, class Bits>
__global__ void gather_kernel(GatherArgs a, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[3];
    offsets<3>(g, i, o);
    long long k = *reinterpret_cast<const long long*>(a.index + o[2]);
    if (k < 0 || k >= a.dim_size) k = 0;  // checked before the launch: never read outside self
    *reinterpret_cast<Bits*>(a.out + o[0]) = *reinterpret_cast<const Bits*>(a.self + o[1] + int64_t(k) * a.dim_stride);
  }
}

template <class Bits>
void gather_as(const GatherArgs& a, const Geometry& g, cudaStream_t s) {
  // The index scales dim_stride at run time, so 32-bit offsets need the
  // whole of dim to fit too.
  if (fits_32bit(g, 3) && a.dim_size * (a.dim_stride < 0 ? -a.dim_stride : a.dim_stride) <= INT32_MAX)
    gather_kernel<int32_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
  else
    gather_kernel<int64_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
}

}  // namespace

int launch_gather(const GatherArgs* a, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (a->elem_size) {
    case 1: gather_as<uint8_t>(*a, *g, s); break;
    case 2: gather_as<uint16_t>(*a, *g, s); break;
    case 4: gather_as<uint32_t>(*a, *g, s); break;
    case 8: gather_as<unsigned long long>(*a, *g, s); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

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
