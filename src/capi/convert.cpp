// SPDX-License-Identifier: BSD-3-Clause
// Conversions between C ABI values and core types, and the tensor list
// handle. Every converter throws tc::Error naming the op and the argument;
// callers run inside TC_CAPI_BEGIN / TC_CAPI_END.
#include <cstdint>
#include <utility>

#include "capi/handles.h"

// The object behind a tc_tensor_list handle: one owner, no refcount.
struct tc_tensor_list_s {
  std::vector<tc::Tensor> items;
};

namespace tc::capi {

std::vector<Tensor> to_tensor_list(const tc_tensor* hs, size_t n, const char* op, const char* arg) {
  TC_CHECK_ARG(hs || n == 0, op, ": argument '", arg, "' is NULL but its length is ", n);
  std::vector<Tensor> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TC_CHECK_ARG(hs[i], op, ": argument '", arg, "' has a NULL tensor at index ", i);
    out.push_back(to_tensor(hs[i]));
  }
  return out;
}

std::vector<std::optional<Tensor>> to_optional_tensor_list(const tc_tensor* hs, size_t n, const char* op,
                                                           const char* arg) {
  TC_CHECK_ARG(hs || n == 0, op, ": argument '", arg, "' is NULL but its length is ", n);
  std::vector<std::optional<Tensor>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(to_optional_tensor(hs[i]));
  return out;
}

namespace {

// The 0-dim tensor behind a TC_SCALAR_TENSOR Scalar.
Tensor scalar_tensor_arg(const tc_scalar& s, const char* op, const char* arg) {
  TC_CHECK_ARG(s.u.t, op, ": argument '", arg, "' is a TC_SCALAR_TENSOR Scalar with a NULL tensor");
  Tensor t = to_tensor(s.u.t);
  TC_CHECK_ARG(t.dim() == 0, op, ": argument '", arg, "' is a Scalar given as a tensor of shape ", t.sizes(),
               " (expected a 0-dim tensor)");
  return t;
}

}  // namespace

Scalar to_scalar(const tc_scalar& s, const char* op, const char* arg) {
  switch (s.tag) {
    case TC_SCALAR_BOOL: return Scalar(bool(s.u.b));
    case TC_SCALAR_INT: return Scalar(int64_t(s.u.i));
    case TC_SCALAR_FLOAT: return Scalar(double(s.u.f));
    case TC_SCALAR_TENSOR: {
      // No Tensor overload takes this argument: the value is read here (a
      // device tensor synchronises). A gradient could not flow through it.
      Tensor t = scalar_tensor_arg(s, op, arg);
      TC_CHECK_ARG(!t.requires_grad(), op, ": argument '", arg,
                   "' is a Scalar given as a tensor that requires grad; the op takes it as a number and no gradient "
                   "would reach it (pass t.detach())");
      return t.item();
    }
  }
  TC_FAIL(Type, op, ": argument '", arg, "' has an unknown scalar tag ", s.tag,
          " (expected TC_SCALAR_BOOL, TC_SCALAR_INT, TC_SCALAR_FLOAT or TC_SCALAR_TENSOR)");
}

bool is_tensor_scalar(const tc_scalar& s) { return s.tag == TC_SCALAR_TENSOR; }

Tensor scalar_as_tensor(const tc_scalar& s, const char* op, const char* arg) {
  if (s.tag == TC_SCALAR_TENSOR) return scalar_tensor_arg(s, op, arg);
  return wrapped_scalar_tensor(to_scalar(s, op, arg));  // promotes exactly as the number would
}

tc_scalar from_scalar(const Scalar& s) {
  tc_scalar out;
  out.u.i = 0;
  if (s.is_bool()) {
    out.tag = TC_SCALAR_BOOL;
    out.u.b = s.to_bool();
  } else if (s.is_integral()) {
    out.tag = TC_SCALAR_INT;
    out.u.i = s.to_int();
  } else {
    out.tag = TC_SCALAR_FLOAT;
    out.u.f = s.to_double();
  }
  return out;
}

ScalarType to_dtype(int32_t code, const char* op, const char* arg) {
  if (is_valid_dtype(code)) return static_cast<ScalarType>(code);
  if (code == TC_COMPLEX64 || code == TC_COMPLEX128)
    TC_FAIL(Type, op, ": argument '", arg, "' is ", dtype_name(static_cast<ScalarType>(code)),
            ", which is reserved and not supported yet");
  TC_FAIL(Type, op, ": argument '", arg, "' has an invalid dtype code ", code,
          " (expected a TC_* dtype code from 0 to ", kNumScalarTypes - 1, ")");
}

Device to_device(const tc_device& d, const char* op, const char* arg) {
  TC_CHECK(is_valid_device_type(d.type), Device, op, ": argument '", arg, "' has an invalid device type ", d.type,
           " (expected TC_DEVICE_CPU, TC_DEVICE_CUDA or TC_DEVICE_PRIVATEUSE1)");
  auto type = static_cast<DeviceType>(d.type);
  if (type == DeviceType::CPU) return Device(type);  // the index is ignored for the CPU
  TC_CHECK(d.index >= -1 && d.index <= INT16_MAX, Device, op, ": argument '", arg, "' has an invalid ",
           device_type_name(type), " device index ", d.index, " (expected -1 for the current device, or >= 0)");
  return Device(type, d.index);
}

tc_device from_device(const Device& d) {
  tc_device out;
  out.type = static_cast<int32_t>(d.type);
  out.index = d.is_cpu() ? -1 : d.index;
  return out;
}

Generator to_generator(tc_generator g) {
  if (!g) return default_generator();
  return Generator(intrusive_ptr<GeneratorImpl>::retain_from(reinterpret_cast<GeneratorImpl*>(g)));
}

tc_tensor_list new_tensor_list(std::vector<Tensor>&& ts) {
  auto* l = new tc_tensor_list_s;
  l->items = std::move(ts);
  return l;
}

std::vector<Tensor> take_tensor_list(tc_tensor_list l) {
  if (!l) return {};
  std::vector<Tensor> items = std::move(l->items);
  delete l;
  return items;
}

}  // namespace tc::capi

extern "C" {

TC_API tc_status tc_tensor_list_size(size_t* out, tc_tensor_list l) {
  constexpr const char* fn = "tc_tensor_list_size";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(l, fn, "l");
  *out = l->items.size();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_list_get(tc_tensor* out, tc_tensor_list l, size_t index) {
  constexpr const char* fn = "tc_tensor_list_get";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(l, fn, "l");
  TC_CHECK_INDEX(index < l->items.size(), fn, ": argument 'index' (", index, ") is out of range for a list of ",
                 l->items.size(), " tensors");
  *out = tc::capi::new_handle(l->items[index]);
  TC_CAPI_END(fn)
}

TC_API void tc_tensor_list_release(tc_tensor_list l) { delete l; }

}  // extern "C"
