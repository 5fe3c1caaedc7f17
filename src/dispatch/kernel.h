// SPDX-License-Identifier: BSD-3-Clause
// A kernel as the dispatcher stores it: an unboxed function pointer (natural
// C++ signature, cast back by generated code), a boxed one (takes a Stack), or
// both; or the fallthrough marker ("skip this key"). A kernel that passes the
// call on to the keys below its own (Autograd) is unboxed with the call's key
// set as an extra first parameter (`unboxed_ks`), so it can redispatch without
// recomputing it.
#pragma once
#include <memory>
#include <string>

#include "core/dispatch_key.h"
#include "dispatch/ivalue.h"

namespace tc {

class OperatorEntry;
using BoxedKernelFn = void (*)(const OperatorEntry& op, DispatchKeySet ks, Stack* stack, void* ctx);

struct KernelFunction {
  void* unboxed = nullptr;     // R (*)(Args...)
  void* unboxed_ks = nullptr;  // R (*)(DispatchKeySet, Args...); takes precedence over `unboxed`
  BoxedKernelFn boxed = nullptr;
  void* ctx = nullptr;              // passed to `boxed`
  std::shared_ptr<void> ctx_owner;  // keeps ctx alive (C-registered kernels)
  bool fallthrough = false;

  bool valid() const { return unboxed || unboxed_ks || boxed || fallthrough; }
  static KernelFunction make_fallthrough() {
    KernelFunction k;
    k.fallthrough = true;
    return k;
  }
};

}  // namespace tc
