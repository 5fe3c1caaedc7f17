// SPDX-License-Identifier: BSD-3-Clause
// The backward graph: a Node per recorded op, Edges to the nodes of its
// inputs. A node's inputs are the gradients of its op's outputs; its outputs
// are the gradients of the op's differentiable inputs, sent along next_edges.
//
// Threads: graphs may share nodes (a leaf's AccumulateGrad, the history of a
// shared non-leaf), and several threads may run backward through them at
// once. A node's edges and input metadata never change while it is
// referenced; what backward reads and writes on a node (saved tensors,
// retained grads, a custom function's context) is guarded by the node's
// mutex, which the engine holds while the node runs.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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
using edge_list = std::vector<Edge>;

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

class Node : public std::enable_shared_from_this<Node> {
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

  const edge_list& next_edges() const { return next_edges_; }
  edge_list& mutable_next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether output i has anywhere to go (an input that requires grad).
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  uint32_t add_input_metadata(const Tensor& t);
  const std::vector<InputMetadata>& input_metadata() const { return input_metadata_; }
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

  // Creation order: the engine runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }

 protected:
  edge_list next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<RetainedGrad> retained_grads_;
  uint64_t sequence_nr_;
  mutable std::mutex mutex_;
};

// Deletes a node and, iteratively, the chain of nodes only it kept alive, so
// that dropping a graph of 100,000 ops does not recurse 100,000 deep. It is
// the deleter of every node's shared_ptr, so it runs for a node exactly when
// its last reference went, on whichever thread dropped it.
void delete_node(Node* n);

template <class T, class... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), [](T* p) { delete_node(p); });
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
