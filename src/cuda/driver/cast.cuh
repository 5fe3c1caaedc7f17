// SPDX-License-Identifier: BSD-3-Clause
// Device-side helpers of the element loops: tensorc's dtype codes, loads and
// stores that convert per element from and to an operand's own dtype (ATen's
// dynamic casting), and byte offsets of element i in a strided geometry.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "cuda/driver_api.h"

namespace tc::cuda {

template <class T>
__device__ inline T from_double(double v) {
  return static_cast<T>(v);
}
template <>
__device__ inline bool from_double<bool>(double v) {
  return v != 0;
}
template <>
__device__ inline __half from_double<__half>(double v) {
  return __float2half_rn(float(v));  // through float, as the CPU's Half(float(v)): the same double rounding
}
template <>
__device__ inline __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __float2bfloat16_rn(float(v));  // through float, as the CPU's BFloat16(float(v))
}
template <class T>
__device__ inline T from_int(long long v) {
  return static_cast<T>(v);
}
template <>
__device__ inline bool from_int<bool>(long long v) {
  return v != 0;
}
template <>
__device__ inline __half from_int<__half>(long long v) {
  return __ll2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_int<__nv_bfloat16>(long long v) {
  return __ll2bfloat16_rn(v);
}

// The element at p, of dtype code `src`, as Dst. Integers travel as long long
// (wrapping narrowings, as C++ casts), floating values as double (exact for
// every floating source).
template <class Dst>
__device__ inline Dst load_as(const char* p, int src) {
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

template <class Dst, class V>
__device__ inline Dst convert(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return from_double<Dst>(double(v));
  else
    return from_int<Dst>(static_cast<long long>(v));
}

// v (float, double or long long) stored at p as dtype code `dst`.
template <class V>
__device__ inline void store_as(char* p, int dst, V v) {
  switch (dst) {
    case kBool: *reinterpret_cast<bool*>(p) = convert<bool>(v); break;
    case kUInt8: *reinterpret_cast<uint8_t*>(p) = convert<uint8_t>(v); break;
    case kInt8: *reinterpret_cast<int8_t*>(p) = convert<int8_t>(v); break;
    case kInt16: *reinterpret_cast<int16_t*>(p) = convert<int16_t>(v); break;
    case kInt32: *reinterpret_cast<int32_t*>(p) = convert<int32_t>(v); break;
    case kInt64: *reinterpret_cast<long long*>(p) = convert<long long>(v); break;
    case kFloat16: *reinterpret_cast<__half*>(p) = convert<__half>(v); break;
    case kBFloat16: *reinterpret_cast<__nv_bfloat16*>(p) = convert<__nv_bfloat16>(v); break;
    case kFloat32: *reinterpret_cast<float*>(p) = convert<float>(v); break;
    default: *reinterpret_cast<double*>(p) = convert<double>(v); break;
  }
}

// The size in bytes of an element of dtype code `code`.
__host__ __device__ inline int dtype_size(int code) {
  switch (code) {
    case kBool:
    case kUInt8:
    case kInt8: return 1;
    case kInt16:
    case kFloat16:
    case kBFloat16: return 2;
    case kInt32:
    case kFloat32: return 4;
    default: return 8;
  }
}

// Byte offsets of element i for the first N operands of g.
template <int N, class Index>
__device__ inline void offsets(const Geometry& g, Index i, Index* o) {
#pragma unroll
  for (int op = 0; op < N; ++op) o[op] = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    const Index size = Index(g.sizes[d]);
    const Index k = i % size;
    i /= size;
#pragma unroll
    for (int op = 0; op < N; ++op) o[op] += k * Index(g.strides[op][d]);
  }
}

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65536;

// Enough blocks to fill the device several times over; the loop strides the rest.
inline unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < kMaxBlocks ? b : kMaxBlocks);
}

// True when every element index and byte offset of the first n operands fits
// in 32 bits (host code), with room for the grid-stride loop's last step
// (i + gridDim * blockDim must not overflow either).
inline bool fits_32bit(const Geometry& g, int n) {
  if (g.numel > INT32_MAX - kMaxBlocks * kThreads) return false;
  for (int op = 0; op < n; ++op) {
    int64_t extent = 0;
    for (int d = 0; d < g.ndim; ++d)
      extent += (g.sizes[d] - 1) * (g.strides[op][d] < 0 ? -g.strides[op][d] : g.strides[op][d]);
    if (extent > INT32_MAX) return false;
  }
  return true;
}

}  // namespace tc::cuda
