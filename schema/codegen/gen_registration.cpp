// SPDX-License-Identifier: BSD-3-Clause
// Kernel declarations (tensorc_gen/native_functions.h), the generated
// out=/in-place wrappers, and register_builtin_ops(): every schema defined,
// every kernel registered with its unboxed pointer and a boxed adapter.
#include <cctype>
#include <set>

#include "codegen/gen_common.h"

namespace tc::codegen {
namespace {

std::string wrapper_name(const OpInfo& op) { return "generated_" + op.ident; }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The generated kernel of a structured op on one backend: "structured_exp_inplace_cpu".
std::string structured_kernel_name(const OpInfo& op, const std::string& backend) {
  return "structured_" + op.c_name.substr(3) + "_" + lower(backend);
}

// Its body: the family's function for this variant, given the backend's loop.
std::string structured_body(const OpInfo& op, const std::string& loop) {
  const FunctionSchema& s = op.nf->func;
  const char* suffix = s.kind() == SchemaKind::Inplace ? "_" : s.kind() == SchemaKind::Out ? "_out" : "";
  const std::string args = schema_order_args(s);
  return "  return structured::" + op.nf->structured->family + suffix + "(" + args + (args.empty() ? "" : ", ") + "\"" +
         s.name.name + "\", &" + loop + ");\n";
}

// Kernels of an op: (key, kernel name).
std::vector<std::pair<std::string, std::string>> kernels_of(const OpInfo& op) {
  std::vector<std::pair<std::string, std::string>> ks;
  const NativeFunction& nf = *op.nf;
  if (nf.structured) {
    for (const auto& kv : nf.structured->loops) ks.push_back({kv.first, structured_kernel_name(op, kv.first)});
  } else if (op.generated_wrapper) {
    ks.push_back({"CompositeExplicitAutograd", wrapper_name(op)});
  } else if (!nf.dispatch_given) {
    const auto& n = nf.func.name;
    ks.push_back({"CompositeImplicitAutograd", n.overload.empty() ? n.name : n.name + "_" + n.overload});
  } else {
    for (const auto& kv : nf.dispatch) ks.push_back(kv);
  }
  return ks;
}

std::string wrapper_body(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  const FunctionSchema& f = op.functional->nf->func;
  Writer w;
  std::string call = "tc::" + op.functional->cpp_name + "(";
  for (size_t i = 0; i < f.arguments.size(); ++i) call += (i ? ", " : "") + f.arguments[i].name;
  call += ")";
  if (s.kind() == SchemaKind::Inplace) {
    w << "  Tensor result = " << call << ";\n";
    w << "  copy_result_inplace(\"" << op.qualified << "\", self, result);\n  return self;\n";
    return w.str();
  }
  // Out variant: one out argument per functional return, in order.
  std::vector<const Argument*> outs;
  for (const Argument& a : s.arguments)
    if (is_out_arg(a)) outs.push_back(&a);
  w << "  auto result = " << call << ";\n";
  if (outs.size() == 1) {
    w << "  copy_result_out(\"" << op.qualified << "\", \"" << outs[0]->name << "\", " << outs[0]->name
      << ", result);\n";
    w << "  return " << outs[0]->name << ";\n";
  } else {
    for (size_t i = 0; i < outs.size(); ++i)
      w << "  copy_result_out(\"" << op.qualified << "\", \"" << outs[i]->name << "\", " << outs[i]->name
        << ", std::get<" << i << ">(result));\n";
    w << "  return " << cpp_return_type(s) << "(";
    for (size_t i = 0; i < outs.size(); ++i) w << (i ? ", " : "") << outs[i]->name;
    w << ");\n";
  }
  return w.str();
}

// Kernels of backends that live in a library of their own (CUDA): registered
// by that library when it is loaded, not by libtensorc.
bool in_backend_library(const std::string& key) { return key == "CUDA"; }

// Boxed adapters, one template per op, instantiated per kernel; kernels that
// take the key set (Autograd) get it passed on.
void emit_boxed(Writer& w, const OpInfo& op, bool with_key_set) {
  const FunctionSchema& s = op.nf->func;
  w << "template <" << cpp_fn_ptr_type(s, with_key_set).insert(cpp_return_type(s).size() + 3, "F") << ">\n"
    << "void boxed_" << (with_key_set ? "ks_" : "") << op.ident << "(const OperatorEntry&, DispatchKeySet"
    << (with_key_set ? " ks" : "") << ", Stack* stack, void*) {\n"
    << "  Stack& st = *stack;\n";
  std::string call = with_key_set ? "F(ks" : "F(";
  for (size_t i = 0; i < s.arguments.size(); ++i)
    call += (i || with_key_set ? ", " : "") + unbox_expr(s.arguments[i], i, op.qualified);
  call += ")";
  std::string ret = cpp_return_type(s);
  if (ret == "void") {
    w << "  " << call << ";\n  st.clear();\n";
  } else {
    std::string decl = ret.back() == '&' || ret.find("Tensor&") != std::string::npos ? "auto&& r = " : "auto r = ";
    w << "  " << decl << call << ";\n  st.clear();\n  " << box_returns(s, "r") << "\n";
  }
  w << "}\n\n";
}

// Registers one kernel of `op` on `key` inside a generated registration
// function (where `d` and `op` are in scope).
void emit_register_kernel(Writer& w, const OpInfo& op, const std::string& key, const std::string& kernel) {
  const FunctionSchema& s = op.nf->func;
  w << "    {\n      KernelFunction k;\n"
    << "      k.unboxed = reinterpret_cast<void*>(static_cast<" << cpp_fn_ptr_type(s) << ">(&native::" << kernel
    << "));\n"
    << "      k.boxed = &boxed_" << op.ident << "<&native::" << kernel << ">;\n"
    << "      d.register_kernel(op, DispatchKey::" << key << ", std::move(k), \"native::" << kernel << "\");\n    }\n";
}

}  // namespace

std::string gen_native_header(const Model& m) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// Declarations of every kernel named in the schema (namespace tc::native).\n"
    << "#pragma once\n#include <optional>\n#include <string_view>\n#include <tuple>\n#include <vector>\n\n"
    << "#include \"core/generator.h\"\n#include \"core/iter.h\"\n#include \"core/tensor.h\"\n\n"
    << "namespace tc::native {\n\n";
  std::set<std::string> seen;
  for (const OpInfo& op : m.ops) {
    const FunctionSchema& s = op.nf->func;
    for (const auto& kv : kernels_of(op)) {
      std::string decl = cpp_return_type(s) + " " + kv.second + "(" + kernel_params(s) + ");";
      if (seen.insert(decl).second) w << decl << "  // " << op.qualified << " (" << kv.first << ")\n";
    }
    if (op.nf->structured)
      for (const auto& kv : op.nf->structured->loops) {
        std::string decl = "void " + kv.second + "(TensorIter& iter);";
        if (seen.insert(decl).second)
          w << decl << "  // the " << kv.first << " loop of " << op.nf->func.name.name << " ("
            << op.nf->structured->family << ")\n";
      }
  }
  w << "\n}  // namespace tc::native\n";
  return w.str();
}

std::string gen_registration(int shards) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "#include \"autograd/fallback.h\"\n#include \"dispatch/dispatcher.h\"\n\nnamespace tc {\n\n";
  for (int k = 0; k < shards; ++k) w << "void register_ops_shard_" << k << "(Dispatcher& d);\n";
  w << "\nvoid register_builtin_ops(Dispatcher& d) {\n  autograd::register_autograd_fallback(d);\n";
  for (int k = 0; k < shards; ++k) w << "  register_ops_shard_" << k << "(d);\n";
  w << "}\n\n}  // namespace tc\n";
  return w.str();
}

std::string gen_registration_shard(const Model& m, int shard, const std::string& yaml_file,
                                   const std::vector<std::pair<const OpInfo*, std::string>>& autograd) {
  std::map<const OpInfo*, std::string> autograd_of(autograd.begin(), autograd.end());
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "#include \"composite/out_helpers.h\"\n#include \"dispatch/dispatcher.h\"\n"
    << "#include \"structured/families.h\"\n#include \"tensorc_gen/autograd.h\"\n"
    << "#include \"tensorc_gen/native_functions.h\"\n#include \"tensorc_gen/ops.h\"\n\n"
    << "namespace tc {\nnamespace native {\n\n";
  // Structured ops: each variant on each backend is its family's function
  // with the backend's loop.
  for (const OpInfo& op : m.ops) {
    if (!op.nf->structured || !in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    for (const auto& [backend, loop] : op.nf->structured->loops)
      if (!in_backend_library(backend))
        w << cpp_return_type(s) << " " << structured_kernel_name(op, backend) << "(" << kernel_params(s) << ") {\n"
          << structured_body(op, loop) << "}\n";
  }
  w << "\n";
  // Generated in-place/out wrappers.
  for (const OpInfo& op : m.ops) {
    if (!op.generated_wrapper || !in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    w << "// " << op.nf->func_text << ": computes " << op.functional->qualified << ", then copies.\n";
    w << cpp_return_type(s) << " " << wrapper_name(op) << "(" << kernel_params(s) << ") {\n"
      << wrapper_body(op) << "}\n\n";
  }
  w << "}  // namespace native\n\nnamespace {\n\n";
  for (const OpInfo& op : m.ops) {
    if (!in_shard(op, shard)) continue;
    emit_boxed(w, op, false);
    if (autograd_of.count(&op)) emit_boxed(w, op, true);
  }
  w << "}  // namespace\n\n";
  // The debug string names the file, not the line: a line number in code
  // that compiles would rebuild every shard below an edited entry.
  w << "void register_ops_shard_" << shard << "(Dispatcher& d) {\n";
  for (const OpInfo& op : m.ops) {
    if (!in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    w << "  {\n    OperatorEntry& op = d.def(\"" << escape_c_string(s.str()) << "\", \"" << yaml_file << "\");\n";
    for (const auto& kv : kernels_of(op))
      if (!in_backend_library(kv.first)) emit_register_kernel(w, op, kv.first, kv.second);
    if (auto it = autograd_of.find(&op); it != autograd_of.end()) {
      const std::string fn = "autograd::generated::" + it->second;
      w << "    {\n      KernelFunction k;\n"
        << "      k.unboxed_ks = reinterpret_cast<void*>(static_cast<" << cpp_fn_ptr_type(s, true) << ">(&" << fn
        << "));\n"
        << "      k.boxed = &boxed_ks_" << op.ident << "<&" << fn << ">;\n"
        << "      d.register_kernel(op, DispatchKey::Autograd, std::move(k), \"" << fn << "\");\n    }\n";
    }
    w << "  }\n";
  }
  w << "}\n\n}  // namespace tc\n";
  return w.str();
}

std::string gen_registration_backend_library(const Model& m, const std::string& key) {
  Writer w;
  const std::string lkey = lower(key);
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// The " << key << " kernels, registered by the " << key << " backend library when it is loaded.\n"
    << "#include \"dispatch/dispatcher.h\"\n#include \"structured/families.h\"\n"
    << "#include \"tensorc_gen/native_functions.h\"\n\n"
    << "namespace tc {\nnamespace native {\n\n";
  auto has_key = [&](const OpInfo& op) {
    for (const auto& kv : kernels_of(op))
      if (kv.first == key) return true;
    return false;
  };
  for (const OpInfo& op : m.ops) {
    if (!op.nf->structured) continue;
    const FunctionSchema& s = op.nf->func;
    for (const auto& [backend, loop] : op.nf->structured->loops)
      if (backend == key)
        w << cpp_return_type(s) << " " << structured_kernel_name(op, backend) << "(" << kernel_params(s) << ") {\n"
          << structured_body(op, loop) << "}\n";
  }
  w << "\n}  // namespace native\n\nnamespace {\n\n";
  for (const OpInfo& op : m.ops)
    if (has_key(op)) emit_boxed(w, op, false);
  w << "}  // namespace\n\n"
    << "// Every op with a " << key << " kernel; throws if libtensorc lacks one of the ops\n"
    << "// (a backend library from another build).\n"
    << "void register_" << lkey << "_kernels(Dispatcher& d) {\n";
  for (const OpInfo& op : m.ops) {
    if (!has_key(op)) continue;
    w << "  {\n    OperatorEntry& op = d.find_or_throw(\"" << op.qualified << "\");\n";
    for (const auto& kv : kernels_of(op))
      if (kv.first == key) emit_register_kernel(w, op, kv.first, kv.second);
    w << "  }\n";
  }
  w << "  (void)d;\n}\n\n}  // namespace tc\n";
  return w.str();
}

std::string gen_listing(const Model& m) {
  Writer w;
  w << "{\n  \"generator\": \"tc_codegen\",\n  \"ops\": [\n";
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const OpInfo& op = m.ops[i];
    const FunctionSchema& s = op.nf->func;
    const char* kind = s.kind() == SchemaKind::Out ? "out" : s.kind() == SchemaKind::Inplace ? "inplace" : "functional";
    w << "    {\"name\": \"" << s.name.name << "\", \"overload\": \"" << s.name.overload << "\", \"qualified\": \""
      << op.qualified << "\", \"schema\": \"" << escape_c_string(s.str()) << "\", \"c_name\": \"" << op.c_name
      << "\", \"cpp_name\": \"" << op.cpp_name << "\", \"kind\": \"" << kind << "\", \"variants\": [";
    for (size_t v = 0; v < op.nf->variants.size(); ++v)
      w << (v ? ", " : "") << (op.nf->variants[v] == Variant::Method ? "\"method\"" : "\"function\"");
    w << "], \"arguments\": [";
    for (size_t a = 0; a < s.arguments.size(); ++a) {
      const Argument& arg = s.arguments[a];
      w << (a ? ", " : "") << "{\"name\": \"" << arg.name << "\", \"type\": \"" << arg.type.str()
        << "\", \"mutable\": " << (is_mutable(arg) ? "true" : "false")
        << ", \"kwarg_only\": " << (arg.kwarg_only ? "true" : "false");
      if (arg.default_value) w << ", \"default\": \"" << escape_c_string(*arg.default_value) << "\"";
      w << "}";
    }
    w << "], \"returns\": [";
    for (size_t r = 0; r < s.returns.size(); ++r) {
      const Return& ret = s.returns[r];
      w << (r ? ", " : "") << "{\"type\": \"" << ret.type.str() << "\"";
      if (ret.name) w << ", \"name\": \"" << *ret.name << "\"";
      w << ", \"mutable\": " << (ret.annotation && ret.annotation->is_write ? "true" : "false") << "}";
    }
    w << "]}" << (i + 1 < m.ops.size() ? "," : "") << "\n";
  }
  w << "  ]\n}\n";
  return w.str();
}

}  // namespace tc::codegen
