// SPDX-License-Identifier: BSD-3-Clause
// The scatter loop (ScatterArgs): one thread per element of the geometry
// writes or atomically adds its source value at the element of out its index
// names. One kernel per out dtype; sources of any dtype convert per element.
// Atomic adds: native for float32, float64, float16, bfloat16, int32 and
// int64 (sm_80 and later have them all); 8- and 16-bit integers and bool go
// through a compare-and-swap on the aligned 32-bit word that holds them.
#include <cuda_runtime_api.h>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

// The compute type of a dtype: float for the float16 family and float32,
// double, long long for every integer and bool.
template <class T>
struct Compute {
  using type = long long;
};
template <>
struct Compute<float> {
  using type = float;
};
template <>
struct Compute<__half> {
  using type = float;
};
template <>
struct Compute<__nv_bfloat16> {
  using type = float;
};
template <>
struct Compute<double> {
  using type = double;
};

// *p (a narrow integer or bool inside an aligned 32-bit word) += v, wrapping
// (bool: "or"), by compare-and-swap on the word.
template <class T>
__device__ void atomic_add_narrow(T* p, long long v) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const unsigned int shift = unsigned((addr & 3) * 8), mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const T current = T((assumed & mask) >> shift);
    T next;
    if constexpr (std::is_same_v<T, bool>)
      next = current || v != 0;
    else
      next = T((unsigned long long)(long long)current + (unsigned long long)v);
    const unsigned int bits =
        (unsigned int)(std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>(next));
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((bits << shift) & mask));
  } while (old != assumed);
}

template <class T, class C>
__device__ void atomic_add(T* p, C v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, __half>) {
    atomicAdd(p, __float2half_rn(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    atomicAdd(p, __float2bfloat16_rn(v));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    atomicAdd(reinterpret_cast<unsigned int*>(p), (unsigned int)(long long)v);  // wraps
  } else if constexpr (std::is_same_v<T, long long>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);  // wraps
  } else {
    atomic_add_narrow(p, (long long)v);
  }
}

template <class Index, class T>
__global__ void scatter_kernel(ScatterArgs a, Geometry g) {
  using C = typename Compute<T>::type;
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  C alpha, fill;
  if constexpr (std::is_floating_point_v<C>) {
    alpha = C(a.alpha);
    fill = C(a.value);
  } else {
    alpha = C(a.ialpha);
    fill = C(a.ivalue);
  }
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[3];
    offsets<3>(g, i, o);
    const long long k = *reinterpret_cast<const long long*>(a.index + o[2]);
    if (k < 0 || k >= a.dim_size) continue;  // checked before the launch
    T* dst = reinterpret_cast<T*>(a.out + o[0] + int64_t(k) * a.dim_stride);
    C v = a.src ? load_as<C>(a.src + o[1], a.src_dtype) : fill;
    if (a.reduce == int(ScatterReduce::Add)) {
      if constexpr (std::is_floating_point_v<C>)
        v = v * alpha;
      else
        v = (long long)((unsigned long long)v * (unsigned long long)alpha);  // wraps
      atomic_add(dst, v);
    } else {
      store_as(reinterpret_cast<char*>(dst), a.dtype, v);
    }
  }
}

template <class T>
void scatter_as(const ScatterArgs& a, const Geometry& g, cudaStream_t s) {
  // The index scales dim_stride at run time: 32-bit offsets need the whole
  // of dim to fit too.
  if (fits_32bit(g, 3) && a.dim_size * (a.dim_stride < 0 ? -a.dim_stride : a.dim_stride) <= INT32_MAX)
    scatter_kernel<int32_t, T><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
  else
    scatter_kernel<int64_t, T><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
}

}  // namespace

int launch_scatter(const ScatterArgs* a, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  if (a->reduce < 0 || a->reduce >= int(ScatterReduce::Count)) return int(cudaErrorInvalidValue);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (a->dtype) {
    case kBool: scatter_as<bool>(*a, *g, s); break;
    case kUInt8: scatter_as<uint8_t>(*a, *g, s); break;
    case kInt8: scatter_as<int8_t>(*a, *g, s); break;
    case kInt16: scatter_as<int16_t>(*a, *g, s); break;
    case kInt32: scatter_as<int32_t>(*a, *g, s); break;
    case kInt64: scatter_as<long long>(*a, *g, s); break;
    case kFloat16: scatter_as<__half>(*a, *g, s); break;
    case kBFloat16: scatter_as<__nv_bfloat16>(*a, *g, s); break;
    case kFloat32: scatter_as<float>(*a, *g, s); break;
    case kFloat64: scatter_as<double>(*a, *g, s); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
