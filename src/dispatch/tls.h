// SPDX-License-Identifier: BSD-3-Clause
// Thread-local dispatch state: keys forced on (included) or off (excluded)
// for every call on this thread, with RAII guards. A kernel that has done its
// part excludes its key and redispatches.
#pragma once
#include "core/dispatch_key.h"

namespace tc {

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

LocalDispatchKeySet& local_dispatch_key_set();

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet ks) : saved_(local_dispatch_key_set().excluded) {
    local_dispatch_key_set().excluded = saved_ | ks;
  }
  explicit ExcludeDispatchKeyGuard(DispatchKey k) : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~ExcludeDispatchKeyGuard() { local_dispatch_key_set().excluded = saved_; }
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet ks) : saved_(local_dispatch_key_set().included) {
    local_dispatch_key_set().included = saved_ | ks;
  }
  explicit IncludeDispatchKeyGuard(DispatchKey k) : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~IncludeDispatchKeyGuard() { local_dispatch_key_set().included = saved_; }
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

}  // namespace tc
