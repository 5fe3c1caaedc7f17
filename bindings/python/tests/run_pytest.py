# SPDX-License-Identifier: BSD-3-Clause
"""Runs the Python suite with pytest; a run that collects no test fails."""
import sys

import pytest

code = pytest.main(["-q", "-p", "no:cacheprovider"] + sys.argv[1:])
if code == 5:
    print("run_pytest: pytest collected no tests", file=sys.stderr)
sys.exit(code)
