#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The C/C++ sources match .clang-format (the Rust crate's rustfmt check is
# the rust_fmt ctest). Prints the files that differ; fix with
#   git ls-files '*.c' '*.cpp' '*.h' '*.hpp' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' | grep -v '^fuzz/corpus/')
else
  mapfile -t files < <(find src include tests bindings schema fuzz bench examples \
    \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print)
fi
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not clang-formatted: $f"
    status=1
  fi
done
exit $status
