// SPDX-License-Identifier: BSD-3-Clause
// sort's kernel: CUB's stable segmented sort of (key, int64 index) pairs, one
// segment per line. Keys arrive with NaN made +NaN and -0 made +0 (the
// caller's copy), so CUB's radix order is sort's: NaN largest, equal keys in
// their original order. Three key types only (int64, float, double; the
// caller widens the others, which keeps their order): each costs about 25 s
// of nvcc per architecture.
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime_api.h>

#include "cuda/driver/cast.cuh"
#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

template <class K>
int sort_as(const SortArgs& a, void* temp, size_t* temp_bytes, cudaStream_t s) {
  const K* in = reinterpret_cast<const K*>(a.keys_in);
  K* out = reinterpret_cast<K*>(a.keys_out);
  const int64_t n = a.segments * a.segment_size;
  cudaError_t e;
  if (a.descending)
    e = cub::DeviceSegmentedSort::StableSortPairsDescending(temp, *temp_bytes, in, out, a.values_in, a.values_out, n,
                                                            a.segments, a.offsets, a.offsets + 1, s);
  else
    e = cub::DeviceSegmentedSort::StableSortPairs(temp, *temp_bytes, in, out, a.values_in, a.values_out, n, a.segments,
                                                  a.offsets, a.offsets + 1, s);
  return int(e);
}

}  // namespace

int sort_pairs(const SortArgs* a, void* temp, size_t* temp_bytes, Stream stream) {
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (a->dtype) {
    case kInt64: return sort_as<long long>(*a, temp, temp_bytes, s);
    case kFloat32: return sort_as<float>(*a, temp, temp_bytes, s);
    case kFloat64: return sort_as<double>(*a, temp, temp_bytes, s);
    default: return int(cudaErrorInvalidValue);
  }
}

}  // namespace tc::cuda
