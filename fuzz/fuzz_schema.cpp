// SPDX-License-Identifier: BSD-3-Clause
// The schema parser, then the same text defined at run time and called boxed.
// Any crash, sanitizer report or exception escaping the C ABI is a finding;
// errors returned as statuses are the expected outcome for most inputs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "dispatch/schema/parser.h"
#include "fuzz_input.h"
#include "tensorc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tc_fuzz::Input in(data, size);
  const std::string text = in.cstring();
  auto parsed = tc::schema::parse_schema(text);
  if (std::holds_alternative<tc::schema::SchemaError>(parsed)) {
    // The C ABI must refuse what the parser refuses.
    if (tc_library_def(text.c_str()) == TC_OK) {
      std::fprintf(stderr, "tc_library_def accepted a schema the parser rejects: %s\n", text.c_str());
      std::abort();
    }
    return 0;
  }
  const tc::schema::FunctionSchema& fs = std::get<tc::schema::FunctionSchema>(parsed);
  // Printing and re-parsing gives the same schema.
  const std::string printed = fs.str();
  auto again = tc::schema::parse_schema(printed);
  if (!std::holds_alternative<tc::schema::FunctionSchema>(again) ||
      std::get<tc::schema::FunctionSchema>(again).str() != printed) {
    std::fprintf(stderr, "schema does not round-trip: %s -> %s\n", text.c_str(), printed.c_str());
    std::abort();
  }
  // Define it (fails if the name exists, e.g. a built-in op) and call it
  // boxed with a few arguments: no kernel exists, so every call must come
  // back as an error status, never run anything.
  tc_library_def(text.c_str());
  const std::string name = fs.name.qualified();
  float xs[2] = {1, 2};
  int64_t shape[1] = {2};
  tc_tensor t = nullptr;
  if (tc_tensor_from_data(&t, xs, TC_FLOAT32, shape, 1) != TC_OK) std::abort();
  tc_value args[4];
  for (auto& a : args) a.tag = TC_VALUE_TENSOR, a.u.tensor = t;
  tc_value outs[8];
  size_t n_outs = 0;
  const size_t nargs = in.byte() % 5;
  if (tc_op_call(outs, 8, &n_outs, name.c_str(), args, nargs) == TC_OK) tc_values_release(outs, n_outs);
  char buf[512];
  size_t needed = 0;
  tc_op_schema(buf, sizeof buf, &needed, name.c_str());
  tc_tensor_release(t);
  return 0;
}
