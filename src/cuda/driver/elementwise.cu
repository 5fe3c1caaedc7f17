// SPDX-License-Identifier: BSD-3-Clause
// CUDA element loops: a grid-stride loop over a strided N-d geometry, with a
// 32-bit index path when the offsets fit, and dtype conversion decided per
// element from the source's dtype code (ATen's dynamic casting), so one
// kernel per destination dtype serves every source dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda_runtime_api.h>

#include "cuda/driver_api.h"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

// tensorc's dtype codes (core/dtype.h), repeated here for device code.
enum Code : int { kBool = 0, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

template <class T>
__device__ T from_double(double v) {
  return static_cast<T>(v);
}
template <>
__device__ bool from_double<bool>(double v) {
  return v != 0;
}
template <>
__device__ __half from_double<__half>(double v) {
  return __double2half(v);
}
template <>
__device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <class T>
__device__ T from_int(long long v) {
  return static_cast<T>(v);
}
template <>
__device__ bool from_int<bool>(long long v) {
  return v != 0;
}
template <>
__device__ __half from_int<__half>(long long v) {
  return __ll2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_int<__nv_bfloat16>(long long v) {
  return __ll2bfloat16_rn(v);
}

// Integers travel as long long (wrapping narrowings, as C++ casts), floating
// values as double (exact for every floating source).
template <class Dst>
__device__ Dst load_as(const char* p, int src) {
  switch (src) {
    case kBool: return from_int<Dst>(*reinterpret_cast<const bool*>(p) ? 1 : 0);
    case kUInt8: return from_int<Dst>(*reinterpret_cast<const uint8_t*>(p));
    case kInt8: return from_int<Dst>(*reinterpret_cast<const int8_t*>(p));
    case kInt16: return from_int<Dst>(*reinterpret_cast<const int16_t*>(p));
    case kInt32: return from_int<Dst>(*reinterpret_cast<const int32_t*>(p));
    case kInt64: return from_int<Dst>(*reinterpret_cast<const long long*>(p));
    case kFloat16: return from_double<Dst>(__half2float(*reinterpret_cast<const __half*>(p)));
    case kBFloat16: return from_double<Dst>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case kFloat32: return from_double<Dst>(*reinterpret_cast<const float*>(p));
    default: return from_double<Dst>(*reinterpret_cast<const double*>(p));
  }
}

// Byte offsets of element i for both operands.
template <class Index>
__device__ void offsets(const Geometry& g, Index i, Index* o0, Index* o1) {
  Index a = 0, b = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    const Index size = Index(g.sizes[d]);
    const Index k = i % size;
    i /= size;
    a += k * Index(g.strides[0][d]);
    b += k * Index(g.strides[1][d]);
  }
  *o0 = a;
  *o1 = b;
}

template <class Index, class Bits>
__global__ void fill_kernel(char* data, Bits bits, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o, unused;
    offsets(g, i, &o, &unused);
    *reinterpret_cast<Bits*>(data + o) = bits;
  }
}

template <class Index, class Dst>
__global__ void copy_kernel(char* dst, const char* src, int src_dtype, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index od, os;
    offsets(g, i, &od, &os);
    *reinterpret_cast<Dst*>(dst + od) = load_as<Dst>(src + os, src_dtype);
  }
}

constexpr int kThreads = 256;

// Enough blocks to fill the device several times over; the loop strides the rest.
unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 65536 ? b : 65536);
}

// True when every element index and byte offset fits in 32 bits.
bool fits_32bit(const Geometry& g) {
  if (g.numel > INT32_MAX) return false;
  for (int op = 0; op < 2; ++op) {
    int64_t extent = 0;
    for (int d = 0; d < g.ndim; ++d)
      extent += (g.sizes[d] - 1) * (g.strides[op][d] < 0 ? -g.strides[op][d] : g.strides[op][d]);
    if (extent > INT32_MAX) return false;
  }
  return true;
}

template <class Bits>
void fill_as(char* data, uint64_t bits, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g))
    fill_kernel<int32_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(data, Bits(bits), g);
  else
    fill_kernel<int64_t, Bits><<<blocks_for(g.numel), kThreads, 0, s>>>(data, Bits(bits), g);
}

template <class Dst>
void copy_as(char* dst, const char* src, int src_dtype, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g))
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
