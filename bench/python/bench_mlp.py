# SPDX-License-Identifier: BSD-3-Clause
"""One training epoch of the digits MLP (64-64-10, batch 32, SGD lr 0.1
momentum 0.9, cross-entropy), written the same way with tensorc.nn/optim and
with Debian's torch 1.13, interleaved in one process.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_mlp.py [--trials 7] [--autocast]

--autocast runs each step's forward pass and loss under CPU bfloat16
autocast on both sides (tensorc.autocast("cpu") and torch.autocast("cpu",
dtype=torch.bfloat16)): the linear layers in bfloat16, the loss in float32.

Both run on the same 1437 training rows of examples/data/digits.csv.gz, in the
same batch order, one thread each. The table gives the median epoch time over
the trials, the spread, and the ratio tensorc / torch (target <= 1.0)."""
import argparse
import gzip
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TC_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tensorc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "examples", "data", "digits.csv.gz")


def load():
    with gzip.open(DATA, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x, y = rows[:, :64] / 16.0, rows[:, 64].astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))[:1437]
    return x[order], y[order]


def make_epoch(lib, x, y, batch=32, amp=False):
    nn, optim = lib.nn, lib.optim
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = [(lib.tensor(x[i:i + batch]), lib.tensor(y[i:i + batch])) for i in range(0, len(x), batch)]

    def forward(xb, yb):
        if not amp:
            return loss_fn(model(xb), yb)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            return loss_fn(model(xb), yb)

    def epoch():
        total = 0.0
        for xb, yb in batches:
            opt.zero_grad()
            loss = forward(xb, yb)
            loss.backward()
            opt.step()
            total += loss.item()
        return total / len(batches)
    return epoch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--autocast", action="store_true", help="forward and loss under CPU bfloat16 autocast")
    args = parser.parse_args()
    torch.set_num_threads(1)
    tensorc.set_num_threads(1)
    x, y = load()
    epochs = {"tensorc": make_epoch(tensorc, x, y, amp=args.autocast),
              "torch": make_epoch(torch, x, y, amp=args.autocast)}
    for run in epochs.values():  # warm up
        run()
    times = {name: [] for name in epochs}
    losses = {}
    for _ in range(args.trials):
        for name, run in epochs.items():
            t0 = time.perf_counter()
            losses[name] = run()
            times[name].append((time.perf_counter() - t0) * 1e3)
    med = {n: statistics.median(t) for n, t in times.items()}
    print("| digits MLP epoch (45 steps of 32) | tensorc ms | torch ms | tensorc / torch |")
    print("|---|---|---|---|")
    print("| 64-64-10, SGD momentum, 1 thread{} | {:.1f} ({:.1f}–{:.1f}) | {:.1f} ({:.1f}–{:.1f}) | {:.2f} |".format(
        ", bfloat16 autocast" if args.autocast else "", med["tensorc"], min(times["tensorc"]), max(times["tensorc"]), med["torch"], min(times["torch"]),
        max(times["torch"]), med["tensorc"] / med["torch"]))
    print("\n{} trials; last epoch's mean loss: tensorc {:.4f}, torch {:.4f}".format(
        args.trials, losses["tensorc"], losses["torch"]))


if __name__ == "__main__":
    main()
