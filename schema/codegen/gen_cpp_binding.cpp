// SPDX-License-Identifier: BSD-3-Clause
// The op surface of the header-only C++ wrapper (bindings/cpp), written to
// include/tensorc_ops.hpp: inline functions in namespace tensorc that call
// the generated C entry points (tensorc_ops.h) and nothing else.
//
// The file has two parts, selected by a macro, like ATen's TensorBody:
//  - with TENSORC_OPS_HPP_METHODS defined it is included inside the body of
//    the hand-written class tensorc::Tensor and declares the methods (per the
//    schema's `variants`, with the schema's defaults);
//  - otherwise, after the class, it defines every op as a free function and
//    the methods out of class (each forwards to its free function).
// Each schema argument maps onto the C parameters gen_c_api.cpp gives it:
// outputs first, optional/defaulted values as pointers (NULL = None/default),
// lists as pointer + length, Scalar as tc_scalar by value.
#include <set>

#include "codegen/gen_common.h"

namespace tc::codegen {
namespace {

// Members of tensorc::Tensor written by hand (bindings/cpp/include/tensorc/
// tensor.hpp): a schema method of the same name would clash with them.
const std::set<std::string> kHandWritten = {"defined",
                                            "get",
                                            "release",
                                            "use_count",
                                            "dim",
                                            "ndimension",
                                            "sizes",
                                            "strides",
                                            "size",
                                            "stride",
                                            "numel",
                                            "scalar_type",
                                            "dtype",
                                            "device",
                                            "is_cpu",
                                            "is_cuda",
                                            "storage_offset",
                                            "is_contiguous",
                                            "element_size",
                                            "data_ptr",
                                            "item",
                                            "requires_grad",
                                            "set_requires_grad",
                                            "requires_grad_",
                                            "grad",
                                            "set_grad",
                                            "mutable_grad",
                                            "is_leaf",
                                            "retain_grad",
                                            "grad_fn_name",
                                            "backward",
                                            "detach",
                                            "detach_",
                                            "version",
                                            "index",
                                            "index_put_",
                                            "accessor",
                                            "to_string",
                                            "to_vector",
                                            "toString"};

bool wants_method(const OpInfo& op) {
  const NativeFunction& nf = *op.nf;
  bool m = false;
  for (Variant v : nf.variants) m |= v == Variant::Method;
  const Argument* self = nf.func.find_argument("self");
  return m && nf.func.kind() != SchemaKind::Out && self && self->type.base == BaseType::Tensor && !self->type.is_list &&
         !self->type.optional && !kHandWritten.count(op.cpp_name);
}

bool pointer_style(const Argument& a) { return a.type.optional || a.default_value.has_value(); }

// The binding's parameter type. Equal internal types (cpp_arg_type) map to
// equal binding types, so the default floors computed for the internal API
// (OpInfo::default_floor) keep every overload set unambiguous here too.
std::string arg_type(const Argument& a) {
  const Type& t = a.type;
  if (t.base == BaseType::Tensor) {
    if (t.is_list) return t.elem_optional ? "const std::vector<std::optional<Tensor>>&" : "TensorList";
    if (t.optional) return "const std::optional<Tensor>&";
    return is_mutable(a) ? "Tensor&" : "const Tensor&";
  }
  if (t.is_list) {
    std::string e = t.base == BaseType::Int ? "int64_t" : t.base == BaseType::Bool ? "bool" : "double";
    return t.optional ? "OptionalArrayRef<" + e + ">" : "ArrayRef<" + e + ">";
  }
  switch (t.base) {
    case BaseType::Int: return t.optional ? "std::optional<int64_t>" : "int64_t";
    case BaseType::Float: return t.optional ? "std::optional<double>" : "double";
    case BaseType::Bool: return t.optional ? "std::optional<bool>" : "bool";
    case BaseType::Str: return t.optional ? "std::optional<std::string_view>" : "std::string_view";
    case BaseType::Scalar: return t.optional ? "const std::optional<Scalar>&" : "const Scalar&";
    case BaseType::ScalarType: return t.optional ? "std::optional<ScalarType>" : "ScalarType";
    case BaseType::Device: return t.optional ? "std::optional<Device>" : "Device";
    case BaseType::Generator: return "const std::optional<Generator>&";
    default: return "?";
  }
}

// The C++ default-argument expression in the binding's types.
std::string arg_default(const Argument& a) {
  const Type& t = a.type;
  if (!a.default_value) return "";
  if (*a.default_value == "None") return "std::nullopt";
  if (t.is_list && t.base == BaseType::Int) {
    std::vector<std::string> items = int_list_default_items(a);
    std::string r = "ArrayRef<int64_t>({";
    for (size_t i = 0; i < items.size(); ++i) r += (i ? ", " : "") + items[i];
    return items.empty() ? "ArrayRef<int64_t>()" : r + "})";
  }
  std::string d = cpp_default(a);                                      // bool lists: std::vector<bool>{...}
  if (t.base == BaseType::Int && !t.is_list && d != *a.default_value)  // a named constant: Mean
    return "Reduction::" + *a.default_value;
  if (t.is_list && t.base == BaseType::Bool) {
    d = d.substr(d.find('{'));
    return d == "{}" ? "ArrayRef<bool>()" : "ArrayRef<bool>(" + d + ")";
  }
  return d;
}

// Where defaults start: the trailing run of arguments that all have one,
// never before `floor` (see OpInfo::default_floor).
size_t first_default(const OpInfo& op) {
  std::vector<const Argument*> order = cpp_op_params_order(op.nf->func);
  size_t first = order.size();
  while (first > 0 && !arg_default(*order[first - 1]).empty()) --first;
  return std::max(first, op.default_floor);
}

// Where the schema's defaults start, before the floor is applied.
size_t schema_first_default(const OpInfo& op) {
  std::vector<const Argument*> order = cpp_op_params_order(op.nf->func);
  size_t first = order.size();
  while (first > 0 && !arg_default(*order[first - 1]).empty()) --first;
  return first;
}

// The parameter list: the first `given` parameters in C++ order (all of
// them: npos), with defaults from first_default() on when with_defaults.
std::string params(const OpInfo& op, bool with_defaults, bool skip_self, size_t given = std::string::npos) {
  std::vector<const Argument*> order = cpp_op_params_order(op.nf->func);
  const size_t first = first_default(op);
  std::string r;
  bool any = false;
  for (size_t i = 0; i < order.size() && i < given; ++i) {
    const Argument& a = *order[i];
    if (skip_self && a.name == "self") continue;
    r += (any ? ", " : "") + arg_type(a) + " " + a.name;
    any = true;
    if (with_defaults && i >= first) r += " = " + arg_default(a);
  }
  return r;
}

// The types of the first `given` parameters (self skipped for methods): two
// declarations with the same key cannot both exist.
std::string prefix_key(const OpInfo& op, size_t given, bool skip_self) {
  std::vector<const Argument*> order = cpp_op_params_order(op.nf->func);
  std::string k = op.cpp_name + "(";
  for (size_t i = 0; i < given; ++i)
    if (!(skip_self && order[i]->name == "self")) k += arg_type(*order[i]) + ",";
  return k + ")";
}

bool returns_write(const Return& r) { return r.annotation && r.annotation->is_write; }

std::string ret_type(const Return& r) {
  if (r.type.base == BaseType::Tensor) {
    if (r.type.is_list) return "std::vector<Tensor>";
    return returns_write(r) ? "Tensor&" : "Tensor";
  }
  switch (r.type.base) {
    case BaseType::Int: return "int64_t";
    case BaseType::Float: return "double";
    case BaseType::Bool: return "bool";
    case BaseType::Scalar: return "Scalar";
    case BaseType::ScalarType: return "ScalarType";
    default: return "?";
  }
}

std::string return_type(const FunctionSchema& s) {
  if (s.returns.empty()) return "void";
  if (s.returns.size() == 1) return ret_type(s.returns[0]);
  std::string r = "std::tuple<";
  for (size_t i = 0; i < s.returns.size(); ++i) r += (i ? ", " : "") + ret_type(s.returns[i]);
  return r + ">";
}

// Statements preparing argument `a` (into locals named `<name>_c`) and the C
// call arguments it becomes.
struct CArg {
  std::string prep;
  std::vector<std::string> exprs;
};

CArg c_arg(const Argument& a) {
  const Type& t = a.type;
  const std::string& n = a.name;
  if (t.base == BaseType::Tensor) {
    if (t.is_list) {
      if (t.elem_optional)
        return {"  std::vector<tc_tensor> " + n + "_c;\n  " + n + "_c.reserve(" + n +
                    ".size());\n  for (const auto& e_ : " + n + ") " + n + "_c.push_back(e_ ? e_->get() : nullptr);\n",
                {n + "_c.data()", n + "_c.size()"}};
      return {"", {"detail::handles(" + n + ")", n + ".size()"}};
    }
    if (t.optional) return {"", {n + " ? " + n + "->get() : nullptr"}};
    return {"", {n + ".get()"}};
  }
  if (t.is_list) {
    // An empty list is passed as a non-NULL pointer: NULL means None / the default.
    if (t.optional) return {"", {n + " ? detail::list_data(*" + n + ") : nullptr", n + " ? " + n + "->size() : 0"}};
    if (a.default_value) return {"", {"detail::list_data(" + n + ")", n + ".size()"}};
    return {"", {n + ".data()", n + ".size()"}};
  }
  switch (t.base) {
    case BaseType::Str:
      if (t.optional)
        return {"  const std::string " + n + "_c = " + n + " ? std::string(*" + n + ") : std::string();\n",
                {n + " ? " + n + "_c.c_str() : nullptr"}};
      return {"  const std::string " + n + "_c(" + n + ");\n", {n + "_c.c_str()"}};
    case BaseType::Generator: return {"", {n + " ? " + n + "->get() : nullptr"}};
    case BaseType::Int:
    case BaseType::Float:
    case BaseType::Bool:
      if (t.optional) return {"", {n + " ? &*" + n + " : nullptr"}};
      if (pointer_style(a)) return {"", {"&" + n}};
      return {"", {n}};
    case BaseType::Scalar:
      if (t.optional) return {"", {n + " ? &" + n + "->c() : nullptr"}};
      if (pointer_style(a)) return {"", {"&" + n + ".c()"}};
      return {"", {n + ".c()"}};
    case BaseType::ScalarType:
    case BaseType::Device: {  // enum class / class: converted by detail::to_c
      std::string ct = c_value_type(t.base);
      if (t.optional)
        return {"  const " + ct + " " + n + "_c = " + n + " ? detail::to_c(*" + n + ") : " + ct + "{};\n",
                {n + " ? &" + n + "_c : nullptr"}};
      if (pointer_style(a)) return {"  const " + ct + " " + n + "_c = detail::to_c(" + n + ");\n", {"&" + n + "_c"}};
      return {"", {"detail::to_c(" + n + ")"}};
    }
    default: return {"#error unsupported argument type\n", {}};
  }
}

std::string c_out_type(const Return& r) {
  if (r.type.base == BaseType::Tensor) return r.type.is_list ? "tc_tensor_list" : "tc_tensor";
  return c_value_type(r.type.base);
}

// The value returned for output local `v` of return `r`.
std::string wrap_out(const Return& r, const std::string& v) {
  if (r.type.base == BaseType::Tensor)
    return r.type.is_list ? "detail::adopt_list(" + v + ")" : "Tensor::adopt(" + v + ")";
  if (r.type.base == BaseType::Scalar) return "Scalar(" + v + ")";
  if (r.type.base == BaseType::ScalarType) return "static_cast<ScalarType>(" + v + ")";
  return v;
}

// The statements calling the C entry point and returning its result. The
// parameters from `given` on were left out by the caller: their C arguments
// are NULL, which the C ABI reads as the schema's default.
std::string body(const OpInfo& op, size_t given) {
  const FunctionSchema& s = op.nf->func;
  Writer w;
  std::vector<std::string> call;
  std::vector<std::string> outs;  // per return: the expression returned
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const Return& r = s.returns[i];
    if (returns_write(r)) {
      const Argument* a = aliased_argument(s, r);
      outs.push_back(a ? a->name : "/*no aliased argument*/");
      continue;
    }
    std::string v = "out" + std::to_string(i) + "_";
    std::string init = r.type.base == BaseType::Tensor ? " = nullptr" : "{}";
    w << "  " << c_out_type(r) << " " << v << init << ";\n";
    call.push_back("&" + v);
    outs.push_back(wrap_out(r, v));
  }
  std::vector<const Argument*> order = cpp_op_params_order(s);
  for (size_t i = 0; i < order.size(); ++i) {
    CArg c = c_arg(*order[i]);
    if (i >= given) {  // left out: the default
      for (std::string& e : c.exprs) e = &e == &c.exprs[0] ? "nullptr" : "0";
      c.prep.clear();
    }
    w << c.prep;
    for (const std::string& e : c.exprs) call.push_back(e);
  }
  w << "  detail::check(" << op.c_name << "(";
  for (size_t i = 0; i < call.size(); ++i) w << (i ? ", " : "") << call[i];
  w << "));\n";
  if (s.returns.size() == 1) {
    w << "  return " << outs[0] << ";\n";
  } else if (s.returns.size() > 1) {
    w << "  return " << return_type(s) << "(";
    for (size_t i = 0; i < outs.size(); ++i) w << (i ? ", " : "") << outs[i];
    w << ");\n";
  }
  return w.str();
}

std::string free_function(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  return "// " + op.nf->func_text + "\ninline " + return_type(s) + " " + op.cpp_name + "(" + params(op, true, false) +
         ") {\n" + body(op, std::string::npos) + "}\n\n";
}

// An overload taking only the first `given` parameters, for a call C++
// default arguments cannot express (see overloads_for_defaults).
std::string free_function_given(const OpInfo& op, size_t given) {
  const FunctionSchema& s = op.nf->func;
  return "// " + op.nf->func_text + ", the rest defaulted\ninline " + return_type(s) + " " + op.cpp_name + "(" +
         params(op, false, false, given) + ") {\n" + body(op, given) + "}\n\n";
}

bool method_is_mutating(const OpInfo& op) { return is_mutable(*op.nf->func.find_argument("self")); }

std::string method_decl(const OpInfo& op, size_t given = std::string::npos) {
  const FunctionSchema& s = op.nf->func;
  return "  " + return_type(s) + " " + op.cpp_name + "(" + params(op, given == std::string::npos, true, given) +
         ") const;\n";
}

std::string method_def(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  const Argument* self = s.find_argument("self");
  std::string args;
  std::vector<const Argument*> order = cpp_op_params_order(s);
  for (size_t i = 0; i < order.size(); ++i)
    args += std::string(i ? ", " : "") +
            (order[i] == self ? (method_is_mutating(op) ? "const_cast<Tensor&>(*this)" : "*this") : order[i]->name);
  return "inline " + return_type(s) + " Tensor::" + op.cpp_name + "(" + params(op, false, true) +
         ") const {\n  return tensorc::" + op.cpp_name + "(" + args + ");\n}\n";
}

// A method overload taking only the first `given` parameters: its own body
// (a free function of that arity may belong to another op of the name).
std::string method_def_given(const OpInfo& op, size_t given) {
  const FunctionSchema& s = op.nf->func;
  std::string self =
      method_is_mutating(op) ? "  Tensor& self = const_cast<Tensor&>(*this);\n" : "  const Tensor& self = *this;\n";
  return "inline " + return_type(s) + " Tensor::" + op.cpp_name + "(" + params(op, false, true, given) + ") const {\n" +
         self + body(op, given) + "}\n";
}

// Default arguments C++ cannot have: where two overloads of a name share
// their leading parameter types, the defaults after them are dropped (else a
// call omitting them would be ambiguous), so `var(t)` would not compile
// (var(self, unbiased=True) and var.correction(self, dim=None, ...)). For
// each such shorter call, the first op in schema order gets an overload
// taking exactly those parameters, as the schema's own resolution would pick
// it; the arguments left out take their defaults. Returns (op, given) pairs.
std::vector<std::pair<const OpInfo*, size_t>> overloads_for_defaults(const Model& m, bool methods) {
  std::set<std::string> callable;  // every parameter-type list some declaration accepts
  auto in_scope = [&](const OpInfo& op) { return !methods || wants_method(op); };
  for (const OpInfo& op : m.ops) {
    if (!in_scope(op)) continue;
    const size_t n = cpp_op_params_order(op.nf->func).size();
    for (size_t k = first_default(op); k <= n; ++k) callable.insert(prefix_key(op, k, methods));
  }
  std::vector<std::pair<const OpInfo*, size_t>> extra;
  for (const OpInfo& op : m.ops) {
    if (!in_scope(op)) continue;
    for (size_t k = schema_first_default(op); k < first_default(op); ++k)
      if (callable.insert(prefix_key(op, k, methods)).second) extra.emplace_back(&op, k);
  }
  return extra;
}

}  // namespace

std::string gen_cpp_binding(const Model& m) {
  const auto extra_functions = overloads_for_defaults(m, false), extra_methods = overloads_for_defaults(m, true);
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// The op surface of the C++ wrapper: include <tensorc.hpp>, not this file.\n"
    << "#if defined(TENSORC_OPS_HPP_METHODS)\n"
    << "// ---- inside class tensorc::Tensor: methods, per the schema's variants ----\n";
  for (const OpInfo& op : m.ops)
    if (wants_method(op)) w << method_decl(op);
  for (const auto& [op, given] : extra_methods) w << method_decl(*op, given);
  w << "#else  // after class tensorc::Tensor\n"
    << "#ifndef TENSORC_OPS_HPP\n#define TENSORC_OPS_HPP\n"
    << "#ifndef TENSORC_HPP_TENSOR_DEFINED\n#error \"include <tensorc.hpp>, not tensorc_ops.hpp\"\n#endif\n\n"
    << "namespace tensorc {\n\n"
    << "// ---- every op as a free function ----\n\n";
  for (const OpInfo& op : m.ops) w << free_function(op);
  w << "// ---- calls the default arguments above cannot express ----\n\n";
  for (const auto& [op, given] : extra_functions) w << free_function_given(*op, given);
  w << "// ---- the methods ----\n\n";
  for (const OpInfo& op : m.ops)
    if (wants_method(op)) w << method_def(op);
  for (const auto& [op, given] : extra_methods) w << method_def_given(*op, given);
  w << "\n}  // namespace tensorc\n\n#endif  // TENSORC_OPS_HPP\n#endif  // TENSORC_OPS_HPP_METHODS\n";
  return w.str();
}

}  // namespace tc::codegen
