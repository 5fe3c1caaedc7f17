// SPDX-License-Identifier: BSD-3-Clause
#include "dispatch/operator_entry.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "core/device_hooks.h"
#include "dispatch/device_check.h"
#include "dispatch/dispatcher.h"

namespace tc {

std::atomic<bool> g_dispatch_counting{false};

OperatorEntry::OperatorEntry(schema::FunctionSchema schema, std::string debug)
    : schema_(std::move(schema)), name_(schema_.name.qualified()), debug_(std::move(debug)) {}

const KernelFunction& OperatorEntry::lookup_slow(DispatchKeySet ks) const {
  const DispatchKey k = (ks - DispatchKeySet::from_bits(fallthrough_mask_)).highest();
  if (k == DispatchKey::CUDA) {
    // The first CUDA call loads the backend, which registers its kernels.
    std::string why;
    if (!load_backend(DeviceType::CUDA, &why)) TC_FAIL(Device, name_, ": cuda is not available: ", why);
    if (table_[uint8_t(k)].valid()) return table_[uint8_t(k)];
  }
  missing(ks);
}

void OperatorEntry::missing(DispatchKeySet ks) const {
  DispatchKey k = (ks - DispatchKeySet::from_bits(fallthrough_mask_)).highest();
  if (k == DispatchKey::Undefined)
    TC_FAIL(NotImplemented, name_, ": no kernel to run: every dispatch key of the call was skipped or excluded");
  TC_FAIL(NotImplemented, name_, ": no kernel for dispatch key ", dispatch_key_name(k),
          " (the op has no kernel registered for it, no composite kernel and no fallback)");
}

void OperatorEntry::call_boxed(Stack* stack) const {
  const auto& args = schema_.arguments;
  const size_t n = std::min(args.size(), stack->size());
  DeviceCheck check(name_.c_str());
  KernelDevice device;  // what the guard makes current: self's first, as the generated functions
  auto see = [&](const char* arg, const Tensor& t) {
    if (!t.defined()) return;
    if (device_check_) check.add(arg, t);
  };
  for (size_t i = 0; i < n; ++i) {
    const IValue& v = (*stack)[i];
    if (args[i].name == "self" && v.is_tensor()) device.see(v.to_tensor());
  }
  for (size_t i = 0; i < n; ++i) {
    const IValue& v = (*stack)[i];
    const char* arg = args[i].name.c_str();
    switch (v.tag()) {
      case IValue::Tag::Tensor:
        see(arg, v.to_tensor());
        device.see(v.to_tensor());
        break;
      case IValue::Tag::TensorList:
        for (const Tensor& t : v.to_tensor_list()) see(arg, t);
        device.see(v.to_tensor_list());
        break;
      case IValue::Tag::OptionalTensorList:
        for (const auto& t : v.to_optional_tensor_list())
          if (t) see(arg, *t);
        device.see(v.to_optional_tensor_list());
        break;
      default: break;
    }
  }
  for (size_t i = 0; i < n; ++i)
    if ((*stack)[i].tag() == IValue::Tag::Device) device.see((*stack)[i].to_device());
  const DeviceGuard guard(device_guard_ ? device.get() : Device(DeviceType::CPU));
  call_boxed(mask_tls(key_set_of_stack(*stack, stack->size())), stack);
}

void OperatorEntry::call_boxed(DispatchKeySet ks, Stack* stack) const {
  if (ks.empty()) ks = DispatchKeySet(DispatchKey::CPU);  // factories with no device argument
  const KernelFunction& k = lookup(ks);
  TC_CHECK(k.boxed != nullptr, NotImplemented, name_, ": the selected kernel has no boxed form");
  k.boxed(*this, ks, stack, k.ctx);
}

void OperatorEntry::reset_counters() {
  for (auto& c : counters_) c.store(0, std::memory_order_relaxed);
}

void OperatorEntry::recompute(const std::array<std::pair<KernelFunction, std::string>, kNumRuntimeKeys>& fallbacks) {
  auto reg = [&](DispatchKey k) -> const Registration* {
    const auto& l = registered_[uint8_t(k)];
    return l.empty() ? nullptr : &l.front();
  };
  const Registration* explicit_ = reg(DispatchKey::CompositeExplicitAutograd);
  const Registration* implicit_ = reg(DispatchKey::CompositeImplicitAutograd);
  bool has_backend_kernel = reg(DispatchKey::CPU) || reg(DispatchKey::CUDA) || reg(DispatchKey::PrivateUse1);
  fallthrough_mask_ = 0;
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    DispatchKey k = DispatchKey(i);
    KernelFunction chosen;
    std::string source;
    if (const Registration* r = reg(k)) {
      chosen = r->fn;
      source = "kernel registered for " + std::string(dispatch_key_name(k)) + " (" + r->debug + ")";
    } else if (is_backend_key(k) && explicit_) {
      chosen = explicit_->fn;
      source = "CompositeExplicitAutograd kernel (" + explicit_->debug + ")";
    } else if ((is_backend_key(k) || (k == DispatchKey::Autograd && !has_backend_kernel && !explicit_)) && implicit_) {
      chosen = implicit_->fn;
      source = "CompositeImplicitAutograd kernel (" + implicit_->debug + ")";
    } else if (fallbacks[size_t(i)].first.valid()) {
      chosen = fallbacks[size_t(i)].first;
      source = "backend fallback for " + std::string(dispatch_key_name(k)) + " (" + fallbacks[size_t(i)].second + ")";
    } else {
      source = "missing";
    }
    if (chosen.fallthrough) {
      fallthrough_mask_ |= 1u << i;
      source = "fallthrough: " + source;
    }
    table_[size_t(i)] = chosen;
    table_source_[size_t(i)] = source;
  }
}

std::string OperatorEntry::dump_table() const {
  std::ostringstream os;
  os << name_ << ": " << schema_.str() << "\n";
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    os << "  " << dispatch_key_name(DispatchKey(i)) << ": " << table_source_[size_t(i)] << "\n";
  return os.str();
}

}  // namespace tc
