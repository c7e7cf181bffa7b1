#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cross-builds libmca for 64-bit Windows with MinGW-w64 and runs the unit,
# conformance and (bounded) stress suites under Wine.
# Usage: scripts/wine-test.sh [unit|all]
#   unit: the unit suite only; all (default): unit, conformance and stress
# Needs gcc-mingw-w64-x86-64-posix and wine (scripts/deps.sh windows installs
# them). Wine runs headless in a prefix of its own under a temporary
# directory, removed at the end. Numbers measured under Wine are not Windows
# numbers: Wine runs the program on the Linux kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${1:-all}"
case "$suite" in unit | all) ;; *) echo "wine-test: unknown suite '$suite' (unit, all)" >&2; exit 2 ;; esac
t0=$SECONDS
./scripts/deps.sh windows
bld="build/cross-windows"
cmake -S . -B "$bld" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# Warnings are failures for the Windows build of the library.
log=$(mktemp)
cmake --build "$bld" -j2 2>&1 | tee "$log"
if grep -E '(^|[^-])warning:' "$log" >/dev/null; then
  echo "wine-test: the Windows build printed warnings (above)" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
echo "wine-test: build took $((SECONDS - t0)) s"

# A Wine prefix of our own, without a display, removed on exit.
export WINEPREFIX
WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/mca-wine.XXXXXX")
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko prompt
unset DISPLAY WAYLAND_DISPLAY
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$WINEPREFIX"
}
trap cleanup EXIT
t1=$SECONDS
# One server for the whole run (each program would start one otherwise); it
# ends 60 s after the last program, or at cleanup.
wineserver -p60
timeout 180 wineboot --init </dev/null >/dev/null 2>&1 || {
  echo "wine-test: wineboot --init did not finish within 180 s" >&2
  exit 1
}
echo "wine-test: Wine prefix ready in $((SECONDS - t1)) s ($(wine --version))"

labels='^(unit|conformance|stress)$'
[ "$suite" = unit ] && labels='^unit$'
export MCX_STRESS_SECONDS="${MCX_STRESS_SECONDS:-1}"
# The tests registered as skipped on Windows, each with its reason.
ctest --test-dir "$bld" -L "$labels" --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    cmd = " ".join(t.get("command") or [])
    if "skipped on Windows:" in cmd:
        print("wine-test: not run: %s: %s" % (t["name"], cmd.split("skipped on Windows: ")[1].split("'"'"'")[0]))
'
t2=$SECONDS
ctest --test-dir "$bld" -L "$labels" -j2 --timeout 300 --output-on-failure
echo "wine-test: suites took $((SECONDS - t2)) s; the whole Windows step $((SECONDS - t0)) s"
