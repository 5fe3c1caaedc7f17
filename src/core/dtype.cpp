// SPDX-License-Identifier: BSD-3-Clause
#include "core/dtype.h"

#include "core/error.h"

namespace tc {

size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8:
    case ScalarType::Int8: return 1;
    case ScalarType::Int16:
    case ScalarType::Float16:
    case ScalarType::BFloat16: return 2;
    case ScalarType::Int32:
    case ScalarType::Float32: return 4;
    case ScalarType::Int64:
    case ScalarType::Float64:
    case ScalarType::ComplexFloat: return 8;
    case ScalarType::ComplexDouble: return 16;
    case ScalarType::Undefined: break;
  }
  TC_FAIL(Type, "element_size: undefined dtype");
}

const char* dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "uint8";
    case ScalarType::Int8: return "int8";
    case ScalarType::Int16: return "int16";
    case ScalarType::Int32: return "int32";
    case ScalarType::Int64: return "int64";
    case ScalarType::Float16: return "float16";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Float32: return "float32";
    case ScalarType::Float64: return "float64";
    case ScalarType::ComplexFloat: return "complex64";
    case ScalarType::ComplexDouble: return "complex128";
    case ScalarType::Undefined: break;
  }
  return "undefined";
}

bool is_valid_dtype(int code) { return code >= 0 && code < kNumScalarTypes; }

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  using S = ScalarType;
  constexpr S b1 = S::Bool, u1 = S::UInt8, i1 = S::Int8, i2 = S::Int16, i4 = S::Int32, i8 = S::Int64, f2 = S::Float16,
              bf = S::BFloat16, f4 = S::Float32, f8 = S::Float64;
  // Rows and columns in code order 0..9, PyTorch's table.
  static constexpr S table[10][10] = {
      /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  int ia = int(a), ib = int(b);
  TC_CHECK_TYPE(ia >= 0 && ia < 10 && ib >= 0 && ib < 10, "promote_types: unsupported dtypes ", a, " and ", b);
  return table[ia][ib];
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

}  // namespace tc
