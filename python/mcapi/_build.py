# SPDX-License-Identifier: BSD-3-Clause
"""Builds mcapi._mcapi_api, the compiled (cffi API mode) binding.

Used by setup.py at install time and by the tests. The headers and the
library are looked for in MCX_PREFIX (an install prefix: include/, lib/),
else through pkg-config's `mca` package (PKG_CONFIG_PATH for a prefix
elsewhere). The module links libmca.so with an rpath to its directory, so it
needs no LD_LIBRARY_PATH at run time.
"""
import importlib.util
import os
import shlex
import subprocess

from cffi import FFI



def _cdef():
    """mcapi/_cdef.py's text, loaded by path: importing the package would load libmca."""
    spec = importlib.util.spec_from_file_location(
        "_mcapi_cdef", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cdef.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CDEF + mod.MRAPI_CDEF


def locate(prefix=None):
    """(include_dirs, library_dirs) of an installed libmca, or None when none is found."""
    prefix = prefix or os.environ.get("MCX_PREFIX")
    if prefix:
        incs = [os.path.join(prefix, "include")]
        libs = [os.path.join(prefix, d) for d in ("lib", "lib64", "lib/x86_64-linux-gnu",
                                                  "lib/aarch64-linux-gnu")
                if os.path.isdir(os.path.join(prefix, d))]
        return incs, libs
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "mca"], check=True,
                                capture_output=True, text=True).stdout
        ldirs = subprocess.run(["pkg-config", "--libs-only-L", "mca"], check=True,
                               capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    incs = [a[2:] for a in shlex.split(cflags) if a.startswith("-I")]
    libs = [a[2:] for a in shlex.split(ldirs) if a.startswith("-L")]
    return incs, libs


def make_ffi(include_dirs, library_dirs):
    """The FFI builder of mcapi._mcapi_api against the given directories."""
    ffi = FFI()
    ffi.cdef(_cdef())
    ffi.set_source("mcapi._mcapi_api", '#include "mcapi.h"\n#include "mcx.h"\n#include "mrapi.h"\n',
                   include_dirs=list(include_dirs), library_dirs=list(library_dirs),
                   runtime_library_dirs=list(library_dirs), libraries=["mca"])
    return ffi


def _default_ffi():
    found = locate()
    if found is None:
        raise RuntimeError("libmca not found: set MCX_PREFIX to its install prefix "
                           "or PKG_CONFIG_PATH to its lib/pkgconfig")
    return make_ffi(*found)


if __name__ == "__main__":
    _default_ffi().compile(verbose=True)
