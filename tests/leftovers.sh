#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Removes what an earlier run of this build tree's tests left behind when it
# was killed: shared-memory partitions and POSIX message queues whose names
# carry one of its test namespaces (<TAG>_<test>, tests/CMakeLists.txt) and
# that no live process has open or mapped. The suite runs it first (the
# fixture suite_clean); a test that makes other things (network namespaces,
# files) removes its own leftovers when it starts.
#   leftovers.sh TAG
set -u
tag=${1:?usage: leftovers.sh TAG}
uid=$(id -u)

# Everything open or mapped by a live process (its /proc fd links and maps).
in_use=$(mktemp "${TMPDIR:-/tmp}/mcx_leftovers.XXXXXX")
trap 'rm -f "$in_use"' EXIT
for p in /proc/[0-9]*; do
  ls -l "$p/fd" 2>/dev/null | sed -n 's/.* -> //p'
  awk '{ print $6 }' "$p/maps" 2>/dev/null
done | sort -u >"$in_use"

removed=0 kept=0
sweep() { # sweep DIR PREFIX: names PREFIX* that carry -TAG_
  dir=$1
  [ -d "$dir" ] || return 0
  for f in "$dir"/"$2"*; do
    [ -e "$f" ] || continue
    case "${f##*/}" in *"-${tag}_"*) ;; *) continue ;; esac
    if grep -qxF -e "$f" -e "/${f##*/}" -e "$f (deleted)" "$in_use"; then
      kept=$((kept + 1))
    elif rm -f "$f"; then
      removed=$((removed + 1))
    fi
  done
}
sweep /dev/shm "mcx-"
# Queues of dead processes can only be found on a mounted mqueue file system.
sh "$(dirname "$0")/pmq_mqueue.sh" setup >/dev/null
sweep /dev/mqueue "mcx-$uid-"
echo "leftovers of earlier runs (tag $tag): $removed removed, $kept in use and kept"
