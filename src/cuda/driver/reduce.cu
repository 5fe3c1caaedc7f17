// SPDX-License-Identifier: BSD-3-Clause
// The reduce loop (ReduceArgs in driver_api.h): sum, prod, max, min, all,
// any over a kept x reduced plan. Two shapes of kernel, both over work items
// (output o, chunk s):
//   rows    a block per item, its threads striding over the chunk's reduced
//           elements (neighbouring threads read neighbouring elements when
//           the reduced dims are innermost), then a tree in shared memory;
//   columns a thread per item reading its chunk in turn (neighbouring
//           threads read neighbouring outputs when the kept dims are
//           innermost, e.g. a sum over dim 0).
// Results are deterministic: every partial is combined in a fixed order.
#include <cuda_runtime_api.h>

#include <cmath>
#include <type_traits>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

template <class C>
__device__ inline C identity(int op) {
  switch (ReduceOp(op)) {
    case ReduceOp::Prod:
    case ReduceOp::All: return C(1);
    case ReduceOp::Max:
      if constexpr (std::is_floating_point_v<C>)
        return -C(INFINITY);
      else
        return C(-0x7fffffffffffffffLL - 1);
    case ReduceOp::Min:
      if constexpr (std::is_floating_point_v<C>)
        return C(INFINITY);
      else
        return C(0x7fffffffffffffffLL);
    default: return C(0);  // Sum, Any
  }
}

// Integer sums and products wrap modulo 2^64; max and min propagate NaN.
template <class C>
__device__ inline C combine(int op, C a, C b) {
  switch (ReduceOp(op)) {
    case ReduceOp::Sum:
      if constexpr (std::is_floating_point_v<C>)
        return a + b;
      else
        return C((unsigned long long)a + (unsigned long long)b);
    case ReduceOp::Prod:
      if constexpr (std::is_floating_point_v<C>)
        return a * b;
      else
        return C((unsigned long long)a * (unsigned long long)b);
    case ReduceOp::Max:
      if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a != a ? a : b;
      return a > b ? a : b;
    case ReduceOp::Min:
      if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a != a ? a : b;
      return a < b ? a : b;
    case ReduceOp::All: return C(a != C(0) && b != C(0));
    default: return C(a != C(0) || b != C(0));  // Any
  }
}

// An element as it enters the reduction (all/any see its truth value).
template <class C>
__device__ inline C element(const ReduceArgs& a, int64_t offset) {
  const C v = load_as<C>(a.in + offset, a.in_dtype);
  if (ReduceOp(a.op) == ReduceOp::All || ReduceOp(a.op) == ReduceOp::Any) return C(v != C(0));
  return v;
}

// The byte offset of linear index i, row-major over `ndim` dims.
__device__ inline int64_t offset_of(int64_t i, int ndim, const int64_t* sizes, const int64_t* strides) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}
__device__ inline int64_t kept_offset(const ReduceArgs& a, int64_t o) {
  return offset_of(o, a.kept_ndim, a.kept_sizes, a.kept_strides);
}
__device__ inline int64_t red_offset(const ReduceArgs& a, int64_t r) {
  return offset_of(r, a.red_ndim, a.red_sizes, a.red_strides);
}

// The end of the chunk starting at `begin` (the whole reduction unsplit).
__device__ inline int64_t chunk_end(const ReduceArgs& a, int64_t begin) {
  if (a.splits == 1) return a.red_numel;
  return begin + a.chunk < a.red_numel ? begin + a.chunk : a.red_numel;
}

// Writes item (o, s)'s result: a partial in the compute dtype, or the final
// value scaled and stored as out_dtype.
template <class C>
__device__ inline void write(const ReduceArgs& a, int64_t o, int64_t s, C v) {
  if (a.splits > 1) {
    reinterpret_cast<C*>(a.out)[o * a.splits + s] = v;
    return;
  }
  if constexpr (std::is_floating_point_v<C>)
    if (a.scale != 1) v = v * C(a.scale);
  store_as(a.out + o * int64_t(dtype_size(a.out_dtype)), a.out_dtype, v);
}

template <class C>
__global__ void reduce_rows(ReduceArgs a) {
  __shared__ C partial[kThreads];
  const int64_t items = a.num_out * a.splits;
  for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const int64_t o = item / a.splits, s = item % a.splits;
    const int64_t begin = s * a.chunk, end = chunk_end(a, begin);
    const int64_t base = kept_offset(a, o);
    C acc = identity<C>(a.op);
    for (int64_t r = begin + threadIdx.x; r < end; r += blockDim.x)
      acc = combine(a.op, acc, element<C>(a, base + red_offset(a, r)));
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width /= 2) {
      if (threadIdx.x < width) partial[threadIdx.x] = combine(a.op, partial[threadIdx.x], partial[threadIdx.x + width]);
      __syncthreads();
    }
    if (threadIdx.x == 0) write(a, o, s, partial[0]);
    __syncthreads();  // partial[0] is read before the next item overwrites it
  }
}

template <class C>
__global__ void reduce_columns(ReduceArgs a) {
  const int64_t items = a.num_out * a.splits, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t item = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; item < items; item += step) {
    // Neighbouring threads take neighbouring outputs of one chunk.
    const int64_t s = item / a.num_out, o = item % a.num_out;
    const int64_t begin = s * a.chunk, end = chunk_end(a, begin);
    const int64_t base = kept_offset(a, o);
    C acc = identity<C>(a.op);
    for (int64_t r = begin; r < end; ++r) acc = combine(a.op, acc, element<C>(a, base + red_offset(a, r)));
    write(a, o, s, acc);
  }
}

template <class C>
void launch_as(const ReduceArgs& a, cudaStream_t stream) {
  const int64_t items = a.num_out * a.splits;
  if (a.columns)
    reduce_columns<C><<<blocks_for(items), kThreads, 0, stream>>>(a);
  else
    reduce_rows<C><<<unsigned(items < kMaxBlocks ? items : kMaxBlocks), kThreads, 0, stream>>>(a);
}

}  // namespace

int launch_reduce(const ReduceArgs* a, Stream stream) {
  if (a->op < 0 || a->op >= int(ReduceOp::Count) || a->splits < 1 || a->kept_ndim > kMaxDims ||
      a->red_ndim > kMaxDims || (a->splits > 1 && a->chunk < 1))
    return int(cudaErrorInvalidValue);
  if (a->num_out == 0) return 0;
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (a->compute) {
    case kFloat32: launch_as<float>(*a, s); break;
    case kFloat64: launch_as<double>(*a, s); break;
    case kInt64: launch_as<long long>(*a, s); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
