#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Compiles a conformance program when its test runs, links it with libmca.a,
# and runs it: a header name that is missing fails the test, not the build.
# Usage: compile_run.sh <cc> <libmca.a> [compiler flags...] <source.c>
# MCX_CONF_EMULATOR, when set, is the command that runs a target program (the
# cross build's qemu-user line, or Wine): the program is built for the target.
set -e
cc=$1
lib=$2
shift 2
dir=$(mktemp -d "${TMPDIR:-/tmp}/mca_conf.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# MCX_CONF_LIBS: what the target links besides libmca.a (Windows: its own).
# shellcheck disable=SC2086
"$cc" "$@" -o "$dir/prog" "$lib" ${MCX_CONF_LIBS:--pthread -lrt}
prog="$dir/prog"
[ -f "$prog.exe" ] && prog="$prog.exe" # MinGW names its programs *.exe
# shellcheck disable=SC2086
${MCX_CONF_EMULATOR:-} "$prog"
