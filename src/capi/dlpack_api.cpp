// SPDX-License-Identifier: BSD-3-Clause
// DLPack in the C ABI: a tensor exported as a DLManagedTensor keeps the
// tensor alive until the consumer calls its deleter; a DLManagedTensor
// imported as a tensor is called back (its deleter) when the last reference
// goes away. No copy either way.
#include <dlpack/dlpack.h>

#include <vector>

#include "capi/handles.h"

using tc::capi::Borrowed;

namespace {

// kDLBool arrived in DLPack 0.8 (Debian ships the 0.6 header); newer PyTorch
// and NumPy use this code. Debian's torch 1.13 and NumPy 1.24 refuse bool over
// DLPack altogether, so bool travels only between libraries that know code 6.
constexpr uint8_t kBoolCode = 6;

struct Exported {
  DLManagedTensor managed{};
  tc::Tensor tensor;
  std::vector<int64_t> shape, strides;
  static void deleter(DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); }
};

DLDataType to_dl_dtype(tc::ScalarType t, const char* fn) {
  using tc::ScalarType;
  uint8_t bits = uint8_t(tc::element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool: return {kBoolCode, 8, 1};
    case ScalarType::UInt8: return {kDLUInt, bits, 1};
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64: return {kDLInt, bits, 1};
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64: return {kDLFloat, bits, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    default: TC_FAIL(Type, fn, ": argument 't' has dtype ", t, ", which DLPack export does not support");
  }
}

tc_dtype from_dl_dtype(DLDataType d, const char* fn) {
  auto bad = [&]() -> tc_dtype {
    TC_FAIL(Type, fn, ": argument 'src' has DLPack dtype (code ", int(d.code), ", bits ", int(d.bits), ", lanes ",
            int(d.lanes),
            "), expected lanes 1 and a bool, int8/16/32/64, uint8, float16/32/64 or "
            "bfloat16 type");
  };
  if (d.lanes != 1) return bad();
  switch (d.code) {
    case kDLInt:
      switch (d.bits) {
        case 8: return TC_INT8;
        case 16: return TC_INT16;
        case 32: return TC_INT32;
        case 64: return TC_INT64;
      }
      return bad();
    case kDLUInt: return d.bits == 8 ? TC_UINT8 : bad();
    case kDLFloat:
      switch (d.bits) {
        case 16: return TC_FLOAT16;
        case 32: return TC_FLOAT32;
        case 64: return TC_FLOAT64;
      }
      return bad();
    case kDLBfloat: return d.bits == 16 ? TC_BFLOAT16 : bad();
    case kBoolCode: return d.bits == 8 ? TC_BOOL : bad();
    default: return bad();
  }
}

// tc_blob_deleter for imported memory: hands the DLManagedTensor back.
void call_dlpack_deleter(void*, void* ctx) {
  auto* m = static_cast<DLManagedTensor*>(ctx);
  if (m->deleter) m->deleter(m);
}

}  // namespace

TC_API tc_status tc_tensor_to_dlpack(DLManagedTensor** out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_to_dlpack";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  Borrowed borrowed(t);
  const tc::Tensor& x = borrowed.get();
  TC_CHECK(!x.requires_grad(), Runtime, fn,
           ": argument 't' requires grad; DLPack carries no history: export t.detach() instead");
  DLDataType dt = to_dl_dtype(x.scalar_type(), fn);
  auto e = std::make_unique<Exported>();
  e->tensor = tc::capi::to_tensor(t);
  e->shape.assign(x.sizes().begin(), x.sizes().end());
  e->strides.assign(x.strides().begin(), x.strides().end());
  DLTensor& d = e->managed.dl_tensor;
  d.data = x.numel() ? x.data_ptr() : nullptr;
  tc::Device dev = x.device();
  d.device = {DLDeviceType(int(dev.type)), dev.is_cpu() ? 0 : int32_t(dev.index < 0 ? 0 : dev.index)};
  d.ndim = int(x.dim());
  d.dtype = dt;
  d.shape = e->shape.empty() ? nullptr : e->shape.data();
  d.strides = e->strides.empty() ? nullptr : e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = &Exported::deleter;
  *out = &e.release()->managed;
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_from_dlpack(tc_tensor* out, DLManagedTensor* src) {
  constexpr const char* fn = "tc_tensor_from_dlpack";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(src, fn, "src");
  const DLTensor& d = src->dl_tensor;
  TC_CHECK_ARG(d.ndim >= 0, fn, ": argument 'src' has ndim ", d.ndim, ", expected >= 0");
  TC_CHECK_ARG(d.shape || d.ndim == 0, fn, ": argument 'src' has a NULL shape with ndim ", d.ndim);
  tc_dtype dtype = from_dl_dtype(d.dtype, fn);
  int dev_type = int(d.device.device_type);
  TC_CHECK(dev_type == TC_DEVICE_CPU || dev_type == TC_DEVICE_CUDA, Device, fn,
           ": argument 'src' is on DLPack device type ", dev_type, ", expected CPU (1) or CUDA (2)");
  tc_device device{dev_type, dev_type == TC_DEVICE_CPU ? -1 : d.device.device_id};
  uintptr_t addr = 0;  // data + byte_offset, checked: the offset comes from outside
  TC_CHECK_ARG(!d.data || !__builtin_add_overflow(reinterpret_cast<uintptr_t>(d.data), d.byte_offset, &addr), fn,
               ": argument 'src' has a byte_offset (", d.byte_offset, ") past the end of the address space");
  void* data = d.data ? reinterpret_cast<void*>(addr) : nullptr;
  tc::Tensor x = tc::capi::tensor_over_memory(data, dtype, d.shape, d.strides, size_t(d.ndim), device,
                                              &call_dlpack_deleter, src, fn);
  *out = tc::capi::new_handle(std::move(x));
  TC_CAPI_END(fn)
}
