// SPDX-License-Identifier: BSD-3-Clause
// The one schema parser, used by the code generator and at run time
// (operators defined from a string through the C ABI).
#pragma once
#include <stdexcept>
#include <string_view>
#include <variant>

#include "dispatch/schema/model.h"

namespace tc::schema {

// Parses and validates one signature. Rules (each error's `rule`):
//   syntax           malformed text (unbalanced parens, missing "->", bad identifier)
//   unknown-type     a type that is not in BaseType
//   bad-default      a default that does not fit its type (e.g. int x="a", Tensor t=1)
//   default-order    a positional argument without a default after one with a default
//   duplicate-arg    two arguments with the same name
//   out-annotation   an out function (has write-annotated kwarg-only Tensors) whose
//                    `out` arguments lack (a!), or a kwarg `out` without (a!)
//   inplace-self     an in-place op (name ends in '_') whose self is not Tensor(a!)
//                    (a foreach op may take Tensor(a!)[] self and return nothing)
//   bad-overload     an overload name that is not an identifier
//   bad-list-size    T[N] with N < 1
// Details: lists exist of Tensor, int, float and bool only, and only Tensor?[]
// has optional elements (else unknown-type); annotations go on Tensor only
// (else syntax). An out function's out arguments come last with distinct alias
// sets and it returns nothing or exactly them, in order; an overload "out" or
// "*_out" must be an out function; an in-place op returns nothing or its self
// (all out-annotation / inplace-self). ScalarType, Device and Generator take no
// default but None. An `int` (not a list) default may also be one of ATen's
// named constants, Mean or Sum (see int_default_value); it keeps its source
// text. Whitespace is free; str() prints the canonical spelling.
std::variant<FunctionSchema, SchemaError> parse_schema(std::string_view text);

// Throwing convenience: throws std::invalid_argument("rule: message (column N)").
FunctionSchema parse_schema_or_throw(std::string_view text);

}  // namespace tc::schema
