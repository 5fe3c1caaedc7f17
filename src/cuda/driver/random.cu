// SPDX-License-Identifier: BSD-3-Clause
// Fills computed from the element index: the random fills, element i of the
// output (row-major over its logical
// shape) draws from the Philox stream exactly as the CPU kernels do
// (src/core/philox.h), so one generator state gives the same numbers on
// both devices (up to the last bits of log, sin and cos for normals).
#include <cuda_runtime.h>

#include "core/philox.h"
#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

template <class Acc>
__device__ inline Acc draw(const RandomArgs& a, uint64_t i) {
  switch (RandomKind(a.kind)) {
    case RandomKind::Uniform: return philox::uniform<Acc>(a.key, a.counter, i, a.digits, Acc(a.a), Acc(a.b));
    case RandomKind::Normal: {
      Acc u1, u2;
      philox::normal_uniforms<Acc>(a.key, a.counter, i / 2, &u1, &u2);
      const Acc rad = sqrt(Acc(-2) * log(u1));
      const Acc angle = Acc(6.283185307179586) * u2;
      const Acc z = (i & 1) ? sin(angle) * rad : cos(angle) * rad;
      return philox::scale_shift(z, Acc(a.b), Acc(a.a));  // mean + std * z, rounded twice as on the CPU
    }
    case RandomKind::Fraction: return Acc(philox::fraction(a.key, a.counter, i));
    default: return philox::bernoulli(a.key, a.counter, i, a.a) ? Acc(1) : Acc(0);
  }
}

template <class Index, class Acc>
__global__ void random_kernel(RandomArgs args, Geometry g) {
  const Index n = Index(g.numel), step = Index(gridDim.x) * Index(blockDim.x);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    Index o[1];
    offsets<1>(g, i, o);
    if (RandomKind(args.kind) == RandomKind::Integer) {
      // int64, converted to dtype as the CPU converts it: to float first for
      // float16 and bfloat16 (two roundings), directly otherwise.
      const long long v = philox::integer(args.key, args.counter, uint64_t(i), args.words, args.low, args.range);
      if (args.dtype == kFloat16 || args.dtype == kBFloat16)
        store_as(args.data + o[0], args.dtype, float(v));
      else
        store_as(args.data + o[0], args.dtype, v);
    } else {
      store_as(args.data + o[0], args.dtype, draw<Acc>(args, uint64_t(i)));
    }
  }
}

template <class Acc>
void launch_as(const RandomArgs& a, const Geometry& g, cudaStream_t s) {
  if (fits_32bit(g, 1))
    random_kernel<int32_t, Acc><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
  else
    random_kernel<int64_t, Acc><<<blocks_for(g.numel), kThreads, 0, s>>>(a, g);
}

// arange / linspace: element i of a contiguous output. Products and sums are
// rounded one by one (scale_shift), as the CPU computes them.
template <class Index>
__global__ void range_kernel(RangeArgs a) {
  const Index n = Index(a.n), step = Index(gridDim.x) * Index(blockDim.x);
  const int size = dtype_size(a.dtype);
  for (Index i = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); i < n; i += step) {
    char* p = a.data + int64_t(i) * size;
    if (!a.linspace) {
      if (a.integral)
        store_as(p, a.dtype,
                 (long long)((unsigned long long)a.istart + (unsigned long long)a.istep * (unsigned long long)i));
      else
        store_as(p, a.dtype, philox::scale_shift(double(i), a.step, a.start));
    } else {
      const bool low = int64_t(i) < a.n / 2;
      const int64_t k = low ? int64_t(i) : a.n - int64_t(i) - 1;
      if (a.in_double)
        store_as(p, a.dtype, philox::scale_shift(double(k), low ? a.step : -a.step, low ? a.start : a.end));
      else
        store_as(
            p, a.dtype,
            philox::scale_shift(float(k), low ? float(a.step) : -float(a.step), low ? float(a.start) : float(a.end)));
    }
  }
}

}  // namespace

int launch_range(const RangeArgs* args, Stream stream) {
  if (args->n == 0) return 0;
  if (args->data == nullptr || args->n < 0) return int(cudaErrorInvalidValue);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  if (args->n < INT32_MAX - kMaxBlocks * kThreads)
    range_kernel<int32_t><<<blocks_for(args->n), kThreads, 0, s>>>(*args);
  else
    range_kernel<int64_t><<<blocks_for(args->n), kThreads, 0, s>>>(*args);
  return int(cudaGetLastError());
}

int launch_random(const RandomArgs* args, const Geometry* g, Stream stream) {
  if (g->numel == 0) return 0;
  if (args->kind < 0 || args->kind >= int(RandomKind::Count) || args->data == nullptr || args->digits < 1 ||
      args->digits > 53 || args->range == 0 || (args->words != 1 && args->words != 2))
    return int(cudaErrorInvalidValue);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  if (args->dtype == kFloat64)
    launch_as<double>(*args, *g, s);
  else
    launch_as<float>(*args, *g, s);
  return int(cudaGetLastError());
}

}  // namespace tc::cuda
