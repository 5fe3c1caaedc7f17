// SPDX-License-Identifier: BSD-3-Clause
#include "tracer/tracer.h"

#include <memory>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "dispatch/tls.h"

namespace tc::tracer {
namespace {

struct State {
  Graph graph;
  std::unordered_map<const TensorImpl*, int64_t> ids;  // the value each tensor holds now
  std::vector<Tensor> keep;  // every tensor in `ids` stays alive, so no address is reused while tracing
  std::set<std::string> warned;
  bool tracer_was_included = false;
  int running_below = 0;  // > 0 while a recorded op runs: its own item() calls are not the caller's

  void warn(const std::string& key, const std::string& message) {
    if (warned.insert(key).second) graph.warnings.push_back(message);
  }

  void bind(const Tensor& t, int64_t id) {
    ids[t.impl()] = id;
    keep.push_back(t);
  }

  int64_t id_of(const Tensor& t) {
    auto it = ids.find(t.impl());
    if (it != ids.end()) return it->second;
    const int64_t id = graph.add_value(t);
    graph.captured.push_back(Captured{id, t, t.requires_grad()});
    bind(t, id);
    return id;
  }

  NodeArg arg_of(const IValue& v, const schema::Argument& schema_arg, const OperatorEntry& op) {
    NodeArg a;
    if (v.is_tensor() && !schema_arg.type.is_tensor()) {  // a 0-dim tensor given for a Scalar: its value
      warn("scalar:" + op.name(),
           op.name() + ": argument '" + schema_arg.name + "' was a tensor read as a number; the graph keeps its value");
      a.constant = IValue(v.to_tensor().item());
      return a;
    }
    switch (v.tag()) {
      case IValue::Tag::Tensor:
        a.kind = NodeArg::Kind::Value;
        a.values.push_back(id_of(v.to_tensor()));
        break;
      case IValue::Tag::TensorList:
        a.kind = NodeArg::Kind::ValueList;
        for (const Tensor& t : v.to_tensor_list()) a.values.push_back(id_of(t));
        break;
      case IValue::Tag::OptionalTensorList:
        a.kind = NodeArg::Kind::OptionalValueList;
        for (const auto& t : v.to_optional_tensor_list()) a.values.push_back(t && t->defined() ? id_of(*t) : -1);
        break;
      case IValue::Tag::Generator:
        warn("generator:" + op.name(), op.name() +
                                           ": a Generator argument is not recorded; the graph draws from the "
                                           "default generator");
        break;  // None
      default: a.constant = v;
    }
    return a;
  }
};

thread_local std::unique_ptr<State> t_state;

void record_item(const Tensor& t) {
  State* s = t_state.get();
  if (!s || s->running_below) return;
  auto it = s->ids.find(t.impl());
  if (it == s->ids.end()) return;
  for (const Captured& c : s->graph.captured)
    if (c.value == it->second) return;  // a captured tensor's value is a constant anyway
  s->warn("item",
          "reading a traced tensor's value (item(), a comparison in an if, a conversion to a number) "
          "makes the trace follow these example inputs only: the graph keeps the branch they took and "
          "the value as a constant");
}

void trace_fallback(const OperatorEntry& op, DispatchKeySet ks, Stack* stack, void*) {
  State* s = t_state.get();
  const DispatchKeySet below = ks.below(DispatchKey::Tracer);
  if (!s) {  // the key is on but this thread is not tracing: pass the call on
    ExcludeDispatchKeyGuard g(DispatchKey::Tracer);
    op.call_boxed(below, stack);
    return;
  }
  const auto& schema = op.schema();
  const size_t n_args = schema.arguments.size();
  TC_CHECK(stack->size() >= n_args, Runtime, "tracer: ", op.name(), " was called with ", stack->size(),
           " argument(s), its schema has ", n_args);
  const size_t base = stack->size() - n_args;
  Node node;
  node.op = &op;
  std::vector<Tensor> written;  // an op that returns nothing: the tensors it writes
  for (size_t i = 0; i < n_args; ++i) {
    const IValue& v = (*stack)[base + i];
    node.args.push_back(s->arg_of(v, schema.arguments[i], op));
    if (schema.returns.empty() && schema.arguments[i].is_write()) {
      if (v.is_tensor()) written.push_back(v.to_tensor());
      if (v.tag() == IValue::Tag::TensorList)
        for (const Tensor& t : v.to_tensor_list()) written.push_back(t);
    }
  }
  {
    ExcludeDispatchKeyGuard g(DispatchKey::Tracer);
    struct RunningBelow {
      State* s;
      explicit RunningBelow(State* state) : s(state) { ++s->running_below; }
      ~RunningBelow() { --s->running_below; }
    } running(s);
    op.call_boxed(below, stack);
  }
  std::vector<Tensor> made;
  bool only_tensors = true;
  for (const IValue& v : *stack) {
    if (v.is_tensor())
      made.push_back(v.to_tensor());
    else if (v.tag() == IValue::Tag::TensorList)
      for (const Tensor& t : v.to_tensor_list()) made.push_back(t);
    else if (v.is_none())
      made.emplace_back();  // an output the call did not compute (a backward's output_mask)
    else
      only_tensors = false;
  }
  if (!only_tensors) {  // a number or a bool: the caller decides with it, which the graph cannot follow
    s->warn("result:" + op.name(), op.name() +
                                       " returned a value that is not a tensor; the trace keeps what the caller "
                                       "did with it for these example inputs only");
    return;
  }
  if (schema.returns.empty()) made = written;
  for (const Tensor& t : made) {
    if (!t.defined()) {
      node.outputs.push_back(-1);
      continue;
    }
    const int64_t id = s->graph.add_value(t);
    s->bind(t, id);
    node.outputs.push_back(id);
  }
  s->graph.nodes.push_back(std::move(node));
}

State& tracing_state(const char* what) {
  TC_CHECK_ARG(t_state, what, ": this thread is not tracing (call begin first)");
  return *t_state;
}

void stop() {
  if (!t_state) return;
  if (!t_state->tracer_was_included) {
    auto& l = local_dispatch_key_set();
    l.included = l.included.remove(DispatchKey::Tracer);
  }
  set_item_observer(nullptr);
  t_state.reset();
}

}  // namespace

void begin() {
  TC_CHECK_ARG(!t_state, "trace begin: this thread is already tracing (tracing does not nest)");
  t_state = std::make_unique<State>();
  auto& l = local_dispatch_key_set();
  t_state->tracer_was_included = l.included.has(DispatchKey::Tracer);
  l.included = l.included.add(DispatchKey::Tracer);
  set_item_observer(&record_item);
}

void add_input(const Tensor& t) {
  State& s = tracing_state("trace input");
  TC_CHECK_ARG(t.defined(), "trace input: argument 't' is an undefined tensor");
  TC_CHECK_ARG(s.ids.find(t.impl()) == s.ids.end(), "trace input: the tensor is already a value of this trace (an ",
               "input given twice, or a tensor a traced op made)");
  const int64_t id = s.graph.add_value(t);
  s.graph.inputs.push_back(id);
  s.bind(t, id);
}

Graph end(const std::vector<Tensor>& outputs) {
  State& s = tracing_state("trace end");
  for (size_t i = 0; i < outputs.size(); ++i)
    TC_CHECK_ARG(outputs[i].defined(), "trace end: output ", i, " is an undefined tensor");
  for (const Tensor& t : outputs) s.graph.outputs.push_back(s.id_of(t));
  Graph g = std::move(s.graph);
  stop();
  g.eliminate_dead_code();
  g.finish();
  return g;
}

void abort() { stop(); }

bool is_tracing() { return bool(t_state); }

void register_tracer_fallback(Dispatcher& d) {
  KernelFunction k;
  k.boxed = &trace_fallback;
  d.register_fallback(DispatchKey::Tracer, std::move(k), "tracer::trace_fallback (records while tracing)");
}

}  // namespace tc::tracer
