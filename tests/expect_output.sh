#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: expect_output.sh RC PATTERN COMMAND...
# Runs COMMAND; passes when it exits with RC (or any non-zero, non-77 code when
# RC is "fail") and its output (stdout+stderr) contains PATTERN (grep -E).
want="$1"; pattern="$2"; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$want" = fail ]; then
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then echo "expected a failure exit, got $rc"; exit 1; fi
elif [ "$rc" -ne "$want" ]; then
  echo "expected exit $want, got $rc"; exit 1
fi
printf '%s\n' "$out" | grep -Eq -- "$pattern" || { echo "output lacks /$pattern/"; exit 1; }
exit 0
