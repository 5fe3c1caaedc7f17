// SPDX-License-Identifier: BSD-3-Clause
// copy_ (any dtype to any dtype, any strides, src broadcast to self) and its
// functional form. The element conversion is the planner's cast loop.
#include <algorithm>

#include "core/iter.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

// A 2-D copy whose source walks the destination's inner dim with a large
// stride (a transpose) touches a new cache line per element, and with a
// power-of-two stride all those lines fall in the same L1 set. So, as ATen
// does, each kTile x kTile tile is first gathered along the source's
// contiguous direction into a small dense buffer, then written out row by
// row (converting dtype on the way).
constexpr int64_t kTile = 64;

bool is_transpose_like(const TensorIter& it) {
  if (it.ndim() != 2 || it.numel() < kTile * kTile) return false;
  const int64_t src_inner = it.byte_stride(1, 0), src_outer = it.byte_stride(1, 1);
  return src_inner > src_outer && src_outer != 0 && src_inner > 64;
}

void tiled_copy(const TensorIter& it, CastLoopFn convert, ScalarType src_dtype) {
  const int64_t n0 = it.shape()[0], n1 = it.shape()[1];
  const int64_t d0 = it.byte_stride(0, 0), d1 = it.byte_stride(0, 1);
  const int64_t s0 = it.byte_stride(1, 0), s1 = it.byte_stride(1, 1);
  const int64_t es = int64_t(element_size(src_dtype));
  const CastLoopFn gather = cast_loop_fn(src_dtype, src_dtype);
  char* dst = it.data(0);
  const char* src = it.data(1);
  const int64_t row_blocks = (n1 + kTile - 1) / kTile;
  auto blocks = [&](int64_t b, int64_t e) {
    alignas(64) char buf[kTile * kTile * 8];  // tile[i][j] in the source dtype
    for (int64_t rb = b; rb < e; ++rb) {
      const int64_t j0 = rb * kTile, jn = std::min(kTile, n1 - j0);
      for (int64_t i0 = 0; i0 < n0; i0 += kTile) {
        const int64_t in = std::min(kTile, n0 - i0);
        for (int64_t i = 0; i < in; ++i) gather(buf + i * kTile * es, es, src + (i0 + i) * s0 + j0 * s1, s1, jn);
        for (int64_t j = 0; j < jn; ++j) convert(dst + (j0 + j) * d1 + i0 * d0, d0, buf + j * es, kTile * es, in);
      }
    }
  };
  // Grain in tile rows: about kGrainSize elements per chunk.
  parallel_for(0, row_blocks, std::max<int64_t>(1, kGrainSize / (kTile * n0)), blocks);
}

}  // namespace

Tensor& copy_inplace_cpu(Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;  // CPU copies are synchronous
  TC_CHECK_ARG(self.defined(), "copy_: argument 'self' is an undefined tensor");
  TC_CHECK_ARG(src.defined(), "copy_: argument 'src' is an undefined tensor");
  if (self.is_same(src)) return self;
  TensorIter it("copy_");
  it.add_output(self).add_input(src).resize_outputs(false).check_output_cast(false);
  it.build();
  // Same memory, same layout, same dtype: nothing to move.
  const bool identical = self.data_ptr() == src.data_ptr() && self.dtype() == src.dtype() &&
                         self.sizes() == src.sizes() && self.strides() == src.strides();
  if (!identical) {
    const CastLoopFn fn = cast_loop_fn(self.dtype(), src.dtype());
    if (is_transpose_like(it)) {
      tiled_copy(it, fn, src.dtype());
    } else {
      it.for_each([fn](char** data, const int64_t* s, int64_t n) { fn(data[0], s[0], data[1], s[1], n); });
    }
  }
  self.bump_version();
  return self;
}

Tensor copy_cpu(const Tensor& self, const Tensor& src, bool non_blocking) {
  TC_CHECK_ARG(self.defined(), "copy: argument 'self' is an undefined tensor");
  Tensor out = empty_tensor(self.sizes(), self.dtype());
  copy_inplace_cpu(out, src, non_blocking);
  return out;
}

}  // namespace tc::native
