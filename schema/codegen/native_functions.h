// SPDX-License-Identifier: BSD-3-Clause
// ops.yaml loaded into the schema model, with the file-level rules checked.
// Used by the generator and by the schema tests.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/schema/model.h"

namespace tc::codegen {

enum class Variant { Function, Method };

// An op family whose variants (functional, in-place, out=, and for binary
// families the Tensor and Scalar overloads) come from one entry
// (`structured: <family>`) and share one hand-written C++ function per kind,
// tc::structured::<family>{,_,_out}(args..., op name, loop): the
// device-agnostic meta step (dtypes, shapes, out= checks) that then runs the
// op's per-device loop, `void <loop>(TensorIter& iter<loop_params>)`. The
// Tensor and Scalar overloads of one kind are C++ overloads of one function.
// One row per family; "{}" in a schema stands for the entry's name.
struct Family {
  const char* name;
  const char* loop_params;     // the loop's parameters after the iterator ("" or ", const Scalar& alpha")
  const char* functional;      // the schema the entry must have
  const char* const* derived;  // the schemas derived from it, nullptr-terminated
};

// The derived schemas, one list per family shape.
inline constexpr const char* kUnaryDerived[] = {"{}_(Tensor(a!) self) -> Tensor(a!)",
                                                "{}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", nullptr};
inline constexpr const char* kBinaryDerived[] = {"{}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
                                                 "{}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                                                 "{}.Scalar(Tensor self, Scalar other) -> Tensor",
                                                 "{}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", nullptr};
inline constexpr const char* kBinaryAlphaDerived[] = {
    "{}_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "{}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "{}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "{}_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", nullptr};
// Binary families whose out= variants are named .Tensor_out and .Scalar_out.
inline constexpr const char* kBinaryTensorOutDerived[] = {
    "{}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "{}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "{}.Scalar(Tensor self, Scalar other) -> Tensor",
    "{}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "{}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    nullptr};

constexpr const char* kUnarySchema = "{}(Tensor self) -> Tensor";
constexpr const char* kBinarySchema = "{}.Tensor(Tensor self, Tensor other) -> Tensor";
constexpr const char* kBinaryAlphaSchema = "{}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
constexpr const char* kAlphaParams = ", const Scalar& alpha";

inline constexpr Family kFamilies[] = {
    // out = f(self), same dtype as self (abs, floor...)
    {"unary_same", "", kUnarySchema, kUnaryDerived},
    // out = f(self), floating: integer and bool inputs compute in float32 (exp, sin...)
    {"unary_float", "", kUnarySchema, kUnaryDerived},
    // out = f(self, other) in the promoted dtype (mul)
    {"binary", "", kBinarySchema, kBinaryDerived},
    // out = f(self, other), floating: integer and bool operands compute in float32 (div)
    {"binary_float", "", kBinarySchema, kBinaryDerived},
    // out = self + alpha * other (add); alpha is checked against the result dtype
    {"binary_alpha", kAlphaParams, kBinaryAlphaSchema, kBinaryAlphaDerived},
    // out = self - alpha * other through the add loop given -alpha; bool operands are refused (sub)
    {"binary_sub", kAlphaParams, kBinaryAlphaSchema, kBinaryAlphaDerived},
    // out(bool) = f(self, other) compared in the promoted dtype; in place, self
    // keeps its dtype and gets 0 or 1 (eq, lt...)
    {"comparison", "", kBinarySchema, kBinaryTensorOutDerived},
    // out = f(self, other) in the promoted dtype; an integer zero divisor is
    // refused before anything is written (fmod, remainder)
    {"binary_modulo", "", kBinarySchema, kBinaryTensorOutDerived},
    // out = f(self, other) for integral and bool operands, refused before
    // planning otherwise (bitwise_and, bitwise_or, bitwise_xor)
    {"bitwise", "", kBinarySchema, kBinaryTensorOutDerived},
};

// The row of kFamilies called `name`; nullptr if none.
const Family* find_family(const std::string& name);

// What a structured entry (and each variant derived from it) carries.
struct StructuredInfo {
  std::string family;
  // Backend key -> the op's loop there, `void <loop>(TensorIter&...)` in
  // tc::native. Default (no `dispatch:`): {CPU: <name>_loop_cpu}; a list
  // (`dispatch: CPU, CUDA`) gives each backend <name>_loop_<backend>.
  std::map<std::string, std::string> loops;
};

// A dispatch key as written in ops.yaml `dispatch:` (runtime or alias key).
// Keys: CPU, CUDA, PrivateUse1, CompositeExplicitAutograd, CompositeImplicitAutograd.
// Autocast's cast policy for an op on one device type (ATen's autocast lists):
// run in the region's lower-precision dtype, in float32, in float32 unless a
// dtype is given, or in the widest floating dtype of the inputs.
enum class AutocastPolicy { LowerPrecision, Fp32, Fp32SetOptDtype, Promote };
const char* autocast_policy_name(AutocastPolicy p);  // as ops.yaml spells it

struct NativeFunction {
  schema::FunctionSchema func;
  std::string func_text;                        // the `func:` string as written
  std::vector<Variant> variants;                // default: {Function}
  std::map<std::string, std::string> dispatch;  // key name -> C++ kernel name in tc::native
  bool dispatch_given = false;                  // false: CompositeImplicitAutograd by default
  bool device_guard = true;
  bool device_check = true;
  std::vector<std::string> tags;
  // `autocast: {cpu: ..., cuda: ...}`: the policy per device type ("cpu",
  // "cuda"); only the functional op is autocast (in-place and out variants
  // fall through, as in ATen).
  std::map<std::string, AutocastPolicy> autocast;
  std::optional<StructuredInfo> structured;  // set on every variant of a structured entry
  std::string file;
  int line = 0;  // 1-based line of the entry's `func:`

  bool has_composite_implicit() const;  // explicitly or by default
  bool has_composite_explicit() const;
};

// The kernel `dispatch: CPU` means for an op: base name, overload in lower
// case, "inplace" for name_, then the backend: add.Scalar -> add_scalar_cpu,
// add_.Scalar -> add_scalar_inplace_cpu, abs.out -> abs_out_cpu.
std::string default_kernel_name(const schema::OperatorName& name, const std::string& backend);

// Errors name file, line and rule: "ops.yaml:12: [unknown-key] ...".
struct LoadError {
  std::string file;
  int line = 0;
  std::string rule;
  std::string message;
  std::string schema_rule;  // for rule "schema": the parse_schema rule (e.g. "unknown-type")
  std::string str() const;
};

struct LoadOptions {
  // Directories whose sources are scanned for kernel definitions; a dispatch
  // name not found there is the "undefined-kernel" error. Empty: skip the check.
  std::vector<std::string> kernel_source_dirs;
  // Kernel names the generator itself will produce (out=/in-place wrappers):
  // never reported as undefined.
  std::vector<std::string> generated_kernels;
};

// File-level rules (each error's `rule`):
//   yaml               not valid YAML / entry not a mapping
//   unknown-key        a key other than func, variants, dispatch, device_guard,
//                      device_check, tags, python_module, manual_cpp_binding...
//                      (only: func variants dispatch device_guard device_check tags)
//   missing-func       an entry without `func`
//   schema             the func string failed parse_schema (message carries its rule)
//   unknown-variant    variants other than function / method
//   method-without-self  `method` variant but no argument named self
//   unknown-dispatch-key a dispatch key not in the list above
//   both-composite     CompositeExplicitAutograd and CompositeImplicitAutograd on one op
//   composite-with-backend  a composite key together with CPU/CUDA... — allowed in
//                      ATen for explicit; we allow Explicit+backend, reject Implicit+backend
//   duplicate-overload the same name.overload twice
//   undefined-kernel   a dispatch kernel name defined in none of kernel_source_dirs
//   bad-bool           device_guard/device_check not true/false
//   duplicate-dispatch-key  one key given twice (e.g. `CPU: a` and `CPU, CUDA: b`)
//   bad-kernel-name    a dispatch kernel name that is not a C++ identifier
//   bad-tag            a tag that is not an identifier
//   unknown-family     `structured:` names no row of kFamilies
//   family-signature   a structured entry's func is not its family's schema
//   structured-dispatch  a structured entry's `dispatch:` names a composite key
//                      (it maps backends to loops)
// A structured entry expands into the entries of its family's variants (out=
// ones get the function variant, the others the entry's variants).
// ("yaml" also covers a key whose value has the wrong YAML kind, a repeated key
// in one entry, and an empty `dispatch:`.)
// Every error's line is the 1-based line of the offending entry (its `func:`);
// only "yaml" parse errors point at the parser's own position.
// Entries without errors are appended to *out, even if others fail. Entries
// already in *out (from an earlier file) take part in duplicate-overload, so
// several fragment files can be loaded one after another into one vector.
// Returns every error found, in file order; empty on success.
std::vector<LoadError> load_native_functions(const std::string& yaml_text, const std::string& file_name,
                                             const LoadOptions& opts, std::vector<NativeFunction>* out);

// Reads `path` and loads it (errors name `path`); an unreadable file is rule "io".
std::vector<LoadError> load_native_functions_file(const std::string& path, const LoadOptions& opts,
                                                  std::vector<NativeFunction>* out);

}  // namespace tc::codegen
