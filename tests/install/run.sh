#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build tree into a temporary prefix and builds a tiny C program
# and a tiny C++ program (the header-only wrapper) against it with CMake's
# find_package and with pkg-config.
set -euo pipefail
BUILD=$1
SRC=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
cmake -S "$SRC" -B "$WORK/cmake" -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/cmake" >/dev/null
LD_LIBRARY_PATH="$WORK/prefix/lib" "$WORK/cmake/use_tensorc"
LD_LIBRARY_PATH="$WORK/prefix/lib" "$WORK/cmake/use_tensorc_cpp"
export PKG_CONFIG_PATH="$WORK/prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -pedantic -Werror "$SRC/use_tensorc.c" $(pkg-config --cflags --libs tensorc) -o "$WORK/use_pc"
LD_LIBRARY_PATH="$WORK/prefix/lib" "$WORK/use_pc"
c++ -std=c++17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror "$SRC/use_tensorc_cpp.cpp" $(pkg-config --cflags --libs tensorc) -o "$WORK/use_pc_cpp"
LD_LIBRARY_PATH="$WORK/prefix/lib" "$WORK/use_pc_cpp"
echo "install check: find_package and pkg-config both OK, from C and from C++"
# The Python package, when the build has it: imported from the prefix alone
# (its module finds libtensorc through a relative RPATH).
if compgen -G "$BUILD/python/tensorc/_C*.so" >/dev/null; then
  PKG=$(find "$WORK/prefix" -path "*/dist-packages/tensorc/__init__.py" | head -n1)
  [[ -n $PKG ]] || { echo "install check: the Python package was not installed" >&2; exit 1; }
  (cd "$WORK" && PYTHONPATH=$(dirname "$(dirname "$PKG")") /usr/bin/python3 -c "
import tensorc, sys
assert tensorc.__file__.startswith('$WORK/prefix'), tensorc.__file__
x = tensorc.tensor([[1.0, 2.0]], requires_grad=True)
(x * x).sum().backward()
assert x.grad.tolist() == [[2.0, 4.0]], x.grad
")
  echo "install check: the Python package imports and runs from the prefix"
fi
