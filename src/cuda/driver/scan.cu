// SPDX-License-Identifier: BSD-3-Clause
// cumsum's scan (ScanArgs): inclusive prefix sums along the middle dim of a
// contiguous [outer, size, inner] tensor. Short lines (size <= 32) take one
// thread each, summing in order; longer ones one block each, in tiles of
// kThreads elements scanned with CUB's BlockScan and a running carry.
#include <cub/block/block_scan.cuh>
#include <cuda_runtime_api.h>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

// The compute type: float for the float16 family and float32, double, long
// long for integers (adds wrap in unsigned arithmetic).
template <class T>
using acc_t =
    std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_integral_v<T>, long long, float>>;

template <class A>
__device__ inline A add(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return (long long)((unsigned long long)a + (unsigned long long)b);
  else
    return a + b;
}

struct Plus {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return add(a, b);
  }
};

template <class T>
__device__ inline acc_t<T> load(const T* p) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(*p);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(*p);
  else
    return acc_t<T>(*p);
}

template <class T>
__device__ inline void store(T* p, acc_t<T> v) {
  if constexpr (std::is_same_v<T, __half>)
    *p = __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    *p = __float2bfloat16_rn(v);
  else
    *p = T(v);
}

// One thread per line, in order (the CPU's summation order).
template <class T>
__global__ void scan_lines_kernel(const T* in, T* out, int64_t lines, int64_t size, int64_t inner) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t line = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; line < lines; line += step) {
    const int64_t base = (line / inner) * size * inner + line % inner;
    acc_t<T> sum = 0;
    for (int64_t k = 0; k < size; ++k) {
      sum = add(sum, load(in + base + k * inner));
      store(out + base + k * inner, sum);
    }
  }
}

// One block per line, tile by tile.
template <class T>
__global__ void scan_blocks_kernel(const T* in, T* out, int64_t lines, int64_t size, int64_t inner) {
  using A = acc_t<T>;
  using BlockScan = cub::BlockScan<A, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const int64_t base = (line / inner) * size * inner + line % inner;
    A carry = 0;
    for (int64_t start = 0; start < size; start += kThreads) {
      const int64_t k = start + threadIdx.x;
      const A v = k < size ? load(in + base + k * inner) : A(0);
      A scanned, total;
      BlockScan(temp).InclusiveScan(v, scanned, Plus(), total);
      if (k < size) store(out + base + k * inner, add(carry, scanned));
      carry = add(carry, total);
      __syncthreads();  // temp is reused by the next tile
    }
  }
}

template <class T>
void scan_as(const ScanArgs& a, cudaStream_t s) {
  const int64_t lines = a.outer * a.inner;
  const T* in = reinterpret_cast<const T*>(a.in);
  T* out = reinterpret_cast<T*>(a.out);
  if (a.size <= 32)
    scan_lines_kernel<T><<<blocks_for(lines), kThreads, 0, s>>>(in, out, lines, a.size, a.inner);
  else
    scan_blocks_kernel<T>
        <<<unsigned(lines < kMaxBlocks ? lines : kMaxBlocks), kThreads, 0, s>>>(in, out, lines, a.size, a.inner);
}

}  // namespace

int launch_scan(const ScanArgs* a, Stream stream) {
  if (a->outer * a->size * a->inner == 0) return 0;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (a->dtype) {
    case kUInt8: scan_as<uint8_t>(*a, s); break;
    case kInt8: scan_as<int8_t>(*a, s); break;
    case kInt16: scan_as<int16_t>(*a, s); break;
    case kInt32: scan_as<int32_t>(*a, s); break;
    case kInt64: scan_as<long long>(*a, s); break;
    case kFloat16: scan_as<__half>(*a, s); break;
    case kBFloat16: scan_as<__nv_bfloat16>(*a, s); break;
    case kFloat32: scan_as<float>(*a, s); break;
    case kFloat64: scan_as<double>(*a, s); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
