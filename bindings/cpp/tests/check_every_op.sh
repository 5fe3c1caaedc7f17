#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every generated C entry point (tensorc_ops.h) is called by the C++ wrapper's
# generated op surface (tensorc_ops.hpp): no op is missing from the wrapper.
set -euo pipefail
GEN=$1  # the generated include dir
c_ops=$(grep -oE '^TC_API tc_status tc_[A-Za-z0-9_]+\(' "$GEN/tensorc_ops.h" | sed -E 's/^TC_API tc_status //; s/\($//' | sort -u)
cpp_calls=$(grep -oE 'detail::check\(tc_[A-Za-z0-9_]+\(' "$GEN/tensorc_ops.hpp" | sed -E 's/^detail::check\(//; s/\($//' | sort -u)
missing=$(comm -23 <(echo "$c_ops") <(echo "$cpp_calls"))
n=$(echo "$c_ops" | wc -l)
if [[ -n $missing ]]; then
  echo "C entry points without a C++ wrapper function:"
  echo "$missing"
  exit 1
fi
[[ $n -gt 300 ]] || { echo "only $n C entry points found in $GEN/tensorc_ops.h: wrong file?"; exit 1; }
echo "all $n generated C entry points are wrapped in tensorc_ops.hpp"
