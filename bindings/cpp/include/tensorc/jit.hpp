// SPDX-License-Identifier: BSD-3-Clause
// Traced graphs from C++: record with a Trace scope, or load a graph saved by
// any binding (Python's tensorc.jit.save, tc_graph_save), and run it, over
// tc_trace_* / tc_graph_*.
//   tensorc::Graph g = tensorc::Graph::load("mlp.json");
//   std::vector<tensorc::Tensor> y = g.run({x});
#ifndef TENSORC_JIT_HPP
#define TENSORC_JIT_HPP

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensorc/tensor.hpp"

namespace tensorc {

// An immutable graph (shared: copies refer to the same one; run() may be
// called from several threads at once).
class Graph {
 public:
  // The graph saved at `path` (JSON); a malformed file throws naming the line or field.
  static Graph load(const std::string& path) {
    tc_graph g = nullptr;
    detail::check(tc_graph_load(&g, path.c_str()));
    return Graph(g);
  }
  static Graph from_json(std::string_view text) {
    tc_graph g = nullptr;
    detail::check(tc_graph_from_json(&g, text.data(), text.size()));
    return Graph(g);
  }
  // Takes ownership of a graph handle (released even if this throws).
  static Graph adopt(tc_graph g) { return Graph(g); }

  // The outputs for new inputs of the traced dtypes, shapes and devices.
  std::vector<Tensor> run(TensorList inputs) const {
    std::vector<Tensor> outs(num_outputs());
    size_t n = 0;
    // Tensor and tc_tensor share a layout: tensorc writes new references straight into outs.
    detail::check(tc_graph_run(reinterpret_cast<tc_tensor*>(outs.data()), outs.size(), &n, g_.get(),
                               detail::handles(inputs), inputs.size()));
    outs.resize(n);
    return outs;
  }

  std::string text() const {
    return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_graph_text(b, c, n, g_.get()); });
  }
  std::string to_json() const {
    return detail::c_string([&](char* b, size_t c, size_t* n) { return tc_graph_to_json(b, c, n, g_.get()); });
  }
  void save(const std::string& path) const { detail::check(tc_graph_save(g_.get(), path.c_str())); }

  size_t num_inputs() const { return info().inputs; }
  size_t num_outputs() const { return info().outputs; }
  size_t num_nodes() const { return info().nodes; }
  // Where the trace depends on its example inputs.
  std::vector<std::string> warnings() const {
    std::vector<std::string> w;
    const size_t n = info().warnings;
    for (size_t i = 0; i < n; ++i) {
      const char* m = nullptr;
      detail::check(tc_graph_warning(&m, g_.get(), i));
      w.emplace_back(m);
    }
    return w;
  }
  tc_graph get() const noexcept { return g_.get(); }

 private:
  struct Info {
    size_t inputs = 0, outputs = 0, nodes = 0, warnings = 0;
  };
  explicit Graph(tc_graph g) : g_(g, &tc_graph_release) {}
  Info info() const {
    Info i;
    detail::check(tc_graph_info(&i.inputs, &i.outputs, &i.nodes, &i.warnings, g_.get()));
    return i;
  }
  std::shared_ptr<tc_graph_s> g_;
};

// Records the ops this thread calls from construction until end(): the
// tensors given to input() are the graph's inputs. Destroyed without end(),
// it stops tracing (as after an exception). Not movable; tracing does not nest.
class Trace {
 public:
  Trace() { detail::check(tc_trace_begin()); }
  ~Trace() {
    if (!ended_) tc_trace_abort();
  }
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  void input(const Tensor& t) { detail::check(tc_trace_input(t.get())); }
  Graph end(TensorList outputs) {
    ended_ = true;  // tc_trace_end stops tracing, even when it fails
    tc_graph g = nullptr;
    detail::check(tc_trace_end(&g, detail::handles(outputs), outputs.size()));
    return Graph::adopt(g);
  }

 private:
  bool ended_ = false;
};

}  // namespace tensorc

#endif  // TENSORC_JIT_HPP
