// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: element accessors, t.accessor<T, N>() (checked once, then raw strided access).
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include "tensorc/tensor.hpp"

namespace tensorc {

// ---- accessors ---------------------------------------------------------------------

namespace detail {
// A view of N dims of an accessor: raw pointer + sizes + strides, unchecked.
template <class T, size_t N>
class AccessorView {
 public:
  AccessorView(T* data, const int64_t* sizes, const int64_t* strides) noexcept
      : data_(data), sizes_(sizes), strides_(strides) {}
  AccessorView<T, N - 1> operator[](int64_t i) const noexcept {
    return AccessorView<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(size_t d) const noexcept { return sizes_[d]; }
  int64_t stride(size_t d) const noexcept { return strides_[d]; }
  T* data() const noexcept { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T>
class AccessorView<T, 1> {
 public:
  AccessorView(T* data, const int64_t* sizes, const int64_t* strides) noexcept
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const noexcept { return data_[i * strides_[0]]; }
  int64_t size(size_t d) const noexcept { return sizes_[d]; }
  int64_t stride(size_t d) const noexcept { return strides_[d]; }
  T* data() const noexcept { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
}  // namespace detail

// t.accessor<float, 2>(): checked once, then a[i][j] is a plain strided load.
// Holds its own copy of the sizes and strides, not a reference to the
// tensor: keep the tensor alive while using it.
template <class T, size_t N>
class TensorAccessor {
  static_assert(N >= 1, "TensorAccessor needs at least one dimension");

 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides) noexcept : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = sizes[i];
      strides_[i] = strides[i];
    }
  }
  TensorAccessor(const TensorAccessor& o) noexcept = default;
  TensorAccessor& operator=(const TensorAccessor& o) noexcept = default;
  decltype(auto) operator[](int64_t i) const noexcept {
    return detail::AccessorView<T, N>(data_, sizes_.data(), strides_.data())[i];
  }
  int64_t size(size_t d) const noexcept { return sizes_[d]; }
  int64_t stride(size_t d) const noexcept { return strides_[d]; }
  IntArrayRef sizes() const noexcept { return IntArrayRef(sizes_.data(), N); }
  IntArrayRef strides() const noexcept { return IntArrayRef(strides_.data(), N); }
  T* data() const noexcept { return data_; }

 private:
  T* data_;
  std::array<int64_t, N> sizes_{}, strides_{};
};

template <class T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  check_dtype<T>("accessor");
  const int64_t d = dim();
  if (d != int64_t(N))
    throw InvalidArgumentError("tensorc::Tensor::accessor: expected a " + std::to_string(N) + "-dim tensor, got " +
                               std::to_string(d) + " dims");
  if (!is_cpu()) throw DeviceError("tensorc::Tensor::accessor: the tensor is not on the CPU");
  std::vector<int64_t> sz = sizes(), st = strides();
  return TensorAccessor<T, N>(static_cast<T*>(data_ptr()), sz.data(), st.data());
}

}  // namespace tensorc
