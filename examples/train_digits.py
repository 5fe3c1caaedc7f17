#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Trains the digits MLP of train_digits.c (64 -> 64 -> ReLU -> 10, SGD with
momentum 0.9, lr 0.1, batches of 32, 30 epochs, 20 % held out) with
tensorc.nn and tensorc.optim, and prints the held-out accuracy.

    train_digits.py [path/to/digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A] [--device D]
                    [--autocast DTYPE] [--grad-scaler]

The shuffles (a xorshift generator), the split and the initial weights
(tensorc's generator seeded with --seed, w ~ N(0, 1/fan_in), b = 0) are the
C demo's, so both train the same network on the same batches.

--device cuda trains on the GPU (the same network, batches and initial
weights, moved there).

--autocast bfloat16 (or float16) runs the forward pass and the loss under
tensorc.autocast on the device: the linear layers in that dtype, the loss in
float32, the weights and their gradients kept in float32. --grad-scaler adds
a GradScaler (loss scaling, steps skipped on inf/NaN gradients), as float16
training uses.

Exit codes, as the C demo's: 0 trained (and reached --min-accuracy when
given); 1 tensorc error; 2 bad arguments or an unreadable/corrupt data file;
3 accuracy below --min-accuracy; 77 --device names a device this machine
does not have (a test runner reports it as skipped).

train_epoch() and make_model() only use what torch and tensorc share, so a
benchmark can time one epoch of both with the same code."""
import argparse
import gzip
import os
import sys
import zlib

import numpy as np

import tensorc
from tensorc import nn, optim

N_PIXELS, N_HIDDEN, N_CLASSES = 64, 64, 10
LEARNING_RATE, MOMENTUM, BATCH_SIZE, EPOCHS = 0.1, 0.9, 32, 30
DEFAULT_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.csv.gz")
_MASK64 = (1 << 64) - 1


class DataError(Exception):
    """The data file is missing, corrupt or not the digits set (exit code 2)."""


def load_digits(path):
    """(pixels, labels): float32 (rows, 64) scaled to [0, 1] and int64 (rows,),
    from "p0,...,p63,label" lines with pixels in 0..16 and labels in 0..9."""
    try:
        with gzip.open(path, "rt") as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
    except OSError as e:
        raise DataError("cannot read '{}': {}".format(path, e))
    except (EOFError, zlib.error) as e:
        raise DataError("'{}' is corrupt: {}".format(path, e))
    rows = np.empty((len(lines), N_PIXELS + 1), dtype=np.int64)
    for i, line in enumerate(lines):
        fields = line.split(",")
        try:
            values = [int(v) for v in fields]
        except ValueError:
            values = None
        if values is None or len(values) != N_PIXELS + 1 or min(values) < 0 or max(values[:-1]) > 16 \
                or values[-1] >= N_CLASSES:
            raise DataError("'{}' line {} is not a digits row (expected 64 pixels in 0..16 and a label in 0..9, "
                            "comma-separated)".format(path, i + 1))
        rows[i] = values
    if len(rows) < 20:
        raise DataError("'{}' holds {} rows; expected the 1797 digits".format(path, len(rows)))
    return (rows[:, :N_PIXELS] / 16.0).astype(np.float32), rows[:, N_PIXELS].copy()


class XorShift:
    """The C demo's shuffle generator (xorshift64), independent of any library."""

    def __init__(self, seed):
        self.state = (88172645463325252 + (seed & _MASK64) * 0x9E3779B97F4A7C15) & _MASK64

    def next(self):
        x = self.state
        x ^= (x << 13) & _MASK64
        x ^= x >> 7
        x ^= (x << 17) & _MASK64
        self.state = x
        return x

    def shuffle(self, items, n):
        """Fisher-Yates over items[0:n], in place, drawing as the C demo does."""
        for i in range(n - 1, 0, -1):
            j = self.next() % (i + 1)
            items[i], items[j] = items[j], items[i]


def make_model(nn_module=nn):
    """The MLP, built from nn_module (tensorc.nn or torch.nn)."""
    return nn_module.Sequential(nn_module.Linear(N_PIXELS, N_HIDDEN), nn_module.ReLU(),
                                nn_module.Linear(N_HIDDEN, N_CLASSES))


def init_like_c_demo(model, seed):
    """The C demo's initial weights: from tensorc's generator seeded with seed,
    w ~ N(0, 1/fan_in) drawn as (in, out), biases drawn and scaled to 0 (the
    draws keep the generator in step with the C demo)."""
    tensorc.manual_seed(seed & _MASK64)
    layers = [model[0], model[2]]
    with tensorc.no_grad():
        for layer in layers:
            weight = tensorc.randn(layer.in_features, layer.out_features) * (1.0 / layer.in_features ** 0.5)
            bias = tensorc.randn(layer.out_features) * 0.0
            layer.weight.copy_(weight.t())
            layer.bias.copy_(bias)


def train_epoch(model, loss_fn, optimizer, x, y, batch_size=BATCH_SIZE, amp=None, scaler=None):
    """One pass over (x, y) in order, in batches; returns the mean batch loss.
    amp: a function returning the autocast context the forward pass runs in;
    scaler: a GradScaler (both optional, both as torch spells them)."""
    total, batches = 0.0, 0
    n = x.shape[0]
    for start in range(0, n, batch_size):
        count = min(batch_size, n - start)
        if amp is None:
            loss = loss_fn(model(x.narrow(0, start, count)), y.narrow(0, start, count))
        else:
            with amp():
                loss = loss_fn(model(x.narrow(0, start, count)), y.narrow(0, start, count))
        optimizer.zero_grad()
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        total += loss.item()
        batches += 1
    return total / batches


def accuracy(model, x, y):
    with tensorc.no_grad():
        predicted = model(x).cpu().argmax(1)
    return (predicted == y.cpu()).sum().item() / y.shape[0]


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Trains the digits MLP with tensorc.nn and tensorc.optim.")
    parser.add_argument("path", nargs="?", default=DEFAULT_DATA, help="digits.csv.gz")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-accuracy", type=float, default=None)
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--autocast", choices=("bfloat16", "float16"), default=None,
                        help="train under tensorc.autocast with this dtype")
    parser.add_argument("--grad-scaler", action="store_true", help="scale the loss with a GradScaler")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.device.startswith("cuda") and not tensorc.cuda.is_available():
        print("SKIPPED: --device {}: {}".format(args.device, tensorc.cuda.unavailable_reason()))
        return 77
    try:
        pixels, labels = load_digits(args.path)
    except DataError as e:
        print("train_digits: {}".format(e), file=sys.stderr)
        return 2
    rows = len(labels)
    rng = XorShift(args.seed)
    order = list(range(rows))
    rng.shuffle(order, rows)
    n_test = rows // 5
    n_train = rows - n_test
    print("digits: {} images from {}; training on {}, holding out {}, on {}{}".format(
        rows, args.path, n_train, n_test, args.device, ", autocast " + args.autocast if args.autocast else ""))

    try:
        x_all, y_all = tensorc.tensor(pixels).to(args.device), tensorc.tensor(labels).to(args.device)
        model = make_model()
        init_like_c_demo(model, args.seed)
        model.to(args.device)
        loss_fn = nn.CrossEntropyLoss()
        optimizer = optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
        device_type = args.device.split(":")[0]
        amp = None
        if args.autocast:
            dtype = getattr(tensorc, args.autocast)
            amp = lambda: tensorc.autocast(device_type, dtype=dtype)  # noqa: E731
        scaler = tensorc.amp.GradScaler(device_type) if args.grad_scaler else None
        for epoch in range(1, args.epochs + 1):
            rng.shuffle(order, n_train)  # the held-out tail stays put
            index = tensorc.tensor(order[:n_train]).to(args.device)
            loss = train_epoch(model, loss_fn, optimizer, x_all.index_select(0, index), y_all.index_select(0, index),
                               amp=amp, scaler=scaler)
            print("epoch {:2d}  loss {:.4f}".format(epoch, loss) +
                  ("  scale {:g}".format(scaler.get_scale()) if scaler else ""))
        held_out = tensorc.tensor(order[n_train:]).to(args.device)
        acc = accuracy(model, x_all.index_select(0, held_out), y_all.index_select(0, held_out))
    except tensorc.Error as e:
        print("train_digits: {}: {}".format(type(e).__name__, e), file=sys.stderr)
        return 1
    print("held-out accuracy: {:.4f} ({} of {})".format(acc, round(acc * n_test), n_test))
    if args.min_accuracy is not None and acc < args.min_accuracy:
        print("train_digits: accuracy {:.4f} is below --min-accuracy {:.4f}".format(acc, args.min_accuracy),
              file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
