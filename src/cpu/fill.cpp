// SPDX-License-Identifier: BSD-3-Clause
// fill_ / zero_ and the functional fill: one value, converted once to the
// tensor's dtype, stored as a bit pattern of the element's width.
#include <algorithm>
#include <cstring>

#include "core/iter.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

template <class Bits>
void fill_bits(TensorIter& it, const unsigned char* value) {
  Bits v;
  std::memcpy(&v, value, sizeof(Bits));
  it.for_each([v](char** data, const int64_t* s, int64_t n) {
    if (s[0] == int64_t(sizeof(Bits))) {
      std::fill_n(reinterpret_cast<Bits*>(data[0]), n, v);
    } else {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Bits*>(data[0] + i * s[0]) = v;
    }
  });
}

void fill_with(Tensor& self, const Scalar& value, const char* name) {
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  TensorIter it(name);
  it.add_output(self).resize_outputs(false).check_internal_overlap(false);
  check_scalar_fits(name, "value", value, self.dtype());
  it.build();
  alignas(8) unsigned char buf[8];
  write_scalar(buf, self.dtype(), value);
  switch (self.element_size()) {
    case 1: fill_bits<uint8_t>(it, buf); break;
    case 2: fill_bits<uint16_t>(it, buf); break;
    case 4: fill_bits<uint32_t>(it, buf); break;
    case 8: fill_bits<uint64_t>(it, buf); break;
    default: TC_FAIL(Type, name, ": unsupported dtype ", self.dtype());
  }
  self.bump_version();
}

Scalar value_of(const Tensor& value, const char* name) {
  TC_CHECK_ARG(value.defined(), name, ": argument 'value' is an undefined tensor");
  TC_CHECK_ARG(value.dim() == 0, name, ": only supports 0-dimension value tensor but got tensor with ", value.dim(),
               " dimensions");
  return value.item();
}

}  // namespace

Tensor& fill_inplace_cpu(Tensor& self, const Scalar& value) {
  fill_with(self, value, "fill_");
  return self;
}

Tensor& fill_tensor_inplace_cpu(Tensor& self, const Tensor& value) {
  fill_with(self, value_of(value, "fill_"), "fill_");
  return self;
}

Tensor fill_cpu(const Tensor& self, const Scalar& value) {
  TC_CHECK_ARG(self.defined(), "fill: argument 'self' is an undefined tensor");
  Tensor out = empty_tensor(self.sizes(), self.dtype());
  fill_with(out, value, "fill");
  return out;
}

Tensor fill_tensor_cpu(const Tensor& self, const Tensor& value) {
  TC_CHECK_ARG(self.defined(), "fill: argument 'self' is an undefined tensor");
  Tensor out = empty_tensor(self.sizes(), self.dtype());
  fill_with(out, value_of(value, "fill"), "fill");
  return out;
}

Tensor& zero_inplace_cpu(Tensor& self) {
  fill_with(self, Scalar(int64_t(0)), "zero_");
  return self;
}

}  // namespace tc::native
