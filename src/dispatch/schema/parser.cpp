// SPDX-License-Identifier: BSD-3-Clause
// The schema parser: a small recursive-descent reader over the signature text,
// then the semantic rules of parser.h. Internally a failure unwinds with a
// private exception; parse_schema catches it, so nothing escapes.
#include "dispatch/schema/parser.h"

#include <cctype>
#include <set>
#include <stdexcept>

namespace tc::schema {
namespace {

struct Failure {
  SchemaError error;
};

[[noreturn]] void fail(const char* rule, std::string message, size_t offset) {
  throw Failure{SchemaError{rule, std::move(message), static_cast<int>(offset) + 1}};
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// ---------------------------------------------------------------------------
// Default values. Each check returns true when `text` fits; list defaults are
// re-spelled canonically ("[0,1]" -> "[0, 1]").

bool is_int_literal(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// -?(digits[.digits*] | .digits)([eE][+-]?digits)?, or inf / -inf.
bool is_number_literal(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s == "inf") return true;
  size_t i = 0, mantissa_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++mantissa_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == s.size();
}

bool is_string_literal(std::string_view s) {
  if (s.size() < 2 || (s[0] != '"' && s[0] != '\'') || s.back() != s[0]) return false;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;  // escaped character
    else if (s[i] == s[0])
      return false;
  }
  return true;
}

bool scalar_default_fits(BaseType base, std::string_view s) {
  switch (base) {
    case BaseType::Int: return is_int_literal(s);
    case BaseType::Float:
    case BaseType::Scalar: return is_number_literal(s);
    case BaseType::Bool: return s == "True" || s == "False";
    case BaseType::Str: return is_string_literal(s);
    default: return false;  // Tensor, ScalarType, Device, Generator: only None
  }
}

// Validates `raw` against `type`; returns the canonical spelling or nullopt.
std::optional<std::string> canonical_default(const Type& type, std::string_view raw) {
  if (raw == "None") return type.optional ? std::optional<std::string>("None") : std::nullopt;
  if (!type.is_list) {
    // A plain int also takes ATen's named constants (`int reduction=Mean`).
    const bool named = type.base == BaseType::Int && !is_int_literal(raw) && int_default_value(raw).has_value();
    return scalar_default_fits(type.base, raw) || named ? std::optional<std::string>(raw) : std::nullopt;
  }
  if (raw.front() != '[') {
    // A bare int broadcasts over a fixed-size int list: `int[2] padding=0`.
    const bool ok = type.base == BaseType::Int && type.list_size && is_int_literal(raw);
    return ok ? std::optional<std::string>(raw) : std::nullopt;
  }
  if (raw.back() != ']') return std::nullopt;
  std::string_view body = trim(raw.substr(1, raw.size() - 2));
  if (body.empty()) return std::string("[]");
  if (type.is_tensor()) return std::nullopt;  // a Tensor list default can only be []
  std::string out = "[";
  int64_t count = 0;
  while (true) {
    const size_t comma = body.find(',');
    const std::string_view elem = trim(body.substr(0, comma));
    if (!scalar_default_fits(type.base, elem)) return std::nullopt;
    if (count++) out += ", ";
    out += elem;
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  if (type.list_size && count != *type.list_size) return std::nullopt;
  return out + "]";
}

// ---------------------------------------------------------------------------
// The reader. Offsets are kept per argument so that rule violations found
// after parsing still point at the right column.

struct ParsedArgument {
  Argument arg;
  size_t offset = 0;
  size_t default_offset = 0;
};

class SignatureReader {
 public:
  explicit SignatureReader(std::string_view text) : text_(text) {}

  FunctionSchema read(std::vector<ParsedArgument>* parsed_args, std::vector<size_t>* return_offsets) {
    FunctionSchema schema;
    schema.name = read_name();
    *parsed_args = read_arguments();
    for (const auto& p : *parsed_args) schema.arguments.push_back(p.arg);
    skip_ws();
    if (text_.substr(pos_, 2) != "->") fail("syntax", "expected '->' after the argument list", pos_);
    pos_ += 2;
    schema.returns = read_returns(return_offsets);
    skip_ws();
    if (pos_ != text_.size()) fail("syntax", "unexpected text after the returns", pos_);
    return schema;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const char* context) {
    if (!eat(c)) fail("syntax", std::string("expected '") + c + "' " + context, pos_);
  }
  std::string_view identifier() {
    const size_t start = pos_;
    if (!is_ident_start(peek())) return {};
    while (is_ident_char(peek())) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // [ns::]name[.overload]
  OperatorName read_name() {
    OperatorName name;
    skip_ws();
    std::string_view first = identifier();
    if (first.empty()) fail("syntax", "expected an operator name", pos_);
    if (text_.substr(pos_, 2) == "::") {
      pos_ += 2;
      name.ns = std::string(first);
      first = identifier();
      if (first.empty()) fail("syntax", "expected an operator name after '" + name.ns + "::'", pos_);
    }
    name.name = std::string(first);
    if (peek() == '.') {
      const size_t start = ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '(' && !std::isspace(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      const std::string_view overload = text_.substr(start, pos_ - start);
      if (!is_identifier(overload))
        fail("bad-overload", "overload name '" + std::string(overload) + "' is not an identifier", start);
      name.overload = std::string(overload);
    }
    return name;
  }

  // "( a|b ! -> c )" without the parentheses' content validation beyond syntax.
  std::vector<std::string> read_alias_sets() {
    std::vector<std::string> sets;
    do {
      skip_ws();
      if (peek() == '*') {
        ++pos_;
        sets.emplace_back("*");
        continue;
      }
      const std::string_view set = identifier();
      if (set.empty()) fail("syntax", "expected an alias set name or '*' in the annotation", pos_);
      sets.emplace_back(set);
    } while (eat('|'));
    return sets;
  }

  Annotation read_annotation() {
    Annotation a;
    a.alias_sets = read_alias_sets();
    a.is_write = eat('!');
    skip_ws();
    if (text_.substr(pos_, 2) == "->") {
      pos_ += 2;
      a.alias_sets_after = read_alias_sets();
    }
    expect(')', "to close the alias annotation");
    return a;
  }

  // Base[(annotation)][?][[N]][?]
  Type read_type(std::optional<Annotation>* annotation) {
    skip_ws();
    const size_t start = pos_;
    const std::string_view base_name = identifier();
    if (base_name.empty()) fail("syntax", "expected a type", pos_);
    const std::optional<BaseType> base = base_type_from_name(base_name);
    if (!base) fail("unknown-type", "unknown type '" + std::string(base_name) + "'", start);
    Type type;
    type.base = *base;
    if (eat('(')) {
      if (!type.is_tensor()) fail("syntax", "alias annotations are only allowed on Tensor", pos_ - 1);
      *annotation = read_annotation();
    }
    bool optional_before_list = false;
    while (true) {
      skip_ws();
      if (peek() == '?') {
        if (type.optional || (optional_before_list && !type.is_list)) fail("syntax", "repeated '?'", pos_);
        (type.is_list ? type.optional : optional_before_list) = true;
        ++pos_;
      } else if (peek() == '[') {
        if (type.is_list) fail("syntax", "nested lists are not supported", pos_);
        ++pos_;
        type.is_list = true;
        type.list_size = read_list_size();
      } else {
        break;
      }
    }
    if (type.is_list)
      type.elem_optional = optional_before_list;
    else
      type.optional = optional_before_list;
    if (type.elem_optional && !type.is_tensor())
      fail("unknown-type", "only Tensor?[] may have optional elements, not '" + type.str() + "'", start);
    const bool listable = type.base == BaseType::Tensor || type.base == BaseType::Int || type.base == BaseType::Float ||
                          type.base == BaseType::Bool;
    if (type.is_list && !listable)
      fail("unknown-type", "lists of " + std::string(base_name) + " are not supported", start);
    return type;
  }

  // After '[': "]" or "N]".
  std::optional<int64_t> read_list_size() {
    skip_ws();
    if (eat(']')) return std::nullopt;
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    const std::string_view digits = text_.substr(start, pos_ - start);
    if (!is_int_literal(digits)) fail("syntax", "expected a list size or ']'", start);
    if (digits.size() > 18) fail("bad-list-size", "list size " + std::string(digits) + " is too large", start);
    const int64_t n = std::stoll(std::string(digits));
    if (n < 1) fail("bad-list-size", "list size must be at least 1, got " + std::string(digits), start);
    expect(']', "after the list size");
    return n;
  }

  // Raw default text up to the next top-level ',' or ')'; brackets and quotes nest.
  std::string_view read_default_text() {
    skip_ws();
    const size_t start = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"' || c == '\'') {
        for (++pos_; pos_ < text_.size() && text_[pos_] != c; ++pos_)
          if (text_[pos_] == '\\') ++pos_;
        if (pos_ >= text_.size()) fail("syntax", "unterminated string in default value", start);
      } else if (c == '[') {
        ++depth;
      } else if (c == ']') {
        if (--depth < 0) fail("syntax", "unbalanced ']' in default value", pos_);
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
      ++pos_;
    }
    if (depth != 0) fail("syntax", "unbalanced '[' in default value", start);
    const std::string_view raw = trim(text_.substr(start, pos_ - start));
    if (raw.empty()) fail("syntax", "expected a default value after '='", start);
    return raw;
  }

  ParsedArgument read_argument(bool kwarg_only) {
    skip_ws();
    ParsedArgument p;
    p.offset = pos_;
    p.arg.kwarg_only = kwarg_only;
    p.arg.type = read_type(&p.arg.annotation);
    skip_ws();
    const std::string_view name = identifier();
    if (name.empty()) fail("syntax", "expected an argument name after type '" + p.arg.type.str() + "'", pos_);
    p.arg.name = std::string(name);
    if (eat('=')) {
      skip_ws();
      p.default_offset = pos_;
      const std::string_view raw = read_default_text();
      p.arg.default_value = canonical_default(p.arg.type, raw);
      if (!p.arg.default_value)
        fail("bad-default",
             "default '" + std::string(raw) + "' does not fit type '" + p.arg.type.str() + "' of '" + p.arg.name + "'",
             p.default_offset);
    }
    return p;
  }

  std::vector<ParsedArgument> read_arguments() {
    expect('(', "to open the argument list");
    std::vector<ParsedArgument> args;
    if (eat(')')) return args;
    bool kwarg_only = false;
    while (true) {
      skip_ws();
      if (peek() == '*') {
        if (kwarg_only) fail("syntax", "a second '*' marker", pos_);
        ++pos_;
        kwarg_only = true;
        expect(',', "after '*' (it must be followed by keyword-only arguments)");
        continue;
      }
      args.push_back(read_argument(kwarg_only));
      if (eat(',')) continue;
      if (eat(')')) return args;
      fail("syntax", "expected ',' or ')' after argument '" + args.back().arg.name + "'", pos_);
    }
  }

  Return read_return(bool allow_name, size_t* offset) {
    skip_ws();
    *offset = pos_;
    Return r;
    r.type = read_type(&r.annotation);
    skip_ws();
    const size_t name_at = pos_;
    const std::string_view name = identifier();
    if (!name.empty()) {
      if (!allow_name) fail("syntax", "a named return must be written in parentheses", name_at);
      r.name = std::string(name);
    }
    return r;
  }

  // Type | "()" | "(" Type [name] {, Type [name]} ")"
  std::vector<Return> read_returns(std::vector<size_t>* offsets) {
    std::vector<Return> returns;
    size_t offset = 0;
    if (!eat('(')) {
      returns.push_back(read_return(/*allow_name=*/false, &offset));
      offsets->push_back(offset);
      return returns;
    }
    if (eat(')')) return returns;
    while (true) {
      returns.push_back(read_return(/*allow_name=*/true, &offset));
      offsets->push_back(offset);
      if (eat(',')) continue;
      if (eat(')')) return returns;
      fail("syntax", "expected ',' or ')' in the returns", pos_);
    }
  }
};

// ---------------------------------------------------------------------------
// Rules checked on the whole signature.

void check_names_and_defaults(const std::vector<ParsedArgument>& args, const FunctionSchema& schema,
                              const std::vector<size_t>& return_offsets) {
  std::set<std::string> seen;
  const ParsedArgument* first_positional_default = nullptr;
  for (const auto& p : args) {
    if (!seen.insert(p.arg.name).second) fail("duplicate-arg", "argument '" + p.arg.name + "' appears twice", p.offset);
    if (p.arg.kwarg_only) continue;  // keyword-only arguments may mix
    if (p.arg.default_value) {
      if (!first_positional_default) first_positional_default = &p;
    } else if (first_positional_default) {
      fail("default-order",
           "positional argument '" + p.arg.name + "' has no default but follows '" +
               first_positional_default->arg.name + "', which has one",
           p.offset);
    }
  }
  std::set<std::string> seen_returns;
  for (size_t i = 0; i < schema.returns.size(); ++i) {
    const auto& name = schema.returns[i].name;
    if (name && !seen_returns.insert(*name).second)
      fail("duplicate-arg", "return '" + *name + "' appears twice", return_offsets[i]);
  }
}

bool same_alias(const std::optional<Annotation>& a, const std::optional<Annotation>& b) {
  return a && b && a->alias_sets == b->alias_sets;
}

void check_out_arguments(const std::vector<ParsedArgument>& args, const FunctionSchema& schema,
                         const std::vector<size_t>& return_offsets) {
  for (const auto& p : args)
    if (p.arg.kwarg_only && p.arg.name == "out" && !(p.arg.type.is_tensor() && p.arg.is_write()))
      fail("out-annotation", "keyword-only argument 'out' must be write-annotated, e.g. Tensor(a!) out", p.offset);

  const auto& overload = schema.name.overload;
  const bool out_overload =
      overload == "out" || (overload.size() > 4 && overload.compare(overload.size() - 4, 4, "_out") == 0);
  if (schema.kind() != SchemaKind::Out) {
    if (out_overload)
      fail("out-annotation", "overload '" + overload + "' has no write-annotated keyword-only Tensor argument", 0);
    return;
  }
  // Out arguments come last, each with its own alias set.
  bool in_outs = false;
  std::set<std::vector<std::string>> out_sets;
  std::vector<const ParsedArgument*> outs;
  for (const auto& p : args) {
    const bool is_out = p.arg.kwarg_only && p.arg.type.is_tensor() && p.arg.is_write();
    if (in_outs && !is_out)
      fail("out-annotation", "argument '" + p.arg.name + "' follows the out arguments but is not Tensor(x!)", p.offset);
    if (!is_out) continue;
    in_outs = true;
    if (!out_sets.insert(p.arg.annotation->alias_sets).second)
      fail("out-annotation", "out argument '" + p.arg.name + "' reuses alias set '" + p.arg.annotation->str() + "'",
           p.offset);
    outs.push_back(&p);
  }
  // An out function returns nothing or its out arguments, in order.
  if (schema.returns.empty()) return;
  if (schema.returns.size() != outs.size())
    fail("out-annotation",
         "an out function must return nothing or each of its " + std::to_string(outs.size()) + " out argument(s)",
         return_offsets[0]);
  for (size_t i = 0; i < outs.size(); ++i) {
    const Return& r = schema.returns[i];
    if (!(r.annotation && r.annotation->is_write && same_alias(r.annotation, outs[i]->arg.annotation)))
      fail("out-annotation",
           "return " + std::to_string(i + 1) + " must be " + format_type(outs[i]->arg.type, outs[i]->arg.annotation) +
               " (the out argument '" + outs[i]->arg.name + "')",
           return_offsets[i]);
  }
}

void check_inplace_self(const std::vector<ParsedArgument>& args, const FunctionSchema& schema,
                        const std::vector<size_t>& return_offsets) {
  if (!schema.name.is_inplace() || schema.kind() == SchemaKind::Out) return;
  const Argument* self = args.empty() ? nullptr : &args[0].arg;
  // A list self (ATen's foreach ops: `Tensor(a!)[] self`) writes each of its tensors and returns nothing.
  const bool list_ok = self && self->type.is_list && schema.returns.empty();
  const bool ok = self && self->name == "self" && self->type.is_tensor() && (!self->type.is_list || list_ok) &&
                  !self->type.optional && self->is_write();
  if (!ok)
    fail("inplace-self",
         "in-place op '" + schema.name.name +
             "' must take 'Tensor(a!) self' (or 'Tensor(a!)[] self', returning nothing) as its first argument",
         args.empty() ? 0 : args[0].offset);
  if (schema.returns.empty()) return;
  const Return& r = schema.returns[0];
  if (schema.returns.size() != 1 || !r.annotation || !r.annotation->is_write ||
      !same_alias(r.annotation, self->annotation))
    fail("inplace-self",
         "in-place op '" + schema.name.name + "' must return nothing or " + format_type(self->type, self->annotation) +
             " (self)",
         return_offsets[0]);
}

}  // namespace

std::variant<FunctionSchema, SchemaError> parse_schema(std::string_view text) {
  try {
    std::vector<ParsedArgument> args;
    std::vector<size_t> return_offsets;
    FunctionSchema schema = SignatureReader(text).read(&args, &return_offsets);
    check_names_and_defaults(args, schema, return_offsets);
    check_out_arguments(args, schema, return_offsets);
    check_inplace_self(args, schema, return_offsets);
    return schema;
  } catch (const Failure& f) {
    return f.error;
  } catch (const std::exception& e) {  // allocation failure and the like: still no exception escapes
    return SchemaError{"syntax", e.what(), 0};
  }
}

FunctionSchema parse_schema_or_throw(std::string_view text) {
  auto result = parse_schema(text);
  if (auto* error = std::get_if<SchemaError>(&result))
    throw std::invalid_argument(error->rule + ": " + error->message + " (column " + std::to_string(error->column) +
                                ")");
  return std::get<FunctionSchema>(std::move(result));
}

}  // namespace tc::schema
