# SPDX-License-Identifier: BSD-3-Clause
"""Runs tests/python in API mode: the compiled module (mcapi/_build.py, its
declarations from the headers) is built against this build tree into a
temporary directory, with a copy of the package, and pytest runs there.

    api_mode.py SOURCE_DIR BUILD_DIR LIB_DIR   (ctest python_mcapi_api)
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main(src, build, libdir):
    with tempfile.TemporaryDirectory(prefix="mcapi-api-") as tmp:
        pkg = os.path.join(src, "python", "mcapi")
        shutil.copytree(pkg, os.path.join(tmp, "mcapi"),
                        ignore=shutil.ignore_patterns("_mcapi_api*", "__pycache__"))
        sys.path.insert(0, pkg)
        import _build
        ffi = _build.make_ffi([os.path.join(src, "include"), os.path.join(build, "include")], [libdir])
        ffi.compile(tmpdir=tmp, verbose=False)
        env = dict(os.environ, PYTHONPATH=tmp, MCAPI_PY_MODE="api")
        return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                os.path.join(src, "tests", "python")], env=env, cwd=tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
