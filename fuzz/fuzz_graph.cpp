// SPDX-License-Identifier: BSD-3-Clause
// The traced-graph loader on arbitrary bytes: every input is refused with a
// status or loads; a loaded graph prints, saves and loads again to the same
// text. Any crash, sanitizer report, leak or exception escaping the C ABI is
// a finding. (Loaded graphs are not run: their ops may ask for any size.)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tensorc.h"

namespace {

std::string read(tc_status (*fn)(char*, size_t, size_t*, tc_graph), tc_graph g) {
  size_t needed = 0;
  if (fn(nullptr, 0, &needed, g) != TC_OK) std::abort();
  std::string s(needed + 1, '\0');
  if (fn(s.data(), s.size(), &needed, g) != TC_OK) std::abort();
  s.resize(needed);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tc_graph g = nullptr;
  if (tc_graph_from_json(&g, reinterpret_cast<const char*>(data), size) != TC_OK) {
    if (g) std::abort();  // a refused file leaves no graph
    return 0;
  }
  const std::string text = read(tc_graph_text, g);
  const std::string json = read(tc_graph_to_json, g);
  tc_graph again = nullptr;
  if (tc_graph_from_json(&again, json.data(), json.size()) != TC_OK) {
    std::fprintf(stderr, "a saved graph does not load: %s\n", tc_last_error_message());
    std::abort();
  }
  if (read(tc_graph_text, again) != text) {
    std::fprintf(stderr, "a graph does not round-trip:\n%s\n", text.c_str());
    std::abort();
  }
  tc_graph_release(again);
  tc_graph_release(g);
  return 0;
}
