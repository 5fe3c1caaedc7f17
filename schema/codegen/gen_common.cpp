// SPDX-License-Identifier: BSD-3-Clause
#include "codegen/gen_common.h"

#include <algorithm>
#include <set>

namespace tc::codegen {

bool is_mutable(const Argument& a) { return a.annotation && a.annotation->is_write; }
bool is_out_arg(const Argument& a) { return is_mutable(a) && a.kwarg_only; }
bool is_tensor_like(const Type& t) { return t.base == BaseType::Tensor; }

std::string c_ident(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return r;
}

std::string escape_c_string(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r;
}

namespace {

std::string value_type(BaseType b) {
  switch (b) {
    case BaseType::Tensor: return "Tensor";
    case BaseType::Int: return "int64_t";
    case BaseType::Float: return "double";
    case BaseType::Bool: return "bool";
    case BaseType::Str: return "std::string_view";
    case BaseType::Scalar: return "Scalar";
    case BaseType::ScalarType: return "ScalarType";
    case BaseType::Device: return "Device";
    case BaseType::Generator: return "Generator";
  }
  return "?";
}

std::string return_type(const Return& r) {
  const Type& t = r.type;
  if (t.base == BaseType::Tensor) {
    if (t.is_list) return "std::vector<Tensor>";
    if (r.annotation && r.annotation->is_write) return "Tensor&";
    return "Tensor";
  }
  return value_type(t.base);
}

// Splits "[a, b]" into items.
std::vector<std::string> list_items(const std::string& text) {
  std::vector<std::string> items;
  std::string inner = text.substr(1, text.size() - 2), cur;
  for (char c : inner) {
    if (c == ',') {
      items.push_back(cur);
      cur.clear();
    } else if (c != ' ')
      cur += c;
  }
  if (!cur.empty()) items.push_back(cur);
  return items;
}

std::string scalar_type_default(const std::string& v) {
  static const std::map<std::string, std::string> m = {
      {"long", "Int64"},    {"int64", "Int64"},     {"int", "Int32"},       {"int32", "Int32"},
      {"float", "Float32"}, {"float32", "Float32"}, {"double", "Float64"},  {"float64", "Float64"},
      {"bool", "Bool"},     {"half", "Float16"},    {"float16", "Float16"}, {"bfloat16", "BFloat16"},
      {"uint8", "UInt8"},   {"int8", "Int8"},       {"int16", "Int16"}};
  auto it = m.find(v);
  return it == m.end() ? "" : "ScalarType::" + it->second;
}

std::string bool_text(const std::string& v) { return v == "True" ? "true" : "false"; }

}  // namespace

std::string cpp_arg_type(const Argument& a) {
  const Type& t = a.type;
  if (t.base == BaseType::Tensor) {
    if (t.is_list) return t.elem_optional ? "const std::vector<std::optional<Tensor>>&" : "const std::vector<Tensor>&";
    if (t.optional) return "const std::optional<Tensor>&";
    return is_mutable(a) ? "Tensor&" : "const Tensor&";
  }
  if (t.is_list) {
    std::string l = t.base == BaseType::Int    ? "IntArrayRef"
                    : t.base == BaseType::Bool ? "const std::vector<bool>&"
                                               : "const std::vector<double>&";
    if (t.optional)
      return t.base == BaseType::Int ? "std::optional<IntArrayRef>"
                                     : "const std::optional<std::vector<" +
                                           std::string(t.base == BaseType::Bool ? "bool" : "double") + ">>&";
    return l;
  }
  if (t.base == BaseType::Scalar) return t.optional ? "const std::optional<Scalar>&" : "const Scalar&";
  std::string v = value_type(t.base);
  return t.optional ? "std::optional<" + v + ">" : v;
}

std::string cpp_return_type(const FunctionSchema& s) {
  if (s.returns.empty()) return "void";
  if (s.returns.size() == 1) return return_type(s.returns[0]);
  std::string r = "std::tuple<";
  for (size_t i = 0; i < s.returns.size(); ++i) r += (i ? ", " : "") + return_type(s.returns[i]);
  return r + ">";
}

std::vector<std::string> int_list_default_items(const Argument& a) {
  const std::string& v = *a.default_value;
  if (v.front() == '[') return list_items(v);
  return std::vector<std::string>(size_t(a.type.list_size.value_or(1)), v);  // int[2] stride=1 means [1, 1]
}

std::string cpp_default(const Argument& a) {
  if (!a.default_value) return "";
  const std::string& v = *a.default_value;
  const Type& t = a.type;
  if (v == "None") return "std::nullopt";
  if (t.is_list) {
    if (t.base == BaseType::Int) {
      std::vector<std::string> items = int_list_default_items(a);
      if (items.empty()) return "IntArrayRef{}";
      std::string r = "IntArrayRef({";
      for (size_t i = 0; i < items.size(); ++i) r += (i ? ", " : "") + items[i];
      return r + "})";
    }
    if (t.base == BaseType::Bool) {
      std::vector<std::string> items =
          v.front() == '[' ? list_items(v) : std::vector<std::string>(size_t(t.list_size.value_or(1)), v);
      std::string r = "std::vector<bool>{";
      for (size_t i = 0; i < items.size(); ++i) r += (i ? ", " : "") + bool_text(items[i]);
      return r + "}";
    }
    return "";
  }
  switch (t.base) {
    case BaseType::Bool: return bool_text(v);
    case BaseType::Int: {
      const std::optional<int64_t> i = schema::int_default_value(v);  // `Mean` is 1 (at::Reduction::Mean)
      return i ? std::to_string(*i) : v;
    }
    case BaseType::Float: return v.find_first_of(".e") == std::string::npos ? v + ".0" : v;
    case BaseType::Str: {
      std::string body = v.substr(1, v.size() - 2);
      return "std::string_view(\"" + escape_c_string(body) + "\")";
    }
    case BaseType::Scalar:
      if (v == "True" || v == "False") return "Scalar(" + bool_text(v) + ")";
      if (v.find_first_of(".e") != std::string::npos) return "Scalar(" + v + ")";
      return "Scalar(int64_t(" + v + "))";
    case BaseType::ScalarType: return scalar_type_default(v);
    default: return "";
  }
}

std::vector<const Argument*> cpp_op_params_order(const FunctionSchema& s) {
  std::vector<const Argument*> order;
  bool out_fn = s.kind() == SchemaKind::Out;
  if (out_fn)
    for (const Argument& a : s.arguments)
      if (is_out_arg(a)) order.push_back(&a);
  for (const Argument& a : s.arguments)
    if (!(out_fn && is_out_arg(a))) order.push_back(&a);
  return order;
}

namespace {
size_t first_trailing_default(const std::vector<const Argument*>& order) {
  size_t first = order.size();
  while (first > 0 && !cpp_default(*order[first - 1]).empty()) --first;
  return first;
}
}  // namespace

std::string cpp_op_params(const FunctionSchema& s, bool with_defaults, bool skip_self, size_t default_floor) {
  std::vector<const Argument*> order = cpp_op_params_order(s);
  // Defaults only on a trailing run of arguments that all have one.
  size_t first_default = std::max(first_trailing_default(order), default_floor);
  std::string r;
  bool first = true;
  for (size_t i = 0; i < order.size(); ++i) {
    const Argument& a = *order[i];
    if (skip_self && a.name == "self") continue;
    r += (first ? "" : ", ") + cpp_arg_type(a) + " " + a.name;
    first = false;
    if (with_defaults && i >= first_default) r += " = " + cpp_default(a);
  }
  return r;
}

std::string cpp_fn_ptr_type(const FunctionSchema& s, bool with_key_set) {
  std::string r = cpp_return_type(s) + " (*)(" + (with_key_set ? "DispatchKeySet" : "");
  for (size_t i = 0; i < s.arguments.size(); ++i) r += (i || with_key_set ? ", " : "") + cpp_arg_type(s.arguments[i]);
  return r + ")";
}

std::string kernel_params(const FunctionSchema& s) {
  std::string r;
  for (size_t i = 0; i < s.arguments.size(); ++i)
    r += (i ? ", " : "") + cpp_arg_type(s.arguments[i]) + " " + s.arguments[i].name;
  return r;
}

std::string schema_order_args(const FunctionSchema& s) {
  std::string r;
  for (size_t i = 0; i < s.arguments.size(); ++i) r += (i ? ", " : "") + s.arguments[i].name;
  return r;
}

std::string unbox_expr(const Argument& a, size_t i, const std::string& op) {
  std::string v = "st[" + std::to_string(i) + "]";
  std::string what = "\"" + op + ": argument '" + a.name + "'\"";
  const Type& t = a.type;
  auto opt = [&](const std::string& inner, const std::string& type) {
    return v + ".is_none() ? " + type + "(std::nullopt) : " + type + "(" + inner + ")";
  };
  if (t.base == BaseType::Tensor) {
    if (t.is_list)
      return t.elem_optional ? v + ".to_optional_tensor_list(" + what + ")" : v + ".to_tensor_list(" + what + ")";
    if (t.optional) return v + ".to_optional_tensor(" + what + ")";
    return is_mutable(a) ? v + ".to_tensor_mut(" + what + ")" : v + ".to_tensor(" + what + ")";
  }
  std::string inner;
  if (t.is_list) {
    inner = t.base == BaseType::Int    ? v + ".to_int_list(" + what + ")"
            : t.base == BaseType::Bool ? v + ".to_bool_list(" + what + ")"
                                       : v + ".to_double_list(" + what + ")";
    if (t.optional)
      return opt(inner, t.base == BaseType::Int ? "std::optional<IntArrayRef>"
                                                : std::string("std::optional<std::vector<") +
                                                      (t.base == BaseType::Bool ? "bool" : "double") + ">>");
    return inner;
  }
  switch (t.base) {
    case BaseType::Int: inner = v + ".to_int(" + what + ")"; break;
    case BaseType::Float: inner = v + ".to_double(" + what + ")"; break;
    case BaseType::Bool: inner = v + ".to_bool(" + what + ")"; break;
    case BaseType::Str: inner = v + ".to_string_view(" + what + ")"; break;
    case BaseType::Scalar: inner = v + ".to_scalar(" + what + ")"; break;
    case BaseType::ScalarType: inner = v + ".to_scalar_type(" + what + ")"; break;
    case BaseType::Device: inner = v + ".to_device(" + what + ")"; break;
    case BaseType::Generator: inner = v + ".to_generator(" + what + ")"; break;
    default: break;
  }
  if (t.optional) return opt(inner, "std::optional<" + value_type(t.base) + ">");
  return inner;
}

std::string box_returns(const FunctionSchema& s, const std::string& r) {
  if (s.returns.empty()) return "";
  if (s.returns.size() == 1) return "st.emplace_back(" + r + ");";
  std::string out;
  for (size_t i = 0; i < s.returns.size(); ++i)
    out += "st.emplace_back(std::get<" + std::to_string(i) + ">(" + r + ")); ";
  return out;
}

namespace {

// Argument signature without annotations, for matching siblings.
std::string plain_sig(const Argument& a) {
  Type t = a.type;
  return a.name + ":" + t.str();
}

bool same_args(const FunctionSchema& wrapper, const FunctionSchema& functional) {
  std::vector<std::string> w, f;
  for (const Argument& a : wrapper.arguments)
    if (!is_out_arg(a)) w.push_back(plain_sig(a));
  for (const Argument& a : functional.arguments) f.push_back(plain_sig(a));
  return w == f;
}

}  // namespace

// The C entry's name: "tc_" + namespace + name + overload, spelled without
// "__" (C++ reserves every identifier containing it): an in-place op's
// trailing '_' becomes "_inplace" (add_.Tensor -> tc_add_inplace_Tensor,
// relu_ -> tc_relu_inplace) and ATen's internal ops, whose names start with
// '_', become "internal_..." (_to_copy -> tc_internal_to_copy).
std::string c_entry_name(const OperatorName& n) {
  std::string name = n.is_inplace() ? n.base_name() + "_inplace" : n.name;
  if (!name.empty() && name[0] == '_') name = "internal" + name;
  return "tc_" + c_ident((n.ns.empty() ? "" : n.ns + "_") + name + (n.overload.empty() ? "" : "_" + n.overload));
}

namespace {

// Whether parameter b can take the place of Scalar parameter a: the same name,
// a Tensor where a has a Scalar, optional alike. A Scalar with a value default
// (alpha=1) has no Tensor spelling and stays a Scalar.
bool scalar_becomes_tensor(const Argument& a, const Argument& b) {
  const Type &ta = a.type, &tb = b.type;
  if (ta.base != BaseType::Scalar || ta.is_list || tb.base != BaseType::Tensor || tb.is_list) return false;
  if (ta.optional != tb.optional || is_mutable(b)) return false;
  return !a.default_value || *a.default_value == "None";
}

// Sets op.tensor_overload: among the ops of the same name and kind whose
// parameters match op's one for one, each the same type or a Tensor for a
// Scalar, the one that turns the most Scalars into Tensors (where.Scalar ->
// where.self, not where.ScalarOther).
void pick_tensor_overload(OpInfo& op, const Model& m) {
  const FunctionSchema& s = op.nf->func;
  const std::vector<const Argument*> pa = cpp_op_params_order(s);
  size_t best = 0;
  for (const OpInfo& cand : m.ops) {
    const FunctionSchema& c = cand.nf->func;
    if (&cand == &op || c.name.name != s.name.name || c.kind() != s.kind()) continue;
    if (c.returns.size() != s.returns.size()) continue;
    bool same_returns = true;
    for (size_t i = 0; i < s.returns.size(); ++i)
      same_returns = same_returns && c.returns[i].type.str() == s.returns[i].type.str();
    const std::vector<const Argument*> pc = cpp_op_params_order(c);
    if (!same_returns || pc.size() != pa.size()) continue;
    std::vector<bool> routed(pa.size(), false);
    size_t n = 0;
    bool match = true;
    for (size_t i = 0; i < pa.size() && match; ++i) {
      if (pa[i]->name != pc[i]->name)
        match = false;
      else if (scalar_becomes_tensor(*pa[i], *pc[i]))
        routed[i] = true, ++n;
      else
        match = pa[i]->type.str() == pc[i]->type.str();
    }
    if (match && n > best) {
      best = n;
      op.tensor_overload = &cand;
      op.scalar_to_tensor = routed;
    }
  }
}

}  // namespace

Model build_model(const std::vector<NativeFunction>& nfs, std::vector<LoadError>* errors, int shards) {
  Model m;
  m.ops.reserve(nfs.size());
  std::set<std::string> c_names;
  for (const NativeFunction& nf : nfs) {
    OpInfo op;
    op.nf = &nf;
    const auto& n = nf.func.name;
    op.qualified = n.qualified();
    op.ident = c_ident((n.ns.empty() ? "" : n.ns + "_") + n.name + (n.overload.empty() ? "" : "_" + n.overload));
    op.c_name = c_entry_name(n);
    if (op.c_name.find("__") != std::string::npos)
      errors->push_back(
          {nf.file, nf.line, "c-name-reserved", op.c_name + " contains \"__\", which C++ reserves; rename the op", ""});
    op.cpp_name = nf.func.kind() == SchemaKind::Out ? n.base_name() + "_out" : n.name;
    uint32_t h = 2166136261u;  // FNV-1a: stable across compilers and runs
    for (char c : n.base_name()) h = (h ^ uint8_t(c)) * 16777619u;
    op.shard = int(h % uint32_t(std::max(shards, 1)));
    if (!c_names.insert(op.c_name).second)
      errors->push_back({nf.file, nf.line, "c-name-collision", "two ops map to the C name " + op.c_name, ""});
    m.ops.push_back(op);
  }
  // Overloads of one C++ name: a call that omits defaulted arguments must not
  // match another overload too (any(self) vs any.dims(self, dim=None)).
  for (OpInfo& a : m.ops) {
    std::vector<const Argument*> oa = cpp_op_params_order(a.nf->func);
    size_t ra = first_trailing_default(oa);
    for (const OpInfo& b : m.ops) {
      if (&a == &b || a.cpp_name != b.cpp_name) continue;
      std::vector<const Argument*> ob = cpp_op_params_order(b.nf->func);
      size_t rb = first_trailing_default(ob);
      for (size_t k = ra; k < oa.size(); ++k) {
        if (k < rb || k > ob.size()) continue;
        bool same = true;
        for (size_t i = 0; i < k && same; ++i) same = cpp_arg_type(*oa[i]) == cpp_arg_type(*ob[i]);
        if (same) a.default_floor = std::max(a.default_floor, k + 1);
      }
    }
  }
  for (OpInfo& op : m.ops) {
    const NativeFunction& nf = *op.nf;
    SchemaKind k = nf.func.kind();
    if (k == SchemaKind::Functional || nf.dispatch_given) continue;
    for (const OpInfo& cand : m.ops) {
      const FunctionSchema& f = cand.nf->func;
      if (f.kind() == SchemaKind::Functional && f.name.name == nf.func.name.base_name() && same_args(nf.func, f)) {
        op.functional = &cand;
        break;
      }
    }
    if (!op.functional) {
      errors->push_back(
          {nf.file, nf.line, "no-functional-sibling",
           op.qualified + " has no dispatch and no functional op with the same arguments to generate it from", ""});
      continue;
    }
    op.generated_wrapper = true;
  }
  for (OpInfo& op : m.ops) pick_tensor_overload(op, m);
  return m;
}

const char* c_value_type(BaseType b) {
  switch (b) {
    case BaseType::Int: return "int64_t";
    case BaseType::Float: return "double";
    case BaseType::Bool: return "bool";
    case BaseType::Scalar: return "tc_scalar";
    case BaseType::ScalarType: return "tc_dtype";
    case BaseType::Device: return "tc_device";
    default: return "?";
  }
}

std::string c_output_name(const FunctionSchema& s, size_t i) {
  const Return& r = s.returns[i];
  std::string name = s.returns.size() == 1 ? "out" : r.name ? *r.name : "out" + std::to_string(i);
  return s.find_argument(name) ? "out_" + name : name;
}

const Argument* aliased_argument(const FunctionSchema& s, const Return& r) {
  for (const Argument& a : s.arguments)
    if (a.annotation && r.annotation && a.annotation->alias_sets == r.annotation->alias_sets) return &a;
  return nullptr;
}

}  // namespace tc::codegen
