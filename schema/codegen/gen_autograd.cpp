// SPDX-License-Identifier: BSD-3-Clause
// Backward nodes and Autograd kernels from schema/derivatives.yaml
// (tensorc_gen/autograd.h, autograd.cpp). One node class per entry; one
// kernel per functional op with an entry and per in-place sibling of one.
#include <cctype>
#include <regex>
#include <set>

#include "codegen/derivatives.h"

namespace tc::codegen {
namespace {

std::string camel(const std::string& name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

// What one entry's formulas use.
struct Uses {
  std::set<std::string> tensors;                            // inputs saved whole
  std::set<std::string> values;                             // non-tensor inputs saved by value
  std::set<std::string> sizes, dims, scalar_types, numels;  // X.sizes() etc., X an input or output
  std::set<size_t> results;                                 // outputs saved
  bool grad_input_mask = false;
};

struct NodeInfo {
  const DerivativeInfo* d = nullptr;
  std::string cls;  // "MulBackward0"
  Uses uses;
  std::vector<std::string> formulas;  // rewritten, parallel to d->formulas
};

// Output i's names in formulas: result (single), resultI, its schema name.
std::vector<std::string> output_names(const FunctionSchema& s, size_t i) {
  std::vector<std::string> n;
  if (s.returns.size() == 1) n.push_back("result");
  n.push_back("result" + std::to_string(i));
  if (s.returns[i].name) n.push_back(*s.returns[i].name);
  return n;
}

int output_index(const FunctionSchema& s, const std::string& id) {
  for (size_t i = 0; i < s.returns.size(); ++i)
    for (const auto& n : output_names(s, i))
      if (n == id) return int(i);
  return -1;
}

NodeInfo analyse(const DerivativeInfo& d, const std::string& cls) {
  NodeInfo ni;
  ni.d = &d;
  ni.cls = cls;
  const FunctionSchema& s = d.op->nf->func;
  static const std::regex member_re(R"(\b([A-Za-z_][A-Za-z0-9_]*)\.(sizes|sym_sizes|dim|scalar_type|numel)\(\))");
  static const std::regex ident_re(R"([A-Za-z_][A-Za-z0-9_]*)");
  for (const auto& f : d.formulas) {
    std::string text;
    // X.sizes() -> X_sizes ... (saved as values)
    std::string rest = f.formula;
    std::smatch m;
    while (std::regex_search(rest, m, member_re)) {
      const std::string x = m[1], what = m[2];
      const bool known = s.find_argument(x) || output_index(s, x) >= 0;
      text += m.prefix().str();
      if (known) {
        if (what == "sizes" || what == "sym_sizes") {
          ni.uses.sizes.insert(x);
          text += "IntArrayRef(" + x + "_sizes)";
        } else if (what == "dim") {
          ni.uses.dims.insert(x);
          text += x + "_dim";
        } else if (what == "scalar_type") {
          ni.uses.scalar_types.insert(x);
          text += x + "_scalar_type";
        } else {
          ni.uses.numels.insert(x);
          text += x + "_numel";
        }
      } else {
        text += m.str();
      }
      rest = m.suffix().str();
    }
    text += rest;
    // Remaining identifiers that are not members (after '.' / '->' / '::').
    for (std::sregex_iterator it(text.begin(), text.end(), ident_re), end; it != end; ++it) {
      const size_t pos = size_t(it->position());
      if (pos > 0 && (text[pos - 1] == '.' || text[pos - 1] == ':' || text[pos - 1] == '>')) continue;
      if (pos > 0 && (std::isalnum(static_cast<unsigned char>(text[pos - 1])))) continue;
      const std::string id = it->str();
      if (id == "grad_input_mask") {
        ni.uses.grad_input_mask = true;
        continue;
      }
      if (const Argument* a = s.find_argument(id)) {
        (a->type.is_tensor() ? ni.uses.tensors : ni.uses.values).insert(id);
        continue;
      }
      int oi = output_index(s, id);
      if (oi >= 0) ni.uses.results.insert(size_t(oi));
    }
    ni.formulas.push_back(text);
  }
  return ni;
}

// Member type for a non-tensor argument saved by value.
std::string saved_value_type(const Argument& a) {
  const Type& t = a.type;
  std::string base;
  switch (t.base) {
    case BaseType::Int: base = t.is_list ? "std::vector<int64_t>" : "int64_t"; break;
    case BaseType::Float: base = t.is_list ? "std::vector<double>" : "double"; break;
    case BaseType::Bool: base = t.is_list ? "std::vector<bool>" : "bool"; break;
    case BaseType::Str: base = "std::string"; break;
    case BaseType::Scalar: base = "Scalar"; break;
    case BaseType::ScalarType: base = "ScalarType"; break;
    case BaseType::Device: base = "Device"; break;
    case BaseType::Generator: base = "Generator"; break;
    case BaseType::Tensor: base = "Tensor"; break;
  }
  return t.optional ? "std::optional<" + base + ">" : base;
}

// Statement saving a value argument into the node (`n` is the node pointer).
std::string save_value(const Argument& a) {
  const Type& t = a.type;
  if (t.base == BaseType::Int && t.is_list && t.optional)
    return "if (" + a.name + ") n->" + a.name + " = " + a.name + "->vec();";
  if (t.base == BaseType::Int && t.is_list) return "n->" + a.name + " = " + a.name + ".vec();";
  if (t.base == BaseType::Str && t.optional)
    return "if (" + a.name + ") n->" + a.name + " = std::string(*" + a.name + ");";
  if (t.base == BaseType::Str) return "n->" + a.name + " = std::string(" + a.name + ");";
  return "n->" + a.name + " = " + a.name + ";";
}

// The local a formula sees for a value argument (the kernel's own type).
std::string value_local(const Argument& a) {
  const Type& t = a.type;
  if (t.base == BaseType::Int && t.is_list && t.optional)
    return "std::optional<IntArrayRef> " + a.name + " = " + a.name + "_ ? std::optional<IntArrayRef>(IntArrayRef(*" +
           a.name + "_)) : std::nullopt;";
  if (t.base == BaseType::Int && t.is_list) return "IntArrayRef " + a.name + "(" + a.name + "_);";
  if (t.base == BaseType::Str && t.optional)
    return "std::optional<std::string_view> " + a.name + " = " + a.name + "_ ? std::optional<std::string_view>(*" +
           a.name + "_) : std::nullopt;";
  if (t.base == BaseType::Str) return "std::string_view " + a.name + "(" + a.name + "_);";
  return "const auto& " + a.name + " = " + a.name + "_;";
}

// The expression of output i of `result` (as the op function returns it).
std::string output_expr(const FunctionSchema& s, size_t i, const std::string& r) {
  return s.returns.size() == 1 ? r : "std::get<" + std::to_string(i) + ">(" + r + ")";
}

bool is_view_return(const Return& r) { return r.annotation && !r.annotation->is_write; }

struct Plan {
  std::vector<NodeInfo> nodes;
  std::map<std::string, size_t> node_of;  // functional qualified -> index
  // op -> (node index), for functional ops and their in-place siblings
  std::vector<std::pair<const OpInfo*, size_t>> kernels;
};

Plan make_plan(const Model& m, const Derivatives& d) {
  Plan p;
  std::map<std::string, int> counter;
  for (const auto& e : d.entries) {
    const std::string base = e.op->nf->func.name.base_name();
    const std::string cls = camel(base) + "Backward" + std::to_string(counter[base]++);
    p.node_of[e.name] = p.nodes.size();
    p.nodes.push_back(analyse(e, cls));
  }
  // An in-place op uses the formulas of the functional op with its base name
  // and the same arguments (add_.Tensor -> add.Tensor, pow_.Scalar ->
  // pow.Tensor_Scalar).
  auto same_arguments = [](const FunctionSchema& a, const FunctionSchema& b) {
    if (a.arguments.size() != b.arguments.size()) return false;
    for (size_t i = 0; i < a.arguments.size(); ++i)
      if (a.arguments[i].name != b.arguments[i].name || a.arguments[i].type.str() != b.arguments[i].type.str())
        return false;
    return true;
  };
  for (const OpInfo& op : m.ops) {
    const FunctionSchema& s = op.nf->func;
    if (s.kind() == SchemaKind::Out) continue;
    auto it = p.node_of.end();
    // An in-place op with an entry of its own (zero_: no functional sibling)
    // uses it; otherwise its functional sibling's.
    if (s.kind() == SchemaKind::Inplace && !p.node_of.count(op.qualified)) {
      for (auto cand = p.node_of.begin(); cand != p.node_of.end(); ++cand) {
        const FunctionSchema& f = p.nodes[cand->second].d->op->nf->func;
        if (f.name.name == s.name.base_name() && same_arguments(f, s)) it = cand;
      }
    } else {
      it = p.node_of.find(op.qualified);
    }
    if (it == p.node_of.end()) continue;
    p.kernels.push_back({&op, it->second});
  }
  return p;
}

void emit_node_class(Writer& w, const NodeInfo& ni) {
  const FunctionSchema& s = ni.d->op->nf->func;
  w << "struct " << ni.cls << " final : Node {\n"
    << "  using Node::Node;\n"
    << "  std::string name() const override { return \"" << ni.cls << "\"; }\n"
    << "  variable_list apply(variable_list&& grads) override;\n"
    << "  void release_variables() override {\n";
  for (const auto& t : ni.uses.tensors) {
    const Argument* a = s.find_argument(t);
    if (a->type.is_list)
      w << "    for (auto& v : " << t << "_) v.reset();\n";
    else
      w << "    " << t << "_.reset();\n";
  }
  for (size_t r : ni.uses.results) w << "    result" << r << "_.reset();\n";
  w << "  }\n";
  for (const auto& t : ni.uses.tensors) {
    const Argument* a = s.find_argument(t);
    w << "  " << (a->type.is_list ? "std::vector<SavedVariable> " : "SavedVariable ") << t << "_;\n";
  }
  for (const auto& v : ni.uses.values) w << "  " << saved_value_type(*s.find_argument(v)) << " " << v << "_;\n";
  for (size_t r : ni.uses.results) w << "  SavedVariable result" << r << "_;\n";
  for (const auto& x : ni.uses.sizes) w << "  DimVector " << x << "_sizes;\n";
  for (const auto& x : ni.uses.dims) w << "  int64_t " << x << "_dim = 0;\n";
  for (const auto& x : ni.uses.scalar_types) w << "  ScalarType " << x << "_scalar_type = ScalarType::Float32;\n";
  for (const auto& x : ni.uses.numels) w << "  int64_t " << x << "_numel = 0;\n";
  // Sizes of Tensor[] inputs (their edges are one per element).
  for (const Argument& a : s.arguments)
    if (a.type.is_tensor() && a.type.is_list) w << "  size_t " << a.name << "_count_ = 0;\n";
  w << "};\n\n";
}

void emit_apply(Writer& w, const NodeInfo& ni) {
  const DerivativeInfo& d = *ni.d;
  const FunctionSchema& s = d.op->nf->func;
  w << "variable_list " << ni.cls << "::apply(variable_list&& grads) {\n";
  if (s.returns.size() > 1) {
    w << "  for (size_t i = 0; i < grads.size(); ++i)\n"
      << "    if (!grads[i].defined()) grads[i] = input_metadata_[i].zeros();\n";
  }
  w << "  [[maybe_unused]] const Tensor& grad = grads[0];\n";
  for (size_t i = 0; i < s.returns.size(); ++i)
    if (s.returns[i].name)
      w << "  [[maybe_unused]] const Tensor& grad_" << *s.returns[i].name << " = grads[" << i << "];\n";
  w << "  const std::shared_ptr<Node> self_node_ = shared_from_this();\n";
  for (const auto& t : ni.uses.tensors) {
    const Argument* a = s.find_argument(t);
    if (a->type.is_list) {
      w << "  std::vector<Tensor> " << t << ";\n  for (const auto& v : " << t << "_) " << t
        << ".push_back(v.unpack(self_node_));\n";
    } else if (a->type.optional) {
      w << "  std::optional<Tensor> " << t << ";\n  if (" << t << "_.defined()) " << t << " = " << t
        << "_.unpack(self_node_);\n";
    } else {
      w << "  Tensor " << t << " = " << t << "_.unpack(self_node_);\n";
    }
  }
  for (const auto& v : ni.uses.values) w << "  " << value_local(*s.find_argument(v)) << "\n";
  for (size_t r : ni.uses.results) {
    w << "  Tensor result" << r << " = result" << r << "_.unpack(self_node_);\n";
    for (const auto& n : output_names(s, r))
      if (n != "result" + std::to_string(r)) w << "  [[maybe_unused]] const Tensor& " << n << " = result" << r << ";\n";
  }
  // Edge slots of each tensor input.
  w << "  variable_list grad_inputs(num_outputs());\n  size_t slot_ = 0;\n";
  for (const Argument& a : s.arguments) {
    if (!a.type.is_tensor()) continue;
    w << "  [[maybe_unused]] const size_t " << a.name << "_ix = slot_;\n";
    w << "  slot_ += " << (a.type.is_list ? a.name + "_count_" : std::string("1")) << ";\n";
  }
  auto needed = [&](const Argument& a) {
    if (!a.type.is_list) return "should_compute_output(" + a.name + "_ix)";
    return "any_output_needed(*this, " + a.name + "_ix, " + a.name + "_count_)";
  };
  for (const auto& n : d.not_implemented) {
    w << "  if (" << needed(*s.find_argument(n)) << ") TC_FAIL(NotImplemented, \"the derivative for '" << d.name
      << "' with respect to '" << n << "' is not implemented\");\n";
  }
  for (size_t i = 0; i < d.formulas.size(); ++i) {
    const auto& f = d.formulas[i];
    const std::string& text = ni.formulas[i];
    if (f.inputs.size() == 1) {
      const Argument& a = *s.find_argument(f.inputs[0]);
      w << "  if (" << needed(a) << ") {\n";
      if (a.type.is_list) {
        w << "    std::vector<Tensor> r_ = " << text << ";\n"
          << "    for (size_t k = 0; k < r_.size() && k < " << a.name << "_count_; ++k) grad_inputs[" << a.name
          << "_ix + k] = r_[k];\n";
      } else {
        w << "    grad_inputs[" << a.name << "_ix] = " << text << ";\n";
      }
      w << "  }\n";
    } else {
      w << "  {\n    [[maybe_unused]] std::array<bool, " << f.inputs.size() << "> grad_input_mask = {";
      for (size_t k = 0; k < f.inputs.size(); ++k) w << (k ? ", " : "") << needed(*s.find_argument(f.inputs[k]));
      w << "};\n    if (std::any_of(grad_input_mask.begin(), grad_input_mask.end(), [](bool b) { return b; })) {\n"
        << "      auto r_ = " << text << ";\n";
      for (size_t k = 0; k < f.inputs.size(); ++k)
        w << "      if (grad_input_mask[" << k << "]) grad_inputs[" << f.inputs[k] << "_ix] = std::get<" << k
          << ">(r_);\n";
      w << "    }\n  }\n";
    }
  }
  w << "  return grad_inputs;\n}\n\n";
}

// Records the node before the op runs (inputs) and after (outputs).
void emit_kernel(Writer& w, const OpInfo& op, const NodeInfo& ni) {
  const FunctionSchema& s = op.nf->func;
  const FunctionSchema& fs = ni.d->op->nf->func;  // the functional op of the entry
  const bool inplace = s.kind() == SchemaKind::Inplace;
  const std::string ret = cpp_return_type(s);
  // Below Autograd: the kernels of the keys under it, with the key set the
  // op function computed. The guard keeps ops that those kernels call from
  // recording too.
  const std::string args = schema_order_args(s);
  const std::string below =
      "    ExcludeDispatchKeyGuard below_(DispatchKey::Autograd);\n    return tc::redispatch::" + op.ident +
      "(ks_.below(DispatchKey::Autograd)" + (args.empty() ? "" : ", " + args) + ");\n";
  w << ret << " " << op.ident << "(DispatchKeySet ks_" << (s.arguments.empty() ? "" : ", ") << kernel_params(s)
    << ") {\n";
  if (ni.d->non_differentiable) {
    w << "  {\n" << below << "  }\n}\n\n";
    return;
  }
  w << "  std::shared_ptr<" << ni.cls << "> n;\n  if (GradMode::is_enabled() && any_requires_grad(";
  bool first = true;
  for (const Argument& a : s.arguments)
    if (a.type.is_tensor()) {
      w << (first ? "" : ", ") << a.name;
      first = false;
    }
  w << ")) {\n";
  if (inplace) w << "    check_inplace(self, \"" << op.qualified << "\");\n";
  w << "    edge_list next_;\n    next_.reserve(";
  {
    size_t fixed = 0;
    std::string lists;
    for (const Argument& a : s.arguments) {
      if (!a.type.is_tensor()) continue;
      if (a.type.is_list)
        lists += " + " + a.name + ".size()";
      else
        ++fixed;
    }
    w << fixed << lists << ");\n";
  }
  for (const Argument& a : s.arguments) {
    if (!a.type.is_tensor()) continue;
    if (a.type.is_list)
      w << "    for (const auto& t : " << a.name << ") next_.push_back(gradient_edge(t));\n";
    else if (a.type.optional)
      w << "    next_.push_back(" << a.name << " ? gradient_edge(*" << a.name << ") : Edge());\n";
    else
      w << "    next_.push_back(gradient_edge(" << a.name << "));\n";
  }
  w << "    n = make_node<" << ni.cls << ">(std::move(next_));\n";
  for (const Argument& a : s.arguments)
    if (a.type.is_tensor() && a.type.is_list) w << "    n->" << a.name << "_count_ = " << a.name << ".size();\n";
  for (const auto& t : ni.uses.tensors) {
    const Argument* a = s.find_argument(t);
    if (a->type.is_list) {
      w << "    for (const auto& t : " << t << ") n->" << t << "_.emplace_back(t, false);\n";
    } else if (a->type.optional) {
      w << "    if (" << t << ") n->" << t << "_ = SavedVariable(*" << t << ", false);\n";
    } else if (inplace && t == "self") {
      // The formula needs self's value before this op overwrites it: a clone
      // with history (CloneBackward), so second derivatives through it work.
      w << "    n->self_ = SavedVariable(tc::clone(self), false);\n";
    } else {
      w << "    n->" << t << "_ = SavedVariable(" << t << ", false);\n";
    }
  }
  for (const auto& v : ni.uses.values)
    w << "    " << std::regex_replace(save_value(*s.find_argument(v)), std::regex("n->([A-Za-z0-9_]+) ="), "n->$1_ =")
      << "\n";
  auto emit_meta = [&](const std::set<std::string>& xs, const char* suffix, const char* expr, bool outputs) {
    for (const auto& x : xs) {
      const bool is_output = output_index(fs, x) >= 0 && !s.find_argument(x);
      if (is_output != outputs) continue;
      const std::string src = outputs ? output_expr(s, size_t(output_index(fs, x)), "result_") : x;
      w << "    n->" << x << suffix << " = " << std::regex_replace(expr, std::regex("X"), src) << ";\n";
    }
  };
  emit_meta(ni.uses.sizes, "_sizes", "DimVector(X.sizes())", false);
  emit_meta(ni.uses.dims, "_dim", "X.dim()", false);
  emit_meta(ni.uses.scalar_types, "_scalar_type", "X.scalar_type()", false);
  emit_meta(ni.uses.numels, "_numel", "X.numel()", false);
  w << "  }\n";
  // Run the op below autograd.
  w << "  auto&& result_ = [&]() -> " << ret << " {\n" << below << "  }();\n";
  w << "  if (n) {\n";
  const auto& diff = ni.d->output_differentiability;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const std::string o = output_expr(s, i, "result_");
    const bool differentiable = diff.empty() || diff[i];
    if (s.returns[i].type.is_list) {
      w << "    for (const Tensor& t : " << o << ") "
        << (differentiable ? "if (is_floating(t.dtype())) set_history(t, n); else n->add_input_metadata(t);\n"
                           : "n->add_input_metadata(t);\n");
      if (is_view_return(s.returns[i]) && s.find_argument("self"))
        w << "    for (const Tensor& t : " << o << ") set_view_of(t, self);\n";
    } else {
      if (differentiable)
        w << "    if (is_floating(" << o << ".dtype())) set_history(" << o << ", n); else n->add_input_metadata(" << o
          << ");\n";
      else
        w << "    n->add_input_metadata(" << o << ");\n";
      if (is_view_return(s.returns[i]) && !inplace && s.find_argument("self"))
        w << "    set_view_of(" << o << ", self);\n";
    }
  }
  for (size_t r : ni.uses.results)
    w << "    n->result" << r << "_ = SavedVariable(" << output_expr(s, r, "result_") << ", true);\n";
  emit_meta(ni.uses.sizes, "_sizes", "DimVector(X.sizes())", true);
  emit_meta(ni.uses.dims, "_dim", "X.dim()", true);
  emit_meta(ni.uses.scalar_types, "_scalar_type", "X.scalar_type()", true);
  emit_meta(ni.uses.numels, "_numel", "X.numel()", true);
  w << "  }\n  return result_;\n}\n\n";
}

}  // namespace

std::vector<std::pair<const OpInfo*, std::string>> autograd_kernels(const Model& m, const Derivatives& d) {
  Plan p = make_plan(m, d);
  std::vector<std::pair<const OpInfo*, std::string>> out;
  for (const auto& [op, node] : p.kernels) out.push_back({op, op->ident});
  return out;
}

std::string gen_autograd_header(const Model& m, const Derivatives& d) {
  Plan p = make_plan(m, d);
  Writer w;
  w << "// Generated by tc_codegen from schema/derivatives.yaml. Do not edit.\n"
    << "// The Autograd kernels (namespace tc::autograd::generated).\n"
    << "#pragma once\n#include <optional>\n#include <string_view>\n#include <tuple>\n#include <vector>\n\n"
    << "#include \"core/generator.h\"\n#include \"core/tensor.h\"\n\nnamespace tc::autograd::generated {\n\n";
  for (const auto& [op, node] : p.kernels)
    w << cpp_return_type(op->nf->func) << " " << op->ident << "(DispatchKeySet ks_"
      << (op->nf->func.arguments.empty() ? "" : ", ") << kernel_params(op->nf->func) << ");\n";
  w << "\n}  // namespace tc::autograd::generated\n";
  return w.str();
}

std::string gen_autograd_source(const Model& m, const Derivatives& d, int shard) {
  Plan p = make_plan(m, d);
  Writer w;
  w << "// Generated by tc_codegen from schema/derivatives.yaml. Do not edit.\n"
    << "#include <algorithm>\n#include <array>\n\n"
    << "#include \"autograd/formulas.h\"\n#include \"autograd/grad_mode.h\"\n#include \"autograd/saved_variable.h\"\n"
    << "#include \"autograd/variable.h\"\n#include \"dispatch/tls.h\"\n#include \"tensorc_gen/autograd.h\"\n"
    << "#include \"tensorc_gen/ops.h\"\n\n"
    << "namespace tc::autograd::generated {\n\n"
    << "using namespace tc::autograd::formulas;\n\n"
    << "namespace {\n\n"
    << "[[maybe_unused]] bool any_output_needed(const Node& n, size_t first, size_t count) {\n"
    << "  for (size_t i = first; i < first + count; ++i)\n    if (n.should_compute_output(i)) return true;\n"
    << "  return false;\n}\n\n";
  // Non-differentiable entries record nothing: no node class.
  // A node lives in its op's shard; in-place siblings share the base name, so
  // their kernels are in the same shard.
  auto here = [&](const NodeInfo& ni) { return !ni.d->non_differentiable && in_shard(*ni.d->op, shard); };
  for (const auto& ni : p.nodes)
    if (here(ni)) emit_node_class(w, ni);
  for (const auto& ni : p.nodes)
    if (here(ni)) emit_apply(w, ni);
  w << "}  // namespace\n\n";
  for (const auto& [op, node] : p.kernels)
    if (in_shard(*op, shard)) emit_kernel(w, *op, p.nodes[node]);
  w << "}  // namespace tc::autograd::generated\n";
  return w.str();
}

}  // namespace tc::codegen
