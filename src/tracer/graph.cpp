// SPDX-License-Identifier: BSD-3-Clause
// The graph's replay, dead-code elimination, validation and text form.
#include "tracer/graph.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.h"
#include "dispatch/dispatcher.h"

namespace tc::tracer {

int64_t Graph::add_value(const Tensor& t) {
  values.push_back(ValueInfo{t.dtype(), t.sizes().vec(), t.device()});
  return int64_t(values.size()) - 1;
}

std::string printed_op_name(const OperatorEntry& op) {
  return op.schema().name.ns.empty() ? "aten::" + op.name() : op.name();
}

namespace {

std::string shape_text(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

std::string info_text(const ValueInfo& v) {
  std::string s = std::string(dtype_name(v.dtype)) + shape_text(v.sizes);
  return v.device.is_cpu() ? s : s + " on " + v.device.str();
}

std::string double_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".";  // 2. reads as a float, as in TorchScript
  return s;
}

template <class T, class F>
std::string list_text(const std::vector<T>& xs, F f) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + f(xs[i]);
  return s + "]";
}

std::string constant_text(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return "None";
    case IValue::Tag::Int: return std::to_string(v.to_int());
    case IValue::Tag::Double: return double_text(v.to_double());
    case IValue::Tag::Bool: return v.to_bool() ? "True" : "False";
    case IValue::Tag::Scalar: {
      const Scalar s = v.to_scalar();
      if (s.is_bool()) return s.to<bool>() ? "True" : "False";
      return s.is_integral() ? std::to_string(s.to<int64_t>()) : double_text(s.to<double>());
    }
    case IValue::Tag::String: return "\"" + std::string(v.to_string_view()) + "\"";
    case IValue::Tag::IntList: return list_text(v.to_int_list().vec(), [](int64_t x) { return std::to_string(x); });
    case IValue::Tag::DoubleList: return list_text(v.to_double_list(), double_text);
    case IValue::Tag::BoolList:
      return list_text(v.to_bool_list(), [](bool b) { return std::string(b ? "True" : "False"); });
    case IValue::Tag::ScalarType: return dtype_name(v.to_scalar_type());
    case IValue::Tag::Device: return "\"" + v.to_device().str() + "\"";
    default: return std::string("<") + v.tag_name() + ">";
  }
}

std::string value_name(int64_t id) { return id < 0 ? "None" : "%" + std::to_string(id); }

// A node kept even when nothing reads its outputs: it writes an argument,
// or it draws random numbers (dropping it would shift later draws).
bool has_effects(const Node& n) {
  for (const auto& a : n.op->schema().arguments)
    if (a.is_write() || a.type.base == schema::BaseType::Generator) return true;
  return false;
}

}  // namespace

bool Graph::writes_captured() const {
  std::vector<bool> is_captured(values.size(), false);
  for (const Captured& c : captured) is_captured[size_t(c.value)] = true;
  for (const Node& n : nodes)
    for (size_t i = 0; i < n.args.size(); ++i)
      if (n.op->schema().arguments[i].is_write())
        for (int64_t id : n.args[i].values)
          if (id >= 0 && is_captured[size_t(id)]) return true;
  return false;
}

std::vector<Tensor> Graph::run(const std::vector<Tensor>& given) const {
  // A graph that writes a captured tensor (a buffer updated in place) holds
  // state: its runs take turns.
  std::unique_lock<std::mutex> turn;
  if (serialize_runs_) turn = std::unique_lock<std::mutex>(*run_mutex_);
  TC_CHECK_ARG(given.size() == inputs.size(), "graph run: expected ", inputs.size(), " input(s), got ", given.size());
  std::vector<Tensor> env(values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = given[i];
    const ValueInfo& want = values[size_t(inputs[i])];
    TC_CHECK_ARG(t.defined(), "graph run: input ", i, " is an undefined tensor");
    TC_CHECK_ARG(t.dtype() == want.dtype && t.sizes().vec() == want.sizes && t.device() == want.device,
                 "graph run: input ", i, " expected ", info_text(want), " (as traced), got ",
                 info_text(ValueInfo{t.dtype(), t.sizes().vec(), t.device()}));
    env[size_t(inputs[i])] = t;
  }
  for (const Captured& c : captured) env[size_t(c.value)] = c.data;
  for (const Node& n : nodes) {
    Stack stack;
    stack.reserve(n.args.size());
    for (const NodeArg& a : n.args) {
      switch (a.kind) {
        case NodeArg::Kind::Constant: stack.push_back(a.constant); break;
        case NodeArg::Kind::Value: stack.emplace_back(env[size_t(a.values[0])]); break;
        case NodeArg::Kind::ValueList: {
          std::vector<Tensor> ts;
          for (int64_t id : a.values) ts.push_back(env[size_t(id)]);
          stack.emplace_back(std::move(ts));
          break;
        }
        case NodeArg::Kind::OptionalValueList: {
          std::vector<std::optional<Tensor>> ts;
          for (int64_t id : a.values) ts.push_back(id < 0 ? std::nullopt : std::optional<Tensor>(env[size_t(id)]));
          stack.emplace_back(std::move(ts));
          break;
        }
      }
    }
    std::vector<Tensor> written;  // an op that returns nothing: what it wrote
    if (n.op->schema().returns.empty())
      for (size_t i = 0; i < n.args.size(); ++i)
        if (n.op->schema().arguments[i].is_write()) {
          const IValue& v = stack[i];
          if (v.is_tensor()) written.push_back(v.to_tensor());
          if (v.tag() == IValue::Tag::TensorList)
            for (const Tensor& t : v.to_tensor_list()) written.push_back(t);
        }
    n.op->call_boxed(&stack);
    std::vector<Tensor> made;
    for (const IValue& v : stack) {
      if (v.is_tensor()) made.push_back(v.to_tensor());
      if (v.is_none()) made.emplace_back();  // not computed (as when traced: the id is -1)
      if (v.tag() == IValue::Tag::TensorList)
        for (const Tensor& t : v.to_tensor_list()) made.push_back(t);
    }
    if (n.op->schema().returns.empty()) made = std::move(written);
    TC_CHECK(made.size() == n.outputs.size(), Runtime, "graph run: ", n.op->name(), " made ", made.size(),
             " tensor(s) where the trace recorded ", n.outputs.size(), " (a data-dependent output count)");
    for (size_t i = 0; i < made.size(); ++i) {
      if (n.outputs[i] < 0) continue;
      // A file may name an output the op did not compute (a backward's output_mask).
      TC_CHECK(made[i].defined(), Runtime, "graph run: ", n.op->name(), " did not compute its output ", i, " (value ",
               n.outputs[i], "), which the graph uses");
      env[size_t(n.outputs[i])] = std::move(made[i]);
    }
  }
  std::vector<Tensor> out;
  for (int64_t id : outputs) out.push_back(env[size_t(id)]);
  return out;
}

size_t Graph::eliminate_dead_code() {
  std::vector<bool> used(values.size(), false);
  for (int64_t id : outputs) used[size_t(id)] = true;
  std::vector<bool> keep(nodes.size(), false);
  for (size_t k = nodes.size(); k > 0;) {  // last node first (no unsigned wrap: the integer sanitizer checks)
    --k;
    const Node& n = nodes[k];
    bool live = has_effects(n);
    for (int64_t id : n.outputs) live = live || (id >= 0 && used[size_t(id)]);
    if (!live) continue;
    keep[k] = true;
    for (const NodeArg& a : n.args)
      for (int64_t id : a.values)
        if (id >= 0) used[size_t(id)] = true;
  }
  std::vector<Node> kept;
  for (size_t k = 0; k < nodes.size(); ++k)
    if (keep[k]) kept.push_back(std::move(nodes[k]));
  const size_t dropped = nodes.size() - kept.size();
  nodes = std::move(kept);
  std::vector<Captured> live_captured;  // a capture only a dropped node read goes too
  for (Captured& c : captured)
    if (used[size_t(c.value)]) live_captured.push_back(std::move(c));
  captured = std::move(live_captured);
  return dropped;
}

void Graph::validate(const char* where) const {
  const int64_t n_values = int64_t(values.size());
  std::vector<bool> defined(values.size(), false);
  auto define = [&](int64_t id, const std::string& field) {
    TC_CHECK_ARG(id >= 0 && id < n_values, where, ": ", field, ": value ", id, " is out of range (the graph has ",
                 n_values, " values)");
    TC_CHECK_ARG(!defined[size_t(id)], where, ": ", field, ": value ", id, " is defined twice");
    defined[size_t(id)] = true;
  };
  auto use = [&](int64_t id, const std::string& field) {
    TC_CHECK_ARG(id >= 0 && id < n_values && defined[size_t(id)], where, ": ", field, ": value ", id,
                 " is not defined before its use");
  };
  for (size_t i = 0; i < inputs.size(); ++i) define(inputs[i], "inputs[" + std::to_string(i) + "]");
  for (size_t i = 0; i < captured.size(); ++i) {
    const std::string field = "constants[" + std::to_string(i) + "]";
    define(captured[i].value, field);
    const Tensor& t = captured[i].data;
    const ValueInfo& v = values[size_t(captured[i].value)];
    TC_CHECK_ARG(t.defined() && t.dtype() == v.dtype && t.sizes().vec() == v.sizes, where, ": ", field,
                 ": the data does not match the value's dtype and shape");
  }
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = nodes[k];
    const std::string field = "nodes[" + std::to_string(k) + "]";
    TC_CHECK_ARG(n.op, where, ": ", field, ": no operator");
    const auto& args = n.op->schema().arguments;
    TC_CHECK_ARG(n.args.size() == args.size(), where, ": ", field, " (", n.op->name(), "): expected ", args.size(),
                 " argument(s) as its schema has, got ", n.args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const NodeArg& a = n.args[i];
      const schema::Type& t = args[i].type;
      const std::string arg_field = field + ".args[" + std::to_string(i) + "] ('" + args[i].name + "')";
      using K = NodeArg::Kind;
      const bool ok = !t.is_tensor() ? a.kind == K::Constant && !a.constant.is_tensor()
                      : !t.is_list   ? (a.kind == K::Value && a.values.size() == 1) ||
                                         (a.kind == K::Constant && a.constant.is_none() && t.optional)
                      : t.elem_optional
                          ? a.kind == K::OptionalValueList
                          : a.kind == K::ValueList || (a.kind == K::Constant && a.constant.is_none() && t.optional);
      TC_CHECK_ARG(ok, where, ": ", arg_field, ": expected ", t.str(), " for ", n.op->name());
      for (int64_t id : a.values)
        if (id >= 0 || a.kind != K::OptionalValueList) use(id, arg_field);
    }
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (n.outputs[i] != -1) define(n.outputs[i], field + ".outputs[" + std::to_string(i) + "]");
  }
  for (size_t i = 0; i < outputs.size(); ++i) use(outputs[i], "outputs[" + std::to_string(i) + "]");
}

void Graph::finish() { serialize_runs_ = writes_captured(); }

std::string Graph::text() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ",\n      " : "") << value_name(inputs[i]) << " : " << info_text(values[size_t(inputs[i])]);
  os << "):\n";
  for (const Captured& c : captured)
    os << "  " << value_name(c.value) << " : " << info_text(values[size_t(c.value)]) << " = "
       << (c.parameter ? "prim::Parameter" : "prim::Constant") << "()\n";
  for (const Node& n : nodes) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      os << (i ? ", " : "") << value_name(n.outputs[i]);
      if (n.outputs[i] >= 0) os << " : " << info_text(values[size_t(n.outputs[i])]);
    }
    os << (n.outputs.empty() ? "" : " = ") << printed_op_name(*n.op) << "(";
    const auto& args = n.op->schema().arguments;
    for (size_t i = 0; i < n.args.size(); ++i) {
      const NodeArg& a = n.args[i];
      os << (i ? ", " : "");
      if (args[i].kwarg_only) os << args[i].name << "=";
      if (a.kind == NodeArg::Kind::Constant)
        os << constant_text(a.constant);
      else if (a.kind == NodeArg::Kind::Value)
        os << value_name(a.values[0]);
      else
        os << list_text(a.values, value_name);
    }
    os << ")\n";
  }
  os << "  return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << value_name(outputs[i]);
  os << ")\n";
  return os.str();
}

}  // namespace tc::tracer
