# SPDX-License-Identifier: BSD-3-Clause
"""Per-op overhead of the Python module: 1-element add through tensorc,
Debian's torch 1.13 and NumPy, interleaved in one process.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_overhead.py [--trials 7]

Each trial times every row once, in turn (A/B interleaving), so the machine's
slow and fast phases hit all of them alike; the table gives the median of the
trials' per-call times, their spread (min-max), and the ratio of medians to
torch and to NumPy. One thread everywhere: the peers' pools would otherwise
fight over the 2 cores."""
import argparse
import os
import statistics
import timeit

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TC_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tensorc  # noqa: E402

torch.set_num_threads(1)
tensorc.set_num_threads(1)

ta, tb = tensorc.tensor([1.0]), tensorc.tensor([2.0])
pa, pb = torch.tensor([1.0]), torch.tensor([2.0])
na, nb = np.array([1.0], dtype=np.float32), np.array([2.0], dtype=np.float32)

# (row, tensorc statement, torch statement, numpy statement)
ROWS = [
    ("a + b", "ta + tb", "pa + pb", "na + nb"),
    ("add(a, b)", "tensorc.add(ta, tb)", "torch.add(pa, pb)", "np.add(na, nb)"),
    ("a.add(b)", "ta.add(tb)", "pa.add(pb)", "na.__add__(nb)"),
    ("a + 1.0", "ta + 1.0", "pa + 1.0", "na + 1.0"),
    ("a.add_(b) (in place)", "ta.add_(tb)", "pa.add_(pb)", "np.add(na, nb, out=na)"),
    ("a.relu()", "ta.relu()", "pa.relu()", "np.maximum(na, 0)"),
    ("a.sum()", "ta.sum()", "pa.sum()", "na.sum()"),
]
LIBS = ("tensorc", "torch", "numpy")


def per_call_ns(stmt, number):
    return timeit.timeit(stmt, globals=globals(), number=number) / number * 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--number", type=int, default=100000)
    args = parser.parse_args()
    times = {(row[0], lib): [] for row in ROWS for lib in LIBS}
    for stmt in (s for row in ROWS for s in row[1:]):  # warm up
        per_call_ns(stmt, 1000)
    for _ in range(args.trials):
        for row in ROWS:
            for lib, stmt in zip(LIBS, row[1:]):
                times[(row[0], lib)].append(per_call_ns(stmt, args.number))
    print("| op (1 element, float32) | tensorc ns | torch ns | NumPy ns | tensorc / torch | tensorc / NumPy |")
    print("|---|---|---|---|---|---|")
    for row in ROWS:
        med = {lib: statistics.median(times[(row[0], lib)]) for lib in LIBS}
        spread = {lib: "{:.0f}–{:.0f}".format(min(times[(row[0], lib)]), max(times[(row[0], lib)])) for lib in LIBS}
        print("| `{}` | {:.0f} ({}) | {:.0f} ({}) | {:.0f} ({}) | {:.2f} | {:.2f} |".format(
            row[0], med["tensorc"], spread["tensorc"], med["torch"], spread["torch"], med["numpy"],
            spread["numpy"], med["tensorc"] / med["torch"], med["tensorc"] / med["numpy"]))
    print("\n{} trials x {} calls; torch {}, NumPy {}, tensorc {}".format(
        args.trials, args.number, torch.__version__, np.__version__, tensorc.__version__))


if __name__ == "__main__":
    main()
