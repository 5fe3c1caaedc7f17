// SPDX-License-Identifier: BSD-3-Clause
// Shape containers: IntArrayRef is a non-owning view of int64 values,
// DimVector an owning small vector that stays inline up to 6 dims so the
// common tensor allocates nothing for its sizes and strides.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace tc {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  // Like ArrayRef: valid for the full-expression that created the list.
  IntArrayRef(std::initializer_list<int64_t> il) : data_(il.begin()), size_(il.size()) {}
#pragma GCC diagnostic pop
  IntArrayRef(const int64_t& single) : data_(&single), size_(1) {}
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  bool equals(IntArrayRef o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  bool operator==(IntArrayRef o) const { return equals(o); }
  bool operator!=(IntArrayRef o) const { return !equals(o); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

std::ostream& operator<<(std::ostream& os, IntArrayRef a);  // prints [2, 3]

class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t v = 0) { resize(n, v); }
  DimVector(IntArrayRef a) { assign(a); }
  DimVector(std::initializer_list<int64_t> il) { assign(IntArrayRef(il.begin(), il.size())); }
  DimVector(const DimVector& o) { assign(o); }
  DimVector(DimVector&& o) noexcept { move_from(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o);
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      free_heap();
      move_from(o);
    }
    return *this;
  }
  ~DimVector() { free_heap(); }

  void assign(IntArrayRef a) {
    reserve(a.size());
    if (a.size()) std::memmove(data_, a.data(), a.size() * sizeof(int64_t));
    size_ = a.size();
  }
  void resize(size_t n, int64_t v = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    std::memmove(data_ + pos + 1, data_ + pos, (size_ - pos) * sizeof(int64_t));
    data_[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    std::memmove(data_ + pos, data_ + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t& back() { return data_[size_ - 1]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  operator IntArrayRef() const { return IntArrayRef(data_, size_); }
  IntArrayRef ref() const { return IntArrayRef(data_, size_); }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

 private:
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    int64_t* p = new int64_t[cap];
    if (size_) std::memcpy(p, data_, size_ * sizeof(int64_t));
    free_heap();
    data_ = p;
    cap_ = cap;
  }
  void free_heap() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = kInline;
  }
  void move_from(DimVector& o) {
    if (o.data_ == o.inline_) {
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(int64_t));
      data_ = inline_;
      cap_ = kInline;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  int64_t inline_[kInline];
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

}  // namespace tc
