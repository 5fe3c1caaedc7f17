// SPDX-License-Identifier: BSD-3-Clause
// Device = (type, index). Type codes equal DLPack's DLDeviceType values.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace tc {

enum class DeviceType : int16_t {
  CPU = 1,           // kDLCPU
  CUDA = 2,          // kDLCUDA
  PrivateUse1 = 12,  // kDLExtDev: the out-of-tree backend
};

struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = -1;  // -1: the current device of that type (CPU ignores it)

  Device() = default;
  Device(DeviceType t, int idx = -1) : type(t), index(idx) {}
  bool operator==(const Device& o) const { return type == o.type && (type == DeviceType::CPU || index == o.index); }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;  // "cpu", "cuda:0", "privateuseone:0"
};

bool is_valid_device_type(int code);
const char* device_type_name(DeviceType t);
inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace tc
