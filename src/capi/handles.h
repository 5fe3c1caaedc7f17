// SPDX-License-Identifier: BSD-3-Clause
// The C ABI's side of the boundary: handle <-> Tensor conversion and the
// try/catch wrapper every entry point uses. A tc_tensor is a TensorImpl*
// carrying exactly one strong reference.
#pragma once
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/tensor.h"
#include "tensorc.h"

namespace tc::capi {

// Records the error in this thread's last-error slot and returns its status.
tc_status set_error(ErrorCode code, const std::string& message);
// Like set_error, but prefixes "op: " unless the message already names `op_base`.
tc_status set_op_error(const char* op_qualified, const char* op_base, ErrorCode code, const std::string& message);

inline TensorImpl* impl_of(tc_tensor h) { return reinterpret_cast<TensorImpl*>(h); }

// New handle owning one reference to t's impl (t keeps its own).
inline tc_tensor new_handle(const Tensor& t) {
  TensorImpl* p = t.impl();
  if (p) p->retain();
  return reinterpret_cast<tc_tensor>(p);
}
// Moves t's reference into a handle.
inline tc_tensor new_handle(Tensor&& t) { return reinterpret_cast<tc_tensor>(t.unsafe_release()); }

// A Tensor view of a borrowed handle that touches no refcount.
class Borrowed {
 public:
  explicit Borrowed(tc_tensor h) { new (&t_) Tensor(intrusive_ptr<TensorImpl>::adopt(impl_of(h))); }
  ~Borrowed() { t_.unsafe_release(); }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  const Tensor& get() const { return t_; }
  Tensor& mut() { return t_; }

 private:
  union {
    Tensor t_;
  };
};

// Borrowed handle -> owning Tensor (one retain).
inline Tensor to_tensor(tc_tensor h) { return Tensor(intrusive_ptr<TensorImpl>::retain_from(impl_of(h))); }
inline std::optional<Tensor> to_optional_tensor(tc_tensor h) {
  return h ? std::optional<Tensor>(to_tensor(h)) : std::nullopt;
}
std::vector<Tensor> to_tensor_list(const tc_tensor* hs, size_t n, const char* op, const char* arg);
std::vector<std::optional<Tensor>> to_optional_tensor_list(const tc_tensor* hs, size_t n, const char* op,
                                                           const char* arg);

// A TC_SCALAR_TENSOR Scalar is read with item() (synchronising).
Scalar to_scalar(const tc_scalar& s, const char* op, const char* arg);
bool is_tensor_scalar(const tc_scalar& s);
// For the Tensor overload of an op: a TC_SCALAR_TENSOR Scalar's tensor, or a
// number as a wrapped-number 0-dim CPU tensor.
Tensor scalar_as_tensor(const tc_scalar& s, const char* op, const char* arg);
tc_scalar from_scalar(const Scalar& s);
ScalarType to_dtype(int32_t code, const char* op, const char* arg);
Device to_device(const tc_device& d, const char* op, const char* arg);
tc_device from_device(const Device& d);
Generator to_generator(tc_generator g);  // NULL -> default generator

// snprintf-style string output of the C ABI: writes at most capacity - 1
// characters and a NUL into buf (when capacity > 0), sets *needed (when not
// NULL) to the full length + 1. Throws when buf is NULL but capacity is not 0.
void write_string(char* buf, size_t capacity, size_t* needed, const std::string& s, const char* fn);

// A tensor over memory a caller lends (tc_tensor_from_blob's contract, shared
// with DLPack import): checks every argument, naming `fn`; on success
// deleter(data, ctx) runs once with the last reference, on failure never.
Tensor tensor_over_memory(void* data, tc_dtype dtype, const int64_t* sizes, const int64_t* strides, size_t ndim,
                          tc_device device, tc_blob_deleter deleter, void* ctx, const char* fn);

// A C callback's failure (status st, message from tc_error_set) as an Error
// with that code and message; `who` names the callback when it set none.
[[noreturn]] void throw_callback_status(tc_status st, const std::string& who);

// A list handle for dynamic-length results.
tc_tensor_list new_tensor_list(std::vector<Tensor>&& ts);
// Consumes a list handle (one reference) and returns its tensors.
std::vector<Tensor> take_tensor_list(tc_tensor_list l);

}  // namespace tc::capi

#define TC_CAPI_NULL_CHECK(ptr, op, arg)                                                             \
  do {                                                                                               \
    if (!(ptr))                                                                                      \
      return ::tc::capi::set_error(                                                                  \
          ::tc::ErrorCode::InvalidArgument,                                                          \
          ::tc::str(op, ": argument '", arg, "' is NULL (expected ", "a valid pointer or handle)")); \
  } while (0)

// Every C entry point: TC_CAPI_BEGIN ... TC_CAPI_END(op_qualified, op_base)
#define TC_CAPI_BEGIN try {
#define TC_CAPI_END_OP(opq, opb)                                                               \
  }                                                                                            \
  catch (const ::tc::Error& e) {                                                               \
    return ::tc::capi::set_op_error(opq, opb, e.code(), e.message());                          \
  }                                                                                            \
  catch (const std::bad_alloc&) {                                                              \
    return ::tc::capi::set_op_error(opq, opb, ::tc::ErrorCode::OutOfMemory, "out of memory");  \
  }                                                                                            \
  catch (const std::exception& e) {                                                            \
    return ::tc::capi::set_op_error(opq, opb, ::tc::ErrorCode::Internal, e.what());            \
  }                                                                                            \
  catch (...) {                                                                                \
    return ::tc::capi::set_op_error(opq, opb, ::tc::ErrorCode::Internal, "unknown exception"); \
  }                                                                                            \
  return TC_OK;
#define TC_CAPI_END(fn) TC_CAPI_END_OP(fn, fn)
