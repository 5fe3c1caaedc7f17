// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the op value tests (test_index, test_sort_scan_pad): read a
// tensor back, and catch the error a call is expected to raise.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace tc::testing {

// Every element in logical row-major order, as double.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(read_element(t, i).to_double());
  return out;
}

inline std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

// The message of the error f() raises; a failure unless it raises one of `code`.
template <class F>
std::string error_of(F&& f, ErrorCode code) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(int(e.code()), int(code)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace tc::testing
