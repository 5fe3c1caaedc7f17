// SPDX-License-Identifier: BSD-3-Clause
// The backward graph: a Node per recorded op, Edges to the nodes of its
// inputs. A node's inputs are the gradients of its op's outputs; its outputs
// are the gradients of the op's differentiable inputs, sent along next_edges.
//
// Threads: graphs may share nodes (a leaf's AccumulateGrad, the history of a
// shared non-leaf), and several threads may run backward through them at
// once. A node's edges and input metadata never change while it is
// referenced; what backward reads and writes on a node (saved tensors,
// retained grads, a custom function's context, the owning pointer the engine
// lends it) is guarded by the node's mutex, which the engine holds while the
// node runs. Nodes are counted by shared_ptr alone (no weak self-reference),
// and making one records nothing shared: its sequence number is per thread.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/small_vector.h"
#include "core/tensor.h"

namespace tc::autograd {

using variable_list = std::vector<Tensor>;
class Node;

// Where a gradient goes: input `input_nr` of `function` (invalid: nowhere).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
};
// Most ops have at most three tensor arguments: their edges stay inline.
using edge_list = SmallVector<Edge, 3>;

// The retained gradient of a non-leaf (retain_grad): shared by the tensor's
// autograd meta, which reads and replaces it, and the node whose input it is,
// which accumulates into it during backward. Its own lock guards `grad`.
struct GradSlot {
  std::mutex mutex;
  Tensor grad;
};

// Shape, dtype and device of a tensor a node receives a gradient for: the
// engine reduces broadcast gradients to this shape and casts to this dtype.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
  InputMetadata() = default;
  explicit InputMetadata(const Tensor& t) : sizes(t.sizes()), dtype(t.dtype()), device(t.device()) {}
  Tensor zeros() const;  // a zero gradient of this shape
};

// Most nodes receive the gradient of one output: its metadata stays inline.
using input_metadata_list = SmallVector<InputMetadata, 1>;

class Node {
 public:
  explicit Node(edge_list next_edges = {});
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Computes the gradients of the op's inputs from those of its outputs.
  // Undefined tensors mean "no gradient" both ways. The engine calls it with
  // mutex() held.
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward without retain_graph (a later
  // unpack reports it). Called with mutex() held.
  virtual void release_variables() {}
  // Held by the engine around apply() and release_variables(), so that two
  // backward passes sharing this node run it one at a time.
  std::mutex& mutex() const { return mutex_; }

  // The node's owning pointer, inside apply(): what a backward formula gives
  // the outputs it unpacks as their history. Nodes do not derive from
  // std::enable_shared_from_this, whose weak self-reference would cost every
  // recorded op two more atomic count updates; the engine, which reached the
  // node through an owning edge, lends that edge's pointer for the call.
  std::shared_ptr<Node> shared_from_this() const;
  // Lends `owner` (which points to this node and outlives the scope) to
  // shared_from_this() for a scope. The engine holds mutex() across it.
  class OwnerScope {
   public:
    OwnerScope(Node& n, const std::shared_ptr<Node>& owner) : n_(n), prev_(n.owner_) { n.owner_ = &owner; }
    ~OwnerScope() { n_.owner_ = prev_; }
    OwnerScope(const OwnerScope&) = delete;
    OwnerScope& operator=(const OwnerScope&) = delete;

   private:
    Node& n_;
    const std::shared_ptr<Node>* prev_;
  };

  const edge_list& next_edges() const { return next_edges_; }
  edge_list& mutable_next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether output i has anywhere to go (an input that requires grad).
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  uint32_t add_input_metadata(const Tensor& t);
  const input_metadata_list& input_metadata() const { return input_metadata_; }
  size_t num_inputs() const { return input_metadata_.size(); }

  // Non-leaf outputs that retain their grad: the gradient arriving at input
  // `first` is also accumulated into second->grad (shared with the tensor's
  // meta). Read with mutex() held; adding takes it.
  using RetainedGrad = std::pair<uint32_t, std::shared_ptr<GradSlot>>;
  const std::vector<RetainedGrad>& retained_grads() const { return retained_grads_; }
  void add_retained_grad(uint32_t input_nr, std::shared_ptr<GradSlot> slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    retained_grads_.emplace_back(input_nr, std::move(slot));
  }

  // Creation order on the thread that made the node (a per-thread count, as
  // in PyTorch): among nodes ready to run, the engine runs later ones first.
  // Correctness never depends on it; dependency counts order the graph.
  uint64_t sequence_nr() const { return sequence_nr_; }

 protected:
  edge_list next_edges_;
  input_metadata_list input_metadata_;
  std::vector<RetainedGrad> retained_grads_;
  uint64_t sequence_nr_;
  mutable std::mutex mutex_;

 private:
  const std::shared_ptr<Node>* owner_ = nullptr;  // see OwnerScope
};

// Destroys a node (runs its destructor; the memory goes with its control
// block) and, iteratively, the chain of nodes only it kept alive, so that
// dropping a graph of 100,000 ops does not recurse 100,000 deep. make_node's
// allocator calls it, so it runs for a node exactly when its last strong
// reference went, on whichever thread dropped it.
void destroy_node(Node* n) noexcept;

// The allocator of make_node: plain new/delete for the one block that holds
// the control block and the node, and destroy_node as the way the node dies
// (std::allocate_shared destroys its object through the allocator).
template <class T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() noexcept = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  template <class U>
  void destroy(U* p) noexcept {
    if constexpr (std::is_base_of_v<Node, U>)
      destroy_node(p);
    else
      p->~U();
  }
  template <class U>
  bool operator==(const NodeAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const NodeAllocator<U>&) const noexcept {
    return false;
  }
};

// Makes a node and its shared_ptr control block in one allocation.
template <class T, class... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::allocate_shared<T>(NodeAllocator<T>(), std::forward<Args>(args)...);
}

// The node behind a leaf that requires grad: adds into its .grad, holding
// the leaf's per-tensor lock (AutogradMeta::mutex_) while it reads, updates
// or replaces it. A leaf has at most one at a time (grad_accumulator()).
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(const Tensor& variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;  // a strong reference, as PyTorch: the leaf lives while its graph does
};

// Recorded for a differentiable op that has no derivative formula: backward
// through it fails with an error naming the op.
class NotImplementedBackward final : public Node {
 public:
  NotImplementedBackward(std::string op, edge_list next) : Node(std::move(next)), op_(std::move(op)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_;
};

// The error for a node whose saved tensors were freed by an earlier backward.
[[noreturn]] void throw_released(const Node& n);

}  // namespace tc::autograd
