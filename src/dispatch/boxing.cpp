// SPDX-License-Identifier: BSD-3-Clause
#include "dispatch/boxing.h"

#include <cstdlib>

namespace tc {
namespace {

std::vector<std::string> items_of(const std::string& v) {
  std::vector<std::string> items;
  std::string cur;
  for (char c : v.substr(1, v.size() - 2)) {
    if (c == ',') {
      items.push_back(cur);
      cur.clear();
    } else if (c != ' ')
      cur += c;
  }
  if (!cur.empty()) items.push_back(cur);
  return items;
}

ScalarType dtype_from_name(const std::string& v, const std::string& op) {
  static const std::pair<const char*, ScalarType> names[] = {
      {"long", ScalarType::Int64},     {"int", ScalarType::Int32}, {"float", ScalarType::Float32},
      {"double", ScalarType::Float64}, {"bool", ScalarType::Bool}, {"half", ScalarType::Float16}};
  for (auto& n : names)
    if (v == n.first) return n.second;
  TC_FAIL(InvalidArgument, op, ": unsupported ScalarType default '", v, "'");
}

}  // namespace

IValue default_ivalue(const schema::Argument& a, const std::string& op) {
  using schema::BaseType;
  if (!a.default_value) {
    if (a.type.optional) return IValue();
    TC_FAIL(InvalidArgument, op, ": missing argument '", a.name, "' (it has no default)");
  }
  const std::string& v = *a.default_value;
  if (v == "None") return IValue();
  const auto& t = a.type;
  if (t.is_list) {
    std::vector<std::string> items =
        v[0] == '[' ? items_of(v) : std::vector<std::string>(size_t(t.list_size.value_or(1)), v);
    if (t.base == BaseType::Bool) {
      std::vector<bool> bs;
      for (auto& i : items) bs.push_back(i == "True");
      return IValue(std::move(bs));
    }
    std::vector<int64_t> is;
    for (auto& i : items) is.push_back(std::strtoll(i.c_str(), nullptr, 10));
    return IValue(std::move(is));
  }
  switch (t.base) {
    case BaseType::Bool: return IValue(v == "True");
    case BaseType::Int: {
      const std::optional<int64_t> i = schema::int_default_value(v);  // a literal or a name such as Mean
      TC_CHECK_ARG(i.has_value(), op, ": unsupported default '", v, "' for argument '", a.name, "'");
      return IValue(*i);
    }
    case BaseType::Float: return IValue(std::strtod(v.c_str(), nullptr));
    case BaseType::Str: return IValue(v.substr(1, v.size() - 2));
    case BaseType::Scalar:
      if (v == "True" || v == "False") return IValue(Scalar(v == "True"));
      if (v.find_first_of(".e") != std::string::npos) return IValue(Scalar(std::strtod(v.c_str(), nullptr)));
      return IValue(Scalar(int64_t(std::strtoll(v.c_str(), nullptr, 10))));
    case BaseType::ScalarType: return IValue(dtype_from_name(v, op));
    default: TC_FAIL(InvalidArgument, op, ": unsupported default '", v, "' for argument '", a.name, "'");
  }
}

void fill_defaults(const schema::FunctionSchema& s, Stack* stack) {
  std::string op = s.name.qualified();
  TC_CHECK_ARG(stack->size() <= s.arguments.size(), op, ": expected at most ", s.arguments.size(), " arguments, got ",
               stack->size());
  for (size_t i = stack->size(); i < s.arguments.size(); ++i) stack->push_back(default_ivalue(s.arguments[i], op));
}

}  // namespace tc
