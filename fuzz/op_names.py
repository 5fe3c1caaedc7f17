# SPDX-License-Identifier: BSD-3-Clause
"""Writes the qualified name of every op in ops.json as a C string list."""
import json
import sys

ops = json.load(open(sys.argv[1]))["ops"]
with open(sys.argv[2], "w") as f:
    for op in ops:
        f.write('"%s",\n' % op["qualified"])
