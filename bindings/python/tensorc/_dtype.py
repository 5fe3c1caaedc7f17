# SPDX-License-Identifier: BSD-3-Clause
"""Element types: tensorc.float32 and friends, with the C ABI's codes."""


class dtype:
    """An element type. Compare with `is` or ==; print as PyTorch does."""
    __slots__ = ("_code", "_name", "itemsize", "is_floating_point", "is_signed", "_numpy")

    def __init__(self, code, name, itemsize, is_floating_point, is_signed, numpy_name):
        self._code, self._name, self.itemsize = code, name, itemsize
        self.is_floating_point, self.is_signed, self._numpy = is_floating_point, is_signed, numpy_name

    def __repr__(self):
        return "tensorc." + self._name

    def __reduce__(self):
        return (_by_name, (self._name,))

    @property
    def is_complex(self):
        return False


bool = dtype(0, "bool", 1, False, False, "bool")
uint8 = dtype(1, "uint8", 1, False, False, "uint8")
int8 = dtype(2, "int8", 1, False, True, "int8")
int16 = dtype(3, "int16", 2, False, True, "int16")
int32 = dtype(4, "int32", 4, False, True, "int32")
int64 = dtype(5, "int64", 8, False, True, "int64")
float16 = dtype(6, "float16", 2, True, True, "float16")
bfloat16 = dtype(7, "bfloat16", 2, True, True, None)
float32 = dtype(8, "float32", 4, True, True, "float32")
float64 = dtype(9, "float64", 8, True, True, "float64")

short, int, long = int16, int32, int64
half, float, double = float16, float32, float64

_BY_CODE = {d._code: d for d in (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)}
_BY_NUMPY = {d._numpy: d for d in _BY_CODE.values() if d._numpy}


def _by_name(name):
    return globals()[name]


def _from_code(code):
    return _BY_CODE[code]
