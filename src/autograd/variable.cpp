// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/variable.h"

#include <cstdint>

#include "autograd/grad_mode.h"

namespace tc::autograd {

AutogradMeta* get_meta(const Tensor& t) { return static_cast<AutogradMeta*>(t.impl()->autograd_meta()); }

namespace {
// Creating a tensor's meta is check-then-set: two threads doing it at once
// would each make one, and one would be lost under the other. A lock from a
// small striped table (by TensorImpl address) makes it once; creation is rare
// per tensor, and tensors that already have their meta (every tensor that
// requires grad) never take it.
std::mutex& creation_lock(const TensorImpl* impl) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<std::uintptr_t>(impl) / alignof(std::max_align_t)) % 64];
}

// Makes the meta of a tensor that has none; the caller makes sure no other
// thread does so at the same time.
AutogradMeta& create_meta(TensorImpl* impl) {
  std::unique_ptr<AutogradMeta> m(new AutogradMeta);  // default-initialized: no memset before the members' own
  AutogradMeta* raw = m.get();
  impl->init_autograd_meta(std::move(m));
  return *raw;
}
}  // namespace

AutogradMeta& materialize_meta(const Tensor& t) {
  if (auto* m = get_meta(t)) return *m;
  std::lock_guard<std::mutex> lock(creation_lock(t.impl()));
  if (auto* m = get_meta(t)) return *m;
  return create_meta(t.impl());
}

namespace {
// Keeps the Autograd key in step with the meta: present iff it requires grad.
void sync_key(const Tensor& t) {
  if (t.requires_grad())
    t.impl()->add_key(DispatchKey::Autograd);
  else
    t.impl()->remove_key(DispatchKey::Autograd);
}
void check_tensor(const Tensor& t, const char* op) {
  TC_CHECK_ARG(t.defined(), op, ": argument 'self' is an undefined tensor");
}
}  // namespace

void set_requires_grad(const Tensor& t, bool requires_grad) {
  check_tensor(t, "requires_grad_");
  AutogradMeta* m = get_meta(t);
  if (m && m->grad_fn_) {
    TC_CHECK_ARG(requires_grad,
                 "requires_grad_: you can only change requires_grad flags of leaf variables. If you "
                 "want to use a computed variable in a subgraph that doesn't require differentiation use "
                 "var_no_grad = var.detach().");
    return;
  }
  TC_CHECK_TYPE(!requires_grad || is_floating(t.dtype()),
                "requires_grad_: only tensors of floating point dtype "
                "can require gradients, got ",
                t.dtype());
  if (!m && !requires_grad) return;
  materialize_meta(t).requires_grad_ = requires_grad;
  sync_key(t);
}

// .grad of a leaf, or the retained grad of a non-leaf: read and replaced
// under the tensor's lock (and the slot's), since backward on another thread
// may be accumulating into it. Tensors are copied in and out under the lock;
// the value replaced is released after it.
Tensor grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m) return Tensor();
  std::shared_ptr<GradSlot> slot;
  {
    std::lock_guard<std::mutex> lock(m->mutex_);
    if (!m->grad_fn_ || !m->retained_grad_) return m->grad_;
    slot = m->retained_grad_;
  }
  std::lock_guard<std::mutex> lock(slot->mutex);
  return slot->grad;
}

void set_grad(const Tensor& t, const Tensor& g) {
  check_tensor(t, "set_grad");
  if (g.defined()) {
    TC_CHECK_TYPE(g.dtype() == t.dtype(), "set_grad: assigned grad has data of dtype ", g.dtype(),
                  " but the tensor has dtype ", t.dtype());
    TC_CHECK_ARG(g.sizes() == t.sizes(), "set_grad: assigned grad has shape ", g.sizes(), " but the tensor has shape ",
                 t.sizes());
    TC_CHECK(g.device() == t.device(), Device, "set_grad: assigned grad is on ", g.device(), " but the tensor is on ",
             t.device());
  }
  AutogradMeta* m = g.defined() ? &materialize_meta(t) : get_meta(t);
  if (!m) return;
  Tensor old, old_retained;  // released after the locks
  std::shared_ptr<GradSlot> slot;
  {
    std::lock_guard<std::mutex> lock(m->mutex_);
    // A non-leaf that retains its grad gets a new one in its slot, anything
    // else in .grad; clearing clears both.
    const bool into_slot = g.defined() && m->grad_fn_ && m->retained_grad_;
    if (!into_slot) {
      old = std::move(m->grad_);
      m->grad_ = g;
    }
    if (into_slot || !g.defined()) slot = m->retained_grad_;
  }
  if (slot) {
    std::lock_guard<std::mutex> lock(slot->mutex);
    old_retained = std::move(slot->grad);
    slot->grad = g;
  }
}

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> kNone;
  AutogradMeta* m = get_meta(t);
  return m ? m->grad_fn_ : kNone;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

uint32_t output_nr(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  return m ? m->output_nr_ : 0;
}

void retain_grad(const Tensor& t) {
  check_tensor(t, "retain_grad");
  TC_CHECK(t.requires_grad(), Runtime, "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf(t)) return;  // leaves keep their grad anyway
  AutogradMeta& m = materialize_meta(t);
  std::shared_ptr<GradSlot> slot;
  {
    std::lock_guard<std::mutex> lock(m.mutex_);
    if (m.retained_grad_) return;
    slot = m.retained_grad_ = std::make_shared<GradSlot>();
  }
  m.grad_fn_->add_retained_grad(m.output_nr_, std::move(slot));  // takes the node's lock
}

bool retains_grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m) return false;
  std::lock_guard<std::mutex> lock(m->mutex_);
  return m->retained_grad_ != nullptr || (m->requires_grad_ && !m->grad_fn_);
}

Tensor detach(const Tensor& t) {
  check_tensor(t, "detach");
  Tensor out = make_view(t, t.sizes(), t.strides(), t.storage_offset());
  out.impl()->remove_key(DispatchKey::Autograd);
  return out;
}

void detach_(const Tensor& t) {
  check_tensor(t, "detach_");
  AutogradMeta* m = get_meta(t);
  if (!m) return;
  TC_CHECK(!m->is_view_, Runtime, "detach_: can't detach views in-place. Use detach() instead.");
  m->grad_fn_.reset();
  m->requires_grad_ = false;
  m->output_nr_ = 0;
  sync_key(t);
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  // Every op on a leaf that requires grad comes here, on any thread: the
  // check and the cache update are one step, so a leaf has one accumulator
  // at a time (two would each add into .grad unaware of the other) and the
  // cache is never read half-written.
  std::lock_guard<SpinLock> lock(m.accumulator_lock_);
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = make_node<AccumulateGrad>(t);
  m.grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge();
  AutogradMeta* m = get_meta(t);
  if (!m || !m->requires_grad()) return Edge();
  if (m->is_view_ && m->attr_version_ != t.version() && m->base_.requires_grad())
    TC_FAIL(Runtime,
            "a view of a tensor that requires grad was modified in place (through its base or another "
            "view) after it was created; its recorded history is stale and its gradient would be wrong. Use the "
            "tensor after the in-place change, or clone() the view before changing the base.");
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  return Edge(grad_accumulator(t), 0);
}

void set_history(const Tensor& t, std::shared_ptr<Node> fn) {
  if (!t.defined()) return;
  // `t` is an op's output: a fresh tensor, which no other thread can reach
  // yet (only `t` refers to it), or the self of an in-place op, which other
  // threads must not be using (see the header). Its meta, if it has none, is
  // made without the creation lock.
  AutogradMeta* mp = get_meta(t);
  AutogradMeta& m = mp ? *mp : t.impl()->use_count() == 1 ? create_meta(t.impl()) : materialize_meta(t);
  m.output_nr_ = fn->add_input_metadata(t);
  m.grad_fn_ = std::move(fn);
  t.impl()->add_key(DispatchKey::Autograd);
}

void check_inplace(const Tensor& self, const char* op) {
  AutogradMeta* m = get_meta(self);
  if (m && m->requires_grad_ && !m->grad_fn_)
    TC_FAIL(Runtime, op, ": a leaf Variable that requires grad is being used in an in-place operation.");
  if (m && m->is_view_ && (m->base_.requires_grad() || m->requires_grad()))
    TC_FAIL(Runtime, op,
            ": in-place operation on a view of a tensor that requires grad is not supported: the "
            "base's history would not see it. Apply the op out of place, or to a clone() of the view.");
  // `self` gains history now: any view of it made earlier would keep a stale
  // (empty) history and give silently wrong gradients.
  if ((!m || !m->requires_grad()) && self.storage()->use_count() > 1)
    TC_FAIL(Runtime, op,
            ": in-place operation makes a tensor require grad while other tensors (views) share its "
            "memory; their gradients would be wrong. Apply the op out of place, or to a clone().");
}

void set_view_of(const Tensor& view, const Tensor& base) {
  AutogradMeta& m = materialize_meta(view);
  m.is_view_ = true;
  AutogradMeta* bm = get_meta(base);
  m.base_ = bm && bm->is_view_ ? bm->base_ : base;
  m.attr_version_ = view.version();
}

}  // namespace tc::autograd
