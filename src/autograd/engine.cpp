// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/engine.h"

#include <queue>
#include <unordered_map>

#include "autograd/formulas.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "tensorc_gen/ops.h"

namespace tc::autograd {
namespace {

// Gradients arriving for one node, summed per input, and the owning pointer
// the node was reached through (an edge of the graph, alive and unchanged
// while the task runs), lent to the node while it runs.
struct InputBuffer {
  variable_list grads;
  const std::shared_ptr<Node>* owner;
  InputBuffer(size_t n, const std::shared_ptr<Node>& owner) : grads(n), owner(&owner) {}
  void add(size_t i, Tensor g) {
    if (!g.defined()) return;
    if (!grads[i].defined())
      grads[i] = std::move(g);
    else
      grads[i] = tc::add(grads[i], g);  // out of place: the first may be a user's tensor
  }
};

// Reduces a broadcast gradient to the shape the receiving node expects and
// casts it to that node's dtype (PyTorch's validate_outputs).
Tensor conform(Tensor g, const InputMetadata& md, const Node& producer, size_t index) {
  if (!g.defined()) return g;
  if (g.sizes() != IntArrayRef(md.sizes)) {
    // Broadcast gradients are reduced over the broadcast dims.
    const int64_t lead = g.dim() - int64_t(md.sizes.size());
    bool expandable = lead >= 0;
    for (size_t d = 0; expandable && d < md.sizes.size(); ++d) {
      const int64_t want = md.sizes[d], have = g.size(lead + int64_t(d));
      expandable = want == have || want == 1;
    }
    TC_CHECK(expandable, Runtime, "backward: function ", producer.name(), " returned an invalid gradient at index ",
             index, " - got ", g.sizes(), " but expected shape compatible with ", IntArrayRef(md.sizes));
    g = formulas::sum_to(g, md.sizes);
  }
  if (g.dtype() != md.dtype) g = tc::to(g, md.dtype);
  TC_CHECK(g.device() == md.device, Device, "backward: function ", producer.name(), " returned a gradient on ",
           g.device(), " at index ", index, ", expected ", md.device);
  return g;
}

struct CompareSeq {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

// One backward pass over the graph reachable from `roots`.
class GraphTask {
 public:
  GraphTask(bool keep_graph, bool create_graph) : keep_graph_(keep_graph), create_graph_(create_graph) {}

  // Captures: the gradient arriving at (node, input_nr) is returned instead of
  // being passed on; only nodes on a path to a capture run.
  void capture(const Edge& e, size_t slot) { captures_[e.function.get()].push_back({e.input_nr, slot}); }

  variable_list run(const edge_list& roots, variable_list root_grads, size_t n_captured) {
    count_dependencies(roots);
    if (!captures_.empty()) mark_needed(roots);
    captured_.resize(n_captured);

    AutoGradMode mode(create_graph_);
    std::priority_queue<Node*, std::vector<Node*>, CompareSeq> ready;
    // The roots' gradients arrive like any other.
    for (size_t i = 0; i < roots.size(); ++i) {
      if (!roots[i].is_valid()) continue;
      Node* fn = roots[i].function.get();
      Tensor g = conform(std::move(root_grads[i]), fn->input_metadata()[roots[i].input_nr], *fn, i);
      buffer_of(roots[i].function).add(roots[i].input_nr, std::move(g));
      if (--dependencies_[fn] == 0) ready.push(fn);
    }
    while (!ready.empty()) {
      Node* fn = ready.top();
      ready.pop();
      auto it = buffers_.find(fn);
      variable_list inputs = std::move(it->second.grads);
      const std::shared_ptr<Node>& owner = *it->second.owner;
      buffers_.erase(it);
      run_node(fn, owner, std::move(inputs), ready);
    }
    return std::move(captured_);
  }

 private:
  InputBuffer& buffer_of(const std::shared_ptr<Node>& fn) {
    auto it = buffers_.find(fn.get());
    if (it == buffers_.end()) it = buffers_.emplace(fn.get(), InputBuffer(fn->num_inputs(), fn)).first;
    return it->second;
  }

  void count_dependencies(const edge_list& roots) {
    std::vector<Node*> stack;
    for (const Edge& e : roots)
      if (e.is_valid()) {
        Node* fn = e.function.get();
        ++dependencies_[fn];
        if (seen_.insert({fn, true}).second) stack.push_back(fn);
      }
    while (!stack.empty()) {
      Node* fn = stack.back();
      stack.pop_back();
      for (const Edge& e : fn->next_edges()) {
        if (!e.is_valid()) continue;
        Node* next = e.function.get();
        ++dependencies_[next];
        if (seen_.insert({next, true}).second) stack.push_back(next);
      }
    }
  }

  // needed_[fn]: fn leads to a captured edge (post-order over the graph).
  void mark_needed(const edge_list& roots) {
    std::vector<std::pair<Node*, size_t>> stack;
    std::unordered_map<Node*, int> state;  // 1 visiting, 2 done
    for (const Edge& e : roots) {
      if (!e.is_valid() || state[e.function.get()]) continue;
      stack.push_back({e.function.get(), 0});
      state[e.function.get()] = 1;
      while (!stack.empty()) {
        auto& [fn, i] = stack.back();
        if (i < fn->next_edges().size()) {
          Node* next = fn->next_edges()[i++].function.get();
          if (next && !state[next]) {
            state[next] = 1;
            stack.push_back({next, 0});
          }
          continue;
        }
        bool needed = captures_.count(fn) > 0;
        for (const Edge& e : fn->next_edges())
          if (e.is_valid() && needed_[e.function.get()]) needed = true;
        needed_[fn] = needed;
        state[fn] = 2;
        stack.pop_back();
      }
    }
  }

  template <class Ready>
  void run_node(Node* fn, const std::shared_ptr<Node>& owner, variable_list inputs, Ready& ready) {
    if (auto it = captures_.find(fn); it != captures_.end())
      for (auto [input_nr, slot] : it->second) {
        Tensor& c = captured_[slot];
        const Tensor& g = inputs[input_nr];
        c = c.defined() && g.defined() ? tc::add(c, g) : (c.defined() ? c : g);
      }
    // grad(): run only nodes that lead to a captured gradient (so never an
    // AccumulateGrad: .grad stays untouched).
    if (!captures_.empty()) {
      bool leads_to_capture = false;
      for (const Edge& e : fn->next_edges()) leads_to_capture |= e.is_valid() && needed_[e.function.get()];
      if (!leads_to_capture) return release_dependents(fn, ready);
    }
    variable_list outputs;
    {
      // Another thread's backward may run this node too (graphs share the
      // accumulator of a shared leaf, and all of a shared non-leaf's
      // history): what a node reads and changes while it runs (saved
      // tensors, retained grads, a custom function's context, a leaf's .grad)
      // is used by one pass at a time. Dependency counts and input buffers
      // are this task's own.
      std::lock_guard<std::mutex> lock(fn->mutex());
      for (const auto& [input_nr, slot] : fn->retained_grads()) {
        const Tensor& g = inputs[input_nr];
        if (!g.defined()) continue;
        std::lock_guard<std::mutex> slot_lock(slot->mutex);
        slot->grad = slot->grad.defined() ? tc::add(slot->grad, g) : (create_graph_ ? g : tc::clone(g));
      }
      bool any_defined = false;
      for (const Tensor& t : inputs) any_defined |= t.defined();
      if (any_defined || fn->num_inputs() == 0) {
        Node::OwnerScope lend(*fn, owner);
        outputs = fn->apply(std::move(inputs));
      }
      // Saved tensors are freed; unpacking one later reports the second backward.
      if (!keep_graph_) fn->release_variables();
    }
    // Edges never change while the node is referenced: read without the lock.
    const auto& edges = fn->next_edges();
    TC_CHECK(outputs.empty() || outputs.size() == edges.size(), Runtime, "backward: function ", fn->name(),
             " returned ", outputs.size(), " gradients, expected ", edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      if (!outputs.empty() && outputs[i].defined())
        buffer_of(e.function)
            .add(e.input_nr, conform(std::move(outputs[i]), next->input_metadata()[e.input_nr], *fn, i));
      else
        buffer_of(e.function);
      if (--dependencies_[next] == 0) ready.push(next);
    }
  }

  template <class Ready>
  void release_dependents(Node* fn, Ready& ready) {
    for (const Edge& e : fn->next_edges()) {
      if (!e.is_valid()) continue;
      buffer_of(e.function);
      if (--dependencies_[e.function.get()] == 0) ready.push(e.function.get());
    }
  }

  bool keep_graph_, create_graph_;
  std::unordered_map<Node*, int> dependencies_;
  std::unordered_map<Node*, bool> seen_, needed_;
  std::unordered_map<Node*, InputBuffer> buffers_;
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures_;
  variable_list captured_;
};

// Roots and their starting gradients (ones for a one-element root).
void prepare_roots(const variable_list& roots, const variable_list& grad_outputs, const char* api, edge_list* edges,
                   variable_list* grads) {
  TC_CHECK_ARG(grad_outputs.empty() || grad_outputs.size() == roots.size(), api, ": got ", grad_outputs.size(),
               " grad_outputs for ", roots.size(), " outputs; expected one per output (or none)");
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    TC_CHECK_ARG(r.defined(), api, ": argument 'tensors' holds an undefined tensor at index ", i);
    TC_CHECK(r.requires_grad(), Runtime, api, ": element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      TC_CHECK(r.numel() == 1, Runtime, api, ": grad can be implicitly created only for scalar outputs (element ", i,
               " has shape ", r.sizes(), ")");
      g = tc::ones_like(r, r.dtype(), r.device());
    } else {
      TC_CHECK_ARG(g.sizes() == r.sizes(), api, ": mismatch in shape: grad_output[", i, "] has a shape of ", g.sizes(),
                   " and output[", i, "] has a shape of ", r.sizes());
    }
    edges->push_back(gradient_edge(r));
    grads->push_back(std::move(g));
  }
}

}  // namespace

void backward(const variable_list& roots, const variable_list& grad_outputs, bool retain_graph, bool create_graph) {
  edge_list edges;
  variable_list grads;
  prepare_roots(roots, grad_outputs, "backward", &edges, &grads);
  // Non-leaves that retain their grad: captured at their edge, then stored.
  GraphTask task(retain_graph || create_graph, create_graph);
  task.run(edges, std::move(grads), 0);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   bool retain_graph, bool create_graph, bool allow_unused) {
  edge_list edges;
  variable_list grads;
  prepare_roots(outputs, grad_outputs, "grad", &edges, &grads);
  TC_CHECK_ARG(!inputs.empty(), "grad: argument 'inputs' is empty; expected at least one tensor");
  GraphTask task(retain_graph || create_graph, create_graph);
  edge_list input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TC_CHECK_ARG(inputs[i].defined(), "grad: argument 'inputs' holds an undefined tensor at index ", i);
    TC_CHECK(inputs[i].requires_grad(), Runtime, "grad: One of the differentiated Tensors (inputs[", i,
             "]) does not require grad");
    input_edges.push_back(gradient_edge(inputs[i]));
    task.capture(input_edges.back(), i);
  }
  variable_list result = task.run(edges, std::move(grads), inputs.size());
  for (size_t i = 0; i < result.size(); ++i) {
    TC_CHECK(allow_unused || result[i].defined(), Runtime, "grad: One of the differentiated Tensors (inputs[", i,
             "]) appears to not have been used in the graph. Set allow_unused=True if this is the desired "
             "behavior.");
    if (result[i].defined())
      result[i] = conform(result[i], input_edges[i].function->input_metadata()[input_edges[i].input_nr],
                          *input_edges[i].function, i);
  }
  return result;
}

}  // namespace tc::autograd
