// SPDX-License-Identifier: BSD-3-Clause
// tc_trace_* and tc_graph_*: tracing (src/tracer/) from C.
#include <fstream>
#include <string>

#include "capi/handles.h"
#include "tracer/tracer.h"

struct tc_graph_s {
  tc::tracer::Graph graph;
};

namespace {

const tc::tracer::Graph& graph_of(tc_graph g, const char* fn) {
  TC_CHECK_ARG(g, fn, ": argument 'g' is NULL");
  return g->graph;
}

std::vector<tc::Tensor> tensors_of(const tc_tensor* ts, size_t n, const char* fn, const char* arg) {
  TC_CHECK_ARG(ts || n == 0, fn, ": argument '", arg, "' is NULL with ", n, " tensor(s)");
  std::vector<tc::Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    TC_CHECK_ARG(ts[i], fn, ": argument '", arg, "' element ", i, " is NULL");
    out.push_back(tc::capi::to_tensor(ts[i]));
  }
  return out;
}

tc_graph new_graph(tc::tracer::Graph g) {
  auto* h = new tc_graph_s{std::move(g)};
  return h;
}

}  // namespace

extern "C" {

TC_API tc_status tc_trace_begin(void) {
  TC_CAPI_BEGIN
  tc::tracer::begin();
  TC_CAPI_END("tc_trace_begin")
}

TC_API tc_status tc_trace_input(tc_tensor t) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, "tc_trace_input", "t");
  tc::tracer::add_input(tc::capi::to_tensor(t));
  TC_CAPI_END("tc_trace_input")
}

TC_API tc_status tc_trace_end(tc_graph* out, const tc_tensor* outputs, size_t n_outputs) {
  constexpr const char* fn = "tc_trace_end";
  TC_CAPI_BEGIN
  if (out) *out = nullptr;
  struct EndsTracing {  // every return path, errors included, stops the trace
    ~EndsTracing() { tc::tracer::abort(); }
  } ends;
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CHECK_ARG(tc::tracer::is_tracing(), fn, ": this thread is not tracing (call tc_trace_begin first)");
  std::vector<tc::Tensor> ts = tensors_of(outputs, n_outputs, fn, "outputs");
  *out = new_graph(tc::tracer::end(ts));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_trace_abort(void) {
  TC_CAPI_BEGIN
  tc::tracer::abort();
  TC_CAPI_END("tc_trace_abort")
}

TC_API tc_status tc_graph_run(tc_tensor* outs, size_t outs_cap, size_t* n_outs, tc_graph g, const tc_tensor* inputs,
                              size_t n_inputs) {
  constexpr const char* fn = "tc_graph_run";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(n_outs, fn, "n_outs");
  *n_outs = 0;
  const tc::tracer::Graph& graph = graph_of(g, fn);
  TC_CHECK_ARG(outs || outs_cap == 0, fn, ": argument 'outs' is NULL with outs_cap = ", outs_cap);
  TC_CHECK_ARG(graph.outputs.size() <= outs_cap, fn, ": argument 'outs_cap' (", outs_cap,
               ") is smaller than the graph's ", graph.outputs.size(), " outputs");
  std::vector<tc::Tensor> result = graph.run(tensors_of(inputs, n_inputs, fn, "inputs"));
  for (size_t i = 0; i < result.size(); ++i) outs[i] = tc::capi::new_handle(std::move(result[i]));
  *n_outs = result.size();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_graph_text(char* buf, size_t capacity, size_t* needed, tc_graph g) {
  TC_CAPI_BEGIN
  tc::capi::write_string(buf, capacity, needed, graph_of(g, "tc_graph_text").text(), "tc_graph_text");
  TC_CAPI_END("tc_graph_text")
}

TC_API tc_status tc_graph_to_json(char* buf, size_t capacity, size_t* needed, tc_graph g) {
  TC_CAPI_BEGIN
  tc::capi::write_string(buf, capacity, needed, graph_of(g, "tc_graph_to_json").to_json(), "tc_graph_to_json");
  TC_CAPI_END("tc_graph_to_json")
}

TC_API tc_status tc_graph_from_json(tc_graph* out, const char* text, size_t len) {
  constexpr const char* fn = "tc_graph_from_json";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = nullptr;
  TC_CHECK_ARG(text || len == 0, fn, ": argument 'text' is NULL with len = ", len);
  *out = new_graph(tc::tracer::Graph::from_json(std::string_view(text ? text : "", len)));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_graph_save(tc_graph g, const char* path) {
  constexpr const char* fn = "tc_graph_save";
  TC_CAPI_BEGIN
  const tc::tracer::Graph& graph = graph_of(g, fn);
  TC_CAPI_NULL_CHECK(path, fn, "path");
  const std::string text = graph.to_json();
  std::ofstream f(path, std::ios::binary);
  TC_CHECK(bool(f), Runtime, fn, ": cannot open '", path, "' for writing");
  f.write(text.data(), std::streamsize(text.size()));
  f.close();
  TC_CHECK(bool(f), Runtime, fn, ": writing '", path, "' failed");
  TC_CAPI_END(fn)
}

TC_API tc_status tc_graph_load(tc_graph* out, const char* path) {
  constexpr const char* fn = "tc_graph_load";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = nullptr;
  TC_CAPI_NULL_CHECK(path, fn, "path");
  std::ifstream f(path, std::ios::binary);
  TC_CHECK_ARG(bool(f), fn, ": cannot open '", path, "'");
  // Read in blocks up to a bound, so a device file or a FIFO cannot grow the buffer without end.
  constexpr size_t kMaxGraphFile = size_t(1) << 32;
  std::string text;
  char block[1 << 16];
  while (f.read(block, sizeof block) || f.gcount() > 0) {
    text.append(block, size_t(f.gcount()));
    TC_CHECK_ARG(text.size() <= kMaxGraphFile, fn, ": '", path, "' is larger than 4 GiB");
  }
  try {
    *out = new_graph(tc::tracer::Graph::from_json(text));
  } catch (const tc::Error& e) {
    throw tc::Error(e.code(), tc::str(path, ": ", e.what()));  // keep the category (OutOfMemory, a device error)
  }
  TC_CAPI_END(fn)
}

TC_API tc_status tc_graph_info(size_t* n_inputs, size_t* n_outputs, size_t* n_nodes, size_t* n_warnings, tc_graph g) {
  TC_CAPI_BEGIN
  const tc::tracer::Graph& graph = graph_of(g, "tc_graph_info");
  if (n_inputs) *n_inputs = graph.inputs.size();
  if (n_outputs) *n_outputs = graph.outputs.size();
  if (n_nodes) *n_nodes = graph.nodes.size();
  if (n_warnings) *n_warnings = graph.warnings.size();
  TC_CAPI_END("tc_graph_info")
}

TC_API tc_status tc_graph_warning(const char** message, tc_graph g, size_t i) {
  constexpr const char* fn = "tc_graph_warning";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(message, fn, "message");
  *message = nullptr;
  const tc::tracer::Graph& graph = graph_of(g, fn);
  TC_CHECK_INDEX(i < graph.warnings.size(), fn, ": argument 'i' (", i, ") is out of range: the graph has ",
                 graph.warnings.size(), " warning(s)");
  *message = graph.warnings[i].c_str();
  TC_CAPI_END(fn)
}

TC_API void tc_graph_release(tc_graph g) { delete g; }

}  // extern "C"
