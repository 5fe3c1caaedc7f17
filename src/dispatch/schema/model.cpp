// SPDX-License-Identifier: BSD-3-Clause
// Printing of the schema model. Every str() writes the canonical spelling, so a
// schema parsed from canonical text prints back to exactly that text.
#include "dispatch/schema/model.h"

#include <cstdlib>

namespace tc::schema {
namespace {

struct BaseTypeSpelling {
  BaseType base;
  const char* name;
};
constexpr BaseTypeSpelling kBaseTypes[] = {
    {BaseType::Tensor, "Tensor"},
    {BaseType::Int, "int"},
    {BaseType::Float, "float"},
    {BaseType::Bool, "bool"},
    {BaseType::Str, "str"},
    {BaseType::Scalar, "Scalar"},
    {BaseType::ScalarType, "ScalarType"},
    {BaseType::Device, "Device"},
    {BaseType::Generator, "Generator"},
};

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

const char* base_type_name(BaseType b) {
  for (const auto& s : kBaseTypes)
    if (s.base == b) return s.name;
  return "?";
}

std::optional<int64_t> int_default_value(std::string_view text) {
  if (text == "Mean") return 1;  // at::Reduction::Mean
  if (text == "Sum") return 2;   // at::Reduction::Sum
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  return std::strtoll(std::string(text).c_str(), nullptr, 10);
}

std::optional<BaseType> base_type_from_name(std::string_view name) {
  for (const auto& s : kBaseTypes)
    if (name == s.name) return s.base;
  return std::nullopt;
}

std::string format_type(const Type& type, const std::optional<Annotation>& annotation) {
  std::string out = base_type_name(type.base);
  if (annotation) out += "(" + annotation->str() + ")";
  if (type.elem_optional) out += "?";
  if (type.is_list) out += type.list_size ? "[" + std::to_string(*type.list_size) + "]" : "[]";
  if (type.optional) out += "?";
  return out;
}

std::string Type::str() const { return format_type(*this, std::nullopt); }

std::string Annotation::str() const {
  std::string out = join(alias_sets, "|");
  if (is_write) out += "!";
  if (!alias_sets_after.empty()) out += " -> " + join(alias_sets_after, "|");
  return out;
}

std::string Argument::str() const {
  std::string out = format_type(type, annotation) + " " + name;
  if (default_value) out += "=" + *default_value;
  return out;
}

std::string Return::str() const {
  std::string out = format_type(type, annotation);
  if (name) out += " " + *name;
  return out;
}

bool OperatorName::is_inplace() const {
  if (name.empty() || name.back() != '_') return false;
  const bool dunder = name.size() >= 4 && name.compare(0, 2, "__") == 0 && name.compare(name.size() - 2, 2, "__") == 0;
  return !dunder;
}

std::string OperatorName::base_name() const { return is_inplace() ? name.substr(0, name.size() - 1) : name; }

std::string OperatorName::qualified() const {
  std::string out = ns.empty() ? name : ns + "::" + name;
  if (!overload.empty()) out += "." + overload;
  return out;
}

std::vector<const Argument*> FunctionSchema::out_arguments() const {
  std::vector<const Argument*> outs;
  for (const auto& a : arguments)
    if (a.kwarg_only && a.type.is_tensor() && a.is_write()) outs.push_back(&a);
  return outs;
}

SchemaKind FunctionSchema::kind() const {
  if (!out_arguments().empty()) return SchemaKind::Out;
  if (name.is_inplace()) return SchemaKind::Inplace;
  return SchemaKind::Functional;
}

bool FunctionSchema::is_factory() const {
  for (const auto& a : arguments)
    if (a.type.is_tensor()) return false;
  return true;
}

const Argument* FunctionSchema::find_argument(std::string_view arg_name) const {
  for (const auto& a : arguments)
    if (a.name == arg_name) return &a;
  return nullptr;
}

std::string FunctionSchema::str() const {
  std::string out = name.qualified() + "(";
  bool kwarg_marker_written = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) out += ", ";
    if (arguments[i].kwarg_only && !kwarg_marker_written) {
      out += "*, ";
      kwarg_marker_written = true;
    }
    out += arguments[i].str();
  }
  out += ") -> ";
  // A single unnamed return goes without parentheses; anything else is a tuple.
  if (returns.size() == 1 && !returns[0].name) return out + returns[0].str();
  std::vector<std::string> parts;
  for (const auto& r : returns) parts.push_back(r.str());
  return out + "(" + join(parts, ", ") + ")";
}

}  // namespace tc::schema
