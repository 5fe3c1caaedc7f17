// SPDX-License-Identifier: BSD-3-Clause
// A traced graph: the ops a function ran, in order, with what each read and
// made. Values are numbered; a value is a graph input, a captured tensor (a
// parameter: a leaf that requires grad; else a constant) or an op's output.
// Node arguments follow the op's schema one to one: a tensor argument names
// a value, everything else is kept as the constant it was.
//
// run() replays the nodes through the dispatcher (so autograd, autocast and
// every backend apply as they would to the original calls); text() prints
// the graph as TorchScript-like IR; to_json()/from_json() save and load it
// (graph_json.cpp, the format is documented there).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dispatch/ivalue.h"
#include "dispatch/operator_entry.h"

namespace tc::tracer {

struct ValueInfo {  // what the traced tensor was
  ScalarType dtype = ScalarType::Float32;
  std::vector<int64_t> sizes;
  Device device;
};

// One schema argument of a node.
struct NodeArg {
  enum class Kind { Constant, Value, ValueList, OptionalValueList };
  Kind kind = Kind::Constant;
  IValue constant;              // Kind::Constant: never holds a tensor
  std::vector<int64_t> values;  // Value: one id; lists: ids, -1 for None
};

struct Node {
  const OperatorEntry* op = nullptr;
  std::vector<NodeArg> args;     // one per schema argument
  std::vector<int64_t> outputs;  // the returned tensors, a Tensor[] return
                                 // expanded; for an op that returns nothing,
                                 // the tensors it wrote, in argument order
};

struct Captured {
  int64_t value = -1;
  Tensor data;  // shared with the caller's tensor (a module's weight stays live)
  bool parameter = false;
};

class Graph {
 public:
  std::vector<ValueInfo> values;  // by id
  std::vector<int64_t> inputs;
  std::vector<Captured> captured;
  std::vector<Node> nodes;
  std::vector<int64_t> outputs;
  std::vector<std::string> warnings;  // why the trace may depend on its example inputs

  int64_t add_value(const Tensor& t);

  // The outputs for new inputs of the traced dtypes, shapes and devices
  // (anything else is an InvalidArgument naming the input). Several threads
  // may run a graph at once; a graph that writes a captured tensor (a buffer
  // updated in place) runs one call at a time.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;
  // Whether a node writes a captured tensor.
  bool writes_captured() const;
  // Called once the graph is complete (after tracing or loading).
  void finish();
  // Drops nodes whose outputs nothing uses (outputs or a later node), unless
  // they write an argument or draw random numbers. Returns how many were dropped.
  size_t eliminate_dead_code();
  // Checks every id refers to a value defined before its use, that each
  // node's arguments match its schema, and that outputs are defined.
  // Throws InvalidArgument naming `where` and the field.
  void validate(const char* where) const;

  std::string text() const;
  std::string to_json() const;
  static Graph from_json(std::string_view text);  // validated; errors name the line or the field

 private:
  bool serialize_runs_ = false;
  std::unique_ptr<std::mutex> run_mutex_ = std::make_unique<std::mutex>();
};

// The op's name as the graph prints it: "aten::add.Tensor" for a built-in
// op, "myops::myadd" for one defined at run time.
std::string printed_op_name(const OperatorEntry& op);

}  // namespace tc::tracer
