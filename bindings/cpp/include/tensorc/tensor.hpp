// SPDX-License-Identifier: BSD-3-Clause
// tensorc C++ wrapper: the Tensor class (value semantics over a tc_tensor
// handle), the index types, and the generated op surface (tensorc_ops.hpp).
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#pragma once

#include <string>
#include <tuple>

#include "tensorc/core.hpp"

namespace tensorc {

class Tensor;
using TensorList = ArrayRef<Tensor>;

namespace indexing {
// Python's start:stop:step; a missing bound is the whole range.
struct Slice {
  Slice(std::optional<int64_t> start_index = std::nullopt, std::optional<int64_t> stop_index = std::nullopt,  // NOLINT
        std::optional<int64_t> step_size = std::nullopt)
      : start(start_index), stop(stop_index), step(step_size) {}
  std::optional<int64_t> start, stop, step;
};
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};
constexpr std::nullopt_t None = std::nullopt;  // a new dimension of size 1

// One entry of t.index({...}): an integer (selects, dropping the dim), a
// Slice, None (inserts a dim), Ellipsis (the dims not indexed otherwise) or
// a Tensor (advanced indexing: integer indices or a bool mask, as in
// libtorch; the result is then a copy, not a view).
class TensorIndex {
 public:
  enum class Kind { Integer, Slice, NewAxis, EllipsisDims, Tensor };
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : kind_(Kind::Integer), integer_(static_cast<int64_t>(i)) {}  // NOLINT: implicit
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}                        // NOLINT
  TensorIndex(std::nullopt_t) : kind_(Kind::NewAxis) {}                          // NOLINT
  TensorIndex(EllipsisIndexType) : kind_(Kind::EllipsisDims) {}                  // NOLINT
  TensorIndex(const char* s) : kind_(Kind::EllipsisDims) {                       // NOLINT: "..."
    if (std::string_view(s) != "...")
      throw InvalidArgumentError("tensorc::indexing::TensorIndex: the only string index is \"...\", got \"" +
                                 std::string(s) + "\"");
  }
  // A tensorc::Tensor (a template only because Tensor is defined below).
  template <class T, std::enable_if_t<std::is_same_v<T, tensorc::Tensor>, int> = 0>
  TensorIndex(const T& t) : kind_(Kind::Tensor), tensor_(t.get()) {  // NOLINT: implicit
    tc_tensor_retain(tensor_);
  }
  TensorIndex(const TensorIndex& o) : kind_(o.kind_), integer_(o.integer_), slice_(o.slice_), tensor_(o.tensor_) {
    tc_tensor_retain(tensor_);
  }
  TensorIndex& operator=(const TensorIndex& o) {
    tc_tensor_retain(o.tensor_);
    tc_tensor_release(tensor_);
    kind_ = o.kind_;
    integer_ = o.integer_;
    slice_ = o.slice_;
    tensor_ = o.tensor_;
    return *this;
  }
  ~TensorIndex() { tc_tensor_release(tensor_); }
  Kind kind() const noexcept { return kind_; }
  int64_t integer() const noexcept { return integer_; }
  const Slice& slice() const noexcept { return slice_; }
  tc_tensor tensor() const noexcept { return tensor_; }  // borrowed

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  tc_tensor tensor_ = nullptr;  // a reference held for Kind::Tensor
};
}  // namespace indexing

template <class T, size_t N>
class TensorAccessor;

// A tensor: one strong reference to a tensorc tensor. Copying shares the
// tensor (retain), moving steals the reference, destruction releases it.
// Ops never copy data unless they say so; assignment to a temporary writes
// data (`t.index({0}) = 1`), assignment to a variable rebinds it.
class Tensor {
 public:
  Tensor() noexcept : h_(nullptr) {}  // undefined: defined() is false
  Tensor(const Tensor& o) noexcept : h_(o.h_) { tc_tensor_retain(h_); }
  Tensor(Tensor&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  ~Tensor() { tc_tensor_release(h_); }
  Tensor& operator=(const Tensor& o) & noexcept {
    tc_tensor_retain(o.h_);  // first: self-assignment is safe
    tc_tensor_release(h_);
    h_ = o.h_;
    return *this;
  }
  Tensor& operator=(Tensor&& o) & noexcept {
    if (this != &o) {
      tc_tensor_release(h_);
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  // Assignment to a temporary (a view from index(), select(), ...) writes
  // into its elements, as in libtorch: t.index({Slice(), 0}) = other / = 0.
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& v) && { return fill_(v); }
  void swap(Tensor& o) noexcept { std::swap(h_, o.h_); }

  // ---- the handle ----
  // Takes ownership of a new reference (e.g. an output of a C call).
  static Tensor adopt(tc_tensor h) noexcept {
    Tensor t;
    t.h_ = h;
    return t;
  }
  // Retains a borrowed handle.
  static Tensor borrow(tc_tensor h) noexcept {
    tc_tensor_retain(h);
    return adopt(h);
  }
  tc_tensor get() const noexcept { return h_; }  // borrowed
  // Gives up ownership: returns the handle (the caller releases it) and leaves this undefined.
  tc_tensor release() noexcept {
    tc_tensor h = h_;
    h_ = nullptr;
    return h;
  }
  bool defined() const noexcept { return h_ != nullptr; }
  // The number of strong references to the tensor (handles and tensorc's own).
  int64_t use_count() const {
    if (!h_) return 0;
    int64_t n = 0;
    detail::check(tc_tensor_use_count(&n, h_));
    return n;
  }

  // ---- metadata (each call asks the C ABI) ----
  int64_t dim() const {
    int64_t d = 0;
    detail::check(tc_tensor_dim(&d, h_));
    return d;
  }
  int64_t ndimension() const { return dim(); }
  std::vector<int64_t> sizes() const { return shape_query(&tc_tensor_sizes); }
  std::vector<int64_t> strides() const { return shape_query(&tc_tensor_strides); }
  int64_t size(int64_t d) const {
    int64_t s = 0;
    detail::check(tc_tensor_size(&s, h_, d));
    return s;
  }
  int64_t stride(int64_t d) const {
    std::vector<int64_t> st = strides();
    const int64_t n = int64_t(st.size());
    if (d < -n || d >= n)
      throw IndexError("tensorc::Tensor::stride: dim " + std::to_string(d) + " is out of range for a tensor of " +
                       std::to_string(n) + " dims");
    return st[size_t(d < 0 ? d + n : d)];
  }
  int64_t numel() const {
    int64_t n = 0;
    detail::check(tc_tensor_numel(&n, h_));
    return n;
  }
  ScalarType scalar_type() const {
    tc_dtype d = 0;
    detail::check(tc_tensor_dtype(&d, h_));
    return static_cast<ScalarType>(d);
  }
  ScalarType dtype() const { return scalar_type(); }
  size_t element_size() const { return tensorc::element_size(scalar_type()); }
  Device device() const {
    tc_device d{};
    detail::check(tc_tensor_device(&d, h_));
    return detail::from_c(d);
  }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  int64_t storage_offset() const {
    int64_t o = 0;
    detail::check(tc_tensor_storage_offset(&o, h_));
    return o;
  }
  bool is_contiguous() const {
    bool c = false;
    detail::check(tc_tensor_is_contiguous(&c, h_));
    return c;
  }
  // The version counter, bumped by every in-place write (libtorch: _version()).
  uint32_t version() const {
    uint32_t v = 0;
    detail::check(tc_tensor_version(&v, h_));
    return v;
  }
  uint32_t _version() const { return version(); }

  // ---- data ----
  void* data_ptr() const {
    void* p = nullptr;
    detail::check(tc_tensor_data_ptr(&p, h_));
    return p;
  }
  // Checked: T must be the tensor's element type.
  template <class T>
  T* data_ptr() const {
    check_dtype<T>("data_ptr");
    return static_cast<T*>(data_ptr());
  }
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  // The value of a one-element tensor.
  Scalar item() const {
    tc_scalar s{};
    detail::check(tc_tensor_item(&s, h_));
    return Scalar(s);
  }
  template <class T>
  T item() const {
    return item().to<T>();
  }
  // The elements in row-major order (any strides); T must be the element type.
  template <class T>
  std::vector<T> to_vector() const {
    check_dtype<T>("to_vector");
    const size_t n = static_cast<size_t>(numel());
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      std::unique_ptr<bool[]> buf(new bool[n ? n : 1]);
      detail::check(tc_tensor_copy_to_buffer(buf.get(), n * sizeof(bool), h_));
      return std::vector<bool>(buf.get(), buf.get() + n);
    } else {
      std::vector<T> v(n);
      detail::check(tc_tensor_copy_to_buffer(v.data(), n * sizeof(T), h_));
      return v;
    }
  }
  // As PyTorch prints it: "tensor([1., 2.])".
  std::string to_string() const;
  // Element access checked once (dtype, dim, CPU), then unchecked: a[i][j].
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const&& = delete;  // would dangle (const rvalues too)

  // ---- autograd ----
  bool requires_grad() const {
    bool r = false;
    detail::check(tc_tensor_requires_grad(&r, h_));
    return r;
  }
  const Tensor& set_requires_grad(bool r) const {
    detail::check(tc_tensor_set_requires_grad(h_, r));
    return *this;
  }
  const Tensor& requires_grad_(bool r = true) const { return set_requires_grad(r); }
  // The accumulated gradient; undefined when there is none.
  Tensor grad() const {
    tc_tensor g = nullptr;
    detail::check(tc_tensor_grad(&g, h_));
    return adopt(g);
  }
  // Replaces the gradient (an undefined tensor clears it, like `x.grad = None`).
  void set_grad(const Tensor& g) const { detail::check(tc_tensor_set_grad(h_, g.h_)); }
  bool is_leaf() const {
    bool l = false;
    detail::check(tc_tensor_is_leaf(&l, h_));
    return l;
  }
  void retain_grad() const { detail::check(tc_tensor_retain_grad(h_)); }
  // "MulBackward0"; "" for a leaf.
  std::string grad_fn_name() const;
  // retain_graph defaults to create_graph, as in libtorch.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const {
    detail::check(tc_tensor_backward(h_, gradient.h_, retain_graph.value_or(create_graph), create_graph));
  }
  Tensor detach() const {
    tc_tensor d = nullptr;
    detail::check(tc_tensor_detach(&d, h_));
    return adopt(d);
  }
  const Tensor& detach_() const {
    detail::check(tc_tensor_detach_(h_));
    return *this;
  }

  // ---- indexing ----
  Tensor operator[](int64_t i) const;  // select(0, i)
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const {
    return index(ArrayRef<indexing::TensorIndex>(indices));
  }
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  // Writes into the indexed elements: t.index_put_({Slice(), 0}, v).
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& v) {
    return index_put_(ArrayRef<indexing::TensorIndex>(indices), v);
  }
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) {
    return index_put_(ArrayRef<indexing::TensorIndex>(indices), v);
  }
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& v);
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v);

  // To another device, keeping the dtype (the schema's to.device takes both).
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const {
    return to(device, scalar_type(), non_blocking, copy);
  }

  // ---- compound assignment: in place ----
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator+=(const Scalar& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator-=(const Scalar& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator*=(const Scalar& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator/=(const Scalar& o) { return div_(o); }

  // ---- every schema op with a method variant (generated) ----
#define TENSORC_OPS_HPP_METHODS
#include "tensorc_ops.hpp"
#undef TENSORC_OPS_HPP_METHODS

 private:
  template <class T>
  void check_dtype(const char* what) const {
    const ScalarType t = scalar_type();
    if (t != scalar_type_of<T>)
      throw TypeError(std::string("tensorc::Tensor::") + what + ": the tensor's dtype is " + tensorc::to_string(t) +
                      ", not " + tensorc::to_string(scalar_type_of<T>));
  }
  std::vector<int64_t> shape_query(tc_status (*fn)(int64_t*, size_t, size_t*, tc_tensor)) const {
    int64_t buf[8];
    size_t n = 0;
    detail::check(fn(buf, 8, &n, h_));
    if (n <= 8) return std::vector<int64_t>(buf, buf + n);
    std::vector<int64_t> v(n);
    detail::check(fn(v.data(), n, &n, h_));
    return v;
  }

  tc_tensor h_;
};
#define TENSORC_HPP_TENSOR_DEFINED

// A Tensor is exactly one handle, so an array of Tensors is an array of handles.
static_assert(sizeof(Tensor) == sizeof(tc_tensor) && std::is_standard_layout_v<Tensor>,
              "tensorc::Tensor must be layout-compatible with tc_tensor");

inline void swap(Tensor& a, Tensor& b) noexcept { a.swap(b); }

namespace detail {
inline const tc_tensor* handles(TensorList l) noexcept { return reinterpret_cast<const tc_tensor*>(l.data()); }

// Takes the tensors out of a list handle (which it releases).
inline std::vector<Tensor> adopt_list(tc_tensor_list l) {
  std::unique_ptr<tc_tensor_list_s, void (*)(tc_tensor_list)> owner(l, &tc_tensor_list_release);
  size_t n = 0;
  check(tc_tensor_list_size(&n, l));
  std::vector<Tensor> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    tc_tensor t = nullptr;
    check(tc_tensor_list_get(&t, l, i));
    out.push_back(Tensor::adopt(t));
  }
  return out;
}

// snprintf-style string getters of the C ABI.
template <class F>
std::string c_string(F&& fn) {
  char buf[256];
  size_t needed = 0;
  check(fn(buf, sizeof buf, &needed));
  if (needed <= sizeof buf) return std::string(buf);
  std::string s(needed, '\0');
  check(fn(&s[0], needed, &needed));
  s.resize(needed - 1);
  return s;
}
}  // namespace detail

inline std::string Tensor::to_string() const {
  if (!h_) return "[ Tensor (undefined) ]";
  return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_tensor_to_string(b, c, n, h_); });
}
inline std::string Tensor::grad_fn_name() const {
  return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_tensor_grad_fn_name(b, c, n, h_); });
}
inline std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace tensorc

// Every op as a free function, and the methods' definitions (generated).
#include "tensorc_ops.hpp"
