#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A conformance program built by the build but judged by its test: a header
# name that is missing fails the test, not the build.
#   compile_run.sh build <out> <cc> <libmca.a> <libs> [compiler flags...] <source.c>
#     compiles and links <out>; when that fails, writes the compiler's output
#     to <out>.log instead and still exits 0 (the build goes on).
#   compile_run.sh run <out>
#     fails with the compiler's output when the build could not make <out>,
#     else runs it.
# <libs>: what the target links besides libmca.a, one word list ("-pthread
# -lrt"; Windows: its own). MCX_CONF_EMULATOR, when set at run time, is the
# command that runs a target program (the cross build's qemu-user line, or Wine).
set -e
mode=$1
out=$2
case "$mode" in
  build)
    cc=$3 lib=$4 libs=$5
    shift 5
    rm -f "$out" "$out.exe" "$out.log"
    # shellcheck disable=SC2086
    if ! "$cc" "$@" -o "$out" "$lib" $libs >"$out.log" 2>&1; then
      rm -f "$out" "$out.exe"
      echo "compile_run: $out not built; its test reports why"
    elif [ ! -s "$out.log" ]; then
      rm -f "$out.log"
    fi
    ;;
  run)
    prog="$out"
    [ -f "$prog.exe" ] && prog="$prog.exe" # MinGW names its programs *.exe
    if [ ! -f "$prog" ]; then
      echo "compile_run: the program did not compile:"
      cat "$out.log" 2>/dev/null || echo "(no compiler output: build the tests first)"
      exit 1
    fi
    # shellcheck disable=SC2086
    ${MCX_CONF_EMULATOR:-} "$prog"
    ;;
  *)
    echo "usage: compile_run.sh build|run <out> ..." >&2
    exit 2
    ;;
esac
