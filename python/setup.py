# SPDX-License-Identifier: BSD-3-Clause
"""Builds the compiled binding (cffi API mode) when libmca's headers are found.

Found through MCX_PREFIX (an install prefix) or pkg-config's `mca` package.
Without them (or with MCAPI_PY_MODE=abi) the package installs as pure Python
and loads libmca.so with dlopen at import (ABI mode): docs/python.md.
"""
import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcapi"))
import _build  # noqa: E402  (mcapi/_build.py, imported without the package)

kw = {}
if os.environ.get("MCAPI_PY_MODE", "") != "abi" and _build.locate() is not None:
    kw["cffi_modules"] = ["mcapi/_build.py:_default_ffi"]
setup(**kw)
