// SPDX-License-Identifier: BSD-3-Clause
#include "autocast/autocast.h"

#include <map>
#include <utility>

#include "tracer/tracer.h"
#include "autograd/variable.h"
#include "core/error.h"
#include "dispatch/tls.h"
#include "tensorc_gen/ops.h"

namespace tc::autocast {
namespace {

int slot(DeviceType t, const char* what) {
  TC_CHECK_ARG(t == DeviceType::CPU || t == DeviceType::CUDA, what,
               ": autocast is for cpu and cuda only, got device type ", device_type_name(t));
  return t == DeviceType::CPU ? 0 : 1;
}

struct ThreadState {
  State current[2];
  std::vector<std::pair<int, State>> saved;  // (slot, state before the region)
  // Casts of leaf tensors that require grad: (tensor, dtype) -> the cast.
  std::map<std::pair<const void*, ScalarType>, std::pair<Tensor, Tensor>> cache;
};

ThreadState& local() {
  thread_local ThreadState s;
  return s;
}

// The Autocast key is included while any device type's region is on.
void sync_key(const ThreadState& s) {
  auto& l = local_dispatch_key_set();
  const bool on = s.current[0].enabled || s.current[1].enabled;
  l.included = on ? l.included.add(DispatchKey::Autocast) : l.included.remove(DispatchKey::Autocast);
}

}  // namespace

bool eligible(const Tensor& t, DeviceType d) {
  return t.defined() && is_floating(t.dtype()) && t.dtype() != ScalarType::Float64 && t.device().type == d;
}

const State& state(DeviceType t) {
  static const State off;
  if (t != DeviceType::CPU && t != DeviceType::CUDA) return off;
  return local().current[t == DeviceType::CPU ? 0 : 1];
}

void enter(DeviceType t, const State& s) {
  const int k = slot(t, "autocast");
  TC_CHECK_ARG(s.dtype == ScalarType::Float16 || s.dtype == ScalarType::BFloat16,
               "autocast: argument 'dtype' expected float16 or bfloat16, got ", s.dtype);
  ThreadState& ts = local();
  ts.saved.emplace_back(k, ts.current[k]);
  ts.current[k] = s;
  sync_key(ts);
}

void leave(DeviceType t) {
  const int k = slot(t, "autocast");
  ThreadState& ts = local();
  TC_CHECK_ARG(!ts.saved.empty() && ts.saved.back().first == k, "autocast: leaving a ", device_type_name(t),
               " region that was not the last one entered on this thread");
  ts.current[k] = ts.saved.back().second;
  ts.saved.pop_back();
  if (ts.saved.empty()) ts.cache.clear();
  sync_key(ts);
}

int64_t cache_size() { return int64_t(local().cache.size()); }

Tensor cast(const Tensor& t, ScalarType to, DeviceType d) {
  if (!eligible(t, d) || t.dtype() == to) return t;
  ThreadState& ts = local();
  // Not while tracing: a cached cast comes back without an op, and the trace
  // would capture the stale copy instead of recording the cast of the weight.
  const bool cache = state(d).cache_enabled && t.requires_grad() && autograd::is_leaf(t) && !tracer::is_tracing();
  if (!cache) return tc::_to_copy(t, to);
  const auto key = std::make_pair(static_cast<const void*>(t.impl()), to);
  auto it = ts.cache.find(key);
  if (it != ts.cache.end()) return it->second.second;
  Tensor c = tc::_to_copy(t, to);
  ts.cache.emplace(key, std::make_pair(t, c));  // keeps t alive, so its address is not reused
  return c;
}

std::optional<Tensor> cast(const std::optional<Tensor>& t, ScalarType to, DeviceType d) {
  if (!t) return t;
  return cast(*t, to, d);
}

std::vector<Tensor> cast(const std::vector<Tensor>& ts, ScalarType to, DeviceType d) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cast(t, to, d));
  return out;
}

std::vector<std::optional<Tensor>> cast(const std::vector<std::optional<Tensor>>& ts, ScalarType to, DeviceType d) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(cast(t, to, d));
  return out;
}

void Widest::see(const Tensor& t) {
  if (!t.defined() || !is_floating(t.dtype()) || t.device().type != device) return;
  dtype = dtype ? promote_types(*dtype, t.dtype()) : t.dtype();
}

}  // namespace tc::autocast
