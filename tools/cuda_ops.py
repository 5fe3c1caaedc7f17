#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which built-in ops run on CUDA: prints, from the dispatcher's own tables,
every op whose CUDA slot is missing (it stays CPU-only for now, and a CUDA
call fails with TC_ERROR_NOT_IMPLEMENTED naming it), then the counts.

  tools/cuda_ops.py [BUILD_DIR] [--require OP,OP...]   (default: build)
  tools/cuda_ops.py [BUILD_DIR] --scalar-sync

--scalar-sync: instead, every Scalar argument that a 0-dim device tensor
(TC_SCALAR_TENSOR) reaches as a number read on the host, which synchronises
with the device; then the count of those that go to a Tensor overload and
stay on the device. From the generator's listing (ops.json).

--require: exit 1 if one of those ops has no CUDA kernel (the ctest
cuda_ops_listing uses it, so a lost registration fails the tests).

An op served by a composite kernel counts as covered: it runs on CUDA when
the ops it is made of do. Needs no GPU."""
import ctypes
import json
import pathlib
import sys


def list_scalar_sync(ops) -> int:
    on_device = 0
    for op in ops:
        routed = op.get("tensor_overload", {}).get("arguments", [])
        for arg in op["arguments"]:
            if arg["type"] not in ("Scalar", "Scalar?"):
                continue
            if arg["name"] in routed:
                on_device += 1
            else:
                print(f"{op['qualified']}: {arg['name']}")
    print(f"# {on_device} Scalar arguments go to a Tensor overload and stay on the device")
    return 0


def main() -> int:
    args = sys.argv[1:]
    required = []
    if "--require" in args:
        i = args.index("--require")
        required = args[i + 1].split(",")
        del args[i:i + 2]
    scalar_sync = "--scalar-sync" in args
    if scalar_sync:
        args.remove("--scalar-sync")
    build = pathlib.Path(args[0] if args else "build").resolve()
    if scalar_sync:
        return list_scalar_sync(json.loads((build / "generated" / "ops.json").read_text())["ops"])
    lib = ctypes.CDLL(str(build / "libtensorc.so"))
    lib.tc_op_dump_table.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t),
                                     ctypes.c_char_p]
    ops = json.loads((build / "generated" / "ops.json").read_text())["ops"]
    missing, kernel, composite = [], 0, 0
    buf = ctypes.create_string_buffer(1 << 16)
    needed = ctypes.c_size_t()
    for op in ops:
        if lib.tc_op_dump_table(buf, len(buf), ctypes.byref(needed), op["qualified"].encode()) != 0:
            print(f"{op['qualified']}: no dispatch table", file=sys.stderr)
            return 1
        line = next(l for l in buf.value.decode().splitlines() if l.strip().startswith("CUDA:"))
        source = line.split(":", 1)[1].strip()
        if source == "missing":
            missing.append(op["qualified"])
        elif source.startswith("kernel registered"):
            kernel += 1
        else:
            composite += 1
    for name in missing:
        print(name)
    print(f"# {len(ops)} ops: {kernel} with a CUDA kernel, {composite} through a composite kernel, "
          f"{len(missing)} CPU-only (listed above)")
    lost = [name for name in required if name in missing or name not in {op["qualified"] for op in ops}]
    if lost:
        print(f"no CUDA kernel for: {', '.join(lost)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
