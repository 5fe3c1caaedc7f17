// SPDX-License-Identifier: BSD-3-Clause
// Element types. The numeric values are the C ABI's tc_dtype codes and never change.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "core/half.h"

namespace tc {

enum class ScalarType : int8_t {
  Bool = 0,
  UInt8 = 1,
  Int8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  Float16 = 6,
  BFloat16 = 7,
  Float32 = 8,
  Float64 = 9,
  ComplexFloat = 10,   // reserved: no kernels yet
  ComplexDouble = 11,  // reserved: no kernels yet
  Undefined = -1,
};
constexpr int kNumScalarTypes = 10;  // the usable ones, codes 0..9

size_t element_size(ScalarType t);
const char* dtype_name(ScalarType t);  // "float32", as PyTorch prints without "torch."
bool is_valid_dtype(int code);         // 0..9
inline bool is_floating(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  return (t >= ScalarType::UInt8 && t <= ScalarType::Int64) || (include_bool && t == ScalarType::Bool);
}
inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// PyTorch's promotion lattice for two types (no wrapped-number rules here;
// see core/promotion.h for result_type over tensors and scalars).
ScalarType promote_types(ScalarType a, ScalarType b);
// Whether a value of type `from` may be written into a tensor of type `to`
// by an in-place op (PyTorch's canCast: no float->int, no int->bool).
bool can_cast(ScalarType from, ScalarType to);

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

template <class T>
struct CppTypeToScalarType;
#define TC_MAP_TYPE(cpp, st)                            \
  template <>                                           \
  struct CppTypeToScalarType<cpp> {                     \
    static constexpr ScalarType value = ScalarType::st; \
  };
TC_MAP_TYPE(bool, Bool)
TC_MAP_TYPE(uint8_t, UInt8)
TC_MAP_TYPE(int8_t, Int8)
TC_MAP_TYPE(int16_t, Int16)
TC_MAP_TYPE(int32_t, Int32)
TC_MAP_TYPE(int64_t, Int64)
TC_MAP_TYPE(Half, Float16)
TC_MAP_TYPE(BFloat16, BFloat16)
TC_MAP_TYPE(float, Float32)
TC_MAP_TYPE(double, Float64)
#undef TC_MAP_TYPE

}  // namespace tc

// Runs BODY with `scalar_t` bound to the C++ type of TYPE. OPNAME is used in
// the error for an unsupported dtype. Variants restrict the accepted set.
#define TC_PRIVATE_CASE(ST, CPP, ...) \
  case ::tc::ScalarType::ST: {        \
    using scalar_t = CPP;             \
    __VA_ARGS__();                    \
    break;                            \
  }
#define TC_PRIVATE_DEFAULT(TYPE, OPNAME) \
  default:                               \
    TC_FAIL(Type, OPNAME, ": unsupported dtype ", TYPE);

#define TC_DISPATCH_FLOATING_TYPES(TYPE, OPNAME, ...)        \
  [&] {                                                      \
    switch (TYPE) {                                          \
      TC_PRIVATE_CASE(Float32, float, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Float64, double, __VA_ARGS__)          \
      TC_PRIVATE_CASE(Float16, ::tc::Half, __VA_ARGS__)      \
      TC_PRIVATE_CASE(BFloat16, ::tc::BFloat16, __VA_ARGS__) \
      TC_PRIVATE_DEFAULT(TYPE, OPNAME)                       \
    }                                                        \
  }()

#define TC_DISPATCH_INTEGRAL_TYPES(TYPE, OPNAME, ...) \
  [&] {                                               \
    switch (TYPE) {                                   \
      TC_PRIVATE_CASE(UInt8, uint8_t, __VA_ARGS__)    \
      TC_PRIVATE_CASE(Int8, int8_t, __VA_ARGS__)      \
      TC_PRIVATE_CASE(Int16, int16_t, __VA_ARGS__)    \
      TC_PRIVATE_CASE(Int32, int32_t, __VA_ARGS__)    \
      TC_PRIVATE_CASE(Int64, int64_t, __VA_ARGS__)    \
      TC_PRIVATE_DEFAULT(TYPE, OPNAME)                \
    }                                                 \
  }()

// All numeric types, no bool.
#define TC_DISPATCH_ALL_TYPES(TYPE, OPNAME, ...)             \
  [&] {                                                      \
    switch (TYPE) {                                          \
      TC_PRIVATE_CASE(Float32, float, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Float64, double, __VA_ARGS__)          \
      TC_PRIVATE_CASE(Float16, ::tc::Half, __VA_ARGS__)      \
      TC_PRIVATE_CASE(BFloat16, ::tc::BFloat16, __VA_ARGS__) \
      TC_PRIVATE_CASE(UInt8, uint8_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int8, int8_t, __VA_ARGS__)             \
      TC_PRIVATE_CASE(Int16, int16_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int32, int32_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int64, int64_t, __VA_ARGS__)           \
      TC_PRIVATE_DEFAULT(TYPE, OPNAME)                       \
    }                                                        \
  }()

// All numeric types and bool.
#define TC_DISPATCH_ALL_TYPES_AND_BOOL(TYPE, OPNAME, ...)    \
  [&] {                                                      \
    switch (TYPE) {                                          \
      TC_PRIVATE_CASE(Float32, float, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Float64, double, __VA_ARGS__)          \
      TC_PRIVATE_CASE(Float16, ::tc::Half, __VA_ARGS__)      \
      TC_PRIVATE_CASE(BFloat16, ::tc::BFloat16, __VA_ARGS__) \
      TC_PRIVATE_CASE(UInt8, uint8_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int8, int8_t, __VA_ARGS__)             \
      TC_PRIVATE_CASE(Int16, int16_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int32, int32_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Int64, int64_t, __VA_ARGS__)           \
      TC_PRIVATE_CASE(Bool, bool, __VA_ARGS__)               \
      TC_PRIVATE_DEFAULT(TYPE, OPNAME)                       \
    }                                                        \
  }()
