// SPDX-License-Identifier: BSD-3-Clause
// The op surface of the Rust crate (bindings/rust), over the C ABI alone:
//   rust/sys_ops.rs  the extern "C" declaration of every generated C entry point
//   rust/ops.rs      safe methods on `Tensor` (variants: method) and free
//                    functions in `tensorc::ops` (variants: function, factories)
// The crate's build.rs copies both into OUT_DIR and include!s them.
//
// Naming (also written into ops.rs's header and docs/rust.md):
//   op `name.overload` -> `name_overload`, the overload lowercased; an in-place
//   name keeps its trailing '_' at the end (`add_.Scalar` -> `add_scalar_`).
//   The overload is left out when it is empty, or when no overload of that
//   name is empty and it is the first non-out overload of that name in
//   ops.yaml (`add.Tensor` -> `add`, `add.Scalar` -> `add_scalar`,
//   `add.out` -> `add_out`). A name that is a Rust keyword or the name of a
//   hand-written Tensor method (kReserved) keeps its overload, or, without
//   one, takes `_op` (`where.self` -> `where_self`, `clone` -> `clone_op`).
//   Any collision left is a compile_error! in ops.rs, never a silent rename.
#include <set>

#include "codegen/gen_common.h"

namespace tc::codegen {
namespace {

const std::set<std::string>& rust_keywords() {
  static const std::set<std::string> k = {
      "as",       "break", "const",  "continue", "crate",   "else",     "enum",   "extern", "false", "fn",     "for",
      "if",       "impl",  "in",     "let",      "loop",    "match",    "mod",    "move",   "mut",   "pub",    "ref",
      "return",   "self",  "Self",   "static",   "struct",  "super",    "trait",  "true",   "type",  "unsafe", "use",
      "where",    "while", "async",  "await",    "dyn",     "abstract", "become", "box",    "do",    "final",  "macro",
      "override", "priv",  "typeof", "unsized",  "virtual", "yield",    "try",    "union"};
  return k;
}

// Names the crate writes by hand on Tensor (bindings/rust/src/tensor.rs,
// autograd.rs, index.rs) or that std traits Tensor implements call by method
// syntax (Clone::clone, ToString::to_string): a generated method must not
// shadow them.
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> r = {
      "clone", "to_string", "fmt", "drop", "into", "from", "try_from", "try_into", "as_ref", "borrow", "as_raw",
      "into_raw", "from_raw", "from_out", "from_slice", "from_scalar", "to_vec", "item", "size", "size_dim", "dim",
      "numel", "kind", "device", "strides", "is_contiguous", "storage_offset", "data_ptr", "version", "use_count",
      "requires_grad", "set_requires_grad", "grad", "set_grad", "is_leaf", "retain_grad", "grad_fn_name", "detach",
      "detach_", "backward", "backward_with", "deep_clone", "i", "index_with", "to_kind", "to_device", "copy_to_slice",
      "from_vec", "item_scalar", "borrow_raw",
      // private helpers on Tensor
      "format", "query", "dims_query", "null_output"};
  return r;
}

std::string lower(const std::string& s) {
  std::string r;
  for (char c : s) r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// A parameter or local name: keywords get a trailing '_' (self -> self_).
std::string rust_ident(const std::string& n) { return rust_keywords().count(n) ? n + "_" : n; }

bool pointer_style(const Argument& a) { return a.type.optional || a.default_value.has_value(); }

bool is_plain_tensor(const Argument& a) {
  return a.type.base == BaseType::Tensor && !a.type.is_list && !a.type.optional;
}

bool has_variant(const NativeFunction& nf, Variant v) {
  for (Variant x : nf.variants)
    if (x == v) return true;
  return false;
}

// The `self` argument a method is called on, if the op can be a method.
const Argument* method_self(const FunctionSchema& s) {
  const Argument* a = s.find_argument("self");
  return a && is_plain_tensor(*a) ? a : nullptr;
}

// ---- names ----------------------------------------------------------------

std::string with_overload(const OpInfo& op) {
  const auto& n = op.nf->func.name;
  std::string base = (n.ns.empty() ? "" : n.ns + "_") + n.name;
  if (n.overload.empty()) return c_ident(base);
  std::string ov = lower(c_ident(n.overload));
  if (n.is_inplace()) return c_ident(base.substr(0, base.size() - 1)) + "_" + ov + "_";
  return c_ident(base) + "_" + ov;
}

struct Names {
  std::map<const OpInfo*, std::string> rust;
  std::vector<std::string> errors;
};

Names assign_names(const Model& m) {
  Names out;
  std::map<std::string, bool> has_empty;         // op name -> some overload is empty
  std::map<std::string, const OpInfo*> primary;  // op name -> first non-out overload
  for (const OpInfo& op : m.ops) {
    const auto& n = op.nf->func.name;
    std::string key = n.ns + "::" + n.name;
    if (n.overload.empty())
      has_empty[key] = true;
    else if (op.nf->func.kind() != SchemaKind::Out && !primary.count(key))
      primary[key] = &op;
  }
  for (const OpInfo& op : m.ops) {
    const auto& n = op.nf->func.name;
    std::string key = n.ns + "::" + n.name;
    std::string full = with_overload(op);
    std::string plain = c_ident((n.ns.empty() ? "" : n.ns + "_") + n.name);
    std::string name = n.overload.empty() || (!has_empty[key] && primary[key] == &op) ? plain : full;
    if (rust_keywords().count(name) || reserved_names().count(name)) name = name != full ? full : name + "_op";
    if (rust_keywords().count(name) || reserved_names().count(name)) name += "_op";
    out.rust[&op] = name;
  }
  std::map<std::string, const OpInfo*> seen;
  for (const OpInfo& op : m.ops) {
    auto [it, fresh] = seen.emplace(out.rust[&op], &op);
    if (!fresh)
      out.errors.push_back("the Rust name `" + out.rust[&op] + "` is given to both " + it->second->qualified + " and " +
                           op.qualified + "; rename an overload in ops.yaml or extend the rule in gen_rust.cpp");
  }
  return out;
}

// ---- C declarations (sys_ops.rs) ------------------------------------------

const char* sys_value_type(BaseType b) {
  switch (b) {
    case BaseType::Int: return "i64";
    case BaseType::Float: return "f64";
    case BaseType::Bool: return "bool";
    case BaseType::Scalar: return "tc_scalar";
    case BaseType::ScalarType: return "tc_dtype";
    case BaseType::Device: return "tc_device";
    default: return "?";
  }
}

std::vector<std::string> sys_params(const Argument& a) {
  const Type& t = a.type;
  std::string n = rust_ident(a.name);
  if (t.base == BaseType::Tensor) {
    if (t.is_list) return {n + ": *const tc_tensor", n + "_len: usize"};
    return {n + ": tc_tensor"};
  }
  if (t.is_list) {
    std::string et = t.base == BaseType::Int ? "i64" : t.base == BaseType::Bool ? "bool" : "f64";
    return {n + ": *const " + et, n + "_len: usize"};
  }
  if (t.base == BaseType::Str) return {n + ": *const c_char"};
  if (t.base == BaseType::Generator) return {n + ": tc_generator"};
  if (pointer_style(a)) return {n + ": *const " + std::string(sys_value_type(t.base))};
  return {n + ": " + std::string(sys_value_type(t.base))};
}

struct Out {
  std::string name;  // C parameter name (sanitised)
  const Return* ret;
};

// Mirrors gen_c_api.cpp's c_outputs: written returns produce no output parameter.
std::vector<Out> outputs(const FunctionSchema& s) {
  std::vector<Out> outs;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const Return& r = s.returns[i];
    if (r.annotation && r.annotation->is_write) continue;
    outs.push_back({rust_ident(c_output_name(s, i)), &r});
  }
  return outs;
}

std::string sys_out_param(const Out& o) {
  const Type& t = o.ret->type;
  if (t.base == BaseType::Tensor) return o.name + (t.is_list ? ": *mut tc_tensor_list" : ": *mut tc_tensor");
  return o.name + ": *mut " + sys_value_type(t.base);
}

// ---- safe layer (ops.rs) ----------------------------------------------------

std::string default_text(const Argument& a) {
  if (!a.default_value) return "None";
  std::string v = *a.default_value;
  if (a.type.base == BaseType::Int && !a.type.is_list) {
    const std::optional<int64_t> i = schema::int_default_value(v);
    if (i && std::to_string(*i) != v) v += " = " + std::to_string(*i);
  }
  return v;
}

// One schema argument in a safe function.
struct SafeArg {
  std::string param;               // "other: &Tensor" (empty for the receiver)
  std::string pre;                 // statements before the call
  std::vector<std::string> exprs;  // C argument expressions
  bool lifetime = false;           // the param type names 'a
  std::string doc;                 // what None means, if anything
};

SafeArg safe_arg(const Argument& a, bool receiver) {
  const Type& t = a.type;
  std::string n = receiver ? "self" : rust_ident(a.name);
  SafeArg r;
  bool opt = pointer_style(a);
  if (opt) r.doc = "`" + n + "`: " + (a.default_value ? "`None` = " + default_text(a) : std::string("may be `None`"));
  if (t.base == BaseType::Tensor) {
    if (t.is_list) {
      r.param = n + (t.elem_optional ? ": &[Option<Tensor>]" : ": &[Tensor]");
      r.exprs = {n + ".as_ptr() as *const sys::tc_tensor", n + ".len()"};
      r.doc.clear();
      return r;
    }
    if (t.optional) {
      r.param = n + ": impl Into<Option<&'a Tensor>>";
      r.lifetime = true;
      r.pre = "let " + n + ": Option<&Tensor> = " + n + ".into();";
      r.exprs = {n + ".map_or(ptr::null_mut(), |t| t.as_raw())"};
      return r;
    }
    if (!receiver) r.param = n + (is_mutable(a) ? ": &mut Tensor" : ": &Tensor");
    r.exprs = {n + ".as_raw()"};
    return r;
  }
  if (t.is_list) {
    std::string et = t.base == BaseType::Int ? "i64" : t.base == BaseType::Bool ? "bool" : "f64";
    if (opt) {
      r.param = n + (t.base == BaseType::Int ? ": impl OptIntList<'a>" : ": impl Into<Option<&'a [" + et + "]>>");
      r.lifetime = true;
      r.pre = "let " + n + ": Option<&[" + et +
              "]> = " + (t.base == BaseType::Int ? n + ".into_opt_list();" : n + ".into();");
      r.exprs = {n + ".map_or(ptr::null(), |s| s.as_ptr())", n + ".map_or(0, |s| s.len())"};
      return r;
    }
    r.param = n + ": &[" + et + "]";
    r.exprs = {n + ".as_ptr()", n + ".len()"};
    return r;
  }
  switch (t.base) {
    case BaseType::Str:
      if (opt) {
        r.param = n + ": impl Into<Option<&'a str>>";
        r.lifetime = true;
        r.pre = "let " + n + ": Option<&str> = " + n + ".into();\n        let " + n + " = match " + n +
                " { Some(s) => Some(c_string(s, \"" + a.name + "\")?), None => None };";
        r.exprs = {n + ".as_ref().map_or(ptr::null(), |s| s.as_ptr())"};
      } else {
        r.param = n + ": &str";
        r.pre = "let " + n + " = c_string(" + n + ", \"" + a.name + "\")?;";
        r.exprs = {n + ".as_ptr()"};
      }
      return r;
    case BaseType::Generator:
      r.param = n + ": impl Into<Option<&'a Generator>>";
      r.lifetime = true;
      r.pre = "let " + n + ": Option<&Generator> = " + n + ".into();";
      r.exprs = {n + ".map_or(ptr::null_mut(), |g| g.as_raw())"};
      r.doc = "`" + n + "`: `None` = the default generator";
      return r;
    case BaseType::Scalar:
      if (opt) {
        r.param = n + ": impl OptScalar";
        r.pre = "let " + n + " = " + n + ".into_opt_scalar().map(Scalar::to_c);";
        r.exprs = {"opt_ptr(&" + n + ")"};
      } else {
        r.param = n + ": impl Into<Scalar>";
        r.exprs = {"Scalar::to_c(" + n + ".into())"};
      }
      return r;
    default: break;
  }
  std::string rt, conv;  // Rust type; conversion of a value `v` to the C type
  switch (t.base) {
    case BaseType::Int: rt = "i64"; break;
    case BaseType::Float: rt = "f64"; break;
    case BaseType::Bool: rt = "bool"; break;
    case BaseType::ScalarType:
      rt = "Kind";
      conv = ".code()";
      break;
    case BaseType::Device:
      rt = "Device";
      conv = ".to_c()";
      break;
    default: rt = "?"; break;
  }
  if (opt) {
    r.param = n + ": impl Into<Option<" + rt + ">>";
    r.pre = "let " + n + ": Option<" + rt + "> = " + n + ".into();";
    if (!conv.empty()) r.pre += "\n        let " + n + " = " + n + ".map(|v| v" + conv + ");";
    r.exprs = {"opt_ptr(&" + n + ")"};
  } else {
    r.param = n + ": " + rt;
    r.exprs = {n + conv};
  }
  return r;
}

std::string safe_value_type(BaseType b) {
  switch (b) {
    case BaseType::Int: return "i64";
    case BaseType::Float: return "f64";
    case BaseType::Bool: return "bool";
    case BaseType::Scalar: return "Scalar";
    case BaseType::ScalarType: return "Kind";
    case BaseType::Device: return "Device";
    default: return "?";
  }
}

// One safe function or method.
std::string safe_fn(const OpInfo& op, const std::string& name, bool method) {
  const FunctionSchema& s = op.nf->func;
  const Argument* self = method ? method_self(s) : nullptr;
  std::vector<const Argument*> order = cpp_op_params_order(s);
  std::vector<Out> outs = outputs(s);

  std::vector<SafeArg> args;
  bool lifetime = false;
  for (const Argument* a : order) {
    args.push_back(safe_arg(*a, a == self));
    lifetime = lifetime || args.back().lifetime;
  }

  // Return type and the statements that make it.
  std::string ret, out_decls, result;
  std::vector<std::string> out_exprs;
  if (outs.empty()) {
    bool self_mut = self && is_mutable(*self);
    ret = self_mut ? "Result<&mut Tensor>" : "Result<()>";
    result = self_mut ? "Ok(self)" : "Ok(())";
  } else {
    // ATen's convention: an op with a bool[] output_mask leaves the outputs it
    // masks off undefined (NULL handles), so its tensors come back as Option.
    const Argument* mask = s.find_argument("output_mask");
    const bool maybe_undefined = mask && mask->type.base == BaseType::Bool && mask->type.is_list;
    std::vector<std::string> types, vals;
    for (const Out& o : outs) {
      const Type& t = o.ret->type;
      out_exprs.push_back("&mut " + o.name);
      if (t.base == BaseType::Tensor && t.is_list) {
        out_decls += "let mut " + o.name + ": sys::tc_tensor_list = ptr::null_mut();\n        ";
        types.push_back("Vec<Tensor>");
        vals.push_back("crate::tensor::list_into_vec(" + o.name + ")");
      } else if (t.base == BaseType::Tensor) {
        out_decls += "let mut " + o.name + ": sys::tc_tensor = ptr::null_mut();\n        ";
        types.push_back(maybe_undefined ? "Option<Tensor>" : "Tensor");
        vals.push_back(maybe_undefined ? "Result::<Option<Tensor>>::Ok(unsafe { Tensor::from_raw(" + o.name + ") })"
                                       : "Tensor::from_out(" + o.name + ")");
      } else {
        std::string init = t.base == BaseType::Scalar   ? "sys::tc_scalar::default()"
                           : t.base == BaseType::Device ? "sys::tc_device { type_: 0, index: 0 }"
                           : t.base == BaseType::Bool   ? "false"
                           : t.base == BaseType::Float  ? "0.0"
                                                        : "0";
        out_decls += "let mut " + o.name + " = " + init + ";\n        ";
        types.push_back(safe_value_type(t.base));
        vals.push_back(t.base == BaseType::Scalar       ? "Ok(Scalar::from_c(" + o.name + "))"
                       : t.base == BaseType::ScalarType ? "Kind::from_code(" + o.name + ")"
                       : t.base == BaseType::Device     ? "Device::from_c(" + o.name + ")"
                                                        : "Ok(" + o.name + ")");
      }
    }
    if (types.size() == 1) {
      ret = "Result<" + types[0] + ">";
      result = vals[0];
    } else {
      ret = "Result<(";
      std::string lets, tuple;
      for (size_t i = 0; i < types.size(); ++i) {
        ret += (i ? ", " : "") + types[i];
        lets += "let r" + std::to_string(i) + " = " + vals[i] + ";\n        ";
        tuple += (i ? ", " : "") + std::string("r") + std::to_string(i) + "?";
      }
      ret += ")>";
      result = lets + "Ok((" + tuple + "))";
    }
  }

  Writer w;
  w << "    /// `" << op.nf->func_text << "`\n    ///\n    /// C: `" << op.c_name << "`.";
  std::string docs;
  for (const SafeArg& a : args)
    if (!a.doc.empty()) docs += (docs.empty() ? " " : "; ") + a.doc;
  if (!docs.empty()) w << docs << ".";
  w << "\n";
  if (s.kind() == SchemaKind::Inplace) w << "    /// In place: on error the tensor is unchanged.\n";
  w << "    pub fn " << name << (lifetime ? "<'a>" : "") << "(";
  bool first = true;
  if (self) {
    w << (is_mutable(*self) ? "&mut self" : "&self");
    first = false;
  }
  for (const SafeArg& a : args) {
    if (a.param.empty()) continue;
    w << (first ? "" : ", ") << a.param;
    first = false;
  }
  w << ") -> " << ret << " {\n";
  for (const SafeArg& a : args)
    if (!a.pre.empty()) w << "        " << a.pre << "\n";
  w << "        " << out_decls << "check(unsafe { sys::" << op.c_name << "(";
  first = true;
  for (const std::string& e : out_exprs) {
    w << (first ? "" : ", ") << e;
    first = false;
  }
  for (const SafeArg& a : args)
    for (const std::string& e : a.exprs) {
      w << (first ? "" : ", ") << e;
      first = false;
    }
  w << ") })?;\n        " << result << "\n    }\n";
  return w.str();
}

const char* kNamingDoc =
    "// Naming: op `name.overload` -> `name_overload` (overload lowercased; an\n"
    "// in-place name keeps its '_' last: `add_.Scalar` -> `add_scalar_`). The\n"
    "// overload is left out when it is empty, or when the name has no empty\n"
    "// overload and this is its first non-out overload in ops.yaml\n"
    "// (`add.Tensor` -> `add`, `add.Scalar` -> `add_scalar`, `add.out` -> `add_out`).\n"
    "// A Rust keyword or a hand-written Tensor method name keeps its overload, or\n"
    "// takes `_op` without one (`where.self` -> `where_self`, `clone` -> `clone_op`).\n"
    "// Arguments: Tensor -> &Tensor (&mut for (a!)), Tensor? -> Option<&Tensor>,\n"
    "// Tensor[] -> &[Tensor], int[] -> &[i64], Scalar -> impl Into<Scalar>;\n"
    "// optional or defaulted values take `None` for the schema's default.\n";

}  // namespace

std::string gen_rust_sys(const Model& m) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// The extern \"C\" declaration of every generated op entry point of tensorc.h\n"
    << "// (tensorc_ops.h); hand-written declarations live in bindings/rust/src/sys.rs.\n\n"
    << "extern \"C\" {\n";
  for (const OpInfo& op : m.ops) {
    const FunctionSchema& s = op.nf->func;
    std::vector<std::string> parts;
    for (const Out& o : outputs(s)) parts.push_back(sys_out_param(o));
    for (const Argument* a : cpp_op_params_order(s))
      for (const std::string& p : sys_params(*a)) parts.push_back(p);
    w << "    /// `" << op.nf->func_text << "`\n    pub fn " << op.c_name << "(";
    for (size_t i = 0; i < parts.size(); ++i) w << (i ? ", " : "") << parts[i];
    w << ") -> tc_status;\n";
  }
  w << "}\n";
  return w.str();
}

std::string gen_rust_ops(const Model& m) {
  Names names = assign_names(m);
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// The safe op surface of the tensorc crate: methods on Tensor for ops with\n"
    << "// `variants: method`, and free functions in `tensorc::ops` for ops with\n"
    << "// `variants: function` (the default) and factories. Each calls one C entry\n"
    << "// point and returns Result<_, tensorc::Error>.\n"
    << kNamingDoc << "\n";
  for (const std::string& e : names.errors) w << "compile_error!(\"tc_codegen: " << escape_c_string(e) << "\");\n";

  w << "impl Tensor {\n";
  for (const OpInfo& op : m.ops)
    if (has_variant(*op.nf, Variant::Method) && method_self(op.nf->func))
      w << safe_fn(op, names.rust[&op], true) << "\n";
  w << "}\n\n";

  w << "/// The ops with a function variant (the schema's default) and the factories,\n"
    << "/// as free functions: `ops::add(&a, &b, None)`, `ops::zeros(&[2, 3], Kind::Float32, None)`.\n"
    << "/// A tensor argument named `self` in the schema is `self_` here.\n"
    << "pub mod ops {\n"
    << "    #![allow(clippy::too_many_arguments)]\n"
    << "    use super::*;\n\n";
  for (const OpInfo& op : m.ops) {
    const NativeFunction& nf = *op.nf;
    bool function = has_variant(nf, Variant::Function) || nf.func.is_factory() || !method_self(nf.func);
    if (function) {
      std::string f = safe_fn(op, names.rust[&op], false);
      // indent one level more inside the module
      std::string ind;
      size_t start = 0;
      while (start < f.size()) {
        size_t end = f.find('\n', start);
        std::string line = f.substr(start, end == std::string::npos ? std::string::npos : end - start);
        ind += (line.empty() ? "" : "    ") + line + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
      }
      w << ind << "\n";
    }
  }
  w << "}\n";
  return w.str();
}

}  // namespace tc::codegen
