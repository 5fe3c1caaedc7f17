# SPDX-License-Identifier: BSD-3-Clause
"""Comparisons PyTorch users test with, composed from schema ops."""
from ._override_protocol import _dispatches


@_dispatches
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |input - other| <= atol + rtol * |other| (NaN == NaN with equal_nan)."""
    close = (input == other) | ((input - other).abs() <= atol + rtol * other.abs())
    if equal_nan:
        close = close | (input.isnan() & other.isnan())
    return close


@_dispatches
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of input is close to other's (see isclose)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@_dispatches
def equal(input, other):
    """Whether both have the same shape and elements."""
    return input.shape == other.shape and bool((input == other).all())
