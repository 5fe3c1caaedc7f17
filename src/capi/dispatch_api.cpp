// SPDX-License-Identifier: BSD-3-Clause
// The dispatcher through the C ABI: boxed calls by name, operators and kernels
// defined at run time, fallbacks, introspection.
#include <algorithm>
#include <cstring>
#include <deque>

#include "capi/handles.h"
#include "dispatch/boxing.h"
#include "dispatch/dispatcher.h"
#include "capi/ffi_bridge.h"

using namespace tc;

struct tc_dispatch_ctx_s {
  const OperatorEntry* op;
  DispatchKeySet ks;
  DispatchKey key;
};

namespace {

DispatchKey to_key(tc_dispatch_key k, const char* fn, bool allow_alias) {
  int limit = allow_alias ? kNumKeys : kNumRuntimeKeys;
  TC_CHECK_ARG(k >= 0 && k < limit, fn, ": argument 'key' is not a valid ", allow_alias ? "" : "runtime ",
               "dispatch key code (got ", k, ")");
  return DispatchKey(k);
}

IValue to_ivalue(const tc_value& v, const char* fn, size_t i) {
  std::string what = str(fn, ": argument ", i);
  switch (v.tag) {
    case TC_VALUE_NONE: return IValue();
    case TC_VALUE_TENSOR: return v.u.tensor ? IValue(capi::to_tensor(v.u.tensor)) : IValue();
    case TC_VALUE_INT: return IValue(v.u.i);
    case TC_VALUE_FLOAT: return IValue(v.u.f);
    case TC_VALUE_BOOL: return IValue(v.u.b);
    case TC_VALUE_SCALAR: return IValue(capi::to_scalar(v.u.scalar, fn, what.c_str()));
    case TC_VALUE_STRING:
      TC_CHECK_ARG(v.u.str != nullptr, what, " is a NULL string");
      return IValue(std::string(v.u.str));
    case TC_VALUE_INT_LIST:
      TC_CHECK_ARG(v.u.ints.data || !v.u.ints.len, what, " is a NULL int list with non-zero length");
      return IValue(std::vector<int64_t>(v.u.ints.data, v.u.ints.data + v.u.ints.len));
    case TC_VALUE_FLOAT_LIST:
      TC_CHECK_ARG(v.u.floats.data || !v.u.floats.len, what, " is a NULL float list with non-zero length");
      return IValue(std::vector<double>(v.u.floats.data, v.u.floats.data + v.u.floats.len));
    case TC_VALUE_BOOL_LIST:
      TC_CHECK_ARG(v.u.bools.data || !v.u.bools.len, what, " is a NULL bool list with non-zero length");
      return IValue(std::vector<bool>(v.u.bools.data, v.u.bools.data + v.u.bools.len));
    case TC_VALUE_TENSOR_LIST: {
      TC_CHECK_ARG(v.u.tensors.data || !v.u.tensors.len, what, " is a NULL tensor list with non-zero length");
      bool any_null = false;
      for (size_t k = 0; k < v.u.tensors.len; ++k) any_null |= v.u.tensors.data[k] == nullptr;
      if (any_null) return IValue(capi::to_optional_tensor_list(v.u.tensors.data, v.u.tensors.len, fn, what.c_str()));
      return IValue(capi::to_tensor_list(v.u.tensors.data, v.u.tensors.len, fn, what.c_str()));
    }
    case TC_VALUE_DTYPE: return IValue(capi::to_dtype(v.u.dtype, fn, what.c_str()));
    case TC_VALUE_DEVICE: return IValue(capi::to_device(v.u.device, fn, what.c_str()));
    case TC_VALUE_GENERATOR: return v.u.generator ? IValue(capi::to_generator(v.u.generator)) : IValue();
    default: TC_FAIL(Type, what, " has an unknown value tag ", v.tag);
  }
}

// Borrowed view of a stack value for a C kernel (valid while the stack lives).
struct BorrowedValues {
  std::vector<tc_value> values;
  std::deque<std::vector<tc_tensor>> arrays;
  std::deque<std::vector<uint8_t>> bools;
};

tc_tensor borrowed(const Tensor& t) { return reinterpret_cast<tc_tensor>(t.impl()); }

void borrow_stack(const Stack& st, BorrowedValues* out) {
  for (const IValue& v : st) {
    tc_value c{};
    switch (v.tag()) {
      case IValue::Tag::None: c.tag = TC_VALUE_NONE; break;
      case IValue::Tag::Tensor:
        c.tag = TC_VALUE_TENSOR;
        c.u.tensor = borrowed(v.to_tensor());
        break;
      case IValue::Tag::Int:
        c.tag = TC_VALUE_INT;
        c.u.i = v.to_int();
        break;
      case IValue::Tag::Double:
        c.tag = TC_VALUE_FLOAT;
        c.u.f = v.to_double();
        break;
      case IValue::Tag::Bool:
        c.tag = TC_VALUE_BOOL;
        c.u.b = v.to_bool();
        break;
      case IValue::Tag::Scalar:
        c.tag = TC_VALUE_SCALAR;
        c.u.scalar = capi::from_scalar(v.to_scalar());
        break;
      case IValue::Tag::String:
        c.tag = TC_VALUE_STRING;
        c.u.str = std::get<std::string>(v.variant()).c_str();
        break;
      case IValue::Tag::IntList: {
        const auto& l = std::get<std::vector<int64_t>>(v.variant());
        c.tag = TC_VALUE_INT_LIST;
        c.u.ints.data = l.data();
        c.u.ints.len = l.size();
        break;
      }
      case IValue::Tag::DoubleList: {
        const auto& l = v.to_double_list();
        c.tag = TC_VALUE_FLOAT_LIST;
        c.u.floats.data = l.data();
        c.u.floats.len = l.size();
        break;
      }
      case IValue::Tag::BoolList: {
        const auto& l = v.to_bool_list();
        out->bools.emplace_back(l.begin(), l.end());
        c.tag = TC_VALUE_BOOL_LIST;
        c.u.bools.data = reinterpret_cast<const bool*>(out->bools.back().data());
        c.u.bools.len = l.size();
        break;
      }
      case IValue::Tag::TensorList:
      case IValue::Tag::OptionalTensorList: {
        std::vector<tc_tensor> hs;
        for (const auto& t : v.to_optional_tensor_list()) hs.push_back(t ? borrowed(*t) : nullptr);
        out->arrays.push_back(std::move(hs));
        c.tag = TC_VALUE_TENSOR_LIST;
        c.u.tensors.data = out->arrays.back().data();
        c.u.tensors.len = out->arrays.back().size();
        break;
      }
      case IValue::Tag::ScalarType:
        c.tag = TC_VALUE_DTYPE;
        c.u.dtype = tc_dtype(v.to_scalar_type());
        break;
      case IValue::Tag::Device:
        c.tag = TC_VALUE_DEVICE;
        c.u.device = capi::from_device(v.to_device());
        break;
      case IValue::Tag::Generator:
        c.tag = TC_VALUE_GENERATOR;
        c.u.generator = reinterpret_cast<tc_generator>(v.to_generator().impl());
        break;
    }
    out->values.push_back(c);
  }
}

// Moves stack results into C outputs (new references). All or nothing: a
// value that cannot cross releases what was already made.
void export_results(Stack& st, tc_value* outs, size_t cap, size_t* n_outs, const char* fn) {
  TC_CHECK_ARG(st.size() <= cap, fn, ": argument 'outs_cap' (", cap, ") is smaller than the ", st.size(),
               " values the op returns");
  std::vector<tc_value> made;
  made.reserve(st.size());
  struct ReleaseOnThrow {
    std::vector<tc_value>* v;
    ~ReleaseOnThrow() {
      if (v) tc_values_release(v->data(), v->size());
    }
  } guard{&made};
  for (size_t i = 0; i < st.size(); ++i) {
    tc_value c{};
    IValue& v = st[i];
    switch (v.tag()) {
      case IValue::Tag::None: c.tag = TC_VALUE_NONE; break;
      case IValue::Tag::Tensor:
        c.tag = TC_VALUE_TENSOR;
        c.u.tensor = capi::new_handle(v.to_tensor());
        break;
      case IValue::Tag::TensorList: {
        std::vector<Tensor> l = v.to_tensor_list();
        c.tag = TC_VALUE_LIST_HANDLE;
        c.u.list = capi::new_tensor_list(std::move(l));
        break;
      }
      case IValue::Tag::Int:
        c.tag = TC_VALUE_INT;
        c.u.i = v.to_int();
        break;
      case IValue::Tag::Double:
        c.tag = TC_VALUE_FLOAT;
        c.u.f = v.to_double();
        break;
      case IValue::Tag::Bool:
        c.tag = TC_VALUE_BOOL;
        c.u.b = v.to_bool();
        break;
      case IValue::Tag::Scalar:
        c.tag = TC_VALUE_SCALAR;
        c.u.scalar = capi::from_scalar(v.to_scalar());
        break;
      case IValue::Tag::ScalarType:
        c.tag = TC_VALUE_DTYPE;
        c.u.dtype = tc_dtype(v.to_scalar_type());
        break;
      default: TC_FAIL(NotImplemented, fn, ": cannot return a value of type ", v.tag_name(), " through the C ABI");
    }
    made.push_back(c);
  }
  guard.v = nullptr;
  std::copy(made.begin(), made.end(), outs);
  *n_outs = made.size();
}

// Takes ownership of a C kernel's outputs.
void import_results(const tc_value* outs, size_t n, Stack* st) {
  st->clear();
  for (size_t i = 0; i < n; ++i) {
    const tc_value& v = outs[i];
    switch (v.tag) {
      case TC_VALUE_TENSOR:
        st->emplace_back(v.u.tensor ? Tensor(intrusive_ptr<TensorImpl>::adopt(capi::impl_of(v.u.tensor))) : Tensor());
        break;
      case TC_VALUE_LIST_HANDLE: st->emplace_back(capi::take_tensor_list(v.u.list)); break;
      default: st->push_back(to_ivalue(v, "boxed kernel result", i)); break;
    }
  }
}

struct BoxedCKernel {
  BoxedCKernel(tc_boxed_kernel f, void* data, void (*free)(void*)) : fn(f), user_data(data), free_fn(free) {}
  // One owner (the registration's shared_ptr) frees user_data, once: no copies.
  BoxedCKernel(const BoxedCKernel&) = delete;
  BoxedCKernel& operator=(const BoxedCKernel&) = delete;
  ~BoxedCKernel() {
    if (free_fn) free_fn(user_data);
  }
  tc_boxed_kernel fn;
  void* user_data;
  void (*free_fn)(void*);
};

void call_boxed_c(const OperatorEntry& op, DispatchKeySet ks, Stack* stack, void* ctx) {
  auto* k = static_cast<BoxedCKernel*>(ctx);
  const DispatchKey current = op.dispatch_key(ks);  // the key this kernel was chosen for, past fallthroughs
  tc_dispatch_ctx_s dctx{&op, ks, current};
  BorrowedValues args;
  borrow_stack(*stack, &args);
  std::vector<tc_value> outs(op.schema().returns.size() + 4);
  size_t n_outs = 0;
  tc_status st = k->fn(&dctx, args.values.data(), args.values.size(), outs.data(), outs.size(), &n_outs, k->user_data);
  if (st != TC_OK) {
    tc_values_release(outs.data(), n_outs <= outs.size() ? n_outs : outs.size());
    const char* msg = tc_last_error_message();
    ErrorCode code = st >= 1 && st <= 8 ? ErrorCode(st) : ErrorCode::Runtime;
    throw Error(code, str(op.name(), ": kernel failed: ", msg && *msg ? msg : "(no message)"));
  }
  TC_CHECK(n_outs <= outs.size(), Runtime, op.name(), ": boxed kernel reported ", n_outs, " outputs");
  import_results(outs.data(), n_outs, stack);
}

KernelFunction make_boxed_c(tc_boxed_kernel fn, void* user_data, void (*free_fn)(void*)) {
  auto k = std::make_shared<BoxedCKernel>(fn, user_data, free_fn);
  KernelFunction kf;
  kf.boxed = &call_boxed_c;
  kf.ctx = k.get();
  kf.ctx_owner = k;
  return kf;
}

// Registers with `reg`; if that fails, user_data stays the caller's (its
// free function is not called), as the header promises.
template <class Register>
void register_boxed_c(tc_boxed_kernel fn, void* user_data, void (*free_fn)(void*), Register reg) {
  KernelFunction kf = make_boxed_c(fn, user_data, free_fn);
  auto* k = static_cast<BoxedCKernel*>(kf.ctx);
  try {
    reg(std::move(kf));
  } catch (...) {
    k->free_fn = nullptr;
    throw;
  }
}

void run_boxed(tc_value* outs, size_t cap, size_t* n_outs, const OperatorEntry& op, const tc_value* args, size_t nargs,
               const DispatchKeySet* ks, const char* fn) {
  TC_CHECK_ARG(args || nargs == 0, fn, ": argument 'args' is NULL with nargs = ", nargs);
  TC_CHECK_ARG(outs || cap == 0, fn, ": argument 'outs' is NULL with outs_cap = ", cap);
  // Checked before the op runs: an in-place op must not write and then fail.
  const size_t nret = op.schema().returns.size();
  TC_CHECK_ARG(nret <= cap, fn, ": argument 'outs_cap' (", cap, ") is smaller than the ", nret, " values ", op.name(),
               " returns");
  Stack st;
  st.reserve(op.schema().arguments.size());
  for (size_t i = 0; i < nargs; ++i) st.push_back(to_ivalue(args[i], fn, i));
  fill_defaults(op.schema(), &st);
  if (ks)
    op.call_boxed(*ks, &st);
  else
    op.call_boxed(&st);
  export_results(st, outs, cap, n_outs, fn);
}

}  // namespace

extern "C" {

TC_API void tc_values_release(tc_value* values, size_t n) {
  if (!values) return;
  for (size_t i = 0; i < n; ++i) {
    if (values[i].tag == TC_VALUE_TENSOR)
      tc_tensor_release(values[i].u.tensor);
    else if (values[i].tag == TC_VALUE_LIST_HANDLE)
      tc_tensor_list_release(values[i].u.list);
    values[i].tag = TC_VALUE_NONE;
  }
}

TC_API tc_status tc_op_call(tc_value* outs, size_t outs_cap, size_t* n_outs, const char* op, const tc_value* args,
                            size_t nargs) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(n_outs, "tc_op_call", "n_outs");
  *n_outs = 0;
  TC_CAPI_NULL_CHECK(op, "tc_op_call", "op");
  OperatorEntry& entry = Dispatcher::singleton().find_or_throw(op);
  run_boxed(outs, outs_cap, n_outs, entry, args, nargs, nullptr, "tc_op_call");
  TC_CAPI_END("tc_op_call")
}

TC_API tc_status tc_library_def(const char* schema) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(schema, "tc_library_def", "schema");
  Dispatcher::singleton().def(schema, "tc_library_def");
  TC_CAPI_END("tc_library_def")
}

TC_API tc_status tc_library_impl(const char* op, tc_dispatch_key key, tc_fn_ptr fn) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(op, "tc_library_impl", "op");
  TC_CAPI_NULL_CHECK(fn, "tc_library_impl", "fn");
  DispatchKey k = to_key(key, "tc_library_impl", true);
  Dispatcher& d = Dispatcher::singleton();
  OperatorEntry& entry = d.find_or_throw(op);
  d.register_kernel(entry, k, make_ffi_kernel(entry.schema(), fn), "C kernel via tc_library_impl");
  TC_CAPI_END("tc_library_impl")
}

TC_API tc_status tc_library_impl_boxed(const char* op, tc_dispatch_key key, tc_boxed_kernel fn, void* user_data,
                                       void (*user_data_free)(void*)) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(op, "tc_library_impl_boxed", "op");
  TC_CAPI_NULL_CHECK(fn, "tc_library_impl_boxed", "fn");
  DispatchKey k = to_key(key, "tc_library_impl_boxed", true);
  Dispatcher& d = Dispatcher::singleton();
  OperatorEntry& entry = d.find_or_throw(op);
  register_boxed_c(fn, user_data, user_data_free, [&](KernelFunction kf) {
    d.register_kernel(entry, k, std::move(kf), "boxed C kernel via tc_library_impl_boxed");
  });
  TC_CAPI_END("tc_library_impl_boxed")
}

TC_API tc_status tc_library_fallback(tc_dispatch_key key, tc_boxed_kernel fn, void* user_data,
                                     void (*user_data_free)(void*)) {
  TC_CAPI_BEGIN
  DispatchKey k = to_key(key, "tc_library_fallback", false);
  if (!fn) {
    Dispatcher::singleton().register_fallback(k, KernelFunction::make_fallthrough(), "fallthrough");
  } else {
    register_boxed_c(fn, user_data, user_data_free, [&](KernelFunction kf) {
      Dispatcher::singleton().register_fallback(k, std::move(kf), "boxed C fallback");
    });
  }
  TC_CAPI_END("tc_library_fallback")
}

TC_API tc_status tc_dispatch_redispatch(tc_value* outs, size_t outs_cap, size_t* n_outs, tc_dispatch_ctx ctx,
                                        const tc_value* args, size_t nargs) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(n_outs, "tc_dispatch_redispatch", "n_outs");
  *n_outs = 0;
  TC_CAPI_NULL_CHECK(ctx, "tc_dispatch_redispatch", "ctx");
  // Every key at or above the current one is done.
  uint32_t below = (uint32_t(1) << uint8_t(ctx->key)) - 1;
  DispatchKeySet ks = ctx->ks & DispatchKeySet::from_bits(below);
  run_boxed(outs, outs_cap, n_outs, *ctx->op, args, nargs, &ks, "tc_dispatch_redispatch");
  TC_CAPI_END("tc_dispatch_redispatch")
}

TC_API tc_status tc_dispatch_ctx_info(const char** op_name, tc_dispatch_key* key, tc_dispatch_ctx ctx) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(ctx, "tc_dispatch_ctx_info", "ctx");
  if (op_name) *op_name = ctx->op->name().c_str();
  if (key) *key = tc_dispatch_key(ctx->key);
  TC_CAPI_END("tc_dispatch_ctx_info")
}

TC_API tc_status tc_dispatch_tls_include(tc_dispatch_key key, bool on) {
  TC_CAPI_BEGIN
  DispatchKey k = to_key(key, "tc_dispatch_tls_include", false);
  auto& l = local_dispatch_key_set();
  l.included = on ? l.included.add(k) : l.included.remove(k);
  TC_CAPI_END("tc_dispatch_tls_include")
}

TC_API tc_status tc_dispatch_tls_exclude(tc_dispatch_key key, bool on) {
  TC_CAPI_BEGIN
  DispatchKey k = to_key(key, "tc_dispatch_tls_exclude", false);
  auto& l = local_dispatch_key_set();
  l.excluded = on ? l.excluded.add(k) : l.excluded.remove(k);
  TC_CAPI_END("tc_dispatch_tls_exclude")
}

TC_API tc_status tc_dispatch_tls_push(tc_dispatch_tls_state* saved, tc_dispatch_key include, tc_dispatch_key exclude) {
  constexpr const char* fn = "tc_dispatch_tls_push";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(saved, fn, "saved");
  TC_CHECK_ARG(include >= -1 && include < kNumRuntimeKeys, fn,
               ": argument 'include' is not a runtime dispatch key code or -1 (got ", include, ")");
  TC_CHECK_ARG(exclude >= -1 && exclude < kNumRuntimeKeys, fn,
               ": argument 'exclude' is not a runtime dispatch key code or -1 (got ", exclude, ")");
  auto& l = local_dispatch_key_set();
  saved->included = l.included.bits();
  saved->excluded = l.excluded.bits();
  if (include >= 0) l.included = l.included.add(DispatchKey(include));
  if (exclude >= 0) l.excluded = l.excluded.add(DispatchKey(exclude));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_dispatch_tls_restore(const tc_dispatch_tls_state* saved) {
  constexpr const char* fn = "tc_dispatch_tls_restore";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(saved, fn, "saved");
  const uint32_t all = (uint32_t(1) << kNumRuntimeKeys) - 1;
  TC_CHECK_ARG((saved->included & ~all) == 0 && (saved->excluded & ~all) == 0, fn,
               ": argument 'saved' holds bits that are no runtime dispatch key (not from tc_dispatch_tls_push?)");
  auto& l = local_dispatch_key_set();
  l.included = DispatchKeySet::from_bits(saved->included);
  l.excluded = DispatchKeySet::from_bits(saved->excluded);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_op_dump_table(char* buf, size_t capacity, size_t* needed, const char* op) {
  TC_CAPI_BEGIN
  TC_CHECK_ARG(buf || capacity == 0, "tc_op_dump_table: argument 'buf' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(op, "tc_op_dump_table", "op");
  tc::capi::write_string(buf, capacity, needed, Dispatcher::singleton().find_or_throw(op).dump_table(),
                         "tc_op_dump_table");
  TC_CAPI_END("tc_op_dump_table")
}

TC_API tc_status tc_op_schema(char* buf, size_t capacity, size_t* needed, const char* op) {
  TC_CAPI_BEGIN
  TC_CHECK_ARG(buf || capacity == 0, "tc_op_schema: argument 'buf' is NULL but 'capacity' is ", capacity);
  TC_CAPI_NULL_CHECK(op, "tc_op_schema", "op");
  tc::capi::write_string(buf, capacity, needed, Dispatcher::singleton().find_or_throw(op).schema().str(),
                         "tc_op_schema");
  TC_CAPI_END("tc_op_schema")
}

TC_API void tc_dispatch_set_counting(bool enabled) { g_dispatch_counting.store(enabled); }

TC_API void tc_dispatch_reset_counters(void) {
  try {
    Dispatcher::singleton().reset_counters();
  } catch (...) {}
}

TC_API tc_status tc_op_call_count(int64_t* out, const char* op, tc_dispatch_key key) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, "tc_op_call_count", "out");
  TC_CAPI_NULL_CHECK(op, "tc_op_call_count", "op");
  DispatchKey k = to_key(key, "tc_op_call_count", false);
  *out = Dispatcher::singleton().find_or_throw(op).call_count(k);
  TC_CAPI_END("tc_op_call_count")
}

TC_API tc_status tc_tensor_list_create(tc_tensor_list* out, const tc_tensor* tensors, size_t n) {
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, "tc_tensor_list_create", "out");
  *out = nullptr;
  *out = capi::new_tensor_list(capi::to_tensor_list(tensors, n, "tc_tensor_list_create", "tensors"));
  TC_CAPI_END("tc_tensor_list_create")
}

}  // extern "C"
