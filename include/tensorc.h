/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tensorc.h — the public C ABI of tensorc.
 *
 * Conventions (every function below follows them):
 *  - Every fallible function returns tc_status: TC_OK (0) or an error category.
 *    The message is read afterwards with tc_last_error_message() on the same
 *    thread. No exception, abort or exit ever crosses this boundary.
 *  - Handles (tc_tensor, tc_generator, tc_tensor_list) are opaque pointers, each
 *    one strong reference with an atomic count. Input handles are borrowed;
 *    every output handle is a new reference the caller releases with the
 *    matching *_release function. Releasing NULL is a no-op.
 *  - Outputs come first in the argument list. Optional values are pointers
 *    (NULL = none / the default). Lists are pointer + length.
 *  - Memory tensorc allocates is freed only by tensorc.
 *
 * Thread safety: reference counts are atomic; concurrent reads of a tensor are
 * safe; writing a tensor while another thread reads or writes it is a data
 * race. Autograd state is the exception, as in PyTorch: recording ops on a
 * shared tensor that requires grad, backward accumulating into its .grad,
 * tc_tensor_grad, tc_tensor_set_grad and tc_tensor_retain_grad are locked
 * per tensor, so threads may share a leaf for forward and backward (not
 * tc_tensor_set_requires_grad or tc_tensor_detach_; and .grad's values are
 * added to in place, so read them once the backward calls returned).
 * The last error, grad mode and the current stream are thread-local.
 * The dispatcher's registration functions are thread-safe.
 *
 * This header is C99 and also compiles as C++.
 */
#ifndef TENSORC_H
#define TENSORC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TC_API
#else
#define TC_API __attribute__((visibility("default")))
#endif

/* ---- status codes (append-only) ---------------------------------------- */
typedef int32_t tc_status;
enum {
  TC_OK = 0,
  TC_ERROR_INVALID_ARGUMENT = 1, /* a bad value or shape */
  TC_ERROR_TYPE = 2,             /* a wrong dtype or argument type */
  TC_ERROR_INDEX = 3,            /* a dim or index out of range */
  TC_ERROR_OUT_OF_MEMORY = 4,    /* allocation failed, or sizes overflow */
  TC_ERROR_NOT_IMPLEMENTED = 5,  /* no kernel for this op, key or dtype */
  TC_ERROR_RUNTIME = 6,          /* a valid request that failed while running */
  TC_ERROR_DEVICE = 7,           /* tensors on wrong or different devices */
  TC_ERROR_INTERNAL = 8          /* a bug in tensorc: please report it */
};

/* ---- element types (fixed codes) --------------------------------------- */
typedef int32_t tc_dtype;
enum {
  TC_BOOL = 0,
  TC_UINT8 = 1,
  TC_INT8 = 2,
  TC_INT16 = 3,
  TC_INT32 = 4,
  TC_INT64 = 5,
  TC_FLOAT16 = 6,
  TC_BFLOAT16 = 7,
  TC_FLOAT32 = 8,
  TC_FLOAT64 = 9,
  TC_COMPLEX64 = 10, /* reserved */
  TC_COMPLEX128 = 11 /* reserved */
};

/* ---- devices: type codes equal DLPack's DLDeviceType ------------------- */
enum { TC_DEVICE_CPU = 1, TC_DEVICE_CUDA = 2, TC_DEVICE_PRIVATEUSE1 = 12 };
typedef struct tc_device {
  int32_t type;  /* TC_DEVICE_* */
  int32_t index; /* -1: the current device of that type; ignored for CPU */
} tc_device;

/* ---- handles ------------------------------------------------------------ */
typedef struct tc_tensor_s* tc_tensor;
typedef struct tc_generator_s* tc_generator;
typedef struct tc_tensor_list_s* tc_tensor_list;

/* ---- scalars: a small tagged value passed by value ---------------------- */
/* TC_SCALAR_TENSOR: the value is held by a 0-dim tensor, `u.t`, borrowed for
 * the call. Where the op has an overload taking a Tensor in that place
 * (add.Scalar -> add.Tensor, clamp -> clamp.Tensor, fill_.Scalar ->
 * fill_.Tensor) the call goes there: a device value is never read on the
 * host, so nothing synchronises, and the tensor promotes as a 0-dim tensor
 * (an int32 tensor plus a float64 0-dim tensor is float64) and gets a
 * gradient if it requires one; as in PyTorch, a device tensor there must be
 * on the other tensors' device (fill_ excepted, which reads it). Otherwise
 * the value is read with tc_tensor_item, which synchronises with the
 * tensor's device; the tensor must not require grad. tools/cuda_ops.py
 * --scalar-sync lists those ops. */
enum { TC_SCALAR_BOOL = 0, TC_SCALAR_INT = 1, TC_SCALAR_FLOAT = 2, TC_SCALAR_TENSOR = 3 };
typedef struct tc_scalar {
  int32_t tag; /* TC_SCALAR_* */
  union {
    bool b;
    int64_t i;
    double f;
    tc_tensor t;
  } u;
} tc_scalar;

/* ---- dispatch keys (fixed codes) --------------------------------------- */
typedef int32_t tc_dispatch_key;
enum {
  TC_KEY_CPU = 0,
  TC_KEY_CUDA = 1,
  TC_KEY_PRIVATEUSE1 = 2,
  TC_KEY_AUTOGRAD = 3,
  TC_KEY_TRACER = 4,
  TC_KEY_AUTOCAST = 5,
  TC_KEY_BATCHED = 6,
  TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD = 7, /* alias key: registration only */
  TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD = 8  /* alias key: registration only */
};

/* ---- boxed values, for calling any op by name -------------------------- */
enum {
  TC_VALUE_NONE = 0,
  TC_VALUE_TENSOR = 1,      /* u.tensor (NULL only where Tensor? allows) */
  TC_VALUE_INT = 2,         /* u.i */
  TC_VALUE_FLOAT = 3,       /* u.f */
  TC_VALUE_BOOL = 4,        /* u.b */
  TC_VALUE_SCALAR = 5,      /* u.scalar */
  TC_VALUE_STRING = 6,      /* u.str (NUL-terminated) */
  TC_VALUE_INT_LIST = 7,    /* u.ints */
  TC_VALUE_BOOL_LIST = 8,   /* u.bools */
  TC_VALUE_TENSOR_LIST = 9, /* u.tensors (elements may be NULL for Tensor?[]) */
  TC_VALUE_DTYPE = 10,      /* u.dtype */
  TC_VALUE_DEVICE = 11,     /* u.device */
  TC_VALUE_GENERATOR = 12,  /* u.generator */
  TC_VALUE_FLOAT_LIST = 13, /* u.floats */
  TC_VALUE_LIST_HANDLE = 14 /* u.list: an owned tc_tensor_list (outputs only) */
};
typedef struct tc_value {
  int32_t tag; /* TC_VALUE_* */
  union {
    tc_tensor tensor;
    int64_t i;
    double f;
    bool b;
    tc_scalar scalar;
    const char* str;
    struct {
      const int64_t* data;
      size_t len;
    } ints;
    struct {
      const bool* data;
      size_t len;
    } bools;
    struct {
      const double* data;
      size_t len;
    } floats;
    struct {
      const tc_tensor* data;
      size_t len;
    } tensors;
    tc_dtype dtype;
    tc_device device;
    tc_generator generator;
    tc_tensor_list list;
  } u;
} tc_value;

/* ======================================================================== */
/* Hand-written API. Every tc_status-returning function below returns TC_OK  */
/* or an error code and then sets the thread's last error (see "errors").    */
/* Unless stated otherwise, a NULL output pointer or a NULL required handle  */
/* is TC_ERROR_INVALID_ARGUMENT with a message naming the function and the   */
/* argument, and outputs are left untouched on failure.                      */
/* ======================================================================== */

/* ---- version ------------------------------------------------------------ */
/* The version of this header; tc_version() gives the library's. */
#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 1
#define TC_VERSION_PATCH 0
#define TC_VERSION_STRING "0.1.0"

/* Writes the library's version. Any pointer may be NULL. Never fails. */
TC_API void tc_version(int* major, int* minor, int* patch);
/* The library's version as "MAJOR.MINOR.PATCH"; static storage, owned by
 * tensorc. Never fails. */
TC_API const char* tc_version_string(void);

/* ---- errors -------------------------------------------------------------- */
/* The last error is thread-local and only set by failing calls: a successful
 * call leaves it as it was, so read it right after a call returned non-TC_OK. */

/* The status of the last failing call on this thread, or TC_OK if none since
 * the thread started or since tc_error_clear(). Never fails. */
TC_API tc_status tc_last_error_code(void);
/* The message of the last failing call on this thread ("" if none). Owned by
 * tensorc; valid until the next failing call or tc_error_clear() on this
 * thread. Never NULL. Never fails. */
TC_API const char* tc_last_error_message(void);
/* Resets this thread's last error to TC_OK and "". Never fails. */
TC_API void tc_error_clear(void);
/* Records an error on this thread, for C callbacks and kernels that report a
 * failure back into tensorc. `message` is copied (NULL is taken as ""); it
 * may be tc_last_error_message() itself. `code` TC_OK clears the last error.
 * Returns `code`, so a callback can `return tc_error_set(...)`. */
TC_API tc_status tc_error_set(tc_status code, const char* message);
/* A short human-readable name for a status ("ok", "invalid argument", ...;
 * "unknown error" for codes this version does not know). Static storage.
 * Never fails. */
TC_API const char* tc_status_name(tc_status code);

/* ---- dtypes -------------------------------------------------------------- */
/* The dtype's name as PyTorch prints it ("float32", "int64", ...), for every
 * code the header defines (reserved ones included); "invalid" for any other
 * code. Static storage. Never fails. */
TC_API const char* tc_dtype_name(tc_dtype dtype);
/* *out = the size in bytes of one element of `dtype` (reserved codes
 * included). Errors: TC_ERROR_TYPE for a code the header does not define;
 * TC_ERROR_INVALID_ARGUMENT for out == NULL. */
TC_API tc_status tc_dtype_size(size_t* out, tc_dtype dtype);

/* ---- tensor lifecycle ---------------------------------------------------- */
/* Adds a reference to `t` (NULL is a no-op). Thread-safe. */
TC_API void tc_tensor_retain(tc_tensor t);
/* Drops one reference to `t`, freeing it with the last one (NULL is a no-op).
 * Thread-safe. */
TC_API void tc_tensor_release(tc_tensor t);

/* ---- tensor creation ----------------------------------------------------- */
/* A function a caller gives tensorc to free memory it lent: called once with
 * the `data` and `user_data` given to tc_tensor_from_blob. Every callback in
 * this header takes its caller-chosen pointer as its last parameter, named
 * user_data, and every registration passes it right after the callback. */
typedef void (*tc_blob_deleter)(void* data, void* user_data);

/* *out = a new contiguous CPU tensor of `dtype` and shape sizes[0..ndim),
 * holding a copy of the row-major buffer `data` (numel * element size bytes).
 * `data` may be NULL only when numel is 0; `sizes` may be NULL only when
 * ndim is 0. The caller owns *out (release with tc_tensor_release).
 * Errors: TC_ERROR_TYPE for a bad or reserved dtype code (names 'dtype');
 * TC_ERROR_INVALID_ARGUMENT for a negative size or a NULL pointer;
 * TC_ERROR_OUT_OF_MEMORY when the sizes overflow int64 or allocation fails. */
TC_API tc_status tc_tensor_from_data(tc_tensor* out, const void* data, tc_dtype dtype, const int64_t* sizes,
                                     size_t ndim);

/* *out = a tensor over memory the caller lends, without a copy. `strides` are
 * in elements and non-negative (NULL = contiguous); element 0 is at `data`.
 * The tensor cannot be resized. On success tensorc owns the memory: if
 * `deleter` is not NULL it is called exactly once, deleter(data, user_data), when
 * the last reference to the tensor (or to a view of it) goes away, on
 * whatever thread drops it. On failure the deleter is NOT called and the
 * caller keeps ownership of `data`. `data` may be NULL only when numel is 0.
 * The caller owns *out.
 * Errors: TC_ERROR_TYPE (bad dtype code, names 'dtype'); TC_ERROR_DEVICE (bad
 * device, names 'device'); TC_ERROR_INVALID_ARGUMENT (negative size or
 * stride, NULL pointer, `data` not aligned to the element size, bool bytes
 * other than 0 and 1); TC_ERROR_OUT_OF_MEMORY (sizes or the strided extent
 * overflow int64, allocation failed). */
TC_API tc_status tc_tensor_from_blob(tc_tensor* out, void* data, tc_dtype dtype, const int64_t* sizes,
                                     const int64_t* strides, size_t ndim, tc_device device, tc_blob_deleter deleter,
                                     void* user_data);

/* *out = a new zero-dim CPU tensor holding `value` converted to *dtype, or to
 * the value's default dtype when dtype is NULL (bool -> bool, int -> int64,
 * float -> float32). The caller owns *out.
 * Errors: TC_ERROR_TYPE for a bad scalar tag (names 'value') or dtype code
 * (names 'dtype'); TC_ERROR_OUT_OF_MEMORY. */
TC_API tc_status tc_tensor_from_scalar(tc_tensor* out, tc_scalar value, const tc_dtype* dtype);

/* ---- DLPack exchange (dlpack/dlpack.h, the unversioned DLManagedTensor) ----
 * Zero-copy both ways. Include <dlpack/dlpack.h> to read the struct; this
 * header only names it. */
struct DLManagedTensor;

/* *out = a DLPack view of `t`: same memory, sizes and strides (always set, in
 * elements), byte_offset 0. The DLManagedTensor holds its own reference to
 * `t`; the consumer calls (*out)->deleter(*out) exactly once when done. Bool
 * exports as type code 6 (kDLBool), bits 8.
 * Errors: TC_ERROR_RUNTIME when `t` requires grad (export a detached tensor);
 * TC_ERROR_TYPE for a reserved (complex) dtype. */
TC_API tc_status tc_tensor_to_dlpack(struct DLManagedTensor** out, tc_tensor t);
/* *out = a tensor over the memory `src` describes (NULL strides = compact row
 * major). On success tensorc owns `src`: it calls src->deleter(src) (when not
 * NULL) once, when the last reference to the tensor or a view of it goes
 * away. On failure nothing is called and the caller still owns `src`.
 * Errors: TC_ERROR_TYPE for lanes != 1 or a dtype tensorc lacks;
 * TC_ERROR_DEVICE for a device other than CPU or CUDA;
 * TC_ERROR_INVALID_ARGUMENT for a negative ndim, size or stride, or a NULL
 * shape or data with elements. */
TC_API tc_status tc_tensor_from_dlpack(tc_tensor* out, struct DLManagedTensor* src);

/* ---- tensor accessors ----------------------------------------------------
 * None of these changes the tensor. Each returns TC_ERROR_INVALID_ARGUMENT
 * when `t` or a required output is NULL, plus the errors listed. */

/* *out = the number of dimensions. */
TC_API tc_status tc_tensor_dim(int64_t* out, tc_tensor t);
/* *ndim = the number of dimensions; copies the first min(capacity, *ndim)
 * sizes into out. `out` may be NULL when capacity is 0 (to query *ndim). */
TC_API tc_status tc_tensor_sizes(int64_t* out, size_t capacity, size_t* ndim, tc_tensor t);
/* As tc_tensor_sizes, for the strides (in elements, not bytes). */
TC_API tc_status tc_tensor_strides(int64_t* out, size_t capacity, size_t* ndim, tc_tensor t);
/* *out = the size of dimension `dim`; a negative dim counts from the end.
 * Errors: TC_ERROR_INDEX (names 'dim') when dim is out of range, which it
 * always is for a zero-dim tensor. */
TC_API tc_status tc_tensor_size(int64_t* out, tc_tensor t, int64_t dim);
/* *out = the number of elements (1 for a zero-dim tensor). */
TC_API tc_status tc_tensor_numel(int64_t* out, tc_tensor t);
/* *out = the element type. */
TC_API tc_status tc_tensor_dtype(tc_dtype* out, tc_tensor t);
/* *out = the device the tensor's memory lives on. */
TC_API tc_status tc_tensor_device(tc_device* out, tc_tensor t);
/* *out = the offset of element 0 from the start of its storage, in elements. */
TC_API tc_status tc_tensor_storage_offset(int64_t* out, tc_tensor t);
/* *out = whether the tensor is contiguous in row-major order. */
TC_API tc_status tc_tensor_is_contiguous(bool* out, tc_tensor t);
/* *out = whether t's memory is page-locked host memory (from
 * tc_tensor_pin_memory). Always false before a CUDA backend was loaded. */
TC_API tc_status tc_tensor_is_pinned(bool* out, tc_tensor t);
/* *out = a new reference to a contiguous copy of CPU tensor `t` in
 * page-locked host memory (Tensor.pin_memory), or to `t` itself when it is
 * pinned already. Copies between pinned memory and a CUDA device can run
 * asynchronously (non_blocking): the memory stays allocated until such a copy
 * is done, even if every tensor over it is released. Caller releases *out.
 * Errors: TC_ERROR_DEVICE when `t` is not on the CPU, or when CUDA is not
 * usable (the message says why: no library, driver or device);
 * TC_ERROR_OUT_OF_MEMORY when the system refuses page-locked memory. */
TC_API tc_status tc_tensor_pin_memory(tc_tensor* out, tc_tensor t);
/* *out = the address of element 0 (NULL for a tensor without storage bytes),
 * in the memory of the tensor's device (a device pointer for CUDA tensors).
 * Borrowed: valid while `t` (or a tensor sharing its storage) lives and is
 * not resized. */
TC_API tc_status tc_tensor_data_ptr(void** out, tc_tensor t);
/* Copies the elements of `t`, of any strides, into `dst` in row-major order.
 * `dst` may be NULL only when numel is 0.
 * Errors: TC_ERROR_INVALID_ARGUMENT (names 'dst_nbytes') unless dst_nbytes
 * equals numel * element size; TC_ERROR_DEVICE when the tensor's device is
 * unavailable. A device tensor is copied to the host first (synchronously). */
TC_API tc_status tc_tensor_copy_to_buffer(void* dst, size_t dst_nbytes, tc_tensor t);
/* *out = the value of a one-element tensor of any shape, tagged by dtype
 * category: TC_SCALAR_BOOL for bool, TC_SCALAR_INT for integer dtypes,
 * TC_SCALAR_FLOAT for floating dtypes.
 * Errors: TC_ERROR_INVALID_ARGUMENT (names 't') unless numel is 1;
 * TC_ERROR_DEVICE when the tensor's device is unavailable. A device tensor's
 * element is copied to the host (this synchronises with the device). */
TC_API tc_status tc_tensor_item(tc_scalar* out, tc_tensor t);
/* Formats `t` as PyTorch prints it ("tensor([1., 2.])"), snprintf-style:
 * writes at most capacity - 1 characters and a NUL into buf (when capacity
 * > 0) and sets *needed (when not NULL) to the full length + 1, so a caller can retry with a
 * buffer of *needed bytes. `buf` may be NULL when capacity is 0.
 * Errors: TC_ERROR_DEVICE for tensors that cannot be read from the host. */
TC_API tc_status tc_tensor_to_string(char* buf, size_t capacity, size_t* needed, tc_tensor t);
/* *out = the version counter, shared by a tensor and its views and bumped by
 * every in-place write. */
TC_API tc_status tc_tensor_version(uint32_t* out, tc_tensor t);
/* *out = the number of strong references to t's tensor: handles, plus those
 * tensorc holds itself (views' bases, autograd graphs, lists). For tests of
 * bindings that retain and release handles; racy when other threads retain
 * or release the same tensor. */
TC_API tc_status tc_tensor_use_count(int64_t* out, tc_tensor t);

/* ---- tensor lists (dynamic-length results) ------------------------------- */
/* A tc_tensor_list holds tensors returned by an op; it has one owner. */

/* *out = the number of tensors in `l`. */
TC_API tc_status tc_tensor_list_size(size_t* out, tc_tensor_list l);
/* *out = a new reference to tensor `index` of `l`; the caller releases it
 * (independently of the list). Errors: TC_ERROR_INDEX (names 'index'). */
TC_API tc_status tc_tensor_list_get(tc_tensor* out, tc_tensor_list l, size_t index);
/* Frees `l` and drops its references to its tensors (NULL is a no-op). */
TC_API void tc_tensor_list_release(tc_tensor_list l);

/* ---- random generators ---------------------------------------------------
 * A generator is a Philox counter-based stream: a seed and an offset fully
 * determine the numbers, whatever the thread count. Generators are
 * thread-safe. Ops taking a `tc_generator` use the default one for NULL. */

/* *out = a new generator seeded with `seed`; the caller releases it. */
TC_API tc_status tc_generator_create(tc_generator* out, uint64_t seed);
/* Drops one reference to `g` (NULL is a no-op). */
TC_API void tc_generator_release(tc_generator g);
/* Reseeds `g` and resets its offset, restarting its stream. */
TC_API tc_status tc_generator_set_seed(tc_generator g, uint64_t seed);
/* *out = the seed `g` was created or last reseeded with. */
TC_API tc_status tc_generator_seed(uint64_t* out, tc_generator g);
/* Reseeds the process-wide default generator. */
TC_API tc_status tc_manual_seed(uint64_t seed);
/* *out = a new reference to the process-wide default generator; the caller
 * releases it with tc_generator_release (the generator itself lives on). */
TC_API tc_status tc_generator_default(tc_generator* out);

/* ---- devices ------------------------------------------------------------- */
/* Device backends other than the CPU are loaded on first use: CUDA from
 * libtensorc_cuda.so beside libtensorc.so (or $TC_CUDA_LIBRARY), so a
 * CPU-only program needs no driver. `device_type` is a TC_DEVICE_* code. */

/* TC_OK when tensors can be made on `device_type`; otherwise
 * TC_ERROR_DEVICE, and tc_last_error_message() says why (the backend library
 * is missing, no driver, a driver too old, no device). Loads the backend. */
TC_API tc_status tc_device_check(int32_t device_type);
/* *out = the number of devices of `device_type`: 0 when the backend is
 * unavailable (tc_device_check says why), 1 for TC_DEVICE_CPU. */
TC_API tc_status tc_device_count(int* out, int32_t device_type);
/* *out = the calling thread's current device index of `device_type`, the
 * one a tc_device index of -1 means. Errors: TC_ERROR_DEVICE when the backend
 * is unavailable. */
TC_API tc_status tc_device_current(int* out, int32_t device_type);
/* Makes device `index` current for the calling thread. Errors:
 * TC_ERROR_DEVICE (names 'index') when out of range or unavailable. */
TC_API tc_status tc_device_set_current(int32_t device_type, int index);
/* Waits until all work queued on `device` is done (the CPU: returns). */
TC_API tc_status tc_device_synchronize(tc_device device);

/* The memory statistics a backend's caching allocator keeps per device
 * (PyTorch's torch.cuda.memory_allocated and friends). Append-only. */
typedef enum tc_memory_stat {
  TC_MEMORY_ALLOCATED_BYTES = 0,      /* held by tensors now */
  TC_MEMORY_PEAK_ALLOCATED_BYTES = 1, /* the most held at once since the last reset */
  TC_MEMORY_RESERVED_BYTES = 2,       /* held from the device: allocated plus cached */
  TC_MEMORY_PEAK_RESERVED_BYTES = 3,
  TC_MEMORY_NUM_DEVICE_MALLOCS = 4, /* calls to the device's own allocator */
  TC_MEMORY_NUM_DEVICE_FREES = 5,
  TC_MEMORY_NUM_ALLOC_RETRIES = 6, /* allocations that succeeded only after emptying the cache */
  TC_MEMORY_NUM_OOMS = 7           /* allocations that failed with TC_ERROR_OUT_OF_MEMORY */
} tc_memory_stat;
/* *out = statistic `which` of `device` (index -1: the current one). Errors:
 * TC_ERROR_DEVICE when the backend is unavailable or the index out of range,
 * TC_ERROR_NOT_IMPLEMENTED for devices without statistics (the CPU),
 * TC_ERROR_INVALID_ARGUMENT for an unknown `which`. */
TC_API tc_status tc_device_memory_stat(int64_t* out, tc_device device, int32_t which);
/* The peak statistics of `device` start again from the current values. */
TC_API tc_status tc_device_reset_peak_memory_stats(tc_device device);
/* Returns cached memory that no tensor uses to the system: CUDA's caching
 * allocator's unused segments on every device, or the CPU allocator's cached
 * large blocks. Tensors are not affected. */
TC_API tc_status tc_device_empty_cache(int32_t device_type);
/* Whether float32 matrix products on CUDA (mm, bmm, addmm and what is built
 * on them) may run on TF32 tensor cores: faster, with inputs rounded to 10
 * mantissa bits. Process-wide; off by default, as PyTorch's
 * torch.backends.cuda.matmul.allow_tf32. Needs no device. */
TC_API tc_status tc_cuda_matmul_set_allow_tf32(bool allow);
/* *out = the setting above. */
TC_API tc_status tc_cuda_matmul_allow_tf32(bool* out);

/* ---- streams and events ----------------------------------------------------
 * PyTorch's torch.cuda.Stream and Event. Work a thread queues on a device
 * (kernels, copies, allocations) goes to its current stream for that device,
 * the default stream until tc_stream_set_current picks another. A tc_stream
 * is a value: streams come from a pool per device (32 per priority, handed
 * out round robin) and live as long as the process, so there is nothing to
 * release. A tc_event is a handle the caller releases. The CPU has only its
 * default stream, on which every op has already finished. Errors:
 * TC_ERROR_DEVICE when the backend is unavailable or the index out of range,
 * TC_ERROR_INVALID_ARGUMENT naming the argument for a NULL pointer or a
 * stream tensorc does not know, TC_ERROR_NOT_IMPLEMENTED for what a backend
 * lacks (the CPU's streams other than the default and its events). */
typedef struct tc_stream {
  tc_device device; /* its index is always resolved (>= 0; 0 for the CPU) */
  uint64_t id;      /* the backend's handle (a cudaStream_t); 0: the default stream */
} tc_stream;
typedef struct tc_event_s* tc_event;

/* *out = a stream of `device` (index -1: the current device) from its pool;
 * priority 0 is normal, below 0 higher (CUDA's greatest priority). Its work
 * is not ordered with the default stream's: use events. */
TC_API tc_status tc_stream_create(tc_stream* out, tc_device device, int32_t priority);
/* *out = the default stream of `device`. */
TC_API tc_status tc_stream_default(tc_stream* out, tc_device device);
/* *out = the calling thread's current stream for `device`. */
TC_API tc_status tc_stream_current(tc_stream* out, tc_device device);
/* Makes `stream` the calling thread's current stream for its device (other
 * devices and threads keep theirs). */
TC_API tc_status tc_stream_set_current(tc_stream stream);
/* *out = a tc_stream for `handle`, a stream made outside tensorc (a
 * cudaStream_t), which tensorc does not own: the caller keeps it alive while
 * tensorc may use it. The handle is not checked beyond being non-zero. */
TC_API tc_status tc_stream_from_external(tc_stream* out, tc_device device, uint64_t handle);
/* Waits until all work queued on `stream` is done. */
TC_API tc_status tc_stream_synchronize(tc_stream stream);
/* *out = whether all work queued on `stream` is done (never waits). */
TC_API tc_status tc_stream_query(bool* out, tc_stream stream);
/* Work queued on `stream` from now on waits until `event` has happened (the
 * host does not wait). An event never recorded: nothing to wait for. */
TC_API tc_status tc_stream_wait_event(tc_stream stream, tc_event event);
/* *out = a new event, not yet recorded, that will belong to the device of the
 * first stream it is recorded on. enable_timing: tc_event_elapsed_time may use
 * it (timing makes recording slightly dearer). Release with tc_event_release. */
TC_API tc_status tc_event_create(tc_event* out, bool enable_timing);
/* Releases an event (NULL: nothing); work waiting on it is not affected. */
TC_API void tc_event_release(tc_event event);
/* Records `event` at the current end of `stream`'s work (again: moves it).
 * Errors: TC_ERROR_DEVICE when the event belongs to another device. */
TC_API tc_status tc_event_record(tc_event event, tc_stream stream);
/* *out = whether the work before the event's last record is done (true when
 * never recorded). */
TC_API tc_status tc_event_query(bool* out, tc_event event);
/* Waits until the work before the event's last record is done. */
TC_API tc_status tc_event_synchronize(tc_event event);
/* *out = milliseconds between two recorded events of one device, both made
 * with enable_timing (the later one must have happened). Errors:
 * TC_ERROR_INVALID_ARGUMENT naming the event that was not recorded or times
 * nothing, TC_ERROR_DEVICE when they belong to different devices. */
TC_API tc_status tc_event_elapsed_time(double* out, tc_event start, tc_event end);
/* Tells the allocator that `stream` uses t's memory too (Tensor.record_stream):
 * once t is freed, its memory is reused only after the work queued on
 * `stream` so far is done. For CPU tensors and memory tensorc did not
 * allocate (from_blob, DLPack): nothing to do. Errors: TC_ERROR_DEVICE when
 * the stream is not on t's device. */
TC_API tc_status tc_tensor_record_stream(tc_tensor t, tc_stream stream);

/* ---- device hooks: an out-of-tree backend's memory -------------------------
 * What a backend on TC_DEVICE_PRIVATEUSE1 registers so that tensorc can make
 * its tensors and move data to and from them: tc_empty / tc_empty_strided on
 * that device allocate through `allocate`, and copy_, to(device), .cpu()
 * between it and the CPU (any dtypes, any strides, broadcasting) stage
 * through host memory with `copy_bytes`. Kernels the backend registers with
 * tc_library_impl for PrivateUse1 take precedence (the newest registration
 * wins). Each function returns TC_OK, or an error status after tc_error_set()
 * with a message that tensorc passes on. user_data is passed back to each. */
typedef struct tc_device_hooks {
  size_t struct_size; /* sizeof(tc_device_hooks), so the struct can grow */
  int device_count;   /* devices 0 .. device_count - 1; at least 1 */
  /* *out = nbytes (> 0) of memory on device `index`. */
  tc_status (*allocate)(void** out, int index, size_t nbytes, void* user_data);
  /* Releases what allocate returned (any thread; must not fail). */
  void (*release)(void* data, int index, void* user_data);
  /* Copies nbytes from src to dst; each side is on the backend's device or
   * on the host (its device type TC_DEVICE_CPU). */
  tc_status (*copy_bytes)(void* dst, tc_device dst_device, const void* src, tc_device src_device, size_t nbytes,
                          void* user_data);
  /* Waits for work queued on device `index`; NULL when nothing is ever queued. */
  tc_status (*synchronize)(int index, void* user_data);
  void* user_data;

  /* Optional: streams and events, behind tc_stream_* and tc_event_* (a
   * struct_size that ends before them, or a NULL stream_create, means the
   * backend has only its default stream and no events). A stream or an event
   * is the backend's handle; stream 0 is device `index`'s default stream.
   * tensorc keeps the current stream per thread and device (the backend's
   * kernels ask for it with tc_stream_current), accepts only streams it got
   * from stream_create or tc_stream_from_external, and never destroys a
   * stream (pool them, as CUDA's are). With stream_create, every function
   * below must be set. */
  tc_status (*stream_create)(uint64_t* out, int index, int32_t priority, void* user_data);
  tc_status (*stream_query)(bool* done, int index, uint64_t stream, void* user_data);
  tc_status (*stream_synchronize)(int index, uint64_t stream, void* user_data);
  /* Later work on `stream` waits until `event` has happened. */
  tc_status (*stream_wait_event)(int index, uint64_t stream, uint64_t event, void* user_data);
  tc_status (*event_create)(uint64_t* out, int index, bool enable_timing, void* user_data);
  void (*event_destroy)(int index, uint64_t event, void* user_data); /* must not fail */
  tc_status (*event_record)(int index, uint64_t event, uint64_t stream, void* user_data);
  tc_status (*event_query)(bool* done, int index, uint64_t event, void* user_data);
  tc_status (*event_synchronize)(int index, uint64_t event, void* user_data);
  tc_status (*event_elapsed_ms)(double* out, int index, uint64_t start, uint64_t end, void* user_data);
} tc_device_hooks;
/* The size of a tc_device_hooks without the stream and event functions (what
 * a backend written before them passes as struct_size). */
#define TC_DEVICE_HOOKS_BASE_SIZE (offsetof(tc_device_hooks, user_data) + sizeof(void*))

/* Registers (or replaces) the hooks of `device_type`, which must be
 * TC_DEVICE_PRIVATEUSE1; *hooks is copied (its first struct_size bytes).
 * Tensors allocated through earlier hooks keep using those hooks' release.
 * Errors: TC_ERROR_INVALID_ARGUMENT naming 'hooks' (NULL, a struct_size
 * below TC_DEVICE_HOOKS_BASE_SIZE, a NULL required function, stream_create
 * without the other stream and event functions, device_count < 1) or
 * 'device_type'. */
TC_API tc_status tc_device_register_hooks(int32_t device_type, const tc_device_hooks* hooks);

/* ---- threads ------------------------------------------------------------- */
/* Sets the number of threads used by parallel kernels (and GEMM) in the whole
 * process. Errors: TC_ERROR_INVALID_ARGUMENT (names 'n') unless n >= 1. */
TC_API tc_status tc_set_num_threads(int n);
/* *out = the number of threads parallel kernels use (initially the
 * TC_NUM_THREADS environment variable, else the number of processors). */
TC_API tc_status tc_get_num_threads(int* out);

/* ---- autograd ------------------------------------------------------------
 * Tensors that require grad record the ops applied to them; backward walks
 * that graph. Grad mode is per thread (initially on). Graphs may be built and
 * run on several threads at once as long as they share no tensor that one of
 * them changes. */

/* *out = whether `t` requires grad (a leaf flagged so, or a result of ops on one). */
TC_API tc_status tc_tensor_requires_grad(bool* out, tc_tensor t);
/* Sets a leaf's requires_grad flag.
 * Errors: TC_ERROR_TYPE unless `t` has a floating dtype (when turning it on);
 * TC_ERROR_INVALID_ARGUMENT when turning it off on a non-leaf. */
TC_API tc_status tc_tensor_set_requires_grad(tc_tensor t, bool requires_grad);
/* *out = a new reference to t's accumulated gradient, or NULL when it has
 * none (a leaf before backward, or a non-leaf without tc_tensor_retain_grad). */
TC_API tc_status tc_tensor_grad(tc_tensor* out, tc_tensor t);
/* Replaces t's gradient with `grad` (borrowed; NULL clears it, as
 * `x.grad = None`). Errors: TC_ERROR_TYPE / TC_ERROR_INVALID_ARGUMENT /
 * TC_ERROR_DEVICE unless grad has t's dtype, shape and device. */
TC_API tc_status tc_tensor_set_grad(tc_tensor t, tc_tensor grad);
/* *out = whether `t` is a leaf (created by the user, not by an op that recorded it). */
TC_API tc_status tc_tensor_is_leaf(bool* out, tc_tensor t);
/* Makes backward store the gradient of a non-leaf in its .grad too.
 * Errors: TC_ERROR_RUNTIME unless `t` requires grad. */
TC_API tc_status tc_tensor_retain_grad(tc_tensor t);
/* The name of the node that produced `t` ("MulBackward0"; "" for a leaf),
 * written like tc_tensor_to_string. */
TC_API tc_status tc_tensor_grad_fn_name(char* buf, size_t capacity, size_t* needed, tc_tensor t);
/* *out = a new tensor sharing t's memory and version counter, with no history. */
TC_API tc_status tc_tensor_detach(tc_tensor* out, tc_tensor t);
/* Removes t's history in place (it becomes a leaf that does not require grad).
 * Errors: TC_ERROR_RUNTIME for a view. */
TC_API tc_status tc_tensor_detach_(tc_tensor t);
/* Computes the gradient of `t` with respect to the leaves of its graph and
 * accumulates it into their .grad. `grad` (borrowed, may be NULL for a
 * one-element `t`: ones) is dL/dt. Without retain_graph the graph's saved
 * tensors are freed, and a second backward through them is TC_ERROR_RUNTIME.
 * create_graph records the backward itself (higher-order gradients).
 * Errors: TC_ERROR_RUNTIME when `t` does not require grad, when a saved
 * tensor was modified in place since, or when an op on the way has no
 * derivative (TC_ERROR_NOT_IMPLEMENTED); the message names the op. */
TC_API tc_status tc_tensor_backward(tc_tensor t, tc_tensor grad, bool retain_graph, bool create_graph);
/* tc_tensor_backward for several roots at once: tensors[0..n) with
 * grad_tensors[0..n) (the array may be NULL, entries may be NULL). */
TC_API tc_status tc_autograd_backward(const tc_tensor* tensors, size_t n, const tc_tensor* grad_tensors,
                                      bool retain_graph, bool create_graph);
/* Like torch.autograd.grad: out_grads[i] = a new reference to d(sum of
 * outputs * grad_outputs)/d inputs[i], for i < n_inputs; .grad is not touched.
 * An input the outputs do not depend on is TC_ERROR_RUNTIME, or, with
 * allow_unused, a NULL entry. On error out_grads is left unchanged.
 * grad_outputs may be NULL (ones for one-element outputs). */
TC_API tc_status tc_autograd_grad(tc_tensor* out_grads, const tc_tensor* outputs, size_t n_outputs,
                                  const tc_tensor* inputs, size_t n_inputs, const tc_tensor* grad_outputs,
                                  bool retain_graph, bool create_graph, bool allow_unused);
/* *out = whether ops record gradients on this thread. */
TC_API tc_status tc_grad_mode_is_enabled(bool* out);
/* Turns recording on or off on this thread. */
TC_API tc_status tc_grad_mode_set_enabled(bool enabled);
/* Saves this thread's grad mode and sets it (push(false): no_grad;
 * push(true): enable_grad); tc_grad_mode_pop restores the saved one.
 * Errors (pop): TC_ERROR_RUNTIME when nothing was pushed on this thread. */
TC_API tc_status tc_grad_mode_push(bool enabled);
TC_API tc_status tc_grad_mode_pop(void);

/* ---- custom functions: autograd.Function from C --------------------------
 * A function with a user-written backward. tc_function_apply runs `forward`
 * with grad mode off; when an input requires grad, its outputs get a node
 * ("<name>Backward") whose backward calls `backward`. Inputs are boxed values:
 * TC_VALUE_TENSOR inputs are differentiable, any other tag is passed through
 * as a non-tensor argument. A callback reports failure by returning a status
 * (tc_error_set gives it a message); that status and message come back from
 * tc_function_apply (forward) or from the backward call (backward). */
typedef struct tc_function_s* tc_function;
/* Valid only during the callback that receives it. */
typedef struct tc_function_ctx_s* tc_function_ctx;

/* Writes n_outputs new tensor references into outputs (they start as NULL).
 * Inputs are borrowed. */
typedef tc_status (*tc_function_forward_fn)(tc_tensor* outputs, size_t n_outputs, tc_function_ctx ctx,
                                            const tc_value* inputs, size_t n_inputs, void* user_data);
/* Writes into grad_inputs[i] (n_inputs entries, all NULL on entry) a new
 * reference to the gradient of input i, or leaves NULL for none. Every
 * grad_outputs[j] is borrowed and defined (zeros where an output got no
 * gradient). Ops used here are recorded under create_graph, so a backward
 * written with tensorc ops supports higher-order gradients. */
typedef tc_status (*tc_function_backward_fn)(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                             const tc_tensor* grad_outputs, size_t n_outputs, void* user_data);

/* *out = a new function definition (release with tc_function_release).
 * `name` is copied. `user_data` is passed to both callbacks; user_data_free
 * (may be NULL) runs once, when the last user of the definition (the handle
 * or a graph that recorded it) is gone. On error user_data_free is not called.
 * Errors: TC_ERROR_INVALID_ARGUMENT for NULL name/forward/backward. */
TC_API tc_status tc_function_create(tc_function* out, const char* name, tc_function_forward_fn forward,
                                    tc_function_backward_fn backward, void* user_data, void (*user_data_free)(void*));
/* Drops the caller's reference. NULL is fine. */
TC_API void tc_function_release(tc_function f);
/* Runs `f` on inputs[0..n_inputs) (borrowed); outputs[0..n_outputs) receive
 * new references. On error outputs are left unchanged.
 * Errors: TC_ERROR_INVALID_ARGUMENT for a function made by
 * tc_function_create_values (use tc_function_apply_values). */
TC_API tc_status tc_function_apply(tc_tensor* outputs, size_t n_outputs, tc_function f, const tc_value* inputs,
                                   size_t n_inputs);
/* A forward that returns non-tensor values too: outputs[0..n_outputs) start as
 * TC_VALUE_NONE; set each to a TC_VALUE_TENSOR (a new reference) or to a
 * by-value TC_VALUE_INT, _FLOAT, _BOOL, _SCALAR, _DTYPE, _DEVICE or _NONE.
 * Only tensor outputs are differentiable; in backward, grad_outputs[j] is
 * NULL for a non-tensor output j. */
typedef tc_status (*tc_function_forward_values_fn)(tc_value* outputs, size_t n_outputs, tc_function_ctx ctx,
                                                   const tc_value* inputs, size_t n_inputs, void* user_data);
/* tc_function_create for a forward with non-tensor outputs; apply it with
 * tc_function_apply_values. */
TC_API tc_status tc_function_create_values(tc_function* out, const char* name, tc_function_forward_values_fn forward,
                                           tc_function_backward_fn backward, void* user_data,
                                           void (*user_data_free)(void*));
/* Runs `f` (either kind); outputs[0..n_outputs) receive its values (tensors
 * as new references; release them with tc_values_release). On error outputs
 * are left unchanged. Errors: TC_ERROR_TYPE when forward produced a value of
 * a tag outside the list above (the message names the output). */
TC_API tc_status tc_function_apply_values(tc_value* outputs, size_t n_outputs, tc_function f, const tc_value* inputs,
                                          size_t n_inputs);
/* Forward only: tensors (borrowed) to keep for backward (replaces earlier calls). */
TC_API tc_status tc_function_ctx_save_for_backward(tc_function_ctx ctx, const tc_tensor* tensors, size_t n);
/* Backward only: out[0..*n) = new references to the saved tensors (NULL
 * where a NULL was saved); *n = how many were saved (written even when
 * capacity is too small, in which case nothing else is).
 * Errors: TC_ERROR_RUNTIME when one was modified in place since it was saved,
 * or when the graph was freed by an earlier backward. */
TC_API tc_status tc_function_ctx_saved_tensors(tc_tensor* out, size_t capacity, size_t* n, tc_function_ctx ctx);
/* Forward only: these inputs were modified in place by forward. */
TC_API tc_status tc_function_ctx_mark_dirty(tc_function_ctx ctx, const tc_tensor* tensors, size_t n);
/* Forward only: these outputs get no gradient. */
TC_API tc_status tc_function_ctx_mark_non_differentiable(tc_function_ctx ctx, const tc_tensor* tensors, size_t n);
/* *out = whether input `index` needs a gradient (false for non-tensor inputs).
 * Errors: TC_ERROR_INDEX for index >= n_inputs. */
TC_API tc_status tc_function_ctx_needs_input_grad(bool* out, tc_function_ctx ctx, size_t index);
/* Attaches non-tensor state to this call (forward -> backward); `destroy` (may
 * be NULL) runs on it when the call's graph is freed, or at once when nothing
 * recorded the call. Replacing earlier state destroys it. */
TC_API tc_status tc_function_ctx_set_state(tc_function_ctx ctx, void* state, void (*destroy)(void*));
/* *out = the state set by tc_function_ctx_set_state (NULL if none). */
TC_API tc_status tc_function_ctx_state(void** out, tc_function_ctx ctx);

/* ---- gradcheck ---------------------------------------------------------- */
/* The function under test: *out = a new reference to its (one) output,
 * computed from inputs[0..n) (borrowed) with tensorc ops. */
typedef tc_status (*tc_gradcheck_fn)(tc_tensor* out, const tc_tensor* inputs, size_t n, void* user_data);
typedef struct tc_gradcheck_options {
  size_t size; /* sizeof(tc_gradcheck_options), for later extension */
  double eps;  /* finite-difference step (default 1e-6) */
  double atol; /* absolute tolerance (default 1e-5) */
  double rtol; /* relative tolerance (default 1e-3) */
} tc_gradcheck_options;
/* Compares the gradients backward computes for fn with central finite
 * differences, for every input that requires grad (they must be float64 on
 * the CPU). opts may be NULL (defaults). *ok = true and TC_OK when they agree;
 * *ok = false and TC_ERROR_RUNTIME with a message naming the output, input
 * and element of the first mismatch otherwise. An error inside fn comes back
 * as fn's status and message. */
TC_API tc_status tc_gradcheck(bool* ok, tc_gradcheck_fn fn, void* user_data, const tc_tensor* inputs, size_t n,
                              const tc_gradcheck_options* opts);
/* The same check of second derivatives: gradcheck of
 * (inputs, v) -> grad(fn(inputs), inputs, v, create_graph). */
TC_API tc_status tc_gradgradcheck(bool* ok, tc_gradcheck_fn fn, void* user_data, const tc_tensor* inputs, size_t n,
                                  const tc_gradcheck_options* opts);

/* ---- inline helpers ------------------------------------------------------ */
static inline tc_scalar tc_scalar_int(int64_t v) {
  tc_scalar s;
  s.tag = TC_SCALAR_INT;
  s.u.i = v;
  return s;
}
static inline tc_scalar tc_scalar_float(double v) {
  tc_scalar s;
  s.tag = TC_SCALAR_FLOAT;
  s.u.f = v;
  return s;
}
/* A Scalar held by a 0-dim tensor, borrowed (see TC_SCALAR_TENSOR). */
static inline tc_scalar tc_scalar_from_tensor(tc_tensor t) {
  tc_scalar s;
  s.tag = TC_SCALAR_TENSOR;
  s.u.i = 0; /* clear the bytes a 32-bit pointer leaves */
  s.u.t = t;
  return s;
}
static inline tc_scalar tc_scalar_bool(bool v) {
  tc_scalar s;
  s.tag = TC_SCALAR_BOOL;
  s.u.i = 0; /* clear the padding bytes of the union */
  s.u.b = v;
  return s;
}
/* The CPU (its index is ignored). */
static inline tc_device tc_device_cpu(void) {
  tc_device d;
  d.type = TC_DEVICE_CPU;
  d.index = -1;
  return d;
}
/* CUDA device `index` (-1: the current CUDA device). */
static inline tc_device tc_device_cuda(int index) {
  tc_device d;
  d.type = TC_DEVICE_CUDA;
  d.index = (int32_t)index;
  return d;
}

/* ==== the dispatcher ==================================================== */

/** Releases the handles held by output values (tensors and list handles) and
 *  sets each value to TC_VALUE_NONE. Safe on NULL or n == 0. */
TC_API void tc_values_release(tc_value* values, size_t n);

/** Calls any operator by name with boxed arguments, e.g. "add.Tensor",
 *  "sum" (the default overload) or "myops::myadd". Arguments are positional in
 *  schema order; trailing arguments may be left out to take their defaults.
 *  outs receives one value per return (tensors as new references, Tensor[] as
 *  a TC_VALUE_LIST_HANDLE); release them with tc_values_release. *n_outs is set
 *  to the number of returns. Errors: TC_ERROR_NOT_IMPLEMENTED for an unknown
 *  op or a missing kernel; the op's own errors otherwise; TC_ERROR_INVALID_ARGUMENT
 *  when outs_cap is smaller than the number of returns. */
TC_API tc_status tc_op_call(tc_value* outs, size_t outs_cap, size_t* n_outs, const char* op, const tc_value* args,
                            size_t nargs);

/** Defines an operator at run time from its schema, e.g.
 *  "myops::myadd(Tensor self, Tensor other) -> Tensor". Errors:
 *  TC_ERROR_INVALID_ARGUMENT for a malformed schema (the message names the
 *  rule) or a name that is already defined. */
TC_API tc_status tc_library_def(const char* schema);

/** A C function pointer of any signature (cast yours to this type). */
typedef void (*tc_fn_ptr)(void);

/** Registers a kernel with the operator's natural C signature for a dispatch
 *  key (runtime or alias key):
 *     tc_status fn(<outputs>, <arguments in schema order>)
 *  outputs, one per non-aliased return: tc_tensor* (store a new reference),
 *  tc_tensor_list* (Tensor[]), int64_t*, double*, bool*, tc_scalar*;
 *  arguments: tc_tensor (Tensor; Tensor? may be NULL), const tc_tensor* + size_t
 *  (Tensor[]), int64_t, double, bool, tc_scalar, tc_dtype, tc_device,
 *  const char* for required values; const T* for optional values (NULL =
 *  None); const int64_t* + size_t for int[]; tc_generator for Generator?.
 *  Defaults are filled in before the call. The kernel reports failure by
 *  returning a non-OK status after tc_error_set(). The newest registration for
 *  a key wins. Thread-safe. */
TC_API tc_status tc_library_impl(const char* op, tc_dispatch_key key, tc_fn_ptr fn);

/** An opaque view of the call in progress, valid only during a boxed kernel. */
typedef struct tc_dispatch_ctx_s* tc_dispatch_ctx;

/** A boxed kernel: args are borrowed for the call; outs receives one value per
 *  return (new references); set *n_outs. */
typedef tc_status (*tc_boxed_kernel)(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs, tc_value* outs,
                                     size_t outs_cap, size_t* n_outs, void* user_data);

/** Registers a boxed kernel for one operator and key (the newest
 *  registration for a key is the one that runs; older ones stay registered
 *  beneath it and keep their user_data). user_data_free (may be NULL) runs
 *  once, when the registration is dropped; a registration still there at
 *  exit keeps its user_data. On error user_data_free is not called:
 *  user_data stays the caller's. Replacing a kernel or fallback while
 *  another thread is inside it is not supported. */
TC_API tc_status tc_library_impl_boxed(const char* op, tc_dispatch_key key, tc_boxed_kernel fn, void* user_data,
                                       void (*user_data_free)(void*));

/** Registers a boxed fallback for a runtime key: it runs for every operator
 *  that has no kernel of its own for that key. fn == NULL registers a
 *  fallthrough (the key is skipped). A new fallback drops the previous one
 *  for that key, whose user_data_free runs then. Replacing the Tracer
 *  fallback replaces the tracer (tc_trace_* then record nothing). */
TC_API tc_status tc_library_fallback(tc_dispatch_key key, tc_boxed_kernel fn, void* user_data,
                                     void (*user_data_free)(void*));

/** From inside a boxed kernel: calls the next kernel below the current key
 *  with the given arguments. Outputs as in tc_op_call. */
TC_API tc_status tc_dispatch_redispatch(tc_value* outs, size_t outs_cap, size_t* n_outs, tc_dispatch_ctx ctx,
                                        const tc_value* args, size_t nargs);

/** The qualified name ("add.Tensor") and the current key of a call in progress.
 *  The string is owned by tensorc and lives as long as the operator. */
TC_API tc_status tc_dispatch_ctx_info(const char** op_name, tc_dispatch_key* key, tc_dispatch_ctx ctx);

/** Adds (on = true) or removes a key in this thread's included / excluded
 *  key sets, which every dispatch on this thread applies. Removing is blunt:
 *  it also undoes an outer caller's setting; scoped code should use
 *  tc_dispatch_tls_push / tc_dispatch_tls_restore instead. */
TC_API tc_status tc_dispatch_tls_include(tc_dispatch_key key, bool on);
TC_API tc_status tc_dispatch_tls_exclude(tc_dispatch_key key, bool on);

/* ---- autocast (automatic mixed precision) -------------------------------
 * A region per thread and device type: while it is enabled, the ops that
 * ops.yaml gives an autocast policy run in `dtype` (mm, matmul, linear...),
 * in float32 (losses; on CUDA also exp, log, softmax...), or in the widest
 * input dtype (cat, stack...), for tensors on that device type. Regions nest;
 * leaving the outermost one clears the cache of casts of leaf tensors that
 * require grad (weights are cast once per region when cache_enabled). */
typedef struct tc_autocast_state {
  int32_t device_type; /* TC_DEVICE_CPU or TC_DEVICE_CUDA */
  tc_dtype dtype;      /* TC_BFLOAT16 or TC_FLOAT16 */
  bool enabled;        /* false: a region that turns autocast off inside an enabled one */
  bool cache_enabled;
} tc_autocast_state;
/* Enters a region with *state for its device type, on this thread.
 * Errors: TC_ERROR_INVALID_ARGUMENT naming 'state' (NULL, a device type
 * other than CPU and CUDA, a dtype other than float16 and bfloat16). */
TC_API tc_status tc_autocast_push(const tc_autocast_state* state);
/* Leaves the innermost region, which must be of `device_type`. */
TC_API tc_status tc_autocast_pop(int32_t device_type);
/* *out = this thread's autocast state for `device_type` (enabled false outside
 * every region). */
TC_API tc_status tc_autocast_get(tc_autocast_state* out, int32_t device_type);

/* ---- tracing: record, save, load, replay ------------------------------
 * While a thread traces, every op it calls is recorded once (a composite's
 * inner ops are not) into a graph: its inputs (given with tc_trace_input),
 * the tensors it read from outside (parameters if they require grad, else
 * constants, shared with the caller until saved) and each op's outputs.
 * Replaying the graph runs the same ops on new inputs of the same dtypes,
 * shapes and devices. A graph is immutable, may be run by several threads at
 * once, and is freed with tc_graph_release. Tracing is per thread and does
 * not nest. */
typedef struct tc_graph_s* tc_graph;
/* Starts tracing on this thread. Errors: TC_ERROR_INVALID_ARGUMENT if it
 * already traces. */
TC_API tc_status tc_trace_begin(void);
/* Makes t (borrowed) the next input of the graph being traced. Errors:
 * TC_ERROR_INVALID_ARGUMENT when not tracing, for NULL, or for a tensor that
 * is already a value of the trace. */
TC_API tc_status tc_trace_input(tc_tensor t);
/* Ends tracing; *out = a new graph whose outputs are outputs[0..n) (borrowed),
 * with the ops nothing uses dropped (dead code elimination). On error
 * tracing has ended all the same and *out is NULL. */
TC_API tc_status tc_trace_end(tc_graph* out, const tc_tensor* outputs, size_t n_outputs);
/* Ends tracing without a graph (nothing if this thread does not trace). */
TC_API tc_status tc_trace_abort(void);
/* Replays g on inputs[0..n_inputs) (borrowed): outs[0..*n_outs) receive new
 * references, all or none; outs_cap is checked before running. Errors:
 * TC_ERROR_INVALID_ARGUMENT for a wrong input count, or an input whose
 * dtype, shape or device differs from the traced one (naming the input);
 * any error of the ops replayed. */
TC_API tc_status tc_graph_run(tc_tensor* outs, size_t outs_cap, size_t* n_outs, tc_graph g, const tc_tensor* inputs,
                              size_t n_inputs);
/* The graph as text (TorchScript-like IR), snprintf-style. */
TC_API tc_status tc_graph_text(char* buf, size_t capacity, size_t* needed, tc_graph g);
/* The graph in its JSON file format (version 1; docs/architecture.md),
 * snprintf-style. Parameters and constants are saved with their data. */
TC_API tc_status tc_graph_to_json(char* buf, size_t capacity, size_t* needed, tc_graph g);
/* *out = a new graph from the JSON text[0..len). A malformed or hostile file
 * is TC_ERROR_INVALID_ARGUMENT naming the line or the field. */
TC_API tc_status tc_graph_from_json(tc_graph* out, const char* text, size_t len);
TC_API tc_status tc_graph_save(tc_graph g, const char* path);
TC_API tc_status tc_graph_load(tc_graph* out, const char* path);
/* Counts: inputs, outputs, recorded ops, warnings (each may be NULL). */
TC_API tc_status tc_graph_info(size_t* n_inputs, size_t* n_outputs, size_t* n_nodes, size_t* n_warnings, tc_graph g);
/* *message = warning i (valid while g lives): where the trace depends on its
 * example inputs (a value read back, a non-tensor result). */
TC_API tc_status tc_graph_warning(const char** message, tc_graph g, size_t i);
/* Frees g (NULL: nothing). */
TC_API void tc_graph_release(tc_graph g);

/** This thread's included and excluded key sets (bit k: key k), as saved by
 *  tc_dispatch_tls_push. */
typedef struct tc_dispatch_tls_state {
  uint32_t included;
  uint32_t excluded;
} tc_dispatch_tls_state;
/** Adds `include` to this thread's included keys and `exclude` to its
 *  excluded keys (-1: none), for a scope: *saved receives
 *  the sets as they were, which tc_dispatch_tls_restore puts back, so nested
 *  scopes never clear what an outer one set (ExcludeDispatchKeyGuard).
 *  Errors: TC_ERROR_INVALID_ARGUMENT naming 'saved', 'include' or 'exclude'. */
TC_API tc_status tc_dispatch_tls_push(tc_dispatch_tls_state* saved, tc_dispatch_key include, tc_dispatch_key exclude);
/** Makes this thread's key sets `*saved` again (the end of a push's scope). */
TC_API tc_status tc_dispatch_tls_restore(const tc_dispatch_tls_state* saved);

/** Writes the computed dispatch table of an operator (one line per runtime
 *  key, saying where each kernel came from) into buf, snprintf-style: *needed
 *  receives the full length + 1. */
TC_API tc_status tc_op_dump_table(char* buf, size_t capacity, size_t* needed, const char* op);

/** Writes an operator's schema text into buf, snprintf-style. */
TC_API tc_status tc_op_schema(char* buf, size_t capacity, size_t* needed, const char* op);

/** Per-operator, per-key call counters (off by default: they cost an atomic
 *  add per call). */
TC_API void tc_dispatch_set_counting(bool enabled);
TC_API void tc_dispatch_reset_counters(void);
TC_API tc_status tc_op_call_count(int64_t* out, const char* op, tc_dispatch_key key);

/** Makes a list handle from borrowed tensors (for C kernels returning
 *  Tensor[]). The list holds its own references. */
TC_API tc_status tc_tensor_list_create(tc_tensor_list* out, const tc_tensor* tensors, size_t n);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The op surface generated from schema/ops.yaml. */
#include "tensorc_ops.h"

#endif /* TENSORC_H */
