# SPDX-License-Identifier: BSD-3-Clause
"""The GIL is released while the library works, and grad mode is per thread."""
import sys
import threading

import tensorc


def test_ops_release_the_gil():
    # With a switch interval of seconds, a thread holding the GIL keeps it
    # until it blocks or releases it. The worker runs one long matmul: if the
    # wrapper kept the GIL, the main thread could not count until the worker
    # had finished; it counts because the library runs without it.
    a = tensorc.rand(1500, 1500)
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        tensorc.mm(a, a)
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        ticks = 0
        while not done.is_set():
            ticks += 1
        worker.join()
    finally:
        sys.setswitchinterval(old)
    assert ticks > 100, "the main thread could not run while the library worked"


def test_threads_run_ops_concurrently_and_correctly():
    results = {}

    def work(i):
        x = tensorc.full((64, 64), float(i))
        for _ in range(50):
            x = x + 1
        results[i] = x.sum().item()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: 64 * 64 * (i + 50.0) for i in range(4)}


def test_grad_mode_is_per_thread():
    seen = {}

    def work():
        seen["worker"] = tensorc.is_grad_enabled()

    with tensorc.no_grad():
        t = threading.Thread(target=work)
        t.start()
        t.join()
        seen["main"] = tensorc.is_grad_enabled()
    assert seen == {"worker": True, "main": False}
