#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every source file carries an SPDX licence line in its first lines.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./build\* -prune -o -type f -print | sed 's|^\./||')
fi
missing=0
for f in "${files[@]}"; do
  case "$f" in
    fuzz/corpus/*) continue ;;
    *.c|*.cpp|*.h|*.hpp|*.cu|*.rs|*.py|*.i|*.sh|*.cmake|*.yaml|*.toml|CMakeLists.txt|*/CMakeLists.txt) ;;
    *) continue ;;
  esac
  [[ -f $f ]] || continue
  if ! head -n 3 "$f" | grep -q "SPDX-License-Identifier: BSD-3-Clause"; then
    echo "no SPDX line: $f"
    missing=1
  fi
done
exit $missing
