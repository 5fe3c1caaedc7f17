// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/node.h"

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "tensorc_gen/ops.h"

namespace tc::autograd {
namespace {
// Per thread, as PyTorch's sequence numbers: the engine only uses them to
// pick among ready nodes, so they need no cross-thread order, and a shared
// atomic counter would cost every recorded op a locked instruction.
// initial-exec: at a fixed offset from the thread pointer, read without a
// __tls_get_addr call (a dlopen'ed library, as under Python, gets these few
// bytes from glibc's static TLS reserve).
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_next_sequence_nr = 0;
}  // namespace

Tensor InputMetadata::zeros() const { return tc::zeros(sizes, dtype, device); }

Node::Node(edge_list next_edges) : next_edges_(std::move(next_edges)), sequence_nr_(t_next_sequence_nr++) {}

std::shared_ptr<Node> Node::shared_from_this() const {
  TC_CHECK(owner_ != nullptr, Runtime, "shared_from_this: ", name(),
           " is not being run by the autograd engine (its owner is lent only inside apply)");
  return *owner_;
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.emplace_back(t);
  return uint32_t(input_metadata_.size() - 1);
}

namespace {
// Nodes waiting to be released by the running destroy_node loop. Inline room
// for the common case (a node's few edges; a chain is released one node at a
// time), so dropping a small graph allocates nothing.
using PendingList = SmallVector<std::shared_ptr<Node>, 16>;
// The loop running on this thread, if any. A plain pointer: no constructor,
// no destructor, so no TLS guard; initial-exec as above.
__attribute__((tls_model("initial-exec"))) thread_local PendingList* t_pending = nullptr;

void take_edges(Node* node, PendingList& into) {
  for (Edge& e : node->mutable_next_edges())
    if (e.function) into.push_back(std::move(e.function));
  node->mutable_next_edges().clear();
}
}  // namespace

void destroy_node(Node* n) noexcept {
  // Each node's edges are taken out before it dies, so that destroying it
  // does not recursively destroy the nodes behind them; they are released
  // one by one from a list. A node is only ever taken apart here, when its
  // last strong reference went (shared_ptr's count orders every other
  // owner's use before this), never because a count looked like 1: another
  // thread may still reach such a node (a leaf's accumulator, through the
  // leaf's cache) and be using it.
  //
  // Nodes whose last reference drops while this thread is already in here
  // (released from the list, or from inside a node's destructor) add their
  // edges to the running loop's list instead of starting their own.
  if (PendingList* running = t_pending) {
    take_edges(n, *running);
    n->~Node();
    return;
  }
  PendingList pending;
  t_pending = &pending;
  take_edges(n, pending);
  n->~Node();
  while (!pending.empty()) {
    std::shared_ptr<Node> next = std::move(pending.back());
    pending.pop_back();
    next.reset();  // the last reference: its edges join `pending`
  }
  t_pending = nullptr;
}

void throw_released(const Node& n) {
  TC_FAIL(Runtime,
          "backward: trying to backward through the graph a second time (or directly access saved "
          "tensors after they have already been freed). Saved intermediate values of the graph are freed when "
          "you call backward() or autograd.grad() (here: ",
          n.name(),
          "). Specify retain_graph=True if you need "
          "to backward through the graph a second time or if you need to access saved tensors after calling "
          "backward.");
}

AccumulateGrad::AccumulateGrad(const Tensor& variable) : variable_(variable) { add_input_metadata(variable); }

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor& g = grads[0];
  if (!g.defined()) return {};
  // The leaf has its meta: it required grad when this node was made.
  AutogradMeta& m = materialize_meta(variable_);
  if (!GradMode::is_enabled()) {
    // The read, the add and the replacement are one step under the leaf's
    // lock: backward calls on other threads accumulating into this leaf, and
    // set_grad/grad, see the sum before or after, never half of it.
    std::lock_guard<std::mutex> lock(m.mutex_);
    // Keep the incoming gradient unless someone else may still change it.
    if (!m.grad_.defined())
      m.grad_ = g.use_count() == 1 && g.is_contiguous() ? g : tc::clone(g);
    else
      m.grad_.add_(g);
    return {};
  }
  // create_graph: the sum is a differentiable op, and recording it takes the
  // lock of any leaf it adds (the incoming gradient may be this very leaf,
  // as in backward(x.clone(), x, create_graph)), so it is computed outside
  // the lock. The engine holds this node's lock, and a leaf has one
  // accumulator at a time, so no other backward changes .grad in between.
  Tensor old;
  {
    std::lock_guard<std::mutex> lock(m.mutex_);
    old = m.grad_;
  }
  Tensor updated = old.defined() ? tc::add(old, g) : g;  // out of place, keeps history
  std::lock_guard<std::mutex> lock(m.mutex_);
  std::swap(m.grad_, updated);  // the old value is released after the lock
  return {};
}

variable_list NotImplementedBackward::apply(variable_list&&) {
  TC_FAIL(NotImplemented, "the derivative for '", op_, "' is not implemented");
}

}  // namespace tc::autograd
