// SPDX-License-Identifier: BSD-3-Clause
// More CUDA pointwise ops on the shared meta steps: neg and relu (the
// unary_same family with their input rules), the activation backward kernels
// (structured::run_pointwise_backward), gelu and its backward, maximum /
// minimum (the binary step),
// each one launch of the driver's pointwise loop; zero_ and the *_like
// factories through the dispatched empty_strided and fill_.
#include "composite/view_helpers.h"
#include "cuda/pointwise.h"
#include "structured/binary.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cuda::PointwiseOp;

void neg_loop(TensorIter& it) { cuda::launch_pointwise(it, PointwiseOp::Neg, it.op_name()); }
void relu_loop(TensorIter& it) { cuda::launch_pointwise(it, PointwiseOp::Relu, it.op_name()); }

Tensor extremum(const Tensor& self, const Tensor& other, PointwiseOp kind, const char* op) {
  Tensor out;
  structured::run_binary(out, self, other, structured::Write::Functional, op, false,
                         [&](TensorIter& it) { cuda::launch_pointwise(it, kind, op); });
  return out;
}

// A fresh tensor laid out like self (PyTorch's preserve_format) on `device`
// (default: self's), through the dispatched factory.
Tensor like(const char* op, const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  TC_CHECK_ARG(self.defined(), op, ": argument 'self' is an undefined tensor");
  return tc::empty_strided(self.sizes(), views::preserved_strides(self), dtype.value_or(self.dtype()),
                           device.value_or(self.device()));
}

}  // namespace

Tensor neg_cuda(const Tensor& self) {
  return structured::unary_same(structured::check_neg_input(self, "neg"), "neg", neg_loop);
}
Tensor& neg_inplace_cuda(Tensor& self) {
  structured::check_neg_input(self, "neg_");
  return structured::unary_same_(self, "neg_", neg_loop);
}
Tensor& neg_out_cuda(const Tensor& self, Tensor& out) {
  return structured::unary_same_out(structured::check_neg_input(self, "neg"), out, "neg", neg_loop);
}
Tensor relu_cuda(const Tensor& self) {
  return structured::unary_same(structured::check_relu_input(self, "relu"), "relu", relu_loop);
}
Tensor& relu_inplace_cuda(Tensor& self) {
  structured::check_relu_input(self, "relu_");
  return structured::unary_same_(self, "relu_", relu_loop);
}

Tensor threshold_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  const char* name = "threshold_backward";
  return structured::run_pointwise_backward(grad_output, self, "self", false, name, [&](TensorIter& it, ScalarType) {
    cuda::launch_pointwise(it, PointwiseOp::ThresholdBackward, name, threshold);
  });
}
Tensor sigmoid_backward_cuda(const Tensor& grad_output, const Tensor& output) {
  const char* name = "sigmoid_backward";
  return structured::run_pointwise_backward(grad_output, output, "output", true, name, [&](TensorIter& it, ScalarType) {
    cuda::launch_pointwise(it, PointwiseOp::SigmoidBackward, name);
  });
}
Tensor tanh_backward_cuda(const Tensor& grad_output, const Tensor& output) {
  const char* name = "tanh_backward";
  return structured::run_pointwise_backward(grad_output, output, "output", true, name, [&](TensorIter& it, ScalarType) {
    cuda::launch_pointwise(it, PointwiseOp::TanhBackward, name);
  });
}

// gelu: the CPU's meta step (structured::run_unary, floating dtypes only, as
// the CPU loop's dispatch), one launch of the exact or tanh form.
namespace {
void gelu_into(Tensor& out, const Tensor& self, structured::Write w, const char* op, std::string_view approximate) {
  const PointwiseOp kind = structured::gelu_tanh(approximate, op) ? PointwiseOp::GeluTanh : PointwiseOp::Gelu;
  structured::run_unary(out, self, w, op, false, [&](TensorIter& it) {
    TC_CHECK_TYPE(is_floating(it.common_dtype()), "gelu", ": unsupported dtype ", it.common_dtype());
    cuda::launch_pointwise(it, kind, op);
  });
}
}  // namespace

Tensor gelu_cuda(const Tensor& self, std::string_view approximate) {
  Tensor out;
  gelu_into(out, self, structured::Write::Functional, "gelu", approximate);
  return out;
}
Tensor& gelu_inplace_cuda(Tensor& self, std::string_view approximate) {
  gelu_into(self, self, structured::Write::InPlace, "gelu_", approximate);
  return self;
}
Tensor& gelu_out_cuda(const Tensor& self, std::string_view approximate, Tensor& out) {
  gelu_into(out, self, structured::Write::Out, "gelu", approximate);
  return out;
}
Tensor gelu_backward_cuda(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  const char* name = "gelu_backward";
  const PointwiseOp kind =
      structured::gelu_tanh(approximate, name) ? PointwiseOp::GeluTanhBackward : PointwiseOp::GeluBackward;
  return structured::run_pointwise_backward(grad_output, self, "self", true, name, [&](TensorIter& it, ScalarType) {
    cuda::launch_pointwise(it, kind, name);
  });
}

Tensor maximum_cuda(const Tensor& self, const Tensor& other) {
  return extremum(self, other, PointwiseOp::Maximum, "maximum");
}
Tensor minimum_cuda(const Tensor& self, const Tensor& other) {
  return extremum(self, other, PointwiseOp::Minimum, "minimum");
}

Tensor& zero_inplace_cuda(Tensor& self) { return fill_inplace_cuda(self, Scalar(int64_t(0))); }

Tensor empty_like_cuda(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return like("empty_like", self, dtype, device);
}
Tensor zeros_like_cuda(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = like("zeros_like", self, dtype, device);
  return tc::fill_(t, Scalar(int64_t(0)));
}
Tensor ones_like_cuda(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = like("ones_like", self, dtype, device);
  return tc::fill_(t, Scalar(int64_t(1)));
}
Tensor full_like_cuda(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                      std::optional<Device> device) {
  Tensor t = like("full_like", self, dtype, device);
  check_scalar_fits("full_like", "fill_value", fill_value, t.dtype());
  return tc::fill_(t, fill_value);
}

}  // namespace tc::native
