#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command while N processes burn CPU, as on a busy shared machine.
# Usage: scripts/under-load.sh N command [args...]
# The hogs are stress-ng's --cpu workers when stress-ng is installed (deps.sh),
# shell loops otherwise; they stop when the command ends, however it ends.
set -euo pipefail
n="${1:?usage: scripts/under-load.sh N command [args...]}"
shift
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "under-load: N must be a positive count, not '$n'" >&2; exit 2; }
[ $# -gt 0 ] || { echo "under-load: no command" >&2; exit 2; }
hogs=()
stop() {
  [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
  wait "${hogs[@]}" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT TERM
if command -v stress-ng >/dev/null; then
  stress-ng --cpu "$n" --quiet &
  hogs+=($!)
  what="stress-ng --cpu $n"
else
  for ((i = 0; i < n; i++)); do
    sh -c 'while :; do :; done' &
    hogs+=($!)
  done
  what="$n shell loops"
fi
echo "under-load: $what burning CPU while: $*"
"$@"
