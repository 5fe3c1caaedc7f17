// SPDX-License-Identifier: BSD-3-Clause
// repeat and constant_pad_nd as decompositions (CompositeImplicitAutograd):
// autograd comes from expand, reshape, narrow and cat.
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/ops.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {

// repeat(Tensor self, int[] repeats) -> Tensor
// self (with leading dims of size 1 added up to len(repeats)) viewed as
// [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...], copied, merged
// pairwise. The copy is unconditional: repeat never returns a view, even when
// every repeat is 1, so writing into the result never changes self.
Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const char* op = "repeat";
  const int64_t n = int64_t(repeats.size());
  TC_CHECK_ARG(n >= self.dim(), op, ": argument 'repeats' has ", n, " entries, expected at least self's ", self.dim(),
               " dims");
  DimVector padded, expanded, merged;
  for (int64_t d = 0; d < n; ++d) {
    const int64_t r = repeats[size_t(d)];
    TC_CHECK_ARG(r >= 0, op, ": argument 'repeats' has a negative entry ", r, " at position ", d);
    const int64_t s = d < n - self.dim() ? 1 : self.size(d - (n - self.dim()));
    padded.push_back(1);
    padded.push_back(s);
    expanded.push_back(r);
    expanded.push_back(s);
    int64_t rs = 0;
    TC_CHECK(!__builtin_mul_overflow(r, s, &rs), OutOfMemory, op, ": argument 'repeats' ", repeats, " makes dim ", d,
             " larger than fits in int64");
    merged.push_back(rs);
  }
  checked_numel(merged, op);
  return tc::reshape(tc::clone(tc::expand(tc::reshape(self, padded), expanded)), merged);
}

// constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor
// pad[2i], pad[2i+1]: elements added before / after dim (ndim - 1 - i); a
// negative amount removes elements instead.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const char* op = "constant_pad_nd";
  TC_CHECK_ARG(pad.size() % 2 == 0, op, ": argument 'pad' must have an even length, got ", pad.size());
  TC_CHECK_ARG(int64_t(pad.size() / 2) <= self.dim(), op, ": argument 'pad' pads ", pad.size() / 2,
               " dims, but self has only ", self.dim());
  Tensor out = self;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = self.dim() - 1 - int64_t(i);
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const int64_t size = out.size(d);
    TC_CHECK_ARG(size + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0) >= 0, op, ": argument 'pad' (",
                 before, ", ", after, ") removes more than the ", size, " elements of dim ", d);
    // Crops first, then the padding blocks around what is left.
    const int64_t start = before < 0 ? -before : 0;
    const int64_t length = size - start - (after < 0 ? -after : 0);
    if (start || length != size) out = tc::narrow(out, d, start, length);
    std::vector<Tensor> parts;
    auto block = [&](int64_t amount) {
      DimVector shape(out.sizes());
      shape[size_t(d)] = amount;
      return tc::full(shape, value, out.dtype(), out.device());
    };
    if (before > 0) parts.push_back(block(before));
    parts.push_back(out);
    if (after > 0) parts.push_back(block(after));
    if (parts.size() > 1) out = tc::cat(parts, d);
  }
  return out.is_same(self) ? tc::clone(self) : out;
}

}  // namespace tc::native
