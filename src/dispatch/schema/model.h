// SPDX-License-Identifier: BSD-3-Clause
// The schema model: small immutable value types for one operator signature,
// `name.overload(Type name=default, *, ...) -> (Type name, ...)`, as in ATen's
// native_functions.yaml. Each type prints back to its exact source text.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tc::schema {

enum class BaseType {
  Tensor,
  Int,         // int
  Float,       // float
  Bool,        // bool
  Str,         // str
  Scalar,      // Scalar
  ScalarType,  // ScalarType
  Device,      // Device
  Generator,   // Generator
};
const char* base_type_name(BaseType b);                              // spelling in schema text
std::optional<BaseType> base_type_from_name(std::string_view name);  // inverse; nullopt if unknown

// The value of an `int` default written as source text: an integer literal,
// or one of the named constants ATen's schemas use, the loss reductions of
// at::Reduction (`int reduction=Mean`): Mean = 1, Sum = 2 (None = 0 is not a
// name here: `None` is the default of optional types). nullopt if neither.
std::optional<int64_t> int_default_value(std::string_view text);

struct Type {
  BaseType base = BaseType::Tensor;
  bool is_list = false;              // T[] or T[N]
  std::optional<int64_t> list_size;  // N in T[N]
  bool optional = false;             // T? (applies to the whole type: int[]? ; Tensor?[] is a list of optional)
  bool elem_optional = false;        // Tensor?[]
  bool is_tensor() const { return base == BaseType::Tensor; }  // Tensor, Tensor?, Tensor[], Tensor?[]
  std::string str() const;
};

// Alias annotation: (a), (a!), (a -> *), (a! -> *)...
struct Annotation {
  std::vector<std::string> alias_sets;        // "a" or "a|b"
  bool is_write = false;                      // '!'
  std::vector<std::string> alias_sets_after;  // after "->", e.g. "*"
  std::string str() const;                    // "a!" (without the parentheses)
};

// A type as spelled with its annotation, which sits right after the base name:
// "Tensor(a!)", "Tensor(a)[]", "Tensor(a!)?".
std::string format_type(const Type& type, const std::optional<Annotation>& annotation);

struct Argument {
  std::string name;
  Type type;
  std::optional<Annotation> annotation;      // Tensor(a!) self
  std::optional<std::string> default_value;  // source text: "1", "None", "[]", "True", "\"mean\"", "-100", "Mean"
  bool kwarg_only = false;
  bool is_write() const { return annotation && annotation->is_write; }  // Tensor(a!)
  std::string str() const;                                              // "Tensor(a!) out", "Scalar alpha=1"
};

struct Return {
  std::optional<std::string> name;
  Type type;
  std::optional<Annotation> annotation;
  std::string str() const;
};

struct OperatorName {
  std::string ns;                 // "" for built-ins, "myops" in "myops::myadd"
  std::string name;               // "add_", "add"
  std::string overload;           // "Tensor", "out", "" when absent
  std::string base_name() const;  // name without a trailing '_' (in-place marker)
  bool is_inplace() const;        // name ends in '_' (and is not a dunder like __and__)
  std::string qualified() const;  // "myops::myadd.overload" / "add.Tensor" / "add"
};

enum class SchemaKind { Functional, Inplace, Out };

struct FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<Return> returns;

  SchemaKind kind() const;                             // Out if any argument is a write-annotated kwarg-only Tensor
  bool is_factory() const;                             // no Tensor/Tensor?/Tensor[] argument
  std::vector<const Argument*> out_arguments() const;  // write-annotated kwarg-only
  const Argument* find_argument(std::string_view name) const;
  std::string str() const;  // exact source text
};

// A malformed schema. `rule` is a short stable identifier of the violated
// rule (e.g. "unknown-type"); message explains, column is 1-based.
struct SchemaError {
  std::string rule;
  std::string message;
  int column = 0;
};

}  // namespace tc::schema
