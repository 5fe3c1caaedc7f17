#include "autograd/node.h"

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "tensorc_gen/ops.h"

namespace tc::autograd {
namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
}

Tensor InputMetadata::zeros() const { return tc::zeros(sizes, dtype, device); }

Node::Node(edge_list next_edges)
    : next_edges_(std::move(next_edges)), sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.emplace_back(t);
  return uint32_t(input_metadata_.size() - 1);
}

void delete_node(Node* n) {
  // Take the edges out before the node dies, so that destroying it does not
  // recursively destroy the nodes behind them; release those one by one.
  std::vector<std::shared_ptr<Node>> pending;
  auto take_edges = [&pending](Node* node) {
    for (Edge& e : node->mutable_next_edges())
      if (e.function) pending.push_back(std::move(e.function));
    node->mutable_next_edges().clear();
  };
  take_edges(n);
  delete n;
  while (!pending.empty()) {
    std::shared_ptr<Node> next = std::move(pending.back());
    pending.pop_back();
    if (next.use_count() == 1) take_edges(next.get());
    // `next` dies here when this was its last reference; its own edges are
    // already in `pending`.
  }
}

void throw_released(const Node& n) {
  TC_FAIL(Runtime, "backward: trying to backward through the graph a second time (or directly access saved "
          "tensors after they have already been freed). Saved intermediate values of the graph are freed when "
          "you call backward() or autograd.grad() (here: ", n.name(), "). Specify retain_graph=True if you need "
          "to backward through the graph a second time or if you need to access saved tensors after calling "
          "backward.");
}

AccumulateGrad::AccumulateGrad(const Tensor& variable) : variable_(variable) { add_input_metadata(variable); }

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor& g = grads[0];
  if (!g.defined()) return {};
  AutogradMeta& m = materialize_meta(variable_);
  if (!m.grad_.defined()) {
    // Keep the incoming gradient unless someone else may still change it.
    if (GradMode::is_enabled()) m.grad_ = g;  // create_graph: keep its history
    else m.grad_ = g.use_count() == 1 && g.is_contiguous() ? g : tc::clone(g);
  } else if (GradMode::is_enabled()) {
    m.grad_ = tc::add(m.grad_, g);  // create_graph: out of place, differentiable
  } else {
    m.grad_.add_(g);
  }
  return {};
}

variable_list NotImplementedBackward::apply(variable_list&&) {
  TC_FAIL(NotImplemented, "the derivative for '", op_, "' is not implemented");
}

}  // namespace tc::autograd
