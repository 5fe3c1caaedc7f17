// SPDX-License-Identifier: BSD-3-Clause
// tc_device_register_hooks: an out-of-tree backend's C hooks as tensorc's
// DeviceHooks and Allocator for PrivateUse1 (src/privateuse1/ has the
// kernels that use them). A failing hook's status and message come back as
// an Error naming the hook.
#include <memory>
#include <mutex>
#include <vector>

#include "capi/handles.h"
#include "core/allocator.h"
#include "core/device_hooks.h"

namespace {

using tc::Device;
using tc::DeviceType;

class CDeviceHooks final : public tc::DeviceHooks, public tc::Allocator {
 public:
  explicit CDeviceHooks(const tc_device_hooks& h) : h_(h) {}

  int device_count() const override { return h_.device_count; }
  int current_device() const override { return current_; }
  void set_current_device(int index) override {
    TC_CHECK(index >= 0 && index < h_.device_count, Device, "privateuseone: device ", index, " is out of range (",
             h_.device_count, " devices)");
    current_ = index;
  }
  void synchronize(int index) override {
    if (h_.synchronize) check(h_.synchronize(index, h_.user_data), "synchronize");
  }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n, bool) override {
    check(
        h_.copy_bytes(dst, tc::capi::from_device(dst_device), src, tc::capi::from_device(src_device), n, h_.user_data),
        "copy_bytes");
  }

  tc::DataPtr allocate(size_t nbytes) override {
    const Device dev(DeviceType::PrivateUse1, current_);
    if (nbytes == 0) return tc::DataPtr(nullptr, nullptr, nullptr, dev);
    void* p = nullptr;
    check(h_.allocate(&p, current_, nbytes, h_.user_data), "allocate");
    TC_CHECK(p != nullptr, OutOfMemory, "privateuseone: the backend's allocate hook returned NULL for ", nbytes,
             " bytes on device ", current_);
    // One small record per allocation: which hooks release it, on which device.
    auto* owner = new Allocation{this, current_};
    return tc::DataPtr(p, owner, &release, dev);
  }
  Device device() const override { return Device(DeviceType::PrivateUse1, current_); }

 private:
  struct Allocation {
    CDeviceHooks* hooks;
    int index;
  };
  static void release(void* ctx, void* data) {
    auto* a = static_cast<Allocation*>(ctx);
    a->hooks->h_.release(data, a->index, a->hooks->h_.user_data);
    delete a;
  }
  static void check(tc_status st, const char* hook) {
    if (st != TC_OK) tc::capi::throw_callback_status(st, std::string("privateuseone: the backend's ") + hook + " hook");
  }

  tc_device_hooks h_;
  static thread_local int current_;
};

thread_local int CDeviceHooks::current_ = 0;

// Every set of hooks ever registered stays alive: tensors allocated through
// it release through it, however late.
std::vector<std::unique_ptr<CDeviceHooks>>& registered() {
  static auto* all = new std::vector<std::unique_ptr<CDeviceHooks>>;
  return *all;
}

}  // namespace

extern "C" {

TC_API tc_status tc_device_register_hooks(int32_t device_type, const tc_device_hooks* hooks) {
  constexpr const char* fn = "tc_device_register_hooks";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(device_type == TC_DEVICE_PRIVATEUSE1, fn, ": argument 'device_type' expected TC_DEVICE_PRIVATEUSE1 (",
               int(TC_DEVICE_PRIVATEUSE1), "), got ", device_type);
  TC_CAPI_NULL_CHECK(hooks, fn, "hooks");
  TC_CHECK_ARG(hooks->struct_size >= sizeof(tc_device_hooks), fn, ": argument 'hooks' has struct_size ",
               hooks->struct_size, ", expected at least sizeof(tc_device_hooks) = ", sizeof(tc_device_hooks));
  TC_CHECK_ARG(hooks->allocate && hooks->release && hooks->copy_bytes, fn,
               ": argument 'hooks' must set allocate, release and copy_bytes");
  TC_CHECK_ARG(hooks->device_count >= 1, fn, ": argument 'hooks' expected device_count >= 1, got ",
               hooks->device_count);
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  registered().push_back(std::make_unique<CDeviceHooks>(*hooks));
  CDeviceHooks* h = registered().back().get();
  tc::set_allocator(DeviceType::PrivateUse1, h);
  tc::set_device_hooks(DeviceType::PrivateUse1, h);
  TC_CAPI_END(fn)
}

}  // extern "C"
