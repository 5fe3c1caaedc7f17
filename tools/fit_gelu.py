#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fits the polynomials of float32 gelu in src/cpu/vec_math.cpp.

  R: erfc(a) exp(a^2) = 1 + u R(u), u = K a / (1 + K a), a in [0, 4], degree 7
  S: exp(r) = 1 + r + r^2 S(r), |r| <= ln 2 / 2, degree 4

Both minimise the largest relative error: weighted least squares on
Chebyshev nodes, the weights iterated towards minimax (Lawson). Needs
mpmath (Debian: python3-mpmath) and NumPy. Prints the coefficients, highest
degree first, as the Horner loops take them, and each fit's error.
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 30
K = 0.39  # the scan over K in [0.36, 0.40] had its smallest error here
NODES = 2000


def lawson(x, f, lowest_power, degree, fixed):
    """Coefficients c of sum c_k x^k, k = lowest_power..degree, minimising the
    largest |(fixed + sum - f) / f|."""
    basis = np.vander(x, degree - lowest_power + 1) * (x**lowest_power)[:, None]
    w = np.ones_like(x)
    for _ in range(100):
        scale = w / f
        c, *_ = np.linalg.lstsq(basis * scale[:, None], (f - fixed) * scale, rcond=None)
        err = (basis @ c + fixed - f) / f
        w = w * np.sqrt(np.abs(err)) + 1e-30
        w /= w.max()
    return c, np.abs(err).max()


def chebyshev(lo, hi):
    j = np.arange(NODES)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (j + 0.5) / NODES)


def main():
    u = chebyshev(0.0, K * 4 / (1 + K * 4))
    a = u / (K * (1 - u))
    f = np.array([float(mp.erfc(v) * mp.exp(v * v)) for v in a])
    r_coef, r_err = lawson(u, f, 1, 8, 1.0)
    print(f"R (K = {K}), relative error {r_err:.3g}:")
    print("\n".join(f"  {c:.9e}" for c in r_coef))

    r = chebyshev(-float(mp.log(2)) / 2, float(mp.log(2)) / 2)
    e = np.array([float(mp.exp(v)) for v in r])
    s_coef, s_err = lawson(r, e, 2, 6, 1.0 + r)
    print(f"S, relative error {s_err:.3g}:")
    print("\n".join(f"  {c:.9e}" for c in s_coef))


if __name__ == "__main__":
    main()
