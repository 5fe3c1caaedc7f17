// SPDX-License-Identifier: BSD-3-Clause
#include "core/device.h"

namespace tc {

bool is_valid_device_type(int code) { return code == 1 || code == 2 || code == 12; }

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::PrivateUse1: return "privateuseone";
  }
  return "unknown";
}

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (type != DeviceType::CPU && index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace tc
