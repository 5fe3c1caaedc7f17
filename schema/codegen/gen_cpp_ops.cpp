// SPDX-License-Identifier: BSD-3-Clause
// The C++ op functions (tc::add ...), the Tensor methods, and their
// definitions: find the operator once, compute the key set, call the kernel
// unboxed when it has that form, else box the arguments.
#include <algorithm>
#include <set>

#include "codegen/gen_common.h"

namespace tc::codegen {
namespace {

// Members of tc::Tensor written by hand; a schema method of the same name is
// not generated (the hand-written one is the fast path).
const std::set<std::string> kHandWrittenMethods = {
    "defined", "impl",    "impl_ptr",       "is_same",       "use_count",      "dim",         "ndimension",
    "sizes",   "strides", "size",           "stride",        "numel",          "scalar_type", "dtype",
    "device",  "is_cpu",  "storage_offset", "is_contiguous", "element_size",   "data_ptr",    "storage",
    "key_set", "version", "bump_version",   "requires_grad", "unsafe_release", "item"};

bool has_method(const OpInfo& op) {
  const NativeFunction& nf = *op.nf;
  bool m = false;
  for (Variant v : nf.variants) m |= v == Variant::Method;
  return m && nf.func.kind() != SchemaKind::Out && nf.func.find_argument("self") &&
         !kHandWrittenMethods.count(nf.func.name.name);
}

std::string unbox_return(const FunctionSchema& s, size_t i, const std::string& v) {
  const Return& r = s.returns[i];
  if (r.annotation && r.annotation->is_write) {
    const Argument* a = aliased_argument(s, r);
    return a ? a->name : "/*no aliased argument*/";
  }
  const Type& t = r.type;
  // A returned Tensor may be undefined (boxed as None), e.g. a masked-off
  // gradient of native_layer_norm_backward.
  if (t.base == BaseType::Tensor)
    return t.is_list ? v + ".to_tensor_list()" : v + ".to_optional_tensor().value_or(Tensor())";
  switch (t.base) {
    case BaseType::Int: return v + ".to_int()";
    case BaseType::Float: return v + ".to_double()";
    case BaseType::Bool: return v + ".to_bool()";
    case BaseType::Scalar: return v + ".to_scalar()";
    case BaseType::ScalarType: return v + ".to_scalar_type()";
    default: return "/*unsupported return*/";
  }
}

// The op function: validates the tensors, computes the call's key set, and
// hands on to the op's redispatch function.
std::string op_body(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  std::string q = op.qualified;
  Writer w;
  w << "  DispatchKeySet ks_;\n";
  int tensor_args = 0;
  for (const Argument& a : s.arguments) {
    if (a.type.base != BaseType::Tensor) continue;
    tensor_args += a.type.is_list ? 2 : 1;  // a list may hold tensors on several devices
    if (a.type.is_list) {
      w << "  for (const auto& t_ : " << a.name << ") ks_ = ks_ | key_set_of(t_);\n";
    } else if (a.type.optional) {
      w << "  if (" << a.name << " && " << a.name << "->defined()) ks_ = ks_ | " << a.name << "->key_set();\n";
    } else {
      w << "  TC_CHECK_ARG(" << a.name << ".defined(), \"" << q << ": argument '" << a.name
        << "' is an undefined tensor\");\n";
      w << "  ks_ = ks_ | " << a.name << ".key_set();\n";
    }
  }
  if (tensor_args == 0) {
    const Argument* dev = s.find_argument("device");
    if (dev && dev->type.base == BaseType::Device)
      w << "  ks_ = DispatchKeySet(backend_key_for(device ? device->type : DeviceType::CPU));\n";
    else
      w << "  ks_ = DispatchKeySet(DispatchKey::CPU);\n";
  }
  if (op.nf->device_check && tensor_args >= 2) {
    w << "  {\n    DeviceCheck dc_(\"" << q << "\");\n";
    for (const Argument& a : s.arguments) {
      if (a.type.base != BaseType::Tensor) continue;
      if (a.type.is_list)
        w << "    for (const auto& t_ : " << a.name << ") dc_.add(\"" << a.name << "\", t_);\n";
      else if (a.type.optional)
        w << "    if (" << a.name << ") dc_.add(\"" << a.name << "\", *" << a.name << ");\n";
      else
        w << "    dc_.add(\"" << a.name << "\", " << a.name << ");\n";
    }
    w << "  }\n";
  }
  if (tensor_args > 0) w << "  if (ks_.empty()) ks_ = DispatchKeySet(DispatchKey::CPU);\n";
  if (op.nf->device_guard) {
    // The kernel runs with its device current: self's, else an out
    // argument's, else the first other tensor's (0-dim CPU tensors skipped),
    // else a factory's `device`.
    std::vector<const Argument*> order;
    if (const Argument* self = s.find_argument("self"); self && self->type.base == BaseType::Tensor)
      order.push_back(self);
    for (const Argument& a : s.arguments)
      if (a.type.base == BaseType::Tensor && is_out_arg(a)) order.push_back(&a);
    for (const Argument& a : s.arguments)
      if (a.type.base == BaseType::Tensor && std::find(order.begin(), order.end(), &a) == order.end())
        order.push_back(&a);
    const Argument* dev = s.find_argument("device");
    const bool has_device = dev && dev->type.base == BaseType::Device && !dev->type.is_list;
    if (!order.empty() || has_device) {
      w << "  KernelDevice kd_;\n";
      for (const Argument* a : order) w << "  kd_.see(" << a->name << ");\n";
      if (has_device) w << "  " << (dev->type.optional ? "if (device) kd_.see(*device)" : "kd_.see(device)") << ";\n";
      w << "  const DeviceGuard guard_(kd_.get());\n";
    }
  }
  const std::string args = schema_order_args(s);
  w << "  return redispatch::" << op.ident << "(mask_tls(ks_)" << (args.empty() ? "" : ", " + args) << ");\n";
  return w.str();
}

// tc::redispatch::<op>: calls the kernel of the highest key in ks_ (already
// validated and masked by the caller), unboxed when it has that form.
std::string redispatch_body(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  const std::string q = op.qualified;
  const std::string args = schema_order_args(s);
  Writer w;
  w << "  static OperatorEntry& op_ = Dispatcher::singleton().find_or_throw(\"" << q << "\");\n";
  w << "  const KernelFunction& k_ = op_.lookup(ks_);\n";
  std::string ret = cpp_return_type(s);
  const std::string ret_kw = ret == "void" ? "" : "return ";
  w << "  if (k_.unboxed_ks) " << ret_kw << "reinterpret_cast<" << cpp_fn_ptr_type(s, true) << ">(k_.unboxed_ks)(ks_"
    << (args.empty() ? "" : ", " + args) << ");\n";
  w << "  else if (k_.unboxed) " << ret_kw << "reinterpret_cast<" << cpp_fn_ptr_type(s) << ">(k_.unboxed)(" << args
    << ");\n";
  w << "  else {\n";
  w << "  Stack st;\n  st.reserve(" << s.arguments.size() << ");\n";
  for (const Argument& a : s.arguments) w << "  st.emplace_back(" << a.name << ");\n";
  w << "  k_.boxed(op_, ks_, &st, k_.ctx);\n";
  if (ret == "void") {
  } else if (s.returns.size() == 1) {
    const Return& r0 = s.returns[0];
    if (!(r0.annotation && r0.annotation->is_write))
      w << "  TC_CHECK(st.size() == 1, Internal, \"" << q
        << ": boxed kernel returned \", st.size(), \" values, expected 1\");\n";
    w << "  return " << unbox_return(s, 0, "st[0]") << ";\n";
  } else {
    w << "  TC_CHECK(st.size() == " << s.returns.size() << ", Internal, \"" << q
      << ": boxed kernel returned \", st.size(), \" values\");\n";
    w << "  return " << ret << "(";
    for (size_t i = 0; i < s.returns.size(); ++i)
      w << (i ? ", " : "") << unbox_return(s, i, "st[" + std::to_string(i) + "]");
    w << ");\n";
  }
  w << "  }\n";
  return w.str();
}

}  // namespace

std::string gen_cpp_ops_header(const Model& m) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// The C++ op functions: every call goes through the dispatcher.\n"
    << "#pragma once\n#include <optional>\n#include <string_view>\n#include <tuple>\n#include <vector>\n\n"
    << "#include \"core/generator.h\"\n#include \"core/tensor.h\"\n\nnamespace tc {\n\n";
  std::set<std::string> seen;
  for (const OpInfo& op : m.ops) {
    const FunctionSchema& s = op.nf->func;
    std::string decl =
        cpp_return_type(s) + " " + op.cpp_name + "(" + cpp_op_params(s, true, false, op.default_floor) + ");";
    w << "// " << op.nf->func_text << "\n" << decl << "\n";
  }
  w << "\n// Below a key that has done its part (Autograd): call the kernel of the\n"
    << "// highest key in `ks`, which the caller computed, validated and masked.\n"
    << "namespace redispatch {\n";
  for (const OpInfo& op : m.ops) {
    const FunctionSchema& s = op.nf->func;
    w << cpp_return_type(s) << " " << op.ident << "(DispatchKeySet ks_" << (s.arguments.empty() ? "" : ", ")
      << kernel_params(s) << ");\n";
  }
  w << "}  // namespace redispatch\n\n}  // namespace tc\n";
  return w.str();
}

std::string gen_tensor_methods_header(const Model& m) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "// Included inside class tc::Tensor: methods per the schema's `variants`.\n";
  for (const OpInfo& op : m.ops) {
    if (!has_method(op)) continue;
    const FunctionSchema& s = op.nf->func;
    w << "  " << cpp_return_type(s) << " " << op.cpp_name << "(" << cpp_op_params(s, true, true, op.default_floor)
      << ") const;\n";
  }
  return w.str();
}

std::string gen_cpp_ops_source(const Model& m, int shard) {
  Writer w;
  w << "// Generated by tc_codegen from schema/ops.yaml. Do not edit.\n"
    << "#include \"tensorc_gen/ops.h\"\n\n#include \"core/device_hooks.h\"\n#include "
       "\"dispatch/device_check.h\"\n#include \"dispatch/dispatcher.h\"\n\n"
    << "namespace tc {\n\n";
  for (const OpInfo& op : m.ops) {
    if (!in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    w << cpp_return_type(s) << " redispatch::" << op.ident << "(DispatchKeySet ks_" << (s.arguments.empty() ? "" : ", ")
      << kernel_params(s) << ") {\n"
      << redispatch_body(op) << "}\n\n";
    w << cpp_return_type(s) << " " << op.cpp_name << "(" << cpp_op_params(s, false) << ") {\n"
      << op_body(op) << "}\n\n";
  }
  for (const OpInfo& op : m.ops) {
    if (!has_method(op) || !in_shard(op, shard)) continue;
    const FunctionSchema& s = op.nf->func;
    const Argument* self = s.find_argument("self");
    w << cpp_return_type(s) << " Tensor::" << op.cpp_name << "(" << cpp_op_params(s, false, true) << ") const {\n";
    std::string args;
    std::vector<const Argument*> order = cpp_op_params_order(s);
    for (size_t i = 0; i < order.size(); ++i) {
      std::string v = order[i]->name;
      if (order[i] == self) v = is_mutable(*self) ? "const_cast<Tensor&>(*this)" : "*this";
      args += (i ? ", " : "") + v;
    }
    w << "  return tc::" << op.cpp_name << "(" << args << ");\n}\n\n";
  }
  w << "}  // namespace tc\n";
  return w.str();
}

}  // namespace tc::codegen
