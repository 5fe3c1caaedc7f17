// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: tensors from C++ data: tensor(), from_data(), from_blob() with a deleter.
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include <functional>

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- creation from C++ data ---------------------------------------------------------------

// A new CPU tensor holding a copy of the row-major `data` with shape `sizes`.
template <class T>
Tensor from_data(const T* data, IntArrayRef sizes) {
  tc_tensor t = nullptr;
  detail::check(tc_tensor_from_data(&t, data, detail::to_c(scalar_type_of<T>), sizes.data(), sizes.size()));
  return Tensor::adopt(t);
}
// A 1-dim tensor of the values (dtype from T: tensor({1.f, 2.f}) is float32).
template <class T>
Tensor tensor(ArrayRef<T> values) {
  const int64_t n = int64_t(values.size());
  return from_data(values.data(), IntArrayRef(&n, 1));
}
template <class T>
Tensor tensor(std::initializer_list<T> values) {
  return tensor(ArrayRef<T>(values));
}
template <class T>
Tensor tensor(const std::vector<T>& values) {
  return tensor(ArrayRef<T>(values));
}

// A tensor over memory the caller lends, without a copy (like torch::from_blob).
// Without a deleter the caller keeps `data` alive as long as the tensor (and
// its views) live. With one, tensorc calls deleter(data) exactly once when the
// last of them goes, on whatever thread drops it; a deleter must not throw
// (an exception from it is dropped). On failure the deleter is not called.
namespace detail {
inline const int64_t* blob_strides(IntArrayRef sizes, IntArrayRef strides) {
  if (strides.size() != sizes.size())
    throw InvalidArgumentError("tensorc::from_blob: " + std::to_string(strides.size()) + " strides for " +
                               std::to_string(sizes.size()) + " sizes");
  return list_data(strides);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, const int64_t* strides, ScalarType dtype, Device device,
                        std::function<void(void*)>* deleter) {
  using Fn = std::function<void(void*)>;
  tc_blob_deleter trampoline = [](void* p, void* ctx) noexcept {  // never unwinds into C
    Fn* f = static_cast<Fn*>(ctx);
    try {
      (*f)(p);
    } catch (...) {  // nowhere to report it: a release never fails
    }
    delete f;
  };
  // Owned here until tensorc takes it. On failure it is destroyed (not
  // called: the caller keeps `data`) only after throw_error has read the
  // message, as destroying the callable may run user code.
  std::unique_ptr<Fn> owner(deleter);
  tc_tensor t = nullptr;
  const tc_status st = tc_tensor_from_blob(&t, data, to_c(dtype), sizes.data(), strides, sizes.size(), to_c(device),
                                           deleter ? trampoline : nullptr, deleter);
  if (st != TC_OK) throw_error(st);
  owner.release();  // tensorc calls and deletes it, once
  return Tensor::adopt(t);
}
}  // namespace detail

inline Tensor from_blob(void* data, IntArrayRef sizes, ScalarType dtype = kFloat32, Device device = kCPU) {
  return detail::from_blob(data, sizes, nullptr, dtype, device, nullptr);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype = kFloat32,
                        Device device = kCPU) {
  return detail::from_blob(data, sizes, detail::blob_strides(sizes, strides), dtype, device, nullptr);
}
template <class Deleter, std::enable_if_t<std::is_invocable_v<Deleter&, void*>, int> = 0>
Tensor from_blob(void* data, IntArrayRef sizes, Deleter&& deleter, ScalarType dtype = kFloat32, Device device = kCPU) {
  return detail::from_blob(data, sizes, nullptr, dtype, device,
                           new std::function<void(void*)>(std::forward<Deleter>(deleter)));
}
template <class Deleter, std::enable_if_t<std::is_invocable_v<Deleter&, void*>, int> = 0>
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, Deleter&& deleter, ScalarType dtype = kFloat32,
                 Device device = kCPU) {
  const int64_t* st = detail::blob_strides(sizes, strides);
  return detail::from_blob(data, sizes, st, dtype, device,
                           new std::function<void(void*)>(std::forward<Deleter>(deleter)));
}

}  // namespace tensorc
