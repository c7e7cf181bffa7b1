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
import re
import shlex
import subprocess
import sys
import sysconfig

from cffi import FFI



def _cdef():
    """mcapi/_cdef.py's text, loaded by path: importing the package would load libmca."""
    spec = importlib.util.spec_from_file_location(
        "_mcapi_cdef", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cdef.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CDEF + mod.MRAPI_CDEF


def _compiler():
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc")
    return shlex.split(cc)


def function_names(cdef):
    """The names of the functions a cdef text declares."""
    from pycparser import CParser, c_ast
    ast = CParser().parse(_FAKE_TYPES + cdef)
    return [e.name for e in ast.ext if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl)]


# pycparser alone does not know the fixed-width types cffi predefines.
_FAKE_TYPES = "".join(f"typedef int {t};\n" for t in (
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "uintptr_t", "intptr_t", "size_t", "ssize_t"))


def header_cdef(include_dirs, names=None):
    """The declarations of mcapi.h, mcx.h and mrapi.h as the C compiler reads them, for cffi.

    The headers are preprocessed (`cc -E`), what the system headers declare is
    left out (cffi knows the standard types), attributes are stripped, and of
    the functions only @p names are kept (default: those mcapi/_cdef.py names,
    the ones the package calls; the headers also declare functions a build may
    leave out). Types and structures come from the headers only: nothing is
    restated, so the compiled module cannot drift from them.
    """
    from pycparser import CParser, c_ast
    from pycparser.c_generator import CGenerator
    src = ('#define MCX_BUILDING_LIBMCA 1 /* the public declarations without the system headers '
           'mrapi.h pulls in for the reference implementation\'s programs */\n'
           '#include "mcapi.h"\n#include "mcx.h"\n#include "mrapi.h"\n')
    dirs = [os.path.realpath(d) for d in include_dirs]
    out = subprocess.run(_compiler() + ["-E", "-std=c11", "-xc", "-"] + [f"-I{d}" for d in dirs],
                         input=src, capture_output=True, text=True, check=True).stdout
    keep, ours = [], False
    for line in out.splitlines():
        m = re.match(r'#\s*\d+\s+"(.*)"', line)
        if m:
            f = os.path.realpath(m.group(1)) if m.group(1) and not m.group(1).startswith("<") else ""
            ours = any(f.startswith(d + os.sep) for d in dirs)
            continue
        if ours and line.strip() and not line.startswith("#"):
            keep.append(line)
    text = "\n".join(keep)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)", "", text)
    text = re.sub(r"\b(__restrict|__extension__|__inline|_Noreturn)\b", "", text)
    wanted = set(names if names is not None else function_names(_cdef()))
    ast = CParser().parse(_FAKE_TYPES + text)
    nfake = _FAKE_TYPES.count("\n")
    decls = ast.ext[nfake:]
    found = {e.name for e in decls if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl)}
    missing = wanted - found
    if missing:
        raise RuntimeError("not declared by the headers: " + ", ".join(sorted(missing)))
    kept = [e for e in decls
            if not (isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl))
            or e.name in wanted]
    return CGenerator().visit(c_ast.FileAST(kept))


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
    """The FFI builder of mcapi._mcapi_api against the given directories.

    Its declarations are the headers' own (header_cdef); mcapi/_cdef.py, the
    text ABI mode uses, is the fallback when they cannot be preprocessed (no
    C preprocessor, or pycparser cannot read them), with a warning.
    """
    ffi = FFI()
    try:
        text = header_cdef(include_dirs)
    except (OSError, subprocess.CalledProcessError, RuntimeError, ImportError, Exception) as e:  # noqa: BLE001
        print(f"mcapi: the headers' declarations could not be used ({e}); "
              "using mcapi/_cdef.py", file=sys.stderr)
        text = _cdef()
    ffi.cdef(text)
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
