// SPDX-License-Identifier: BSD-3-Clause
// The op part of the C ABI: declarations (tensorc_ops.h) and entry points
// (capi_ops.cpp) that check handles, convert arguments, call the C++ op
// function and turn every exception into a status.
#include "codegen/gen_common.h"

namespace tc::codegen {
namespace {

bool pointer_style(const Argument& a) { return a.type.optional || a.default_value.has_value(); }

struct CParam {
  std::string decl;  // "const int64_t* dim"
  std::string doc;   // one line
};

// The C parameters for one schema argument.
std::vector<CParam> c_params(const Argument& a) {
  const Type& t = a.type;
  const std::string& n = a.name;
  std::string shown = a.default_value ? *a.default_value : "";
  if (t.base == BaseType::Int && !t.is_list && a.default_value) {  // a named constant: give its value too
    const std::optional<int64_t> v = schema::int_default_value(shown);
    if (v && std::to_string(*v) != shown) shown += " = " + std::to_string(*v);
  }
  std::string dflt = a.default_value ? " (NULL: default " + shown + ")" : t.optional ? " (NULL: None)" : "";
  if (t.base == BaseType::Tensor) {
    if (t.is_list)
      return {{"const tc_tensor* " + n,
               n + ": borrowed array of " + std::string(t.elem_optional ? "tensors or NULL" : "tensors")},
              {"size_t " + n + "_len", n + "_len: number of elements of " + n}};
    if (is_mutable(a)) return {{"tc_tensor " + n, n + ": borrowed; written in place"}};
    return {{"tc_tensor " + n, n + ": borrowed" + std::string(t.optional ? " (NULL: None)" : "")}};
  }
  if (t.is_list) {
    std::string et = t.base == BaseType::Int ? "int64_t" : t.base == BaseType::Bool ? "bool" : "double";
    return {{"const " + et + "* " + n, n + ": array" + dflt}, {"size_t " + n + "_len", n + "_len: its length"}};
  }
  if (t.base == BaseType::Str) return {{"const char* " + n, n + ": NUL-terminated string" + dflt}};
  if (t.base == BaseType::Generator) return {{"tc_generator " + n, n + ": borrowed (NULL: the default generator)"}};
  if (pointer_style(a)) return {{"const " + std::string(c_value_type(t.base)) + "* " + n, n + dflt}};
  return {{std::string(c_value_type(t.base)) + " " + n, n}};
}

struct COut {
  std::string decl, doc;
};

// The C output parameters (new references / values). Mutable returns alias an
// argument and produce no output parameter.
std::vector<COut> c_outputs(const FunctionSchema& s) {
  std::vector<COut> outs;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const Return& r = s.returns[i];
    if (r.annotation && r.annotation->is_write) continue;
    const std::string name = c_output_name(s, i);
    if (r.type.base == BaseType::Tensor && r.type.is_list)
      outs.push_back(
          {"tc_tensor_list* " + name, name + ": receives a new list handle (release with tc_tensor_list_release)"});
    else if (r.type.base == BaseType::Tensor)
      outs.push_back({"tc_tensor* " + name, name + ": receives a new reference (release with tc_tensor_release)"});
    else
      outs.push_back({std::string(c_value_type(r.type.base)) + "* " + name, name + ": receives the value"});
  }
  return outs;
}

std::string c_signature(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  std::vector<std::string> parts;
  for (const COut& o : c_outputs(s)) parts.push_back(o.decl);
  for (const Argument* a : cpp_op_params_order(s))
    for (const CParam& p : c_params(*a)) parts.push_back(p.decl);
  std::string r = "tc_status " + op.c_name + "(";
  if (parts.empty()) r += "void";
  for (size_t i = 0; i < parts.size(); ++i) r += (i ? ", " : "") + parts[i];
  return r + ")";
}

// Converts C argument `a` into a local C++ value named `<name>_`.
std::string convert_arg(const Argument& a, const std::string& opq) {
  const Type& t = a.type;
  const std::string& n = a.name;
  std::string q = "\"" + opq + "\"", an = "\"" + n + "\"";
  std::string local = n + "_";
  std::string dflt = cpp_default(a);
  if (t.base == BaseType::Tensor) {
    if (t.is_list) {
      std::string fn = t.elem_optional ? "to_optional_tensor_list" : "to_tensor_list";
      return "  auto " + local + " = tc::capi::" + fn + "(" + n + ", " + n + "_len, " + q + ", " + an + ");\n";
    }
    if (t.optional) return "  std::optional<tc::Tensor> " + local + " = tc::capi::to_optional_tensor(" + n + ");\n";
    return "  TC_CAPI_NULL_CHECK(" + n + ", " + q + ", " + an + ");\n  tc::capi::Borrowed " + local + "(" + n + ");\n";
  }
  if (t.is_list) {
    std::string et = t.base == BaseType::Int ? "int64_t" : t.base == BaseType::Bool ? "bool" : "double";
    std::string check = "  if (!" + n + " && " + n +
                        "_len) return tc::capi::set_error(tc::ErrorCode::InvalidArgument, tc::str(" + q +
                        ", \": argument '" + n + "' is NULL with a non-zero length\"));\n";
    std::string make = t.base == BaseType::Int ? "tc::IntArrayRef(" + n + ", " + n + "_len)"
                                               : "std::vector<" + et + ">(" + n + ", " + n + " + " + n + "_len)";
    std::string type = t.base == BaseType::Int ? "tc::IntArrayRef" : "std::vector<" + et + ">";
    if (t.optional)
      return check + "  std::optional<" + type + "> " + local + " = " + n + " ? std::optional<" + type + ">(" + make +
             ") : std::nullopt;\n";
    if (a.default_value) {
      std::string pre, d;
      if (t.base == BaseType::Int) {
        std::vector<std::string> items = int_list_default_items(a);
        if (items.empty()) {
          d = "tc::IntArrayRef()";
        } else {
          pre = "  static const int64_t " + n + "_default_[] = {";
          for (size_t i = 0; i < items.size(); ++i) pre += (i ? ", " : "") + items[i];
          pre += "};\n";
          d = "tc::IntArrayRef(" + n + "_default_, " + std::to_string(items.size()) + ")";
        }
      } else {
        d = dflt.empty() ? type + "()" : dflt;
      }
      return check + pre + "  " + type + " " + local + " = " + n + " ? " + type + "(" + make + ") : " + type + "(" + d +
             ");\n";
    }
    return check + "  " + type + " " + local + " = " + make + ";\n";
  }
  std::string conv;  // expression converting `*n` or `n`
  std::string cpp_t;
  auto src = [&](bool ptr) { return ptr ? "*" + n : n; };
  bool ptr = pointer_style(a) && t.base != BaseType::Str && t.base != BaseType::Generator;
  switch (t.base) {
    case BaseType::Int:
      cpp_t = "int64_t";
      conv = src(ptr);
      break;
    case BaseType::Float:
      cpp_t = "double";
      conv = src(ptr);
      break;
    case BaseType::Bool:
      cpp_t = "bool";
      conv = src(ptr);
      break;
    case BaseType::Scalar:
      cpp_t = "tc::Scalar";
      conv = "tc::capi::to_scalar(" + src(ptr) + ", " + q + ", " + an + ")";
      break;
    case BaseType::ScalarType:
      cpp_t = "tc::ScalarType";
      conv = "tc::capi::to_dtype(" + src(ptr) + ", " + q + ", " + an + ")";
      break;
    case BaseType::Device:
      cpp_t = "tc::Device";
      conv = "tc::capi::to_device(" + src(ptr) + ", " + q + ", " + an + ")";
      break;
    case BaseType::Str:
      cpp_t = "std::string_view";
      if (t.optional || a.default_value) {
        std::string d = (dflt.empty() || dflt == "std::nullopt") ? "std::nullopt" : dflt;
        if (t.optional)
          return "  std::optional<std::string_view> " + local + " = " + n + " ? std::optional<std::string_view>(" + n +
                 ") : " + d + ";\n";
        return "  std::string_view " + local + " = " + n + " ? std::string_view(" + n + ") : " + d + ";\n";
      }
      return "  TC_CAPI_NULL_CHECK(" + n + ", " + q + ", " + an + ");\n  std::string_view " + local + "(" + n + ");\n";
    case BaseType::Generator:
      return "  std::optional<tc::Generator> " + local + " = " + n +
             " ? std::optional<tc::Generator>(tc::capi::to_generator(" + n + ")) : std::nullopt;\n";
    default: return "#error unsupported type\n";
  }
  if (!ptr) return "  " + cpp_t + " " + local + " = " + conv + ";\n";
  if (t.optional) {
    std::string d = (dflt.empty() || dflt == "std::nullopt")
                        ? "std::nullopt"
                        : "std::optional<" + cpp_t + ">(" +
                              (t.base == BaseType::Scalar || t.base == BaseType::ScalarType ? "tc::" : "") + dflt + ")";
    return "  std::optional<" + cpp_t + "> " + local + " = " + n + " ? std::optional<" + cpp_t + ">(" + conv +
           ") : " + d + ";\n";
  }
  std::string d = (t.base == BaseType::Scalar || t.base == BaseType::ScalarType ? "tc::" : "") + dflt;
  return "  " + cpp_t + " " + local + " = " + n + " ? " + cpp_t + "(" + conv + ") : " + cpp_t + "(" + d + ");\n";
}

std::string call_arg(const Argument& a) {
  if (a.type.base == BaseType::Tensor && !a.type.is_list && !a.type.optional)
    return is_mutable(a) ? a.name + "_.mut()" : a.name + "_.get()";
  return a.name + "_";
}

std::string c_doc(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  std::string d = "/**\n * " + op.nf->func_text + "\n *\n";
  switch (s.kind()) {
    case SchemaKind::Inplace:
      d += " * In place: modifies self (and bumps its version); on error self is unchanged.\n";
      break;
    case SchemaKind::Out:
      d += " * Out variant: writes the result into the out tensor(s), resizing an empty one.\n";
      break;
    default: break;
  }
  for (const COut& o : c_outputs(s)) d += " * @param " + o.doc + "\n";
  for (const Argument* a : cpp_op_params_order(s))
    for (const CParam& p : c_params(*a)) d += " * @param " + p.doc + "\n";
  d += " * Inputs are borrowed. Returns TC_OK, or an error status with a message naming\n"
       " * the op and the argument (tc_last_error_message).\n */\n";
  return d;
}

// Converts op's C arguments, calls `target` (op itself, or its Tensor
// overload with the parameters marked in `as_tensor` passed as tensors) and
// stores the results in op's output parameters.
std::string call_body(const OpInfo& op, const OpInfo& target, const std::vector<bool>& as_tensor,
                      const std::vector<COut>& outs) {
  const FunctionSchema& s = op.nf->func;
  const std::string q = "\"" + op.qualified + "\"";
  std::string b;
  std::vector<const Argument*> order = cpp_op_params_order(s);
  std::string call = "tc::" + target.cpp_name + "(";
  for (size_t i = 0; i < order.size(); ++i) {
    const Argument& a = *order[i];
    const bool routed = i < as_tensor.size() && as_tensor[i];
    if (!routed) {
      b += convert_arg(a, op.qualified);
      call += (i ? ", " : "") + call_arg(a);
      continue;
    }
    const std::string& n = a.name;
    const std::string conv =
        "tc::capi::scalar_as_tensor(" + std::string(a.type.optional ? "*" : "") + n + ", " + q + ", \"" + n + "\")";
    if (a.type.optional)
      b += "  std::optional<tc::Tensor> " + n + "_ = " + n + " ? std::optional<tc::Tensor>(" + conv +
           ") : std::nullopt;\n";
    else
      b += "  tc::Tensor " + n + "_ = " + conv + ";\n";
    call += (i ? ", " : "") + n + "_";
  }
  call += ")";
  if (outs.empty()) return b + "  " + call + ";\n";
  b += "  auto result_ = " + call + ";\n";
  size_t oi = 0;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const Return& r = s.returns[i];
    if (r.annotation && r.annotation->is_write) continue;
    std::string name = outs[oi].decl.substr(outs[oi].decl.rfind(' ') + 1);
    ++oi;
    std::string val = s.returns.size() == 1 ? "result_" : "std::get<" + std::to_string(i) + ">(result_)";
    if (r.type.base == BaseType::Tensor && r.type.is_list)
      b += "  *" + name + " = tc::capi::new_tensor_list(std::move(" + val + "));\n";
    else if (r.type.base == BaseType::Tensor)
      b += "  *" + name + " = tc::capi::new_handle(std::move(" + val + "));\n";
    else if (r.type.base == BaseType::Scalar)
      b += "  *" + name + " = tc::capi::from_scalar(" + val + ");\n";
    else if (r.type.base == BaseType::ScalarType)
      b += "  *" + name + " = tc_dtype(" + val + ");\n";
    else
      b += "  *" + name + " = " + val + ";\n";
  }
  return b;
}

// Indents generated lines by two more spaces.
std::string indent(const std::string& code) {
  std::string r;
  size_t start = 0;
  while (start < code.size()) {
    size_t end = code.find('\n', start);
    end = end == std::string::npos ? code.size() : end + 1;
    r += "  " + code.substr(start, end - start);
    start = end;
  }
  return r;
}

}  // namespace

std::string gen_c_header(const Model& m) {
  Writer w;
  w << "/* Generated by tc_codegen from schema/ops.yaml. Do not edit. */\n"
    << "#ifndef TENSORC_OPS_H\n#define TENSORC_OPS_H\n\n"
    << "#ifndef TENSORC_H\n#error \"include tensorc.h, not tensorc_ops.h\"\n#endif\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const OpInfo& op : m.ops) w << c_doc(op) << "TC_API " << c_signature(op) << ";\n\n";
  w << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* TENSORC_OPS_H */\n";
  return w.str();
}

std::string gen_c_entries(const Model& m, int shard) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "#include \"capi/handles.h\"\n#include \"tensorc_gen/ops.h\"\n\n"
    << "using namespace tc;\n\n";
  for (const OpInfo& op : m.ops) {
    if (!in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    std::string q = "\"" + op.qualified + "\"";
    w << "extern \"C\" TC_API " << c_signature(op) << " {\n  TC_CAPI_BEGIN\n";
    std::vector<COut> outs = c_outputs(s);
    for (const COut& o : outs) {
      std::string name = o.decl.substr(o.decl.rfind(' ') + 1);
      w << "  TC_CAPI_NULL_CHECK(" << name << ", " << q << ", \"" << name << "\");\n";
    }
    for (const COut& o : outs) {
      std::string name = o.decl.substr(o.decl.rfind(' ') + 1);
      if (o.decl.rfind("tc_tensor", 0) == 0) w << "  *" << name << " = nullptr;\n";
    }
    if (op.tensor_overload) {
      // A Scalar given as a tensor goes to the Tensor overload: no host read.
      std::vector<const Argument*> order = cpp_op_params_order(s);
      std::string cond;
      for (size_t i = 0; i < order.size(); ++i) {
        if (!op.scalar_to_tensor[i]) continue;
        const std::string& n = order[i]->name;
        cond += (cond.empty() ? "" : " || ") + (order[i]->type.optional
                                                    ? "(" + n + " && tc::capi::is_tensor_scalar(*" + n + "))"
                                                    : "tc::capi::is_tensor_scalar(" + n + ")");
      }
      w << "  if (" << cond << ") {\n"
        << indent(call_body(op, *op.tensor_overload, op.scalar_to_tensor, outs)) << "  } else {\n"
        << indent(call_body(op, op, {}, outs)) << "  }\n";
    } else {
      w << call_body(op, op, {}, outs);
    }
    w << "  TC_CAPI_END_OP(" << q << ", \"" << s.name.name << "\")\n}\n\n";
  }
  return w.str();
}

}  // namespace tc::codegen
