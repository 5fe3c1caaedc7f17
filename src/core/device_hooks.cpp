// SPDX-License-Identifier: BSD-3-Clause
// The device-hook registry and the loader of backend libraries.
//
// The CUDA backend is libtensorc_cuda.so. libtensorc.so never links the CUDA
// runtime: the first CUDA use dlopens the backend library, which checks the
// driver and the devices and only then registers its kernels, allocator and
// hooks. Whatever goes wrong (no library, no driver, a driver too old, no
// device) is remembered and reported by every later CUDA call as
// Error(Device) with the reason; nothing aborts.
#include "core/device_hooks.h"

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "core/error.h"

namespace tc {
namespace {

constexpr size_t kNumTypeCodes = 16;  // DLPack device type codes in use stay below this

std::array<std::atomic<DeviceHooks*>, kNumTypeCodes>& hooks_table() {
  static std::array<std::atomic<DeviceHooks*>, kNumTypeCodes> table{};
  return table;
}

size_t slot(DeviceType t) {
  const size_t s = size_t(t);
  TC_INTERNAL_ASSERT(s < kNumTypeCodes, "device type code ", s);
  return s;
}

// What a backend library exports: checks its driver and devices and, when
// they are usable, registers itself; otherwise returns nonzero with the
// reason in why. `version` is libtensorc's, which the library must match.
using BackendInit = int (*)(const char* version, char* why, size_t why_cap);
constexpr const char* kBackendInitSymbol = "tc_backend_init";

struct LoadState {
  std::once_flag once;
  bool ok = false;
  std::string why;
};

// The directory this library was loaded from ("" when unknown).
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_backend), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

void load_cuda(LoadState& s) {
  std::string path;
  if (const char* env = std::getenv("TC_CUDA_LIBRARY"); env && *env) {
    path = env;
  } else {
    path = own_directory() + "libtensorc_cuda.so";
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr && std::getenv("TC_CUDA_LIBRARY") == nullptr) {
    // Not beside libtensorc.so (a static link, an unusual install): the loader's search path.
    handle = dlopen("libtensorc_cuda.so", RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    const char* err = dlerror();
    s.why = str("the CUDA backend library could not be loaded (", err ? err : path,
                "); tensorc was built without CUDA or libtensorc_cuda.so is not installed beside libtensorc.so");
    return;
  }
  auto init = reinterpret_cast<BackendInit>(dlsym(handle, kBackendInitSymbol));
  if (init == nullptr) {
    s.why = str(path, " has no ", kBackendInitSymbol, ": not a tensorc backend library");
    dlclose(handle);
    return;
  }
  char why[512] = {0};
#ifdef TC_PROJECT_VERSION
  const char* version = TC_PROJECT_VERSION;
#else
  const char* version = "";
#endif
  if (init(version, why, sizeof why) != 0) {
    // Kept loaded: an init that failed late may have registered something.
    s.why = why[0] ? why : "the CUDA backend failed to initialise";
    return;
  }
  s.ok = true;  // registered: the library stays loaded for the process's life
}

LoadState& state_of(DeviceType t) {
  static std::array<LoadState, kNumTypeCodes> states;
  return states[slot(t)];
}

}  // namespace

bool load_backend(DeviceType t, std::string* why) {
  LoadState& s = state_of(t);
  if (t == DeviceType::CUDA) {
    std::call_once(s.once, [&s] { load_cuda(s); });
    if (!s.ok && why) *why = s.why;
    return s.ok;
  }
  if (t == DeviceType::CPU) return true;
  const bool ok = hooks_table()[slot(t)].load(std::memory_order_acquire) != nullptr;
  if (!ok && why)
    *why = str("no backend has registered itself for device type ", device_type_name(t),
               " (load the backend's library first)");
  return ok;
}

DeviceHooks* try_device_hooks(DeviceType t, std::string* why) {
  if (t == DeviceType::CPU) {
    if (why) *why = "the CPU has no device hooks";
    return nullptr;
  }
  if (!load_backend(t, why)) return nullptr;
  DeviceHooks* h = hooks_table()[slot(t)].load(std::memory_order_acquire);
  if (h == nullptr && why) *why = str("the ", device_type_name(t), " backend registered no device hooks");
  return h;
}

DeviceHooks& device_hooks(DeviceType t, const char* what) {
  std::string why;
  DeviceHooks* h = try_device_hooks(t, &why);
  if (h == nullptr) TC_FAIL(Device, what, ": ", device_type_name(t), " is not available: ", why);
  return *h;
}

void set_device_hooks(DeviceType t, DeviceHooks* hooks) {
  TC_CHECK(t != DeviceType::CPU, InvalidArgument, "set_device_hooks: the CPU takes no device hooks");
  hooks_table()[slot(t)].store(hooks, std::memory_order_release);
}

int resolve_device_index(DeviceType t, int index, const char* what) {
  if (t == DeviceType::CPU) return -1;
  DeviceHooks& h = device_hooks(t, what);
  if (index < 0) return h.current_device();
  const int n = h.device_count();
  TC_CHECK(index < n, Device, what, ": device ", device_type_name(t), ":", index, " is out of range (",
           n == 1 ? "there is 1 device" : str("there are ", n, " devices"), ")");
  return index;
}

}  // namespace tc
