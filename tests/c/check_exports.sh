#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Checks that a built libtensorc.so exports only tc_* C symbols and tc:: C++ internals.
# Usage: check_exports.sh path/to/libtensorc.so
# Exit 0 when clean; 1 listing the offending symbols; 2 on a usage error.
set -eu

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: $0 path/to/libtensorc.so" >&2
  exit 2
fi

# Defined dynamic symbols, one name a line. Type 'A' entries are symbol
# version definitions (not code or data), and '@...' version suffixes are
# stripped from names.
symbols=$(nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }')
if [ -z "$symbols" ]; then
  echo "check_exports: $1 exports no symbols at all" >&2
  exit 1
fi

# C symbols must be tc_*; C++ symbols (the internals tensorc's own backend
# libraries link against) must be in namespace tc.
offenders=$(printf '%s\n' "$symbols" | grep -v '^tc_' | c++filt |
  grep -v -e '^tc::' -e '^typeinfo for tc::' -e '^typeinfo name for tc::' -e '^vtable for tc::' || true)
if [ -n "$offenders" ]; then
  echo "check_exports: $1 exports symbols outside the tc_ prefix and the tc:: namespace:" >&2
  printf '%s\n' "$offenders" | sed 's/^/  /' >&2
  exit 1
fi
c_count=$(printf '%s\n' "$symbols" | grep -c '^tc_' || true)
echo "check_exports: $c_count C symbols, all tc_*; $(printf '%s\n' "$symbols" | grep -vc '^tc_' || true) C++ symbols, all tc::"
