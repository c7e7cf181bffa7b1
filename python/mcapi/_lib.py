# SPDX-License-Identifier: BSD-3-Clause
"""Loads libmca: the compiled module when installed with one, else dlopen().

API mode (mcapi._mcapi_api, built at install against the headers) calls the C
functions directly; ABI mode (cffi's dlopen) goes through libffi and costs
more per call. MCAPI_PY_MODE=abi forces ABI mode. In ABI mode the library is
MCX_LIBMCA (a path), else what ctypes.util.find_library("mca") finds, else
the usual install paths.
"""
import ctypes.util
import os

from ._cdef import CDEF, MRAPI_CDEF

_INSTALLED = ("/usr/local/lib/libmca.so.0", "/usr/local/lib/libmca.so",
              "/usr/lib/libmca.so.0", "/usr/lib/x86_64-linux-gnu/libmca.so.0")



def _abi():
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(CDEF + MRAPI_CDEF)
    tried = []
    env = os.environ.get("MCX_LIBMCA")
    candidates = [env] if env else []
    found = ctypes.util.find_library("mca")
    if found:
        candidates.append(found)
    candidates += [p for p in _INSTALLED if os.path.exists(p)]
    for path in candidates:
        try:
            return ffi, ffi.dlopen(path), "abi"
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError("libmca.so not found (set MCX_LIBMCA to its path); tried: "
                      + ("; ".join(tried) or "nothing"))


def load():
    """(ffi, lib, mode) with mode "api" or "abi"."""
    if os.environ.get("MCAPI_PY_MODE", "") != "abi":
        try:
            from ._mcapi_api import ffi, lib
            return ffi, lib, "api"
        except ImportError:
            if os.environ.get("MCAPI_PY_MODE", "") == "api":
                raise
    return _abi()


ffi, lib, MODE = load()
