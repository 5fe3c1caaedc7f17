// SPDX-License-Identifier: BSD-3-Clause
// Per-tensor autograd state and the functions that read and change it. The
// state lives in TensorImpl's autograd-meta slot; a tensor that requires grad
// also carries the Autograd dispatch key, so tensors that do not never reach
// an autograd kernel (the hot path stays free of autograd).
//
// Threads, as in PyTorch: a leaf that requires grad may be shared by threads
// that run ops on it and backward into it at once. What those change lazily
// is locked per tensor: the meta is created under a lock, the leaf's
// AccumulateGrad is made and cached under the meta's accumulator_lock_, and
// .grad (and a retained grad) is read, accumulated into and replaced under
// its mutex_. Plain tensors never take a lock, nor does giving an op's fresh
// output its history. Not locked, as in PyTorch: set_requires_grad, detach_
// and in-place ops on a tensor other threads are using, and reading .grad's
// values while a backward adds into them (it is updated in place).
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "autograd/node.h"

namespace tc::autograd {

// A lock for a few instructions' worth of work: one atomic exchange to take,
// a plain store to release (a std::mutex costs two atomic updates and two
// calls, on every op that records a leaf).
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire))
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

struct AutogradMeta final : AutogradMetaInterface {
  // Guards grad_ and retained_grad_ (the pointer; the slot has its own lock).
  std::mutex mutex_;
  // Guards grad_accumulator_: every op recording the leaf reads it, and the
  // holder only checks it and, when it expired, makes and stores a new one.
  SpinLock accumulator_lock_;
  bool requires_grad_ = false;  // a leaf's flag; non-leaves require grad through grad_fn_
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;  // a leaf's AccumulateGrad, made on first use (accumulator_lock_)
  uint32_t output_nr_ = 0;
  std::shared_ptr<GradSlot> retained_grad_;  // non-leaves after retain_grad(): filled by backward
  // Views of tensors that require grad: the base, and the shared version when
  // the view was made (an in-place change through the base or another view
  // after that would make this view's recorded history stale).
  bool is_view_ = false;
  Tensor base_;
  uint32_t attr_version_ = 0;

  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }
};

AutogradMeta* get_meta(const Tensor& t);          // nullptr when none
AutogradMeta& materialize_meta(const Tensor& t);  // creates it (under a lock: one meta per tensor)

// ---- the user-facing surface ----
void set_requires_grad(const Tensor& t, bool requires_grad);  // leaves only, floating dtypes only
Tensor grad(const Tensor& t);                                 // undefined when none
void set_grad(const Tensor& t, const Tensor& grad);           // undefined clears it
const std::shared_ptr<Node>& grad_fn(const Tensor& t);        // nullptr for leaves
bool is_leaf(const Tensor& t);
uint32_t output_nr(const Tensor& t);
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
Tensor detach(const Tensor& t);  // shares storage and version counter, no history
void detach_(const Tensor& t);

// ---- for autograd kernels ----
// True when grad mode is on and some tensor requires grad.
inline bool any_requires_grad() { return false; }
template <class... Rest>
bool any_requires_grad(const Tensor& t, const Rest&... rest);
template <class... Rest>
bool any_requires_grad(const std::optional<Tensor>& t, const Rest&... rest);
template <class... Rest>
bool any_requires_grad(const std::vector<Tensor>& ts, const Rest&... rest);

// The edge a gradient for `t` must take: its grad_fn, its leaf accumulator, or
// none. Checks that a view has not been changed in place since it was made.
Edge gradient_edge(const Tensor& t);
// Gives `t` (the op's next output) the history `fn`. By value: a node's own
// pointer type converts straight into it, without a temporary to count up
// and down again.
void set_history(const Tensor& t, std::shared_ptr<Node> fn);
// Before an in-place op records history on `self`: errors for a leaf that
// requires grad, a view of a tensor that requires grad, a tensor whose views
// would silently miss the new history.
void check_inplace(const Tensor& self, const char* op);
// Marks `view` (an op's output aliasing `base`) as a view for autograd.
void set_view_of(const Tensor& view, const Tensor& base);

// The accumulator of a leaf that requires grad (made once, then shared
// while any graph holds it; made and cached under accumulator_lock_).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

// ---- inline definitions ----
template <class... Rest>
bool any_requires_grad(const Tensor& t, const Rest&... rest) {
  return (t.defined() && t.requires_grad()) || any_requires_grad(rest...);
}
template <class... Rest>
bool any_requires_grad(const std::optional<Tensor>& t, const Rest&... rest) {
  return (t && t->defined() && t->requires_grad()) || any_requires_grad(rest...);
}
template <class... Rest>
bool any_requires_grad(const std::vector<Tensor>& ts, const Rest&... rest) {
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return any_requires_grad(rest...);
}

}  // namespace tc::autograd
