// SPDX-License-Identifier: BSD-3-Clause
// tc_autocast_*: autocast regions (src/autocast/autocast.h) from C.
#include "autocast/autocast.h"
#include "capi/handles.h"

namespace {

tc::DeviceType autocast_device(int32_t t, const char* fn, const char* arg) {
  TC_CHECK_ARG(t == TC_DEVICE_CPU || t == TC_DEVICE_CUDA, fn, ": argument '", arg, "' has device type ", t,
               " (expected TC_DEVICE_CPU or TC_DEVICE_CUDA)");
  return static_cast<tc::DeviceType>(t);
}

}  // namespace

extern "C" {

TC_API tc_status tc_autocast_push(const tc_autocast_state* state) {
  constexpr const char* fn = "tc_autocast_push";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(state, fn, "state");
  const tc::DeviceType t = autocast_device(state->device_type, fn, "state");
  TC_CHECK_ARG(state->dtype == TC_FLOAT16 || state->dtype == TC_BFLOAT16, fn, ": argument 'state' has dtype code ",
               state->dtype, " (expected TC_FLOAT16 or TC_BFLOAT16)");
  tc::autocast::State s;
  s.enabled = state->enabled;
  s.dtype = static_cast<tc::ScalarType>(state->dtype);
  s.cache_enabled = state->cache_enabled;
  tc::autocast::enter(t, s);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_autocast_pop(int32_t device_type) {
  constexpr const char* fn = "tc_autocast_pop";
  TC_CAPI_BEGIN
  tc::autocast::leave(autocast_device(device_type, fn, "device_type"));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_autocast_get(tc_autocast_state* out, int32_t device_type) {
  constexpr const char* fn = "tc_autocast_get";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  const tc::DeviceType t = autocast_device(device_type, fn, "device_type");
  const tc::autocast::State& s = tc::autocast::state(t);
  out->device_type = device_type;
  out->dtype = tc_dtype(s.dtype);
  out->enabled = s.enabled;
  out->cache_enabled = s.cache_enabled;
  TC_CAPI_END(fn)
}

}  // extern "C"
