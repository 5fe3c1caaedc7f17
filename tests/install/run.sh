#!/usr/bin/env bash
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
