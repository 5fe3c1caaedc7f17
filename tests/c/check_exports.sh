#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Checks that a built libtensorc.so exports only tc_* symbols.
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

offenders=$(printf '%s\n' "$symbols" | grep -v '^tc_' || true)
if [ -n "$offenders" ]; then
  echo "check_exports: $1 exports symbols outside the tc_ namespace:" >&2
  printf '  %s\n' $offenders >&2
  exit 1
fi
echo "check_exports: $(printf '%s\n' "$symbols" | wc -l) symbols, all tc_*"
