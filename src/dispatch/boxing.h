// SPDX-License-Identifier: BSD-3-Clause
// Boxed-call helpers shared by tc_op_call and C-registered kernels: schema
// defaults as IValues, and argument-count checking.
#pragma once
#include "dispatch/ivalue.h"
#include "dispatch/schema/model.h"

namespace tc {

// The IValue of an argument's default (None for optional types without one).
// Throws InvalidArgument naming op and argument when there is no default.
IValue default_ivalue(const schema::Argument& a, const std::string& op);
// Fills trailing defaults so the stack has one value per schema argument.
void fill_defaults(const schema::FunctionSchema& s, Stack* stack);

}  // namespace tc
