// SPDX-License-Identifier: BSD-3-Clause
#include "dispatch/tls.h"

namespace tc {

namespace {
thread_local LocalDispatchKeySet t_local_keys;
}

LocalDispatchKeySet& local_dispatch_key_set() { return t_local_keys; }

}  // namespace tc
