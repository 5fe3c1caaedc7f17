// SPDX-License-Identifier: BSD-3-Clause
// Autocast kernels, one per functional op with an `autocast:` policy in
// ops.yaml: find the device type the op runs on, and when that device type's
// region is on, cast the tensor arguments as the policy says and call the op
// again below the Autocast key; otherwise call it unchanged.
#include "codegen/gen_autocast.h"

namespace tc::codegen {
namespace {

bool tensor_like(const Argument& a) { return a.type.base == BaseType::Tensor; }

// The call of the op with the C++ op function's argument order, each tensor
// argument through `wrap` (the identity when empty).
std::string call_with(const OpInfo& op, const std::string& wrap_open, const std::string& wrap_close,
                      const std::string& dtype_expr = "") {
  std::string call = "tc::" + op.cpp_name + "(";
  const std::vector<const Argument*> order = cpp_op_params_order(op.nf->func);
  for (size_t i = 0; i < order.size(); ++i) {
    const Argument& a = *order[i];
    std::string e = a.name;
    if (tensor_like(a) && !wrap_open.empty()) e = wrap_open + a.name + wrap_close;
    if (a.name == "dtype" && !dtype_expr.empty()) e = dtype_expr;
    call += (i ? ", " : "") + e;
  }
  return call + ")";
}

std::string policy_body(const OpInfo& op, AutocastPolicy p) {
  const FunctionSchema& s = op.nf->func;
  switch (p) {
    case AutocastPolicy::LowerPrecision:
      return "        return " + call_with(op, "autocast::cast(", ", st_.dtype, d_)") + ";\n";
    case AutocastPolicy::Fp32:
      return "        return " + call_with(op, "autocast::cast(", ", ScalarType::Float32, d_)") + ";\n";
    case AutocastPolicy::Fp32SetOptDtype: {
      // No dtype given and an input autocast would cast: the op computes and
      // returns float32 (sum, softmax, cumsum...).
      std::string any;
      for (const Argument& a : s.arguments)
        if (tensor_like(a) && !a.type.is_list && !a.type.optional)
          any += std::string(any.empty() ? "" : " || ") + "autocast::eligible(" + a.name + ", d_)";
      if (any.empty()) any = "false";
      return "        if (!dtype && (" + any + "))\n          return " +
             call_with(op, "", "", "std::optional<ScalarType>(ScalarType::Float32)") + ";\n        break;\n";
    }
    case AutocastPolicy::Promote: {
      std::string b = "        autocast::Widest w_(d_);\n";
      for (const Argument& a : s.arguments)
        if (tensor_like(a)) b += "        w_.see(" + a.name + ");\n";
      return b + "        if (w_.dtype) return " + call_with(op, "autocast::cast(", ", *w_.dtype, d_)") +
             ";\n        break;\n";
    }
  }
  return "        break;\n";
}

}  // namespace

bool has_autocast(const OpInfo& op) { return op.nf->func.kind() == SchemaKind::Functional && !op.nf->autocast.empty(); }

std::string autocast_kernel_name(const OpInfo& op) { return "autocast_" + op.ident; }

std::string gen_autocast_kernel(const OpInfo& op) {
  const FunctionSchema& s = op.nf->func;
  Writer w;
  w << "// " << op.nf->func_text << "\n";
  w << cpp_return_type(s) << " " << autocast_kernel_name(op) << "(" << kernel_params(s) << ") {\n";
  w << "  const ExcludeDispatchKeyGuard no_autocast_(DispatchKey::Autocast);\n";
  w << "  KernelDevice where_;  // the device guard's rule\n";
  for (const Argument& a : s.arguments)
    if (tensor_like(a)) w << "  where_.see(" << a.name << ");\n";
  w << "  const DeviceType d_ = where_.get().type;\n";
  w << "  const autocast::State& st_ = autocast::state(d_);\n";
  w << "  if (st_.enabled) {\n    switch (d_) {\n";
  for (const auto& [device, policy] : op.nf->autocast) {
    w << "      case DeviceType::" << (device == "cpu" ? "CPU" : "CUDA") << ": {  // " << autocast_policy_name(policy)
      << "\n"
      << policy_body(op, policy) << "      }\n";
  }
  w << "      default: break;\n    }\n  }\n";
  w << "  return " << call_with(op, "", "") << ";\n}\n\n";
  return w.str();
}

}  // namespace tc::codegen
