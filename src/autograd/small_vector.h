// SPDX-License-Identifier: BSD-3-Clause
// SmallVector<T, N>: a vector that keeps its first N elements inline and
// goes to the heap beyond them (as DimVector does for shapes). Recording an
// op makes a node with a few edges and usually one input; keeping those
// inline saves an allocation each.
#pragma once
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace tc::autograd {

template <class T, size_t N>
class SmallVector {
  static_assert(N > 0, "SmallVector: N must be positive");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  // User-provided, so that value-initialization (`= {}`) does not zero the
  // inline buffer first.
  SmallVector() noexcept {}
  SmallVector(std::initializer_list<T> il) {
    reserve(il.size());
    for (const T& v : il) push_back(v);
  }
  SmallVector(const SmallVector& o) {
    reserve(o.size_);
    std::uninitialized_copy(o.begin(), o.end(), data_);
    size_ = o.size_;
  }
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      reserve(o.size_);
      std::uninitialized_copy(o.begin(), o.end(), data_);
      size_ = o.size_;
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear();
      free_heap();
      take(o);
    }
    return *this;
  }
  ~SmallVector() {
    clear();
    free_heap();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ < cap_) {
      T* e = ::new (static_cast<void*>(data_ + size_)) T(std::forward<Args>(args)...);
      ++size_;
      return *e;
    }
    // The new element first: args may refer to an element of this vector.
    const size_t n = std::max(cap_ * 2, size_ + 1);
    T* p = allocate(n);
    T* e;
    try {
      e = ::new (static_cast<void*>(p + size_)) T(std::forward<Args>(args)...);
    } catch (...) {
      deallocate(p);
      throw;
    }
    adopt(p, n);
    ++size_;
    return *e;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() {
    --size_;
    data_[size_].~T();
  }
  void clear() noexcept {
    std::destroy(data_, data_ + size_);
    size_ = 0;
  }

 private:
  bool is_inline() const { return data_ == inline_data(); }
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }

  static T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
  static void deallocate(T* p) noexcept { ::operator delete(p); }
  void grow(size_t n) { adopt(allocate(n), n); }
  // Moves the elements into p (capacity n) and makes it the buffer.
  void adopt(T* p, size_t n) noexcept {
    std::uninitialized_move(data_, data_ + size_, p);
    std::destroy(data_, data_ + size_);
    free_heap();
    data_ = p;
    cap_ = n;
  }
  void free_heap() noexcept {
    if (!is_inline()) deallocate(data_);
    data_ = inline_data();
    cap_ = N;
  }
  // `this` is empty and inline; takes o's elements (moving them if o is
  // inline, else its buffer) and leaves o empty and inline.
  void take(SmallVector& o) noexcept {
    if (o.is_inline()) {
      std::uninitialized_move(o.data_, o.data_ + o.size_, data_);
      size_ = o.size_;
      o.clear();
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_data();
      o.cap_ = N;
      o.size_ = 0;
    }
  }

  static_assert(std::is_nothrow_move_constructible_v<T>, "SmallVector: T must be nothrow movable");
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "SmallVector: over-aligned T");
  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace tc::autograd
