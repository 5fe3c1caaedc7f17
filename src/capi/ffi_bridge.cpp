// SPDX-License-Identifier: BSD-3-Clause
#include "capi/ffi_bridge.h"

#include <ffi.h>

#include <deque>
#include <string>
#include <vector>

#include "capi/handles.h"

namespace tc {
namespace {

using schema::Argument;
using schema::BaseType;

// Prepared once per registration.
struct FfiKernel {
  schema::FunctionSchema schema;
  void (*fn)(void);
  ffi_cif cif;
  std::vector<ffi_type*> types;
};

ffi_type* scalar_struct_type() {
  // tc_scalar {int32_t tag; union {bool; int64_t; double} u;} passed by value.
  static ffi_type* elems[] = {&ffi_type_sint32, &ffi_type_sint64, nullptr};
  static ffi_type t = {0, 0, FFI_TYPE_STRUCT, elems};
  return &t;
}
ffi_type* device_struct_type() {
  static ffi_type* elems[] = {&ffi_type_sint32, &ffi_type_sint32, nullptr};
  static ffi_type t = {0, 0, FFI_TYPE_STRUCT, elems};
  return &t;
}

void append_arg_types(const Argument& a, std::vector<ffi_type*>* out) {
  const schema::Type& t = a.type;
  if (t.is_list) {
    out->push_back(&ffi_type_pointer);
    out->push_back(&ffi_type_uint64);
    return;
  }
  if (t.optional && t.base != BaseType::Tensor && t.base != BaseType::Generator) {
    out->push_back(&ffi_type_pointer);
    return;
  }
  switch (t.base) {
    case BaseType::Tensor:
    case BaseType::Generator:
    case BaseType::Str: out->push_back(&ffi_type_pointer); break;
    case BaseType::Int: out->push_back(&ffi_type_sint64); break;
    case BaseType::Float: out->push_back(&ffi_type_double); break;
    case BaseType::Bool: out->push_back(&ffi_type_uint8); break;
    case BaseType::ScalarType: out->push_back(&ffi_type_sint32); break;
    case BaseType::Scalar: out->push_back(scalar_struct_type()); break;
    case BaseType::Device: out->push_back(device_struct_type()); break;
  }
}

// Storage for one call's C values; deque keeps addresses stable.
struct CallFrame {
  std::deque<int64_t> i64;
  std::deque<double> f64;
  std::deque<uint8_t> u8;
  std::deque<int32_t> i32;
  std::deque<void*> ptrs;
  std::deque<uint64_t> u64;
  std::deque<tc_scalar> scalars;
  std::deque<tc_device> devices;
  std::deque<std::vector<tc_tensor>> tensor_arrays;
  std::deque<std::vector<uint8_t>> bool_arrays;
  std::deque<std::vector<int64_t>> int_arrays;
  std::vector<void*> values;  // what libffi reads: addresses of the above
};

void push_ptr(CallFrame& f, const void* p) {
  f.ptrs.push_back(const_cast<void*>(p));
  f.values.push_back(&f.ptrs.back());
}

tc_tensor borrowed(const Tensor& t) { return reinterpret_cast<tc_tensor>(t.impl()); }

void push_arg(CallFrame& f, const Argument& a, const IValue& v, const std::string& op) {
  const schema::Type& t = a.type;
  std::string what = op + ": argument '" + a.name + "'";
  if (t.is_list) {
    if (t.optional && v.is_none()) {
      push_ptr(f, nullptr);
      f.u64.push_back(0);
      f.values.push_back(&f.u64.back());
      return;
    }
    if (t.base == BaseType::Tensor) {
      std::vector<tc_tensor> hs;
      for (const auto& ot : v.to_optional_tensor_list(what.c_str())) hs.push_back(ot ? borrowed(*ot) : nullptr);
      f.tensor_arrays.push_back(std::move(hs));
      push_ptr(f, f.tensor_arrays.back().data());
      f.u64.push_back(f.tensor_arrays.back().size());
    } else if (t.base == BaseType::Bool) {
      const auto& bl = v.to_bool_list(what.c_str());
      f.bool_arrays.emplace_back(bl.begin(), bl.end());
      push_ptr(f, f.bool_arrays.back().data());
      f.u64.push_back(bl.size());
    } else if (t.base == BaseType::Int) {
      IntArrayRef il = v.to_int_list(what.c_str());
      f.int_arrays.emplace_back(il.begin(), il.end());
      push_ptr(f, f.int_arrays.back().data());
      f.u64.push_back(il.size());
    } else {
      TC_FAIL(NotImplemented, what, ": type ", t.str(), " cannot cross the C kernel bridge");
    }
    f.values.push_back(&f.u64.back());
    return;
  }
  bool by_pointer = t.optional && t.base != BaseType::Tensor && t.base != BaseType::Generator;
  if (by_pointer && v.is_none()) return push_ptr(f, nullptr);
  auto place = [&](void* addr) {
    if (by_pointer)
      push_ptr(f, addr);
    else
      f.values.push_back(addr);
  };
  switch (t.base) {
    case BaseType::Tensor:
      if (v.is_none()) return push_ptr(f, nullptr);
      return push_ptr(f, borrowed(v.to_tensor(what.c_str())));
    case BaseType::Generator:
      if (v.is_none()) return push_ptr(f, nullptr);
      return push_ptr(f, v.to_generator(what.c_str()).impl());
    case BaseType::Str: {
      // The string lives in the stack's IValue for the duration of the call.
      const std::string& s = std::get<std::string>(v.variant());
      return push_ptr(f, s.c_str());
    }
    case BaseType::Int: f.i64.push_back(v.to_int(what.c_str())); return place(&f.i64.back());
    case BaseType::Float: f.f64.push_back(v.to_double(what.c_str())); return place(&f.f64.back());
    case BaseType::Bool: f.u8.push_back(v.to_bool(what.c_str())); return place(&f.u8.back());
    case BaseType::ScalarType: f.i32.push_back(int32_t(v.to_scalar_type(what.c_str()))); return place(&f.i32.back());
    case BaseType::Scalar:
      f.scalars.push_back(capi::from_scalar(v.to_scalar(what.c_str())));
      return place(&f.scalars.back());
    case BaseType::Device:
      f.devices.push_back(capi::from_device(v.to_device(what.c_str())));
      return place(&f.devices.back());
  }
}

struct OutSlot {
  enum Kind { TensorOut, ListOut, IntOut, FloatOut, BoolOut, ScalarOut, Aliased } kind;
  tc_tensor tensor = nullptr;
  tc_tensor_list list = nullptr;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  tc_scalar s{};
  void* ptr = nullptr;
};

void boxed_ffi(const OperatorEntry&, DispatchKeySet, Stack* stack, void* ctx) {
  auto* k = static_cast<FfiKernel*>(ctx);
  const auto& sch = k->schema;
  const std::string op = sch.name.qualified();
  TC_CHECK_ARG(stack->size() == sch.arguments.size(), op, ": expected ", sch.arguments.size(), " arguments, got ",
               stack->size());
  CallFrame f;
  std::vector<OutSlot> outs(sch.returns.size());
  for (size_t i = 0; i < sch.returns.size(); ++i) {
    const auto& r = sch.returns[i];
    OutSlot& o = outs[i];
    if (r.annotation && r.annotation->is_write) {
      o.kind = OutSlot::Aliased;
      continue;
    }
    switch (r.type.base) {
      case BaseType::Tensor:
        o.kind = r.type.is_list ? OutSlot::ListOut : OutSlot::TensorOut;
        o.ptr = r.type.is_list ? static_cast<void*>(&o.list) : static_cast<void*>(&o.tensor);
        break;
      case BaseType::Int:
        o.kind = OutSlot::IntOut;
        o.ptr = &o.i;
        break;
      case BaseType::Float:
        o.kind = OutSlot::FloatOut;
        o.ptr = &o.d;
        break;
      case BaseType::Bool:
        o.kind = OutSlot::BoolOut;
        o.ptr = &o.b;
        break;
      case BaseType::Scalar:
        o.kind = OutSlot::ScalarOut;
        o.ptr = &o.s;
        break;
      default: TC_FAIL(NotImplemented, op, ": return type ", r.type.str(), " cannot cross the C kernel bridge");
    }
    push_ptr(f, o.ptr);
  }
  for (size_t i = 0; i < sch.arguments.size(); ++i) push_arg(f, sch.arguments[i], (*stack)[i], op);
  ffi_arg rc = 0;
  ffi_call(&k->cif, k->fn, &rc, f.values.data());
  tc_status status = tc_status(int32_t(rc));
  // Take ownership of every output first, so nothing leaks on error.
  std::vector<IValue> results;
  for (size_t i = 0; i < outs.size(); ++i) {
    OutSlot& o = outs[i];
    switch (o.kind) {
      case OutSlot::TensorOut:
        results.emplace_back(o.tensor ? Tensor(intrusive_ptr<TensorImpl>::adopt(capi::impl_of(o.tensor))) : Tensor());
        break;
      case OutSlot::ListOut: results.emplace_back(capi::take_tensor_list(o.list)); break;
      case OutSlot::IntOut: results.emplace_back(o.i); break;
      case OutSlot::FloatOut: results.emplace_back(o.d); break;
      case OutSlot::BoolOut: results.emplace_back(o.b); break;
      case OutSlot::ScalarOut: results.emplace_back(capi::to_scalar(o.s, op.c_str(), "result")); break;
      case OutSlot::Aliased: {
        // Return the argument with the same alias set.
        const auto& r = sch.returns[i];
        for (size_t a = 0; a < sch.arguments.size(); ++a) {
          const auto& arg = sch.arguments[a];
          if (arg.annotation && arg.annotation->alias_sets == r.annotation->alias_sets) {
            results.push_back((*stack)[a]);
            break;
          }
        }
        break;
      }
    }
  }
  if (status != TC_OK) {
    const char* msg = tc_last_error_message();
    ErrorCode code = status >= 1 && status <= 8 ? ErrorCode(status) : ErrorCode::Runtime;
    throw Error(code, str(op, ": kernel failed: ", msg && *msg ? msg : "(no message)"));
  }
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].kind == OutSlot::TensorOut)
      TC_CHECK(results[i].is_tensor(), Runtime, op, ": kernel returned TC_OK but left output ", i, " NULL");
  stack->clear();
  for (auto& r : results) stack->push_back(std::move(r));
}

}  // namespace

KernelFunction make_ffi_kernel(const schema::FunctionSchema& sch, void (*fn)(void)) {
  auto k = std::make_shared<FfiKernel>();
  k->schema = sch;
  k->fn = fn;
  for (const auto& r : sch.returns) {
    if (r.annotation && r.annotation->is_write) continue;
    k->types.push_back(&ffi_type_pointer);
  }
  for (const auto& a : sch.arguments) append_arg_types(a, &k->types);
  ffi_status st = ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, unsigned(k->types.size()), &ffi_type_sint32, k->types.data());
  TC_CHECK(st == FFI_OK, Internal, sch.name.qualified(), ": libffi could not prepare the call (status ", int(st), ")");
  KernelFunction kf;
  kf.boxed = &boxed_ffi;
  kf.ctx = k.get();
  kf.ctx_owner = k;
  return kf;
}

}  // namespace tc
