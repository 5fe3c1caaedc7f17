// SPDX-License-Identifier: BSD-3-Clause
// Intrusive, atomically reference-counted pointer. The C ABI hands these
// counts out directly (one handle = one strong reference), so the count
// lives inside the object rather than beside it as in std::shared_ptr.
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace tc {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  void retain() const noexcept { refcount_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when this was the last reference and the object was deleted.
  bool release() const noexcept {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
      return true;
    }
    return false;
  }
  int64_t use_count() const noexcept { return refcount_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int64_t> refcount_{1};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept = default;
  intrusive_ptr(std::nullptr_t) noexcept {}
  // Adopts a pointer that already carries one reference (fresh from new).
  static intrusive_ptr adopt(T* p) noexcept {
    intrusive_ptr r;
    r.p_ = p;
    return r;
  }
  // Takes a new reference to an existing object.
  static intrusive_ptr retain_from(T* p) noexcept {
    if (p) p->retain();
    return adopt(p);
  }

  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) {
    if (p_) p_->retain();
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <class U>
  intrusive_ptr(intrusive_ptr<U>&& o) noexcept : p_(o.release_ownership()) {}
  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }
  ~intrusive_ptr() {
    if (p_) p_->release();
  }

  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  // Gives up ownership without decrementing; the caller owns one reference.
  T* release_ownership() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  void reset() noexcept { intrusive_ptr().swap(*this); }
  bool operator==(const intrusive_ptr& o) const noexcept { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const noexcept { return p_ != o.p_; }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::adopt(new T(std::forward<Args>(args)...));
}

}  // namespace tc
