#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs one Promela model with spin and checks the verdict.
# Usage: check.sh MODEL.pml pass|fail [-DNAME ...]
#   pass: an exhaustive search finds no error (assertion, invalid end state)
#   fail: the search finds one (a deliberately weakened model)
set -eu
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
want=$2
shift 2
command -v spin >/dev/null || { echo "SKIP: spin is not installed (scripts/deps.sh ship)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$(dirname "$model")"/*.pml .
spin -a "$@" "$(basename "$model")" >spin.out 2>&1 || { cat spin.out; exit 1; }
${CC:-cc} -O0 -w -DSAFETY -DVECTORSZ=4096 -o pan pan.c
./pan -m10000000 >pan.out 2>&1 || true
grep -E "errors:|State-vector|states, stored|pan:[0-9]|assertion violated|invalid end state|max search depth" pan.out | head -8
errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | head -1)
[ -n "$errors" ] || { echo "check: no verdict from pan"; cat pan.out; exit 1; }
if grep -q "max search depth too small" pan.out; then echo "check: search truncated"; exit 1; fi
case "$want" in
  pass) [ "$errors" -eq 0 ] || { echo "check: $(basename "$model") $*: expected no error"; exit 1; } ;;
  fail) [ "$errors" -gt 0 ] || { echo "check: $(basename "$model") $*: the weakened model passed"; exit 1; } ;;
  *) echo "check: want pass or fail"; exit 2 ;;
esac
echo "check: $(basename "$model") $*: $want as expected"
