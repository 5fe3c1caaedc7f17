// SPDX-License-Identifier: BSD-3-Clause
// Shared helpers for the generator modules: names, type mappings, defaults,
// and the grouping of in-place/out ops with their functional siblings.
#pragma once
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/native_functions.h"

namespace tc::codegen {

using schema::Argument;
using schema::BaseType;
using schema::FunctionSchema;
using schema::OperatorName;
using schema::Return;
using schema::SchemaKind;
using schema::Type;

// One op plus what the generator derives for it.
struct OpInfo {
  const NativeFunction* nf = nullptr;
  std::string qualified;               // "add.Tensor"
  std::string c_name;                  // "tc_add_Tensor"
  std::string ident;                   // "add_Tensor": used for generated helper names
  std::string cpp_name;                // "add", "add_", "add_out"
  const OpInfo* functional = nullptr;  // for generated in-place/out wrappers
  // The overload that takes a Tensor where this one takes a Scalar (add.Scalar
  // -> add.Tensor): a Scalar argument given as a device tensor is passed there,
  // so the value never visits the host. scalar_to_tensor[i] marks the
  // parameters (in cpp_op_params_order) that change type.
  const OpInfo* tensor_overload = nullptr;
  std::vector<bool> scalar_to_tensor;
  bool generated_wrapper = false;  // in-place/out kernel written by the generator
  // C++ default arguments start no earlier than this parameter index, so that
  // no call can match two overloads of the same name.
  size_t default_floor = 0;
  // Which generated source file holds the op's code: a hash of its base name
  // (add, add_, add.out share one), so editing one op rebuilds one shard.
  int shard = 0;
};

// Generated sources are split into this many shards (CMake lists the files).
constexpr int kDefaultShards = 8;
// Whether op belongs in `shard` (-1: every op, one unsharded file).
inline bool in_shard(const OpInfo& op, int shard) { return shard < 0 || op.shard == shard; }

struct Model {
  std::vector<OpInfo> ops;
};

// Builds OpInfos, pairs wrappers with functional siblings, assigns each op
// to one of `shards` shards. Appends errors.
Model build_model(const std::vector<NativeFunction>& nfs, std::vector<LoadError>* errors, int shards = 1);

bool is_mutable(const Argument& a);  // Tensor(a!) ...
bool is_out_arg(const Argument& a);  // mutable and kwarg-only
bool is_tensor_like(const Type& t);  // Tensor, Tensor?, Tensor[]

// C++ parameter type for an argument in op functions and kernels.
std::string cpp_arg_type(const Argument& a);
// C++ return type of the op function / kernel.
std::string cpp_return_type(const FunctionSchema& s);
// C++ default-argument expression for a's default (empty if none/unsupported).
std::string cpp_default(const Argument& a);
// Items of an int-list default: "[0, 1]" -> {0, 1}; int[2] "1" -> {1, 1}.
std::vector<std::string> int_list_default_items(const Argument& a);
// The kernel function-pointer type: "Tensor (*)(const Tensor&, ...)", or with
// the call's key set first ("Tensor (*)(DispatchKeySet, const Tensor&, ...)").
std::string cpp_fn_ptr_type(const FunctionSchema& s, bool with_key_set = false);
// Kernel parameters in schema order ("const Tensor& self, ...").
std::string kernel_params(const FunctionSchema& s);
// Argument names in schema order ("self, other, alpha").
std::string schema_order_args(const FunctionSchema& s);
// Parameter list of the C++ op function ("const Tensor& self, ...").
// Out variants put the out arguments first, like ATen's at::add_out.
std::vector<const Argument*> cpp_op_params_order(const FunctionSchema& s);
std::string cpp_op_params(const FunctionSchema& s, bool with_defaults, bool skip_self = false,
                          size_t default_floor = 0);

// The expression that reads argument i from a Stack (`st`) as the kernel's type.
std::string unbox_expr(const Argument& a, size_t index, const std::string& op);
// Statements that push a kernel result `r` onto stack `st`.
std::string box_returns(const FunctionSchema& s, const std::string& r);

// The C ABI's spelling of a by-value schema type ("int64_t", "tc_scalar", ...).
const char* c_value_type(BaseType b);
// The name of the C output parameter for return i ("out", the return's name,
// "out<i>", prefixed "out_" when an argument has that name).
std::string c_output_name(const FunctionSchema& s, size_t i);
// The argument a written return (Tensor(a!)) aliases, or nullptr.
const Argument* aliased_argument(const FunctionSchema& s, const Return& r);

std::string c_ident(const std::string& s);        // sanitise to an identifier
std::string c_entry_name(const OperatorName& n);  // "tc_add_inplace_Tensor" for add_.Tensor
std::string escape_c_string(const std::string& s);

class Writer {
 public:
  template <class T>
  Writer& operator<<(const T& v) {
    os_ << v;
    return *this;
  }
  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};

// Each output module.
std::string gen_c_header(const Model& m);
std::string gen_c_entries(const Model& m, int shard = -1);
std::string gen_cpp_ops_header(const Model& m);
std::string gen_tensor_methods_header(const Model& m);
std::string gen_cpp_ops_source(const Model& m, int shard = -1);
std::string gen_native_header(const Model& m);
// autograd: (op, kernel name in tc::autograd::generated) registered for the Autograd key.
// register_builtin_ops() calling every shard's register_ops_shard_<k>().
std::string gen_registration(int shards);
std::string gen_registration_shard(const Model& m, int shard, const std::string& yaml_file,
                                   const std::vector<std::pair<const OpInfo*, std::string>>& autograd);
std::string gen_listing(const Model& m);
// Binding surfaces, each over the C ABI alone.
std::string gen_cpp_binding(const Model& m);  // include/tensorc_ops.hpp (bindings/cpp)
std::string gen_rust_sys(const Model& m);     // rust/sys_ops.rs: extern "C" declarations (bindings/rust)
std::string gen_rust_ops(const Model& m);     // rust/ops.rs: the safe op functions and methods

}  // namespace tc::codegen
