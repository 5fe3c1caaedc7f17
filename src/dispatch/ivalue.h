// SPDX-License-Identifier: BSD-3-Clause
// Boxed values: one type that holds any schema argument or return, so ops can
// be called generically (by name, from C through tc_op_call, or by fallbacks).
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/generator.h"
#include "core/tensor.h"

namespace tc {

class IValue {
 public:
  using Variant = std::variant<std::monostate, Tensor, int64_t, double, bool, Scalar, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<bool>, std::vector<Tensor>,
                               std::vector<std::optional<Tensor>>, ScalarType, Device, Generator>;
  enum class Tag {
    None,
    Tensor,
    Int,
    Double,
    Bool,
    Scalar,
    String,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
    ScalarType,
    Device,
    Generator
  };

  IValue() = default;
  IValue(std::nullopt_t) {}
  IValue(Tensor t) {
    if (t.defined()) v_ = std::move(t);
  }
  IValue(int64_t i) : v_(i) {}
  IValue(int i) : v_(int64_t(i)) {}
  IValue(double d) : v_(d) {}
  IValue(bool b) : v_(b) {}
  IValue(const Scalar& s) : v_(s) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(std::string_view s) : v_(std::string(s)) {}
  IValue(IntArrayRef a) : v_(a.vec()) {}
  IValue(std::vector<int64_t> a) : v_(std::move(a)) {}
  IValue(std::vector<double> a) : v_(std::move(a)) {}
  IValue(std::vector<bool> a) : v_(std::move(a)) {}
  IValue(std::vector<Tensor> a) : v_(std::move(a)) {}
  IValue(std::vector<std::optional<Tensor>> a) : v_(std::move(a)) {}
  IValue(ScalarType t) : v_(t) {}
  IValue(Device d) : v_(d) {}
  IValue(Generator g) {
    if (g.defined()) v_ = std::move(g);
  }
  template <class T>
  IValue(const std::optional<T>& o) {
    if (o) *this = IValue(*o);
  }

  Tag tag() const { return Tag(v_.index()); }
  const char* tag_name() const;
  bool is_none() const { return v_.index() == 0; }
  bool is_tensor() const { return tag() == Tag::Tensor; }

  // Typed access; a wrong tag throws Error(Type) naming `what`.
  const Tensor& to_tensor(const char* what = "value") const;
  Tensor& to_tensor_mut(const char* what = "value");
  std::optional<Tensor> to_optional_tensor(const char* what = "value") const;
  int64_t to_int(const char* what = "value") const;
  double to_double(const char* what = "value") const;  // accepts Int too
  bool to_bool(const char* what = "value") const;
  Scalar to_scalar(const char* what = "value") const;  // accepts Int, Double, Bool
  std::string_view to_string_view(const char* what = "value") const;
  IntArrayRef to_int_list(const char* what = "value") const;
  const std::vector<double>& to_double_list(const char* what = "value") const;
  const std::vector<bool>& to_bool_list(const char* what = "value") const;
  const std::vector<Tensor>& to_tensor_list(const char* what = "value") const;
  std::vector<std::optional<Tensor>> to_optional_tensor_list(const char* what = "value") const;
  ScalarType to_scalar_type(const char* what = "value") const;
  Device to_device(const char* what = "value") const;
  Generator to_generator(const char* what = "value") const;

  const Variant& variant() const { return v_; }

 private:
  [[noreturn]] void type_error(const char* what, const char* expected) const;
  Variant v_;
};

using Stack = std::vector<IValue>;

}  // namespace tc
