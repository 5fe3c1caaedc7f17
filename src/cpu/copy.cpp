// copy_ (any dtype to any dtype, any strides, src broadcast to self) and its
// functional form. The element conversion is the planner's cast loop.
#include "core/iter.h"
#include "cpu/pointwise.h"

namespace tc::native {

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
    it.for_each([fn](char** data, const int64_t* s, int64_t n) { fn(data[0], s[0], data[1], s[1], n); });
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
