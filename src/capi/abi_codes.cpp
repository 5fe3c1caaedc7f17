// SPDX-License-Identifier: BSD-3-Clause
// The C ABI's fixed codes are the internal enums' values: the converters in
// capi/ cast between them. These checks make a change to either side a
// compile error instead of a silent renumbering of the ABI.
#include "core/device.h"
#include "core/dispatch_key.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"
#include "tensorc.h"

namespace {

using tc::DeviceType;
using tc::DispatchKey;
using tc::ErrorCode;
using tc::ScalarType;

static_assert(int(ErrorCode::Ok) == TC_OK);
static_assert(int(ErrorCode::InvalidArgument) == TC_ERROR_INVALID_ARGUMENT);
static_assert(int(ErrorCode::Type) == TC_ERROR_TYPE);
static_assert(int(ErrorCode::Index) == TC_ERROR_INDEX);
static_assert(int(ErrorCode::OutOfMemory) == TC_ERROR_OUT_OF_MEMORY);
static_assert(int(ErrorCode::NotImplemented) == TC_ERROR_NOT_IMPLEMENTED);
static_assert(int(ErrorCode::Runtime) == TC_ERROR_RUNTIME);
static_assert(int(ErrorCode::Device) == TC_ERROR_DEVICE);
static_assert(int(ErrorCode::Internal) == TC_ERROR_INTERNAL);

static_assert(int(ScalarType::Bool) == TC_BOOL);
static_assert(int(ScalarType::UInt8) == TC_UINT8);
static_assert(int(ScalarType::Int8) == TC_INT8);
static_assert(int(ScalarType::Int16) == TC_INT16);
static_assert(int(ScalarType::Int32) == TC_INT32);
static_assert(int(ScalarType::Int64) == TC_INT64);
static_assert(int(ScalarType::Float16) == TC_FLOAT16);
static_assert(int(ScalarType::BFloat16) == TC_BFLOAT16);
static_assert(int(ScalarType::Float32) == TC_FLOAT32);
static_assert(int(ScalarType::Float64) == TC_FLOAT64);
static_assert(int(ScalarType::ComplexFloat) == TC_COMPLEX64);
static_assert(int(ScalarType::ComplexDouble) == TC_COMPLEX128);

static_assert(int(DeviceType::CPU) == TC_DEVICE_CPU);
static_assert(int(DeviceType::CUDA) == TC_DEVICE_CUDA);
static_assert(int(DeviceType::PrivateUse1) == TC_DEVICE_PRIVATEUSE1);

static_assert(int(DispatchKey::CPU) == TC_KEY_CPU);
static_assert(int(DispatchKey::CUDA) == TC_KEY_CUDA);
static_assert(int(DispatchKey::PrivateUse1) == TC_KEY_PRIVATEUSE1);
static_assert(int(DispatchKey::Autograd) == TC_KEY_AUTOGRAD);
static_assert(int(DispatchKey::Tracer) == TC_KEY_TRACER);
static_assert(int(DispatchKey::Autocast) == TC_KEY_AUTOCAST);
static_assert(int(DispatchKey::Batched) == TC_KEY_BATCHED);
static_assert(int(DispatchKey::CompositeExplicitAutograd) == TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD);
static_assert(int(DispatchKey::CompositeImplicitAutograd) == TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD);
static_assert(tc::kNumKeys == TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD + 1, "a dispatch key without a C code");

static_assert(int(tc::Scalar::Tag::Bool) == TC_SCALAR_BOOL);
static_assert(int(tc::Scalar::Tag::Int) == TC_SCALAR_INT);
static_assert(int(tc::Scalar::Tag::Float) == TC_SCALAR_FLOAT);
// Only the C ABI's Scalar can be held by a tensor (src/capi/convert.cpp).
static_assert(TC_SCALAR_TENSOR == 3);
static_assert(sizeof(tc_scalar) == 16 || sizeof(void*) != 8, "a tensor handle must not grow tc_scalar");

}  // namespace
