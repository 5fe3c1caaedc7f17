// SPDX-License-Identifier: BSD-3-Clause
#include "dispatch/ivalue.h"

namespace tc {

const char* IValue::tag_name() const {
  static const char* names[] = {"None",     "Tensor",    "int",        "float",   "bool",
                                "Scalar",   "str",       "int[]",      "float[]", "bool[]",
                                "Tensor[]", "Tensor?[]", "ScalarType", "Device",  "Generator"};
  return names[v_.index()];
}

void IValue::type_error(const char* what, const char* expected) const {
  TC_FAIL(Type, what, " expected ", expected, ", got ", tag_name());
}

const Tensor& IValue::to_tensor(const char* what) const {
  if (auto* t = std::get_if<Tensor>(&v_)) return *t;
  type_error(what, "a Tensor");
}
Tensor& IValue::to_tensor_mut(const char* what) {
  if (auto* t = std::get_if<Tensor>(&v_)) return *t;
  type_error(what, "a Tensor");
}
std::optional<Tensor> IValue::to_optional_tensor(const char* what) const {
  if (is_none()) return std::nullopt;
  return to_tensor(what);
}
int64_t IValue::to_int(const char* what) const {
  if (auto* i = std::get_if<int64_t>(&v_)) return *i;
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  type_error(what, "an int");
}
double IValue::to_double(const char* what) const {
  if (auto* d = std::get_if<double>(&v_)) return *d;
  if (auto* i = std::get_if<int64_t>(&v_)) return double(*i);
  type_error(what, "a float");
}
bool IValue::to_bool(const char* what) const {
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  type_error(what, "a bool");
}
Scalar IValue::to_scalar(const char* what) const {
  if (auto* s = std::get_if<Scalar>(&v_)) return *s;
  if (auto* i = std::get_if<int64_t>(&v_)) return Scalar(*i);
  if (auto* d = std::get_if<double>(&v_)) return Scalar(*d);
  if (auto* b = std::get_if<bool>(&v_)) return Scalar(*b);
  if (auto* t = std::get_if<Tensor>(&v_)) return t->item();
  type_error(what, "a Scalar");
}
std::string_view IValue::to_string_view(const char* what) const {
  if (auto* s = std::get_if<std::string>(&v_)) return *s;
  type_error(what, "a str");
}
IntArrayRef IValue::to_int_list(const char* what) const {
  if (auto* l = std::get_if<std::vector<int64_t>>(&v_)) return *l;
  if (auto* i = std::get_if<int64_t>(&v_)) return IntArrayRef(*i);  // int[N] accepts a bare int
  type_error(what, "an int[]");
}
const std::vector<double>& IValue::to_double_list(const char* what) const {
  if (auto* l = std::get_if<std::vector<double>>(&v_)) return *l;
  type_error(what, "a float[]");
}
const std::vector<bool>& IValue::to_bool_list(const char* what) const {
  if (auto* l = std::get_if<std::vector<bool>>(&v_)) return *l;
  type_error(what, "a bool[]");
}
const std::vector<Tensor>& IValue::to_tensor_list(const char* what) const {
  if (auto* l = std::get_if<std::vector<Tensor>>(&v_)) return *l;
  type_error(what, "a Tensor[]");
}
std::vector<std::optional<Tensor>> IValue::to_optional_tensor_list(const char* what) const {
  if (auto* l = std::get_if<std::vector<std::optional<Tensor>>>(&v_)) return *l;
  if (auto* l = std::get_if<std::vector<Tensor>>(&v_)) return std::vector<std::optional<Tensor>>(l->begin(), l->end());
  type_error(what, "a Tensor?[]");
}
ScalarType IValue::to_scalar_type(const char* what) const {
  if (auto* s = std::get_if<ScalarType>(&v_)) return *s;
  if (auto* i = std::get_if<int64_t>(&v_)) {
    TC_CHECK_TYPE(is_valid_dtype(int(*i)), what, " expected a dtype code, got ", *i);
    return ScalarType(*i);
  }
  type_error(what, "a ScalarType");
}
Device IValue::to_device(const char* what) const {
  if (auto* d = std::get_if<Device>(&v_)) return *d;
  type_error(what, "a Device");
}
Generator IValue::to_generator(const char* what) const {
  if (auto* g = std::get_if<Generator>(&v_)) return *g;
  type_error(what, "a Generator");
}

}  // namespace tc
