// SPDX-License-Identifier: BSD-3-Clause
// Reads typed values off a fuzzer's byte string; past the end every read
// gives zero, so a short input is still a valid (small) program.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace tc_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return i_ >= n_; }
  uint8_t byte() { return i_ < n_ ? p_[i_++] : 0; }
  uint16_t u16() { return uint16_t(byte() | (byte() << 8)); }
  int64_t i64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t(byte()) << (8 * k);
    return int64_t(v);
  }
  double f64() {
    const int64_t bits = i64();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  // Mostly small integers (where ops are exercised), sometimes the int64
  // extremes and powers that overflow sizes (where checks are).
  int64_t small_or_extreme() {
    const uint8_t b = byte();
    if (b < 224) return int64_t(int8_t(b)) % 9;
    static const int64_t kEdges[] = {
        INT64_MIN, INT64_MAX, -(int64_t(1) << 62), int64_t(1) << 62, (int64_t(1) << 62) - 8, INT64_MAX / 3, -1, 0};
    return kEdges[b % 8];
  }
  // Mostly plain values, sometimes inf, nan, huge or tiny ones.
  double number() {
    const uint8_t b = byte();
    if (b < 200) return double(int8_t(byte())) / 4.0;
    static const double kEdges[] = {1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 1e308, -1e308, 5e-324, -0.0, 9.3e18};
    return kEdges[b % 8];
  }
  // The rest of the input up to a NUL (or its end).
  std::string cstring() {
    std::string s;
    while (i_ < n_ && p_[i_] != 0) s.push_back(char(p_[i_++]));
    if (i_ < n_) ++i_;
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_, i_ = 0;
};

}  // namespace tc_fuzz
