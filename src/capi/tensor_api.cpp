// SPDX-License-Identifier: BSD-3-Clause
// Hand-written tensor entry points of the C ABI: lifecycle, creation from
// user memory, and read-only accessors. Ops live in the generated part.
#include <cstring>
#include <memory>

#include "capi/handles.h"
#include "core/device_hooks.h"
#include "core/shape.h"
#include "tensorc_gen/ops.h"

using tc::capi::Borrowed;
using tc::capi::new_handle;

namespace {

// sizes[0..ndim) as an IntArrayRef, after checking the pointer.
tc::IntArrayRef sizes_arg(const int64_t* sizes, size_t ndim, const char* fn) {
  TC_CHECK_ARG(sizes || ndim == 0, fn, ": argument 'sizes' is NULL but 'ndim' is ", ndim);
  return tc::IntArrayRef(sizes, ndim);
}

// numel * element size in bytes; throws for negative sizes and int64 overflow.
int64_t checked_nbytes(tc::IntArrayRef sizes, tc::ScalarType dtype, const char* fn) {
  int64_t n = tc::checked_numel(sizes, fn);
  int64_t es = int64_t(tc::element_size(dtype));
  TC_CHECK(n <= INT64_MAX / es, OutOfMemory, fn, ": argument 'sizes' ", sizes, " of ", dtype,
           " needs more bytes than fit in int64");
  return n * es;
}

// Kernels read bool elements as C++ bools, for which any byte other than 0 or
// 1 is undefined (a sum of {0, 2, 24, 1} gave 27): refuse such memory at the door.
void check_bool_bytes(const void* data, tc::IntArrayRef sizes, tc::IntArrayRef strides, int64_t numel, const char* fn) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  const bool dense = tc::compute_is_contiguous(sizes, strides);
  for (int64_t i = 0; i < numel; ++i) {
    const uint8_t b = bytes[dense ? i : tc::strided_offset(sizes, strides, i)];
    TC_CHECK_ARG(b <= 1, fn, ": argument 'data' holds the byte ", int(b), " at bool element ", i,
                 "; bool elements must be 0 or 1");
  }
}

// Stands between the storage and the user's deleter. The C contract is that a
// failed tc_tensor_from_blob leaves the memory to the caller, so the deleter
// runs only if `armed`, which is set once the tensor exists.
struct BlobOwner {
  tc_blob_deleter deleter;
  void* ctx;
  bool armed;
  static void release(void* self, void* data) {
    auto* o = static_cast<BlobOwner*>(self);
    if (o->armed) o->deleter(data, o->ctx);
    delete o;
  }
};

// Copies a CPU tensor of any strides into dst, row-major. T is a type of the
// element's size, used only to move bytes.
template <class T>
void gather_rows(char* dst, const tc::Tensor& t) {
  const int64_t nd = t.dim();
  const tc::IntArrayRef sizes = t.sizes(), strides = t.strides();
  const int64_t inner = sizes[size_t(nd - 1)], inner_stride = strides[size_t(nd - 1)];
  const int64_t outer = t.numel() / inner;
  tc::DimVector index(size_t(nd - 1), 0);
  const T* base = static_cast<const T*>(t.data_ptr());
  T* out = reinterpret_cast<T*>(dst);
  int64_t offset = 0;  // of the current row, in elements
  for (int64_t o = 0; o < outer; ++o) {
    const T* row = base + offset;
    for (int64_t i = 0; i < inner; ++i) std::memcpy(out++, row + i * inner_stride, sizeof(T));
    for (int64_t d = nd - 2; d >= 0; --d) {  // advance the outer index like an odometer
      offset += strides[size_t(d)];
      if (++index[size_t(d)] < sizes[size_t(d)]) break;
      offset -= sizes[size_t(d)] * strides[size_t(d)];
      index[size_t(d)] = 0;
    }
  }
}

template <int N>
struct Bytes {
  char b[N];
};

void copy_to_contiguous(char* dst, const tc::Tensor& t) {
  if (t.numel() == 0) return;
  if (t.is_contiguous()) {
    std::memcpy(dst, t.data_ptr(), size_t(t.numel()) * t.element_size());
    return;
  }
  switch (t.element_size()) {
    case 1: return gather_rows<uint8_t>(dst, t);
    case 2: return gather_rows<uint16_t>(dst, t);
    case 4: return gather_rows<uint32_t>(dst, t);
    case 8: return gather_rows<uint64_t>(dst, t);
    case 16: return gather_rows<Bytes<16>>(dst, t);
  }
  TC_FAIL(Internal, "copy_to_buffer: unexpected element size ", t.element_size());
}

// Shared body of tc_tensor_sizes and tc_tensor_strides.
void copy_dims(int64_t* out, size_t capacity, size_t* ndim, tc::IntArrayRef values) {
  size_t n = values.size() < capacity ? values.size() : capacity;
  for (size_t i = 0; i < n; ++i) out[i] = values[i];
  *ndim = values.size();
}

}  // namespace

tc::Tensor tc::capi::tensor_over_memory(void* data, tc_dtype dtype, const int64_t* sizes, const int64_t* strides,
                                        size_t ndim, tc_device device, tc_blob_deleter deleter, void* ctx,
                                        const char* fn) {
  tc::ScalarType dt = tc::capi::to_dtype(dtype, fn, "dtype");
  tc::Device dev = tc::capi::to_device(device, fn, "device");
  tc::IntArrayRef shape = sizes_arg(sizes, ndim, fn);
  int64_t numel = tc::checked_numel(shape, fn);
  tc::DimVector st = strides ? tc::DimVector(tc::IntArrayRef(strides, ndim)) : tc::contiguous_strides(shape);
  int64_t extent = tc::checked_storage_nbytes(shape, st, int64_t(tc::element_size(dt)), fn, "strides");
  TC_CHECK_ARG(data || extent == 0, fn, ": argument 'data' is NULL but sizes ", shape, " hold ", numel, " elements");
  const size_t es = tc::element_size(dt);
  TC_CHECK_ARG(reinterpret_cast<uintptr_t>(data) % es == 0, fn, ": argument 'data' (", data, ") is not aligned to the ",
               es, "-byte elements of ", dt, "; copy it into aligned memory first");
  if (dt == tc::ScalarType::Bool && dev.is_cpu() && extent) check_bool_bytes(data, shape, st, numel, fn);
  // The storage is built here rather than by tc::tensor_from_blob so that the
  // moment tensorc takes the memory is exact: `guard` owns the BlobOwner until
  // `blob` does, and `blob` frees it (without the user's deleter) on failure.
  std::unique_ptr<BlobOwner> guard(deleter ? new BlobOwner{deleter, ctx, false} : nullptr);
  tc::DataPtr blob(data, guard.get(), guard ? &BlobOwner::release : nullptr, dev);
  BlobOwner* owner = guard.release();
  auto storage = tc::make_intrusive<tc::StorageImpl>(std::move(blob), size_t(extent));
  tc::Tensor t(tc::make_intrusive<tc::TensorImpl>(std::move(storage), dt, shape, st, 0));
  if (owner) owner->armed = true;
  return t;
}

extern "C" {

// ---- lifecycle ---------------------------------------------------------------

TC_API void tc_tensor_retain(tc_tensor t) {
  if (t) tc::capi::impl_of(t)->retain();
}

TC_API void tc_tensor_release(tc_tensor t) {
  if (t) tc::capi::impl_of(t)->release();
}

// ---- creation ----------------------------------------------------------------

TC_API tc_status tc_tensor_from_data(tc_tensor* out, const void* data, tc_dtype dtype, const int64_t* sizes,
                                     size_t ndim) {
  constexpr const char* fn = "tc_tensor_from_data";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::ScalarType dt = tc::capi::to_dtype(dtype, fn, "dtype");
  tc::IntArrayRef shape = sizes_arg(sizes, ndim, fn);
  int64_t nbytes = checked_nbytes(shape, dt, fn);
  TC_CHECK_ARG(data || nbytes == 0, fn, ": argument 'data' is NULL but sizes ", shape, " hold ",
               nbytes / int64_t(tc::element_size(dt)), " elements");
  if (dt == tc::ScalarType::Bool && nbytes) check_bool_bytes(data, shape, tc::contiguous_strides(shape), nbytes, fn);
  tc::Tensor t = tc::empty_tensor(shape, dt);
  if (nbytes) std::memcpy(t.data_ptr(), data, size_t(nbytes));
  *out = new_handle(std::move(t));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_from_blob(tc_tensor* out, void* data, tc_dtype dtype, const int64_t* sizes,
                                     const int64_t* strides, size_t ndim, tc_device device, tc_blob_deleter deleter,
                                     void* ctx) {
  constexpr const char* fn = "tc_tensor_from_blob";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = new_handle(tc::capi::tensor_over_memory(data, dtype, sizes, strides, ndim, device, deleter, ctx, fn));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_from_scalar(tc_tensor* out, tc_scalar value, const tc_dtype* dtype) {
  constexpr const char* fn = "tc_tensor_from_scalar";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::Scalar s = tc::capi::to_scalar(value, fn, "value");
  std::optional<tc::ScalarType> dt;
  if (dtype) dt = tc::capi::to_dtype(*dtype, fn, "dtype");
  *out = new_handle(tc::scalar_to_tensor(s, dt));
  TC_CAPI_END(fn)
}

// ---- accessors ---------------------------------------------------------------

TC_API tc_status tc_tensor_dim(int64_t* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_dim";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->dim();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_sizes(int64_t* out, size_t capacity, size_t* ndim, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_sizes";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(out || capacity == 0, fn, ": argument 'out' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(ndim, fn, "ndim");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  copy_dims(out, capacity, ndim, tc::capi::impl_of(t)->sizes());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_strides(int64_t* out, size_t capacity, size_t* ndim, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_strides";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(out || capacity == 0, fn, ": argument 'out' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(ndim, fn, "ndim");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  copy_dims(out, capacity, ndim, tc::capi::impl_of(t)->strides());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_size(int64_t* out, tc_tensor t, int64_t dim) {
  constexpr const char* fn = "tc_tensor_size";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  const tc::TensorImpl* self = tc::capi::impl_of(t);
  TC_CHECK_INDEX(self->dim() > 0, fn, ": argument 'dim' (", dim, ") is out of range: the tensor has no dimensions");
  *out = self->sizes()[size_t(tc::wrap_dim(dim, self->dim(), fn, "dim"))];
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_numel(int64_t* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_numel";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->numel();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_dtype(tc_dtype* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_dtype";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = static_cast<tc_dtype>(tc::capi::impl_of(t)->dtype());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_device(tc_device* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_device";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::from_device(tc::capi::impl_of(t)->device());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_storage_offset(int64_t* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_storage_offset";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->storage_offset();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_is_contiguous(bool* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_is_contiguous";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->is_contiguous();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_is_pinned(bool* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_is_pinned";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::is_pinned(Borrowed(t).get());
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_pin_memory(tc_tensor* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_pin_memory";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = new_handle(tc::pin_memory(Borrowed(t).get()));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_data_ptr(void** out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_data_ptr";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  const tc::TensorImpl* self = tc::capi::impl_of(t);
  *out = self->storage()->data() ? self->data() : nullptr;
  TC_CAPI_END(fn)
}

}  // extern "C"

namespace {
// A tensor in device memory can be read only through its backend.
void check_device_readable(const tc::Tensor& x, const char* fn) {
  std::string why;
  TC_CHECK(tc::try_device_hooks(x.device().type, &why) != nullptr, Device, fn, ": argument 't' is on ", x.device(),
           ", which is not available: ", why);
}
}  // namespace

extern "C" {

TC_API tc_status tc_tensor_copy_to_buffer(void* dst, size_t dst_nbytes, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_copy_to_buffer";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  Borrowed self(t);
  const tc::Tensor& x = self.get();
  size_t nbytes = size_t(x.numel()) * x.element_size();
  TC_CHECK_ARG(dst_nbytes == nbytes, fn, ": argument 'dst_nbytes' expected ", nbytes, " (", x.numel(), " elements of ",
               x.dtype(), "), got ", dst_nbytes);
  TC_CHECK_ARG(dst || nbytes == 0, fn, ": argument 'dst' is NULL but ", nbytes, " bytes are to be copied");
  if (x.is_cpu()) {
    copy_to_contiguous(static_cast<char*>(dst), x);
  } else {
    // Device memory: to the host through the backend's copy_ first.
    check_device_readable(x, fn);
    const tc::Tensor host = tc::_to_copy(x, std::nullopt, tc::Device(tc::DeviceType::CPU), false);
    copy_to_contiguous(static_cast<char*>(dst), host);
  }
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_item(tc_scalar* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_item";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  Borrowed self(t);
  const tc::Tensor& x = self.get();
  TC_CHECK_ARG(x.numel() == 1, fn, ": argument 't' expected a tensor with one element, got ", x.numel(), " elements");
  if (!x.is_cpu()) check_device_readable(x, fn);
  *out = tc::capi::from_scalar(x.item());  // device tensors: one element copied back (synchronises)
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_to_string(char* buf, size_t capacity, size_t* needed, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_to_string";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(buf || capacity == 0, fn, ": argument 'buf' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(t, fn, "t");
  tc::capi::write_string(buf, capacity, needed, tc::tensor_to_string(Borrowed(t).get()), fn);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_version(uint32_t* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_version";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->version();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_use_count(int64_t* out, tc_tensor t) {
  constexpr const char* fn = "tc_tensor_use_count";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(t, fn, "t");
  *out = tc::capi::impl_of(t)->use_count();
  TC_CAPI_END(fn)
}

// ---- dtypes ------------------------------------------------------------------

TC_API const char* tc_dtype_name(tc_dtype dtype) {
  if (dtype < TC_BOOL || dtype > TC_COMPLEX128) return "invalid";
  return tc::dtype_name(static_cast<tc::ScalarType>(dtype));
}

TC_API tc_status tc_dtype_size(size_t* out, tc_dtype dtype) {
  constexpr const char* fn = "tc_dtype_size";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CHECK_TYPE(dtype >= TC_BOOL && dtype <= TC_COMPLEX128, fn, ": argument 'dtype' has an invalid dtype code ", dtype,
                " (expected a TC_* dtype code from 0 to ", int(TC_COMPLEX128), ")");
  *out = tc::element_size(static_cast<tc::ScalarType>(dtype));
  TC_CAPI_END(fn)
}

}  // extern "C"
