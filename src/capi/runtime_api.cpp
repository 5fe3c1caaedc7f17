// SPDX-License-Identifier: BSD-3-Clause
// Process-wide runtime settings of the C ABI: the library version and the
// thread budget of parallel kernels.
#include "capi/handles.h"
#include "core/parallel.h"

namespace {

constexpr bool same_text(const char* a, const char* b) {
  for (; *a && *a == *b; ++a, ++b) {}
  return *a == *b;
}
#define TC_STRINGIFY2(x) #x
#define TC_STRINGIFY(x) TC_STRINGIFY2(x)
// The header's version macros must agree with each other and, when the build
// passes it (-DTC_PROJECT_VERSION="x.y.z"), with the build's project version.
static_assert(same_text(TC_VERSION_STRING, TC_STRINGIFY(TC_VERSION_MAJOR) "." TC_STRINGIFY(
                                               TC_VERSION_MINOR) "." TC_STRINGIFY(TC_VERSION_PATCH)),
              "TC_VERSION_STRING disagrees with TC_VERSION_MAJOR/MINOR/PATCH in tensorc.h");
#ifdef TC_PROJECT_VERSION
static_assert(same_text(TC_VERSION_STRING, TC_PROJECT_VERSION),
              "tensorc.h's TC_VERSION_* disagree with the project version in CMakeLists.txt");
#endif

}  // namespace

extern "C" {

TC_API void tc_version(int* major, int* minor, int* patch) {
  if (major) *major = TC_VERSION_MAJOR;
  if (minor) *minor = TC_VERSION_MINOR;
  if (patch) *patch = TC_VERSION_PATCH;
}

TC_API const char* tc_version_string(void) { return TC_VERSION_STRING; }

TC_API tc_status tc_set_num_threads(int n) {
  constexpr const char* fn = "tc_set_num_threads";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(n >= 1, fn, ": argument 'n' expected a thread count >= 1, got ", n);
  tc::set_num_threads(n);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_get_num_threads(int* out) {
  constexpr const char* fn = "tc_get_num_threads";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = tc::get_num_threads();
  TC_CAPI_END(fn)
}

}  // extern "C"
